// The live freshness run (issue 25), shared by its e2e test and `npm run bench:freshness -- --live`:
// the crawler is driven as a user drives it (a discovery crawl, then `crawler schedule create`,
// cycles started by the Temporal Schedule for a fixed time), and the web scores it from its own
// request log and the true change times of its pages.
import type { Client } from '@temporalio/client';
import { scoreFreshness, type FreshnessScore, type FreshnessWeb, type RequestLogEntry, type TestWeb } from './test-web/index.js';

export interface LiveFreshnessOptions {
  /** Runs `crawler ARGS...` (bin/crawler.js with the stack's environment) and resolves to its stdout. */
  crawler: (args: string[]) => Promise<string>;
  /** A client of the Temporal server the Schedule lives on: reads what the Schedule started. */
  client: Client;
  /** Task queue a worker polls for the crawl and the cycles. */
  taskQueue: string;
  web: TestWeb;
  freshness: FreshnessWeb;
  scheduleId: string;
  /** The Schedule's interval (`--every`), seconds. */
  everySeconds: number;
  /** Visits per cycle (`--budget`). */
  budget: number;
  /** How long the Schedule runs after it is created; the scored window, ms. */
  runMs: number;
  /** `--min-host-delay-ms` of both crawls. */
  minHostDelayMs: number;
  /** Crawl workflow tick (`--tick-interval-ms`) of the cycles. Default 200. */
  tickIntervalMs?: number;
  /** Runs after the discovery crawl, before the Schedule is created (e.g. `crawler sla set`). */
  beforeSchedule?: () => Promise<void>;
  log?: (line: string) => void;
}

export interface LiveFreshnessRun {
  score: FreshnessScore;
  /** Epoch ms of the scored window: from the Schedule's creation for runMs. */
  fromMs: number;
  toMs: number;
  discovery: { pagesFetched: number; seconds: number };
  schedule: {
    actionsTaken: number;
    skippedForOverlap: number;
    /** Cycle workflows the Schedule started (the Temporal visibility record of each names the Schedule). */
    cycleWorkflowIds: string[];
  };
  /** Sitemap reads in the window: the cheap signals' fetches and body bytes, beside the page fetches scored. */
  signalFetches: number;
  signalBytes: number;
  /** The window's log, for assertions about requests. */
  windowLog: RequestLogEntry[];
}

export async function runLiveFreshness(options: LiveFreshnessOptions): Promise<LiveFreshnessRun> {
  const { crawler, client, web, freshness, scheduleId } = options;
  const say = options.log ?? (() => undefined);
  const common = ['--task-queue', options.taskQueue, '--allow-private-networks', '--scope', 'any', '--min-host-delay-ms', String(options.minHostDelayMs)];

  const discoveryStarted = Date.now();
  const seeds = freshness.homePaths.map(({ host, path }) => web.url(host, path));
  await crawler(['crawl', ...seeds, '--no-worker', '--json', '--crawl-id', `${scheduleId}-discovery`, '--max-depth', '1', ...common]);
  const discoverySeconds = (Date.now() - discoveryStarted) / 1000;
  const scored = new Set(freshness.pages.map((page) => `${page.host}${page.path}`));
  const pagesFetched = new Set(web.log().filter((entry) => entry.status === 200 && scored.has(`${entry.host}${entry.path}`)).map((entry) => `${entry.host}${entry.path}`)).size;
  say(`discovery crawl: ${pagesFetched} pages in ${discoverySeconds.toFixed(1)} s`);
  await options.beforeSchedule?.();

  await crawler([
    'schedule', 'create', '--id', scheduleId, '--every', `${options.everySeconds}s`, '--budget', String(options.budget),
    '--tick-interval-ms', String(options.tickIntervalMs ?? 200), ...common,
  ]);
  const fromMs = Date.now();
  say(`schedule ${scheduleId} created: every ${options.everySeconds}s, budget ${options.budget}; running ${(options.runMs / 1000).toFixed(0)} s`);
  await new Promise((resolve) => setTimeout(resolve, options.runMs));
  const toMs = Date.now();

  const handle = client.schedule.getHandle(scheduleId);
  const description = await handle.describe();
  await handle.delete();
  const cycleWorkflowIds: string[] = [];
  for await (const execution of client.workflow.list({ query: `TemporalScheduledById = '${scheduleId}'` })) {
    cycleWorkflowIds.push(execution.workflowId);
    if (execution.status.name === 'RUNNING') await client.workflow.getHandle(execution.workflowId, execution.runId).terminate('live freshness run over').catch(() => undefined);
  }

  const log = [...web.log()];
  const windowLog = log.filter((entry) => entry.startedAtMs >= fromMs && entry.startedAtMs < toMs);
  const sitemapReads = windowLog.filter((entry) => entry.path === '/sitemap.xml');
  const score = scoreFreshness({ pages: freshness.pages, log, webStartedAtMs: web.startedAtMs, fromMs, toMs });
  return {
    score,
    fromMs,
    toMs,
    discovery: { pagesFetched, seconds: discoverySeconds },
    schedule: { actionsTaken: description.info.numActionsTaken, skippedForOverlap: description.info.numActionsSkippedOverlap, cycleWorkflowIds },
    signalFetches: sitemapReads.length,
    signalBytes: sitemapReads.reduce((sum, entry) => sum + entry.bytesSent, 0),
    windowLog,
  };
}
