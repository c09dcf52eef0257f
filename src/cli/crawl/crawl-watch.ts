// Watches a started crawl to its end from `crawler crawl`: its status on the progress line, the
// outages of Temporal, Postgres and the object store said as they happen, Ctrl-C asks the crawl to
// stop (twice: leave it running and exit), SIGTERM leaves it running in Temporal.
import { WorkflowFailedError, type Client, type WorkflowHandle } from '@temporalio/client';
import { crawlStatusQuery, stopCrawlSignal } from '../../contracts/messages.js';
import type { CrawlSummary } from '../../contracts/status.js';
import { clockTime } from '../../contracts/describe-waits.js';
import { redactCredentials } from '../../domain/url/index.js';
import { CliError } from '../cli-error.js';
import { isTransientClientError, retryThroughOutages, type OutageRetryOptions } from '../client-outages.js';
import { ServiceWatch, describeOutage, objectStoreProbe, postgresProbe } from '../service-watch.js';
import type { StackEndpoints } from '../../stack/index.js';
import type { ProgressLine } from './progress-line.js';

/** What the wait for a crawl's end gives when SIGTERM came first. */
export const LEFT_RUNNING = Symbol('left running');

/** A status query unanswered this long is reported on the progress line. */
const STATUS_SILENCE_MS = 5_000;
/** How long the end of a crawl waits for a status query still in flight. */
const STATUS_QUERY_DRAIN_MS = 30_000;
/** How often the progress line asks the crawl for its status. */
const STATUS_INTERVAL_MS = 1_000;

export interface CrawlWatchRequest {
  client: Client;
  handle: WorkflowHandle;
  crawlId: string;
  endpoints: StackEndpoints;
  progress: ProgressLine;
  outageNotes: OutageRetryOptions;
  say: (line: string) => void;
  link: string | undefined;
}

export async function watchCrawlToEnd(request: CrawlWatchRequest): Promise<CrawlSummary | typeof LEFT_RUNNING> {
  const { client, handle, crawlId, progress, link } = request;
  const services = watchServices(request.endpoints, progress);
  const signals = onSignals(handle, request.say);
  const polling = pollStatus(handle, progress);
  try {
    // handle.result() long-polls; a poll that fails on an outage is polled again, not fatal. Cut on
    // SIGTERM: its failure (CANCELLED) is the race's, not unhandled.
    const result = client.connection.withAbortSignal(signals.leaveRunning, () => retryThroughOutages(() => handle.result(), request.outageNotes)) as Promise<CrawlSummary>;
    return await Promise.race([result, signals.terminated]);
  } catch (error) {
    if (error instanceof WorkflowFailedError) {
      throw new CliError(`crawl ${crawlId} failed: ${error.cause?.message ?? error.message}${link ? ` (details: ${link})` : ''}. Its records are kept: \`crawler export --crawl ${crawlId}\` reads them`);
    }
    throw error;
  } finally {
    services.stop();
    await polling.stop();
    progress.done();
    signals.detach();
  }
}

/** Postgres and the object store: their outages are waited out by the activities; this says so. */
function watchServices(endpoints: StackEndpoints, progress: ProgressLine): ServiceWatch {
  const services = new ServiceWatch({ Postgres: postgresProbe(endpoints.postgres.url), 'object store': objectStoreProbe(endpoints.s3) }, (outages) =>
    progress.note(
      'services',
      outages.length === 0 ? undefined : outages.map((outage) => describeOutage({ ...outage, error: redactCredentials(outage.error) })).join('; '),
    ),
  );
  services.start();
  return services;
}

/**
 * Ctrl-C once asks the crawl to stop; twice exits and leaves it running. SIGTERM (a supervisor, a
 * CI timeout, `kill`): this process goes, the crawl stays in Temporal for a worker to carry on;
 * nothing is lost, as when the process dies, only said and tidied. The wait for the crawl's end is
 * cancelled then: a long poll left behind kept the process alive for its client's retries.
 */
function onSignals(handle: WorkflowHandle, say: (line: string) => void): { leaveRunning: AbortSignal; terminated: Promise<typeof LEFT_RUNNING>; detach: () => void } {
  let interrupted = 0;
  const onSigint = (): void => {
    interrupted += 1;
    if (interrupted === 1) {
      say('stopping the crawl gracefully (Ctrl-C again to leave it running and exit)');
      void handle.signal(stopCrawlSignal, { reason: 'interrupted from the command line' }).catch(() => undefined);
    } else {
      process.exit(130);
    }
  };
  const leaveRunning = new AbortController();
  const onSigterm = (): void => leaveRunning.abort();
  process.on('SIGINT', onSigint);
  process.once('SIGTERM', onSigterm);
  const terminated = new Promise<typeof LEFT_RUNNING>((resolve) => leaveRunning.signal.addEventListener('abort', () => resolve(LEFT_RUNNING), { once: true }));
  return {
    leaveRunning: leaveRunning.signal,
    terminated,
    detach: () => {
      process.off('SIGINT', onSigint);
      process.off('SIGTERM', onSigterm);
    },
  };
}

/**
 * The crawl's status every second, one query at a time (through an outage the client retries each,
 * and a new one a second piled up). The client retries a call to an unreachable server for a while
 * before it fails: a query unanswered for long says so instead of leaving the last line standing.
 */
function pollStatus(handle: WorkflowHandle, progress: ProgressLine): { stop: () => Promise<void> } {
  let lastStatusAtMs = Date.now();
  let statusQuery: Promise<void> | undefined;
  const timer = setInterval(() => {
    if (Date.now() - lastStatusAtMs > STATUS_SILENCE_MS) {
      progress.note('temporal', `no crawl status from Temporal since ${clockTime(lastStatusAtMs)} (is it up? \`crawler stack status\`); the crawl goes on, retrying`);
    }
    if (statusQuery !== undefined) return;
    statusQuery = handle
      .query(crawlStatusQuery)
      .then((status) => {
        lastStatusAtMs = Date.now();
        progress.note('temporal', undefined);
        progress.show(status);
      })
      .catch((error: unknown) => {
        if (isTransientClientError(error)) progress.note('temporal', `Temporal not answering (${firstLine(error)}); the crawl goes on, retrying`);
      })
      .finally(() => (statusQuery = undefined));
  }, STATUS_INTERVAL_MS);
  return {
    // A query the client is still retrying must end before the worker closes the connection: the
    // client's retry timer calls into the closed channel, which throws out of the timer ("Channel
    // has been shut down") and exits 1 after a finished crawl. Bounded: a query nothing answers
    // must not hold the exit for ever.
    stop: async () => {
      clearInterval(timer);
      await Promise.race([statusQuery, new Promise((resolve) => setTimeout(resolve, STATUS_QUERY_DRAIN_MS).unref())]);
    },
  };
}

export function firstLine(error: unknown): string {
  return (error instanceof Error ? error.message : String(error)).split('\n')[0]!.slice(0, 160);
}
