// `npm run bench:freshness -- --live` (issue 25): the recrawl scheduler measured end to end by the
// web. A web of a few hundred pages changing at known Poisson rates in compressed time; a worker in
// its own process (`crawler worker`, as a user runs one) on the bench stack; a discovery crawl and
// `crawler schedule create` through the CLI; the web's own score of the crawler's copies against
// the uniform, proportional and optimal policies under the same fetch budget.
import { execFile } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { Client, Connection } from '@temporalio/client';
import { optimalVisitFrequencies } from '../../src/domain/recrawl/index.js';
import { runLiveFreshness, type LiveFreshnessRun } from '../../test/support/live-freshness.js';
import { freshnessWeb, startTestWeb, type FreshnessWebOptions } from '../../test/support/test-web/index.js';
import { crawlerEnv, freshBucket, freshDatabase, type BenchStack } from './bench-stack.js';
import { startWorker, stopWorker } from './our-crawl.js';
import { terminateBenchWorkflows } from './temporal-figures.js';

const execFileAsync = promisify(execFile);
const CRAWLER_BIN = fileURLToPath(new URL('../../bin/crawler.js', import.meta.url));

export interface LiveFreshnessBenchOptions {
  web: FreshnessWebOptions;
  /** `--every`, seconds. */
  everySeconds: number;
  /** `--budget`, visits per cycle. */
  budget: number;
  /** How long the Schedule runs (the scored window), seconds. */
  runSeconds: number;
  minHostDelayMs: number;
  log: (line: string) => void;
}

export interface LiveFreshnessBenchReport {
  web: Omit<FreshnessWebOptions, 'rateMix'> & { pages: number; sitemapPages: number };
  everySeconds: number;
  budget: number;
  runSeconds: number;
  minHostDelayMs: number;
  discovery: LiveFreshnessRun['discovery'];
  schedule: Omit<LiveFreshnessRun['schedule'], 'cycleWorkflowIds'> & { cyclesStarted: number };
  signalFetches: number;
  signalBytes: number;
  policies: LiveFreshnessRun['score']['policies'];
  crawlerRatio: LiveFreshnessRun['score']['crawlerRatio'];
  /** Mean fetches per page in the window, by the page's changes per table day. */
  fetchesByRateClass: { changesPerTableDay: string; pages: number; meanFetches: number; meanOptimumFetches: number; meanFreshness: number }[];
}

export async function runLiveFreshnessBench(stack: BenchStack, options: LiveFreshnessBenchOptions): Promise<LiveFreshnessBenchReport> {
  const stamp = `${Date.now().toString(36)}${process.pid.toString(36)}`;
  const name = `bench_live_freshness_${stamp}`;
  const [databaseUrl, s3] = await Promise.all([freshDatabase(stack, name), freshBucket(stack, name.replace(/_/g, '-'))]);
  const env = crawlerEnv(stack, databaseUrl, s3);
  const taskQueue = `bench-live-freshness-${stamp}`;
  mkdirSync(join(stack.dataDir, 'logs'), { recursive: true });
  const logFile = join(stack.dataDir, 'logs', `worker-live-freshness-${stamp}.log`);
  const worker = startWorker(env, ['--task-queue', taskQueue, '--data-dir', join(stack.dataDir, 'worker')], [], logFile);
  const connection = await Connection.connect({ address: stack.endpoints.temporal.address });
  const client = new Client({ connection, namespace: stack.endpoints.temporal.namespace });
  const freshness = freshnessWeb(options.web);
  const web = await startTestWeb(freshness.spec);
  try {
    // Host workflows are one per host across crawls: an earlier run's, on its dead task queue, would take this run's hosts.
    const leftovers = await terminateBenchWorkflows(client, 'bench-live-freshness-', 'left by an earlier live freshness run');
    if (leftovers > 0) options.log(`terminated ${leftovers} workflows an earlier live freshness run left running`);
    await worker.ready;
    options.log(`web: ${freshness.pages.length} pages on ${options.web.hosts} hosts, a table day is ${options.web.secondsPerDay} s; worker log ${logFile}`);
    const run = await runLiveFreshness({
      crawler: async (args) => (await execFileAsync(process.execPath, [CRAWLER_BIN, ...args], { env, maxBuffer: 64 * 1024 * 1024 })).stdout,
      client,
      taskQueue,
      web,
      freshness,
      scheduleId: `bench-live-freshness-${stamp}`,
      everySeconds: options.everySeconds,
      budget: options.budget,
      runMs: options.runSeconds * 1000,
      minHostDelayMs: options.minHostDelayMs,
      log: options.log,
    });
    const { rateMix: _rateMix, ...webOptions } = options.web;
    return {
      web: { ...webOptions, pages: freshness.pages.length, sitemapPages: freshness.pages.filter((page) => page.inSitemap).length },
      everySeconds: options.everySeconds,
      budget: options.budget,
      runSeconds: options.runSeconds,
      minHostDelayMs: options.minHostDelayMs,
      discovery: run.discovery,
      schedule: { actionsTaken: run.schedule.actionsTaken, skippedForOverlap: run.schedule.skippedForOverlap, cyclesStarted: run.schedule.cycleWorkflowIds.length },
      signalFetches: run.signalFetches,
      signalBytes: run.signalBytes,
      policies: run.score.policies,
      crawlerRatio: run.score.crawlerRatio,
      fetchesByRateClass: byRateClass(run, freshness.pages),
    };
  } finally {
    await terminateBenchWorkflows(client, taskQueue, 'live freshness run over').catch(() => undefined);
    await web.close();
    await stopWorker(worker.child);
    await connection.close();
  }
}

function byRateClass(run: LiveFreshnessRun, pages: ReturnType<typeof freshnessWeb>['pages']): LiveFreshnessBenchReport['fetchesByRateClass'] {
  // Classes by order of magnitude around the freshness-gain table's rows: never, < 1/10, < 1, < 10, >= 10 per table day.
  const bounds: [string, (r: number) => boolean][] = [
    ['never', (r) => r === 0],
    ['< 0.1', (r) => r > 0 && r < 0.1],
    ['0.1 - 1', (r) => r >= 0.1 && r < 1],
    ['1 - 10', (r) => r >= 1 && r < 10],
    ['>= 10', (r) => r >= 10],
  ];
  const windowDays = (run.toMs - run.fromMs) / 86_400_000;
  const optimum = optimalVisitFrequencies(
    pages.map((page) => page.ratePerDay),
    run.score.policies.crawler.fetches / windowDays,
  ).map((perDay) => perDay * windowDays);
  return bounds.map(([label, inClass]) => {
    const members = run.score.pages.map((page, i) => ({ ...page, optimumFetches: optimum[i] ?? 0 })).filter((_, i) => inClass(pages[i]?.changesPerTableDay ?? 0));
    const mean = (value: (page: (typeof members)[number]) => number) => (members.length > 0 ? members.reduce((sum, page) => sum + value(page), 0) / members.length : 0);
    return {
      changesPerTableDay: label,
      pages: members.length,
      meanFetches: mean((page) => page.fetches),
      meanOptimumFetches: mean((page) => page.optimumFetches),
      meanFreshness: mean((page) => page.freshness),
    };
  });
}
