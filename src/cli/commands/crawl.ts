import { readFile } from 'node:fs/promises';
import { randomBytes } from 'node:crypto';
import { WorkflowFailedError } from '@temporalio/client';
import { CrawlConfigError, resolveCrawlConfig, type CrawlConfig } from '../../config/crawl-config.js';
import { redactUserinfo, tryCanonicalizeUrl } from '../../domain/url/index.js';
import { createCrawlerWorker } from '../../workers/crawler-worker.js';
import { crawlStatusQuery, crawlWorkflowId, DEFAULT_TASK_QUEUE, stopCrawlSignal } from '../../workflows/messages.js';
import type { CrawlStatus, CrawlSummary } from '../../workflows/status.js';
import type { CrawlWorkflowInput } from '../../workflows/crawl-workflow.js';
import { dataDirOption, defaultDataDir, integerOption, parseCommandArgs } from '../args.js';
import { CliError } from '../cli-error.js';
import { connectServices, temporalUiLink } from '../services.js';

export const crawlUsage = `usage: crawler crawl [URL...] [--seeds-file F] [--max-pages N] [--max-depth D]
                     [--min-host-delay-ms MS] [--user-agent UA] [--allow-private-networks]
                     [--scope same-host|same-registrable-domain|any] [--max-in-flight N]
                     [--crawl-id ID] [--task-queue Q] [--no-worker] [--data-dir DIR] [--json]

Runs a crawl to the end: starts the local stack if needed (and leaves it running), runs a worker
in this process unless --no-worker, shows progress, prints a summary and the Temporal UI link.`;

const options = {
  ...dataDirOption,
  'seeds-file': { type: 'string' },
  'max-pages': { type: 'string' },
  'max-depth': { type: 'string' },
  'min-host-delay-ms': { type: 'string' },
  'user-agent': { type: 'string' },
  'allow-private-networks': { type: 'boolean' },
  scope: { type: 'string' },
  'max-in-flight': { type: 'string' },
  'crawl-id': { type: 'string' },
  'task-queue': { type: 'string' },
  'no-worker': { type: 'boolean' },
  json: { type: 'boolean' },
} as const;

export async function crawlCommand(argv: string[]): Promise<number> {
  const { values, positionals } = parseCommandArgs(argv, options, crawlUsage);
  const seeds = [...positionals, ...(values['seeds-file'] ? await readSeedsFile(values['seeds-file']) : [])];
  if (seeds.length === 0) throw new CliError(`no seed URLs: give URLs or --seeds-file\n\n${crawlUsage}`, 2);
  // Every seed is checked before anything starts: one bad URL and nothing runs.
  for (const seed of seeds) {
    const result = tryCanonicalizeUrl(seed);
    if (!result.ok) {
      throw new CliError(`invalid seed URL '${redactUserinfo(seed)}': ${result.error.message}. Fix or remove it; nothing was started.`, 2);
    }
  }
  const config = buildConfig(values);
  const dataDir = defaultDataDir(values['data-dir']);
  const json = values.json === true;
  const say = (line: string): void => void process.stderr.write(`${line}\n`);

  const endpoints = await connectServices({ dataDir, start: true, log: json ? undefined : say });
  const taskQueue = values['task-queue'] ?? DEFAULT_TASK_QUEUE;
  const worker = values['no-worker']
    ? undefined
    : await createCrawlerWorker({ temporal: endpoints.temporal, databaseUrl: endpoints.postgres.url, s3: endpoints.s3, dataDir, taskQueue });
  const workerRun = worker?.run();
  const client = worker?.client ?? (await (await import('../client.js')).connectClient(endpoints));

  const crawlId = values['crawl-id'] ?? newCrawlId();
  const workflowId = crawlWorkflowId(crawlId);
  const input: CrawlWorkflowInput = { crawlId, config, seeds, taskQueue };
  const handle = await client.workflow.start('crawlWorkflow', {
    workflowId,
    taskQueue,
    args: [input],
    staticSummary: `Crawl ${crawlId}: ${seeds.length} seed(s), max ${config.maxPages} pages`,
  });
  const link = temporalUiLink(endpoints, workflowId);
  if (!json) say(`crawl ${crawlId} started${link ? `; watch it at ${link}` : ''}`);

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
  const progress = new ProgressLine(!json && process.stderr.isTTY === true);
  const timer = setInterval(() => {
    handle
      .query(crawlStatusQuery)
      .then((status) => progress.show(status))
      .catch(() => undefined);
  }, 1000);

  let summary: CrawlSummary;
  try {
    summary = (await handle.result()) as CrawlSummary;
  } catch (error) {
    if (error instanceof WorkflowFailedError) throw new CliError(`crawl ${crawlId} failed: ${error.cause?.message ?? error.message}${link ? ` (details: ${link})` : ''}`);
    throw error;
  } finally {
    clearInterval(timer);
    progress.done();
    process.off('SIGINT', onSigint);
    await worker?.shutdown();
    await workerRun;
  }

  if (json) {
    process.stdout.write(`${JSON.stringify({ ...summary, temporalUi: link ?? null })}\n`);
  } else {
    const errors = Object.entries(summary.errorsByType).map(([type, n]) => `${type} ${n}`).join(', ') || 'none';
    process.stdout.write(
      [
        `crawl ${summary.crawlId} ${summary.state} in ${(summary.durationMs / 1000).toFixed(1)} s`,
        `  pages fetched:   ${summary.pagesFetched}`,
        `  URLs discovered: ${summary.urlsDiscovered}`,
        `  errors:          ${errors}`,
        ...(link ? [`  Temporal UI:     ${link}`] : []),
        `  export:          crawler export --crawl ${summary.crawlId}`,
        '',
      ].join('\n'),
    );
  }
  return 0;
}

function buildConfig(values: Record<string, string | boolean | undefined>): CrawlConfig {
  const scope = values['scope'] as string | undefined;
  try {
    return resolveCrawlConfig({
      ...(values['max-pages'] !== undefined ? { maxPages: integerOption('max-pages', values['max-pages'] as string, 1)! } : {}),
      ...(values['max-depth'] !== undefined ? { maxDepth: integerOption('max-depth', values['max-depth'] as string, 0)! } : {}),
      ...(values['min-host-delay-ms'] !== undefined ? { minHostDelayMs: integerOption('min-host-delay-ms', values['min-host-delay-ms'] as string, 0)! } : {}),
      ...(values['max-in-flight'] !== undefined ? { maxInFlight: integerOption('max-in-flight', values['max-in-flight'] as string, 1)! } : {}),
      ...(values['user-agent'] !== undefined ? { userAgent: values['user-agent'] as string } : {}),
      ...(values['allow-private-networks'] ? { allowPrivateNetworks: true } : {}),
      ...(scope !== undefined ? { scope: { mode: scope as CrawlConfig['scope']['mode'], allowPrefixes: [], denyPrefixes: [] } } : {}),
    });
  } catch (error) {
    if (error instanceof CrawlConfigError) throw new CliError(`invalid option ${error.message}`, 2);
    throw error;
  }
}

async function readSeedsFile(file: string): Promise<string[]> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    throw new CliError(`cannot read seeds file '${file}': ${(error as Error).message}`, 2);
  }
  return text
    .split(/\r?\n/)
    .map((line) => line.replace(/#.*$/, '').trim())
    .filter(Boolean);
}

function newCrawlId(): string {
  const stamp = new Date().toISOString().replace(/[-:]/g, '').replace(/\..*$/, '').replace('T', '-');
  return `${stamp}-${randomBytes(2).toString('hex')}`;
}

/** One status line, rewritten in place on a terminal, printed every few seconds otherwise. */
class ProgressLine {
  private lastPrintedMs = 0;
  private shown = false;
  constructor(private readonly tty: boolean) {}

  show(status: CrawlStatus): void {
    const c = status.counts;
    const line = `${status.state}: fetched ${c.fetched}, in flight ${c.inFlight}, queued ${c.queued}, discovered ${c.discovered}, failed ${c.failed + c.dead}, hosts ${status.activeHosts}`;
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
