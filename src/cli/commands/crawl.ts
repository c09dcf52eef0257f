import { readFile } from 'node:fs/promises';
import { randomBytes } from 'node:crypto';
import { WorkflowExecutionAlreadyStartedError, WorkflowFailedError, WorkflowNotFoundError, type WorkflowHandle } from '@temporalio/client';
import { CRAWL_CONFIG_INTEGER_RANGES, CrawlConfigError, DEFAULT_CRAWL_CONFIG, resolveCrawlConfig, type CrawlConfig, type CrawlTrapConfig, type IntegerRange } from '../../config/crawl-config.js';
import { QueryPolicyConfigError, compileQueryPolicies, redactCredentials, redactUserinfo, tryCanonicalizeUrl, type OriginQueryPolicy } from '../../domain/url/index.js';
import { createCrawlerWorker } from '../../workers/crawler-worker.js';
import { WorkerStartError } from '../../workers/worker-start-error.js';
import { crawlStatusQuery, crawlWorkflowId, DEFAULT_TASK_QUEUE, stopCrawlSignal } from '../../contracts/messages.js';
import type { CrawlStatus, CrawlSummary } from '../../contracts/status.js';
import { clockTime, describeCrawlWaits, describeRenders } from '../../contracts/describe-waits.js';
import { describeCrawlEnd, describeDiscovery } from '../../contracts/describe-crawl-end.js';
import type { CrawlWorkflowInput } from '../../workflows/crawl-workflow.js';
import { changeFieldsOption, costModelOption, dataDirOption, defaultDataDir, integerOption, logFormatOption, parseCommandArgs, proxyCredentialsOption, proxyOption } from '../args.js';
import { CliError } from '../cli-error.js';
import { isTransientClientError, retryThroughOutages } from '../client-outages.js';
import { flagOfConfigField } from '../config-flags.js';
import { connectServices, temporalUiLink } from '../services.js';
import { ServiceWatch, describeOutage, objectStoreProbe, postgresProbe } from '../service-watch.js';
import { SEEDS_IN_WORKFLOW_INPUT, checkSeedsFile, seedBatches } from '../seeds-file.js';
import { connectDatabase } from '../client.js';
import { registerSeedBatch } from '../../services/frontier/seed-registration.js';
import type { Pool } from '../../storage/postgres/pool.js';
import { findChromium } from '../../browser/index.js';
import { DEFAULT_RENDER_BUDGET, isRenderMode, type RenderMode } from '../../domain/render/index.js';
import { DEFAULT_RENDER_CONFIG, type CrawlRenderConfig } from '../../config/render-config.js';

const D = DEFAULT_CRAWL_CONFIG;

export const crawlUsage = `usage: crawler crawl [URL...] [--seeds-file F] [--max-pages N] [--max-depth D]
                     [--min-host-delay-ms MS] [--user-agent UA] [--allow-private-networks]
                     [--scope same-host|same-registrable-domain|any] [--allow-prefix P]...
                     [--deny-prefix P]... [--query-policies FILE] [--follow-nofollow]
                     [--trap-options FILE] [--max-discovered-urls N]
                     [--seen-filter-capacity N] [--seen-filter-fp-rate P] [--max-in-flight N]
                     [--max-concurrent-per-host N] [--max-body-bytes N] [--max-decompressed-bytes N]
                     [--connect-timeout-ms MS] [--first-byte-timeout-ms MS] [--body-timeout-ms MS]
                     [--politeness JSON] [--change-field NAME=SELECTOR]... [--listing-page PREFIX]...
                     [--sitemaps declared|declared-and-default|off] [--sitemap-priority-cap P]
                     [--proxy URL]... [--proxy-session-requests N] [--proxy-credentials-file F]
                     [--cost-model KIND[:PRICE]]
                     [--render never|auto|always] [--render-allow HOST|PREFIX]... [--render-deny HOST|PREFIX]...
                     [--render-allow-origin ORIGIN]... [--render-max-renders N] [--render-max-cpu-seconds N]
                     [--render-max-per-host N] [--render-settle-ms MS] [--render-slots N]
                     [--crawl-id ID] [--task-queue Q] [--no-worker] [--log-format text|json]
                     [--metrics-port N] [--data-dir DIR] [--json]
       crawler crawl --resume ID [--no-worker] [--data-dir DIR] [--json]

Runs a crawl to the end: starts the local stack if needed (and leaves it running), runs a worker
in this process unless --no-worker, shows progress, prints a summary and the Temporal UI link.
The summary says why the crawl ended (a limit below, nothing left, or a stop) and how many URLs
it left queued. While Temporal is unreachable it says so on the progress line and keeps waiting
for the crawl. Ctrl-C stops the crawl gracefully and prints its summary (Ctrl-C again: exit 130,
the crawl left running). SIGTERM leaves the crawl running in Temporal, stops this worker and
exits 143; --resume carries the crawl on.

Limits (the crawl ends at the first it reaches; raise the one its summary names):
  --max-pages N            URLs admitted for fetching at most: the page budget (default ${D.maxPages})
  --max-discovered-urls N  new URLs registered at most: the discovery budget
                           (default 20 x --max-pages, at least 1000)
  --max-depth D            links followed from the seeds at most (default ${D.maxDepth})

  --seeds-file F           one URL per line (# comments), up to 1,000,000, each checked before
                           anything starts; past 10,000 they are registered in batches first
  --user-agent UA          product token and contact sent on every request; set your own
                           (default "${D.userAgent}")
  --allow-private-networks fetch loopback, private and link-local addresses (default off)
  --max-in-flight N        URLs handed to host queues and not yet settled (default ${D.maxInFlight})
  --crawl-id ID            readable id, the workflow is crawl/ID (default: the time and 4 hex digits)
  --resume ID              attach to crawl ID (still running after its process died, or
                           finished): run a worker for it, show its progress, print its summary.
                           Re-running a crawl with the --crawl-id of a running one does the same.
  --task-queue Q           Temporal task queue of the crawl's workflows (default ${DEFAULT_TASK_QUEUE})
  --no-worker              run no worker in this process (default: one runs here)
  --metrics-port N         serve the in-process worker's Prometheus metrics at http://127.0.0.1:N/metrics
                           (default off)
  --log-format json        the in-process worker's log as one JSON object per line on stderr
                           (crawlId, host, workflowId where known); default text
  --data-dir DIR           where the local stack keeps its data (default $CRAWLER_DATA_DIR or .crawler-data)
  --json                   stdout is one JSON summary, its "end" says why the crawl ended (default text)

Discovery (docs/discovery.md):
  --sitemaps MODE          sitemaps read to find pages: declared (those robots.txt declares),
                           declared-and-default (also /sitemap.xml of a seed origin whose robots.txt
                           declares none), off (default ${D.sitemaps}); feeds pages link to are read too
  --sitemap-priority-cap P highest priority a sitemap's <priority> or lastmod raises a listed URL to,
                           0..1 (default ${D.sitemapPriorityCap})

Scope and URL identity (docs/url-canonicalization.md):
  --scope MODE             hosts links may lead to: same-host, same-registrable-domain (default), any
  --allow-prefix P         repeatable; only URLs under one of these prefixes (https://host/path or host/path) (default none)
  --deny-prefix P          repeatable; never URLs under these, unless a more specific allow prefix covers them (default none)
  --query-policies FILE    JSON array of verified per-origin query policies (strip tracking parameters, ...) (default none)
  --follow-nofollow        also follow rel=nofollow links (meta robots nofollow is always obeyed) (default off)
  --trap-options FILE      JSON object of crawler-trap thresholds, e.g. {"maxVariantsPerPath": 20} (default none: built-in thresholds)
  --seen-filter-capacity N URLs the per-worker Bloom filter is sized for (0 = off; default max(10000, discovery budget))
  --seen-filter-fp-rate P  its false-positive rate at capacity (default ${D.seenFilterFalsePositiveRate})

Politeness and fetch limits (docs/politeness.md, docs/failures.md):
  --min-host-delay-ms MS   least time between two requests to one host (default ${D.minHostDelayMs})
  --max-concurrent-per-host N  requests one host may have in flight at once (default ${D.maxConcurrentFetchesPerHost})
  --max-body-bytes N       wire body limit (default 10 MiB); --max-decompressed-bytes N: decoded (default 40 MiB)
  --connect-timeout-ms, --first-byte-timeout-ms, --body-timeout-ms  the three fetch deadlines
                           (default ${D.connectTimeoutMs / 1000} s, ${D.firstByteTimeoutMs / 1000} s, ${D.bodyTimeoutMs / 1000} s)
  --politeness JSON        e.g. '{"throttleBaseDelayMs": 10000, "circuitCooldownMs": 300000, "retryDelayScale": 2}'
                           (default {}: docs/politeness.md lists each knob's default)
                           URLs whose robots.txt stays unreachable are deferred after
                           robotsUnreachablePatienceMs (default here 180000; robots.txt asked again
                           every robotsUnreachableRetryMs, default here 60000)

Proxies (docs/proxies.md):
  --proxy URL              repeatable; every request goes through these proxies (http: or https:,
                           a CONNECT tunnel each), a host keeping one for a session of requests
                           (default none: requests go direct)
  --proxy-session-requests N  requests a host sends through one proxy before the next (default 100)
  --proxy-credentials-file F  lines of user:password (every proxy) or http://user:password@host:port
                           (that proxy), read by this process's worker; or CRAWLER_PROXY_CREDENTIALS
                           in its environment (default none). Never put them in --proxy: the
                           config is stored.

Cost (docs/storage-and-recrawl.md, "What a fetch costs"):
  --cost-model KIND[:PRICE]  gateway-bytes (every byte through a proxy gateway, failures too),
                           successful-requests (API credits: failures free) or direct-bytes, at PRICE
                           per GB or per successful request; status reports the bill (default
                           gateway-bytes with --proxy, else direct-bytes, no price)
Rendering pages built by JavaScript (docs/rendering.md):
  --render MODE            never, auto (decided per page from its HTML; the default when the browser
                           is installed) or always; without the browser rendering is off (said once)
  --render-allow H|P       repeatable; render these hosts or URL prefixes whatever their HTML says,
                           and their hash routes (#/...) (default none)
  --render-deny H|P        repeatable; never render these hosts or URL prefixes (default none)
  --render-allow-origin O  repeatable; subresources may come from this origin too (a CDN), each
                           request paced as its host's; other origins are refused (default none)
  --render-max-renders N, --render-max-cpu-seconds N, --render-max-per-host N
                           the crawl's render budget (default 1000 renders, 3600 browser CPU s,
                           200 per host); past it pages keep their HTTP result (render-deferred)
  --render-settle-ms MS    after DOMContentLoaded, the longest a render waits to settle (default 3000)
  --render-slots N         renders this process runs at once, a browser each (default 1 with the browser)

Change detection (docs/storage-and-recrawl.md):
  --change-field NAME=SELECTOR  repeatable; a page changed when the text of these CSS selectors did
                           (e.g. price=.price stock=#availability), not when the rest of its text did
                           (default none: the main text decides)
  --listing-page PREFIX    repeatable; pages under this URL prefix are listings (category, search
                           pages): each linked item's entry is kept, and a changed entry tells the
                           recrawl cycles that item changed, without visiting it (default none)`;

export const crawlOptions = {
  ...dataDirOption,
  'seeds-file': { type: 'string' },
  'max-pages': { type: 'string' },
  'max-depth': { type: 'string' },
  'min-host-delay-ms': { type: 'string' },
  'user-agent': { type: 'string' },
  'allow-private-networks': { type: 'boolean' },
  scope: { type: 'string' },
  'allow-prefix': { type: 'string', multiple: true },
  'deny-prefix': { type: 'string', multiple: true },
  'query-policies': { type: 'string' },
  'follow-nofollow': { type: 'boolean' },
  'trap-options': { type: 'string' },
  'max-discovered-urls': { type: 'string' },
  'seen-filter-capacity': { type: 'string' },
  'seen-filter-fp-rate': { type: 'string' },
  'max-in-flight': { type: 'string' },
  'max-concurrent-per-host': { type: 'string' },
  'max-body-bytes': { type: 'string' },
  'max-decompressed-bytes': { type: 'string' },
  'connect-timeout-ms': { type: 'string' },
  'first-byte-timeout-ms': { type: 'string' },
  'body-timeout-ms': { type: 'string' },
  politeness: { type: 'string' },
  'change-field': { type: 'string', multiple: true },
  'listing-page': { type: 'string', multiple: true },
  sitemaps: { type: 'string' },
  'sitemap-priority-cap': { type: 'string' },
  proxy: { type: 'string', multiple: true },
  'proxy-session-requests': { type: 'string' },
  'proxy-credentials-file': { type: 'string' },
  'cost-model': { type: 'string' },
  render: { type: 'string' },
  'render-allow': { type: 'string', multiple: true },
  'render-deny': { type: 'string', multiple: true },
  'render-allow-origin': { type: 'string', multiple: true },
  'render-max-renders': { type: 'string' },
  'render-max-cpu-seconds': { type: 'string' },
  'render-max-per-host': { type: 'string' },
  'render-settle-ms': { type: 'string' },
  'render-slots': { type: 'string' },
  'crawl-id': { type: 'string' },
  resume: { type: 'string' },
  'task-queue': { type: 'string' },
  'no-worker': { type: 'boolean' },
  'log-format': { type: 'string' },
  'metrics-port': { type: 'string' },
  json: { type: 'boolean' },
} as const;

export async function crawlCommand(argv: string[]): Promise<number> {
  const { values, positionals } = parseCommandArgs(argv, crawlOptions, crawlUsage);
  const seedsFile = values['seeds-file'];
  // Every seed is checked before anything starts: one bad URL and nothing runs.
  const seedCount = positionals.length + (seedsFile === undefined ? 0 : await checkSeedsFile(seedsFile, positionals.length));
  // A large file is registered by this process in batches, not put in the workflow's input.
  const registersSeedsItself = seedCount > SEEDS_IN_WORKFLOW_INPUT;
  const seeds = registersSeedsItself || seedsFile === undefined ? positionals : [...positionals, ...(await allSeeds(seedsFile))];
  const resume = values.resume;
  if (resume !== undefined && (seedCount > 0 || values['crawl-id'] !== undefined)) throw new CliError(`--resume ${resume} attaches to a crawl as it was started: give no seeds and no --crawl-id with it`, 2);
  if (seedCount === 0 && resume === undefined) throw new CliError(`no seed URLs: give URLs or --seeds-file\n\n${crawlUsage}`, 2);
  for (const seed of positionals) {
    const result = tryCanonicalizeUrl(seed);
    if (!result.ok) {
      throw new CliError(`invalid seed URL '${redactUserinfo(seed)}': ${result.error.message}. Fix or remove it; nothing was started.`, 2);
    }
  }
  // The in-process worker renders when the browser is installed, and the crawl then renders in auto.
  const chromium = findChromium();
  const renderSlots = values['no-worker'] || !chromium.found ? 0 : (integerOption('render-slots', values['render-slots'] as string | undefined, 0, 16) ?? 1);
  const config = oneShot(await buildConfig(values, { defaultRenderMode: renderSlots > 0 ? 'auto' : 'never' }));
  if (!chromium.found && values.render === undefined && !values['no-worker'] && values.json !== true) {
    process.stderr.write(`rendering is off: ${chromium.reason}\n`);
  }
  if (values['no-worker'] && values['proxy-credentials-file'] !== undefined) {
    throw new CliError('--proxy-credentials-file is for the worker this process runs; with --no-worker, give it to `crawler worker`', 2);
  }
  const proxyCredentials = values['no-worker'] ? undefined : await proxyCredentialsOption(values['proxy-credentials-file']);
  const logFormat = logFormatOption(values['log-format'] as string | undefined);
  const metricsPort = integerOption('metrics-port', values['metrics-port'] as string | undefined, 0, 65_535);
  const dataDir = defaultDataDir(values['data-dir']);
  const json = values.json === true;
  const say = (line: string): void => void process.stderr.write(`${line}\n`);
  // --json: stdout carries the summary alone, whatever a library logs on the way (to stderr instead).
  if (json) keepStdoutForTheSummary();

  const endpoints = await connectServices({ dataDir, start: true, log: json ? undefined : say });
  const taskQueue = values['task-queue'] ?? DEFAULT_TASK_QUEUE;
  const worker = values['no-worker']
    ? undefined
    : await createCrawlerWorker({
        temporal: endpoints.temporal,
        databaseUrl: endpoints.postgres.url,
        s3: endpoints.s3,
        dataDir,
        taskQueue,
        logFormat,
        renderSlots,
        ...(metricsPort !== undefined ? { metricsPort } : {}),
        ...(proxyCredentials !== undefined ? { proxyCredentials } : {}),
      }).catch((error: unknown) => {
        if (error instanceof WorkerStartError) throw new CliError(error.message);
        throw error;
      });
  if (worker?.metricsUrl) say(`metrics at ${worker.metricsUrl}`);
  const workerRun = worker?.run();
  const client = worker?.client ?? (await (await import('../client.js')).connectClient(endpoints));

  const crawlId = resume ?? values['crawl-id'] ?? newCrawlId();
  const workflowId = crawlWorkflowId(crawlId);
  const link = temporalUiLink(endpoints, workflowId);
  const progress = new ProgressLine(!json && process.stderr.isTTY === true);
  const outageNotes = {
    onOutage: (outage: { sinceMs: number; error: unknown } | undefined) =>
      progress.note('temporal', outage === undefined ? undefined : `Temporal unreachable since ${new Date(outage.sinceMs).toISOString()}, retrying (${firstLine(outage.error)})`),
  };
  let handle: WorkflowHandle;
  if (resume !== undefined) {
    handle = client.workflow.getHandle(workflowId);
    try {
      await retryThroughOutages(() => handle.describe(), outageNotes);
    } catch (error) {
      if (error instanceof WorkflowNotFoundError) throw new CliError(`no crawl ${crawlId} on this Temporal service: \`crawler status\` lists the crawls it has`, 2);
      throw error;
    }
    if (!json) say(`attached to crawl ${crawlId}${link ? `; watch it at ${link}` : ''}`);
  } else {
    if (registersSeedsItself) await registerSeeds(worker?.pool ?? (await connectDatabase(endpoints)), { crawlId, config, positionals, seedsFile: seedsFile!, seedCount, say: json ? () => undefined : say });
    // Registered here: the workflow starts on the crawl's records (resume), its input small.
    const input: CrawlWorkflowInput = registersSeedsItself ? { crawlId, config, seeds: [], taskQueue, resume: true } : { crawlId, config, seeds, taskQueue };
    try {
      handle = await retryThroughOutages(
        () => client.workflow.start('crawlWorkflow', { workflowId, taskQueue, args: [input], staticSummary: `Crawl ${crawlId}: ${seedCount} seed(s), max ${config.maxPages} pages` }),
        outageNotes,
      );
      if (!json) say(`crawl ${crawlId} started${link ? `; watch it at ${link}` : ''}`);
    } catch (error) {
      if (!(error instanceof WorkflowExecutionAlreadyStartedError)) throw error;
      // The same crawl, still running: watch it to its end rather than start it twice.
      handle = client.workflow.getHandle(workflowId);
      // On stderr even with --json: the user asked for a new crawl and is watching an old one.
      say(`crawl ${crawlId} is already running: attached to it (its seeds and options are the ones it started with)${link ? `; watch it at ${link}` : ''}`);
    }
  }

  // Postgres and the object store: their outages are waited out by the activities; this says so.
  const services = new ServiceWatch({ Postgres: postgresProbe(endpoints.postgres.url), 'object store': objectStoreProbe(endpoints.s3) }, (outages) =>
    progress.note(
      'services',
      outages.length === 0 ? undefined : outages.map((outage) => describeOutage({ ...outage, error: redactCredentials(outage.error) })).join('; '),
    ),
  );
  services.start();

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
  process.on('SIGINT', onSigint);
  // SIGTERM (a supervisor, a CI timeout, `kill`): this process goes, the crawl stays in Temporal
  // for a worker to carry on; nothing is lost, as when the process dies, only said and tidied.
  // The wait for the crawl's end is cancelled then: a long poll left behind kept the process alive
  // for its client's retries (~15 s) after everything else had closed.
  const leaveRunning = new AbortController();
  const onSigterm = (): void => leaveRunning.abort();
  process.once('SIGTERM', onSigterm);
  const terminated = new Promise<typeof TERMINATED>((resolve) => leaveRunning.signal.addEventListener('abort', () => resolve(TERMINATED), { once: true }));
  // The client retries a call to an unreachable server for a while before it fails: a query
  // unanswered for long says so instead of leaving the last progress line standing silently.
  let lastStatusAtMs = Date.now();
  // One status query at a time: through an outage the client retries each, and a new one a second piled up.
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
  }, 1000);

  let ended: CrawlSummary | typeof TERMINATED;
  try {
    // handle.result() long-polls; a poll that fails on an outage is polled again, not fatal. Cut on
    // SIGTERM: its failure (CANCELLED) is the race's, not unhandled.
    const result = client.connection.withAbortSignal(leaveRunning.signal, () => retryThroughOutages(() => handle.result(), outageNotes)) as Promise<CrawlSummary>;
    ended = await Promise.race([result, terminated]);
  } catch (error) {
    if (error instanceof WorkflowFailedError) {
      throw new CliError(`crawl ${crawlId} failed: ${error.cause?.message ?? error.message}${link ? ` (details: ${link})` : ''}. Its records are kept: \`crawler export --crawl ${crawlId}\` reads them`);
    }
    throw error;
  } finally {
    clearInterval(timer);
    services.stop();
    // A query the client is still retrying must end before the worker closes the connection: the
    // client's retry timer (grpc-retry.ts) calls into the closed channel, which throws out of the
    // timer ("Channel has been shut down") and exits 1 after a finished crawl. Bounded: a query
    // nothing answers must not hold the exit for ever.
    await Promise.race([statusQuery, new Promise((resolve) => setTimeout(resolve, STATUS_QUERY_DRAIN_MS).unref())]);
    progress.done();
    process.off('SIGINT', onSigint);
    process.off('SIGTERM', onSigterm);
    await worker?.shutdown();
    await workerRun;
  }
  if (ended === TERMINATED) {
    say(`crawl ${crawlId} left running in Temporal (SIGTERM): \`crawler crawl --resume ${crawlId}\` carries it on, \`crawler stop ${crawlId}\` stops it`);
    return EXIT_ON_SIGTERM;
  }
  const summary = ended;

  if (json) {
    process.stdout.write(`${JSON.stringify({ ...summary, temporalUi: link ?? null })}\n`);
  } else {
    const errors = Object.entries(summary.errorsByType).map(([type, n]) => `${type} ${n}`).join(', ') || 'none';
    process.stdout.write(
      [
        `crawl ${summary.crawlId} ${summary.state} in ${(summary.durationMs / 1000).toFixed(1)} s`,
        `  pages fetched:   ${summary.pagesFetched}`,
        ...(summary.pagesNotModified > 0 ? [`  not modified:    ${summary.pagesNotModified} (304: unchanged since an earlier crawl, their stored links followed)`] : []),
        `  URLs discovered: ${summary.urlsDiscovered}`,
        ...(summary.discovery === undefined ? [] : [`  found by:        ${describeDiscovery(summary.discovery)}`]),
        ...(summary.end === undefined ? [] : [`  ended:           ${describeCrawlEnd(summary.end)}`]),
        `  errors:          ${errors}`,
        ...(summary.storageFailures > 0 ? [`  storage:         ${summary.storageFailures} failed tries to store a body (each body waited for the store and was tried again)`] : []),
        ...(summary.renders
          ? [`  renders:         ${describeRenders(summary.renders)}`]
          : []),
        ...(Object.keys(summary.deferred ?? {}).length > 0
          ? [`  deferred:        ${Object.entries(summary.deferred).map(([reason, n]) => `${reason} ${n}`).join(', ')} (not fetched; a later crawl takes them)`]
          : []),
        ...(link ? [`  Temporal UI:     ${link}`] : []),
        `  export:          crawler export --crawl ${summary.crawlId}`,
        '',
      ].join('\n'),
    );
  }
  return 0;
}

/** What the wait for a crawl's end gives when SIGTERM came first. */
const TERMINATED = Symbol('terminated');
/** 128 + SIGTERM's number, as a shell reports a process that SIGTERM ended. */
const EXIT_ON_SIGTERM = 143;

/** A status query unanswered this long is reported on the progress line. */
const STATUS_SILENCE_MS = 5_000;
/** How long the end of a crawl waits for a status query still in flight. */
const STATUS_QUERY_DRAIN_MS = 30_000;

type CrawlValues = Record<string, string | boolean | string[] | undefined>;

/**
 * A crawl run from the command line ends: URLs that only an unreachable robots.txt holds back wait
 * for it 3 min (asked again every minute), then are deferred and counted in the summary. Recrawl
 * cycles and crawls started otherwise keep RFC 9309's longer wait. --politeness overrides both.
 */
export const ONE_SHOT_ROBOTS_POLITENESS = Object.freeze({ robotsUnreachablePatienceMs: 180_000, robotsUnreachableRetryMs: 60_000 });

function oneShot(config: CrawlConfig): CrawlConfig {
  return { ...config, politeness: { ...ONE_SHOT_ROBOTS_POLITENESS, ...config.politeness } };
}

/** Every option is checked here, before anything starts: a bad one exits 2 and names itself. */
export async function buildConfig(values: CrawlValues, defaults: { defaultRenderMode?: RenderMode } = {}): Promise<CrawlConfig> {
  const text = (name: string): string | undefined => values[name] as string | undefined;
  const integer = (name: string, range: IntegerRange): number | undefined => integerOption(name, text(name), range.min, range.max);
  const ranges = CRAWL_CONFIG_INTEGER_RANGES;
  const scopeMode = text('scope');
  const allowPrefixes = (values['allow-prefix'] as string[] | undefined) ?? [];
  const denyPrefixes = (values['deny-prefix'] as string[] | undefined) ?? [];
  const policiesFile = text('query-policies');
  const trapsFile = text('trap-options');
  const queryPolicies = policiesFile === undefined ? undefined : await readQueryPolicies(policiesFile);
  const traps = trapsFile === undefined ? undefined : await readTrapOptions(trapsFile);
  const fpRate = text('seen-filter-fp-rate');
  const changeFields = changeFieldsOption(values['change-field'] as string[] | undefined);
  const proxy = proxyOption(values['proxy'] as string[] | undefined, text('proxy-session-requests'));
  const costModel = costModelOption(text('cost-model'));
  const partial: Partial<CrawlConfig> = {
    ...(values['max-pages'] !== undefined ? { maxPages: integer('max-pages', ranges.maxPages)! } : {}),
    ...(values['max-depth'] !== undefined ? { maxDepth: integer('max-depth', ranges.maxDepth)! } : {}),
    ...(values['min-host-delay-ms'] !== undefined ? { minHostDelayMs: integer('min-host-delay-ms', ranges.minHostDelayMs)! } : {}),
    ...(values['max-in-flight'] !== undefined ? { maxInFlight: integer('max-in-flight', ranges.maxInFlight)! } : {}),
    ...(values['max-discovered-urls'] !== undefined ? { maxDiscoveredUrls: integer('max-discovered-urls', ranges.maxDiscoveredUrls)! } : {}),
    ...(values['seen-filter-capacity'] !== undefined ? { seenFilterCapacity: integer('seen-filter-capacity', ranges.seenFilterCapacity)! } : {}),
    ...(fpRate !== undefined ? { seenFilterFalsePositiveRate: Number(fpRate) } : {}),
    ...(values['user-agent'] !== undefined ? { userAgent: text('user-agent')! } : {}),
    ...(values['allow-private-networks'] ? { allowPrivateNetworks: true } : {}),
    ...(values['follow-nofollow'] ? { followNofollowLinks: true } : {}),
    ...(scopeMode !== undefined || allowPrefixes.length > 0 || denyPrefixes.length > 0
      ? { scope: { mode: (scopeMode ?? 'same-registrable-domain') as CrawlConfig['scope']['mode'], allowPrefixes, denyPrefixes } }
      : {}),
    ...(queryPolicies !== undefined ? { queryPolicies } : {}),
    ...(traps !== undefined ? { traps } : {}),
    ...(values['listing-page'] !== undefined ? { listingPages: values['listing-page'] as string[] } : {}),
    ...(values['max-concurrent-per-host'] !== undefined ? { maxConcurrentFetchesPerHost: integer('max-concurrent-per-host', ranges.maxConcurrentFetchesPerHost)! } : {}),
    ...(values['max-body-bytes'] !== undefined ? { maxBodyBytes: integer('max-body-bytes', ranges.maxBodyBytes)! } : {}),
    ...(values['max-decompressed-bytes'] !== undefined ? { maxDecompressedBytes: integer('max-decompressed-bytes', ranges.maxDecompressedBytes)! } : {}),
    ...(values['connect-timeout-ms'] !== undefined ? { connectTimeoutMs: integer('connect-timeout-ms', ranges.connectTimeoutMs)! } : {}),
    ...(values['first-byte-timeout-ms'] !== undefined ? { firstByteTimeoutMs: integer('first-byte-timeout-ms', ranges.firstByteTimeoutMs)! } : {}),
    ...(values['body-timeout-ms'] !== undefined ? { bodyTimeoutMs: integer('body-timeout-ms', ranges.bodyTimeoutMs)! } : {}),
    ...(text('politeness') !== undefined ? { politeness: parsePolitenessOption(text('politeness')!) } : {}),
    ...(changeFields !== undefined ? { changeFields } : {}),
    ...(text('sitemaps') !== undefined ? { sitemaps: text('sitemaps') as CrawlConfig['sitemaps'] } : {}),
    ...(text('sitemap-priority-cap') !== undefined ? { sitemapPriorityCap: text('sitemap-priority-cap')!.trim() === '' ? Number.NaN : Number(text('sitemap-priority-cap')) } : {}),
    ...(proxy !== undefined ? { proxy: proxy as CrawlConfig['proxy'] } : {}),
    ...(costModel !== undefined ? { costModel } : {}),
    render: renderOptions(values, defaults.defaultRenderMode ?? 'never'),
  };
  try {
    return resolveCrawlConfig(partial);
  } catch (error) {
    if (error instanceof CrawlConfigError) throw new CliError(`invalid option ${flagOfConfigField(error.field)}: ${error.message}`, 2);
    throw error;
  }
}

/** The --render flags; resolveCrawlConfig checks them (a bad value names its flag). */
function renderOptions(values: CrawlValues, defaultMode: RenderMode): CrawlRenderConfig {
  const text = (name: string): string | undefined => values[name] as string | undefined;
  const list = (name: string): string[] => (values[name] as string[] | undefined) ?? [];
  const mode = text('render') ?? defaultMode;
  if (!isRenderMode(mode)) throw new CliError(`invalid option --render: expected never, auto or always, got '${mode}'`, 2);
  const budget = {
    ...DEFAULT_RENDER_BUDGET,
    ...(text('render-max-renders') !== undefined ? { maxRenders: integerOption('render-max-renders', text('render-max-renders'), 0)! } : {}),
    ...(text('render-max-cpu-seconds') !== undefined ? { maxCpuSeconds: integerOption('render-max-cpu-seconds', text('render-max-cpu-seconds'), 0)! } : {}),
    ...(text('render-max-per-host') !== undefined ? { maxRendersPerHost: integerOption('render-max-per-host', text('render-max-per-host'), 0)! } : {}),
  };
  return {
    ...DEFAULT_RENDER_CONFIG,
    mode,
    allow: list('render-allow'),
    deny: list('render-deny'),
    allowOrigins: list('render-allow-origin'),
    budget,
    ...(text('render-settle-ms') !== undefined ? { settleMs: integerOption('render-settle-ms', text('render-settle-ms'), 100, 120_000)! } : {}),
  };
}

/** --politeness takes a JSON object inline; resolveCrawlConfig then checks each knob. */
function parsePolitenessOption(raw: string): CrawlConfig['politeness'] {
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw) as unknown;
  } catch (error) {
    throw new CliError(`--politeness: not valid JSON (${(error as Error).message}); e.g. --politeness '{"throttleBaseDelayMs": 10000}'`, 2);
  }
  return parsed as CrawlConfig['politeness'];
}

async function readJsonFile(file: string, flag: string, what: string): Promise<unknown> {
  let raw: string;
  try {
    raw = await readFile(file, 'utf8');
  } catch (error) {
    throw new CliError(`${flag}: cannot read ${what} file '${file}': ${(error as Error).message}`, 2);
  }
  try {
    return JSON.parse(raw) as unknown;
  } catch (error) {
    throw new CliError(`${flag}: ${what} file '${file}' is not valid JSON: ${(error as Error).message}`, 2);
  }
}

/** The documented format (docs/url-canonicalization.md), validated here so that errors name the file, entry and field. */
async function readQueryPolicies(file: string): Promise<OriginQueryPolicy[]> {
  const parsed = await readJsonFile(file, '--query-policies', 'query policies');
  try {
    compileQueryPolicies(parsed as OriginQueryPolicy[]);
  } catch (error) {
    if (error instanceof QueryPolicyConfigError) {
      const entry = Array.isArray(parsed) ? (parsed[error.entryIndex] as { origin?: unknown } | undefined) : undefined;
      const origin = typeof entry?.origin === 'string' ? ` (origin ${JSON.stringify(redactUserinfo(entry.origin))})` : '';
      const field = error.field === undefined ? '' : `, field "${error.field}"`;
      throw new CliError(
        `--query-policies: ${file}: entry ${error.entryIndex}${origin}${field}: ${error.message.slice(error.message.indexOf(': ') + 2)} [${error.code}]. Nothing was started.`,
        2,
      );
    }
    throw error;
  }
  return parsed as OriginQueryPolicy[];
}

async function readTrapOptions(file: string): Promise<CrawlTrapConfig> {
  const parsed = await readJsonFile(file, '--trap-options', 'trap options');
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
    throw new CliError(`--trap-options: ${file}: expected a JSON object such as {"maxVariantsPerPath": 20}`, 2);
  }
  try {
    resolveCrawlConfig({ traps: parsed as CrawlTrapConfig });
  } catch (error) {
    if (error instanceof CrawlConfigError) throw new CliError(`--trap-options: ${file}: field "${error.field.replace(/^traps\./, '')}": ${error.message.slice(error.message.indexOf(': ') + 2)}`, 2);
    throw error;
  }
  return parsed as CrawlTrapConfig;
}

async function allSeeds(file: string): Promise<string[]> {
  const seeds: string[] = [];
  for await (const batch of seedBatches(file)) seeds.push(...batch);
  return seeds;
}

/** A large seeds file into the frontier, SEED_BATCH per transaction, before the crawl workflow starts. */
async function registerSeeds(
  pool: Pool,
  input: { crawlId: string; config: CrawlConfig; positionals: string[]; seedsFile: string; seedCount: number; say: (line: string) => void },
): Promise<void> {
  let registered = 0;
  let batches = 0;
  const register = async (seeds: string[]): Promise<void> => {
    // createCrawl on every batch: the record is made once, and a batch repeated (a re-run) registers nothing twice.
    const result = await registerSeedBatch(pool, { crawlId: input.crawlId, config: input.config, seeds, createCrawl: true });
    registered += result.registered;
    batches += 1;
    if (batches % 10 === 0) input.say(`registering seeds: ${registered.toLocaleString('en')} of ${input.seedCount.toLocaleString('en')}`);
  };
  if (input.positionals.length > 0) await register(input.positionals);
  for await (const batch of seedBatches(input.seedsFile)) await register(batch);
  input.say(`registered ${registered.toLocaleString('en')} seeds (${input.seedCount.toLocaleString('en')} given, duplicates once)`);
}

function newCrawlId(): string {
  const stamp = new Date().toISOString().replace(/[-:]/g, '').replace(/\..*$/, '').replace('T', '-');
  return `${stamp}-${randomBytes(2).toString('hex')}`;
}

function keepStdoutForTheSummary(): void {
  const toStderr = (...args: unknown[]): void => console.error(...args);
  console.log = toStderr;
  console.info = toStderr;
  console.debug = toStderr;
}

function firstLine(error: unknown): string {
  return (error instanceof Error ? error.message : String(error)).split('\n')[0]!.slice(0, 160);
}

/** One status line, rewritten in place on a terminal, printed every few seconds otherwise. */
class ProgressLine {
  private lastPrintedMs = 0;
  private shown = false;
  /** What the CLI itself meets (a service outage), by source; each printed when it changes, and kept on the line. */
  private readonly notes = new Map<string, string>();
  constructor(private readonly tty: boolean) {}

  /** Sets or clears (undefined) the note of one source: 'temporal', 'services'. */
  note(source: string, text: string | undefined): void {
    if (text === this.notes.get(source)) return;
    if (text === undefined) {
      this.notes.delete(source);
      return;
    }
    this.notes.set(source, text);
    process.stderr.write(`${this.tty && this.shown ? '\r\x1b[2K' : ''}${text}\n`);
    this.shown = false;
  }

  show(status: CrawlStatus): void {
    const c = status.counts;
    const waits = describeCrawlWaits(status.waits);
    const renders = describeRenders(status.renders);
    const notes = [...this.notes.values()];
    const line = `${status.state}: fetched ${c.fetched}${c.notModified > 0 ? `, not modified ${c.notModified}` : ''}, in flight ${c.inFlight}, queued ${c.queued}, discovered ${c.discovered}, failed ${c.failed + c.dead}, hosts ${status.activeHosts}${renders ? `; ${renders}` : ''}${waits.length > 0 ? `; waiting: ${waits.join('; ')}` : ''}${notes.length > 0 ? `; ${notes.join('; ')}` : ''}`;
    if (this.tty) {
      process.stderr.write(`\r\x1b[2K${line}`);
      this.shown = true;
    } else if (Date.now() - this.lastPrintedMs > 5000) {
      process.stderr.write(`${line}\n`);
      this.lastPrintedMs = Date.now();
    }
  }

  done(): void {
    if (this.tty && this.shown) process.stderr.write('\n');
  }
}
