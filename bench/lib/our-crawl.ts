// Our crawler on the benchmark's web: a worker in its own process (`crawler worker`, exactly
// as a user runs one) against the bench stack, the crawl started through the Temporal client,
// and every figure the issues ask for collected afterwards from the stores and the histories.
import { spawn, type ChildProcess } from 'node:child_process';
import { createWriteStream, existsSync, mkdirSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client, Connection } from '@temporalio/client';
import { resolveCrawlConfig } from '../../src/config/crawl-config.js';
import type { CrawlWorkflowInput } from '../../src/workflows/crawl-workflow.js';
import { crawlWorkflowId, stopCrawlSignal } from '../../src/contracts/messages.js';
import type { CrawlSummary } from '../../src/contracts/status.js';
import { crawlerEnv, freshBucket, freshDatabase, type BenchStack } from './bench-stack.js';
import { summarizeCpuProfile, type ProfileSummary } from './cpu-profile.js';
import { ActivitySampler, postgresFigures, resetStatementStats, type PostgresFigures } from './postgres-figures.js';
import { ProcessSampler, type ProcessFigures, type TrackedProcess } from './proc-sampler.js';
import { temporalFigures, terminateBenchWorkflows, waitForWorkflowsToClose, type TemporalFigures } from './temporal-figures.js';

const CRAWLER_BIN = fileURLToPath(new URL('../../bin/crawler.js', import.meta.url));

export interface OurCrawlOptions {
  label: string;
  seeds: string[];
  expectedPages: number;
  delayMs: number;
  maxInFlight: number;
  /** The crawl's Mercator factor (politeness.adaptiveFactor); undefined: the product's default. */
  adaptiveFactor?: number;
  /** Worker flags (`crawler worker --max-concurrent-activities N --max-cached-workflows N`); undefined: its defaults. */
  maxConcurrentActivities?: number;
  maxCachedWorkflows?: number;
  /** The worker's V8 old-space limit, MB (`--max-old-space-size`); undefined: Node's default. */
  workerHeapMb?: number;
  /** `crawler worker --max-database-connections N`; undefined: its default. */
  maxDatabaseConnections?: number;
  /** Run `crawler worker --role workflows` and `--role activities` instead of one `--role all` worker. */
  splitWorker: boolean;
  /** Write a V8 CPU profile of the worker and summarize it. */
  cpuProfile: boolean;
  /** Host histories read for activity timings. */
  maxHistoriesRead: number;
  timeoutMs: number;
  log: (line: string) => void;
}

export interface OurCrawlRun {
  crawlId: string;
  taskQueue: string;
  /** The crawl's own database (kept after the run): its fetch records are our side of any gap the server flags. */
  databaseUrl: string;
  summary: CrawlSummary;
  /** Crawl workflow start to its result, seconds. */
  wallSeconds: number;
  timedOut: boolean;
  processes: ProcessFigures[];
  temporal: TemporalFigures;
  postgres: PostgresFigures;
  workerProfile?: ProfileSummary;
  workerLog: WorkerLogFigures;
}

/** The worker's output goes to a log file, so --json stdout stays one JSON object. */
export function startWorker(env: NodeJS.ProcessEnv, args: string[], nodeArgs: string[], logFile: string): { child: ChildProcess; ready: Promise<void> } {
  const child = spawn(process.execPath, [...nodeArgs, CRAWLER_BIN, 'worker', ...args], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  const file = createWriteStream(logFile);
  child.stdout?.pipe(file, { end: false });
  child.stderr?.pipe(file, { end: false });
  child.once('exit', () => file.end());
  const ready = new Promise<void>((resolve, reject) => {
    let text = '';
    child.stderr?.on('data', (chunk: Buffer) => {
      if (text.length < 100_000) text += chunk.toString();
      if (text.includes('polling task queue')) resolve();
    });
    child.once('exit', (code) => reject(new Error(`worker exited with code ${code} before polling (log: ${logFile}):\n${text.slice(-2000)}`)));
  });
  return { child, ready };
}

export interface WorkerLogFigures {
  file: string;
  lines: number;
  warnings: number;
  errors: number;
  /** Lines naming a Postgres deadlock (40P01): activities that failed and were retried. */
  deadlocks: number;
}

function workerLogFigures(file: string): WorkerLogFigures {
  const lines = existsSync(file) ? readFileSync(file, 'utf8').split('\n') : [];
  return {
    file,
    lines: lines.length,
    warnings: lines.filter((line) => /\bWARN\b/.test(line)).length,
    errors: lines.filter((line) => /\bERROR\b|severity: 'ERROR'/.test(line)).length,
    deadlocks: lines.filter((line) => line.includes('deadlock detected')).length,
  };
}

export async function stopWorker(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null) return;
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  child.kill('SIGINT');
  const timer = setTimeout(() => child.kill('SIGKILL'), 60_000);
  await exited;
  clearTimeout(timer);
}

export async function runOurCrawl(stack: BenchStack, options: OurCrawlOptions, alsoTrack: readonly TrackedProcess[]): Promise<OurCrawlRun> {
  const stamp = `${Date.now().toString(36)}${process.pid.toString(36)}`;
  const name = `bench_${options.label}_${stamp}`;
  const [databaseUrl, s3] = await Promise.all([freshDatabase(stack, name), freshBucket(stack, name.replace(/_/g, '-'))]);
  const taskQueue = `bench-${options.label}-${stamp}`;
  const workerDir = join(stack.dataDir, 'worker');
  const profileDir = join(stack.dataDir, 'profiles', stamp);
  mkdirSync(profileDir, { recursive: true });
  mkdirSync(join(stack.dataDir, 'logs'), { recursive: true });
  const logFile = join(stack.dataDir, 'logs', `worker-${options.label}-${stamp}.log`);
  const workerArgs = [
    '--task-queue', taskQueue,
    '--data-dir', workerDir,
    ...(options.maxConcurrentActivities === undefined ? [] : ['--max-concurrent-activities', String(options.maxConcurrentActivities)]),
    ...(options.maxCachedWorkflows === undefined ? [] : ['--max-cached-workflows', String(options.maxCachedWorkflows)]),
    ...(options.maxDatabaseConnections === undefined ? [] : ['--max-database-connections', String(options.maxDatabaseConnections)]),
  ];
  const profileArgs = options.cpuProfile ? ['--cpu-prof', `--cpu-prof-dir=${profileDir}`] : [];
  const heapArgs = options.workerHeapMb === undefined ? [] : [`--max-old-space-size=${options.workerHeapMb}`];
  const roles = options.splitWorker ? ['activities', 'workflows'] : ['all'];
  options.log(`${options.label}: starting ${roles.length === 1 ? 'a worker' : 'workflow and activity workers'} on task queue ${taskQueue}`);
  // The first is the one profiled and whose log is read: activities do the crawl's own work.
  const workers = roles.map((role, i) =>
    startWorker(crawlerEnv(stack, databaseUrl, s3), [...workerArgs, '--role', role], [...(i === 0 ? profileArgs : []), ...heapArgs], i === 0 ? logFile : logFile.replace(/\.log$/, `-${role}.log`)),
  );
  const worker = workers[0]!;
  const connection = await Connection.connect({ address: stack.endpoints.temporal.address });
  const client = new Client({ connection, namespace: stack.endpoints.temporal.namespace });
  let activity: ActivitySampler | undefined;
  try {
    const leftovers = await terminateBenchWorkflows(client, 'bench-', 'left by an earlier benchmark run');
    if (leftovers > 0) options.log(`${options.label}: terminated ${leftovers} workflows an earlier benchmark run left running`);
    await Promise.all(workers.map((w) => w.ready));
    if (stack.statementStats) await resetStatementStats(databaseUrl);
    activity = new ActivitySampler(stack.endpoints.postgres.url, new URL(databaseUrl).pathname.slice(1));
    await activity.start();
    const sampler = new ProcessSampler();
    sampler.track([{ name: 'worker', pid: worker.child.pid ?? 0, morePids: workers.slice(1).map((w) => w.child.pid ?? 0) }, ...alsoTrack]);
    sampler.start();

    const crawlId = `bench-${options.label}-${stamp}`;
    const input: CrawlWorkflowInput = {
      crawlId,
      seeds: options.seeds,
      taskQueue,
      config: resolveCrawlConfig({
        allowPrivateNetworks: true,
        scope: { mode: 'any', allowPrefixes: [], denyPrefixes: [] },
        minHostDelayMs: options.delayMs,
        maxInFlight: options.maxInFlight,
        ...(options.adaptiveFactor === undefined ? {} : { politeness: { adaptiveFactor: options.adaptiveFactor } }),
        // Everything reachable, whatever its depth: the figures are per page of a complete crawl.
        maxPages: options.expectedPages * 2 + 100,
        maxDepth: 1000,
      }),
    };
    options.log(`${options.label}: crawl ${crawlId} of ${options.expectedPages} expected pages on ${options.seeds.length} seed(s)`);
    const started = performance.now();
    const handle = await client.workflow.start('crawlWorkflow', { workflowId: crawlWorkflowId(crawlId), taskQueue, args: [input] });
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      options.log(`${options.label}: time limit reached, stopping the crawl`);
      void handle.signal(stopCrawlSignal, { reason: 'benchmark time limit' }).catch(() => undefined);
    }, options.timeoutMs);
    const progress = setInterval(() => {
      void handle
        .query('crawlStatus')
        .then((status) => {
          const counts = (status as { counts: { fetched: number; inFlight: number; queued: number } }).counts;
          options.log(`${options.label}: fetched ${counts.fetched}, in flight ${counts.inFlight}, queued ${counts.queued}`);
        })
        .catch(() => undefined);
    }, 15_000);
    let summary: CrawlSummary;
    try {
      summary = (await handle.result()) as CrawlSummary;
    } finally {
      clearTimeout(timer);
      clearInterval(progress);
    }
    const wallSeconds = (performance.now() - started) / 1000;
    const processes = sampler.stop();
    const activityFigures = await activity.stop();
    activity = undefined;
    options.log(`${options.label}: ${summary.pagesFetched} pages in ${wallSeconds.toFixed(1)} s; collecting figures`);

    const stillRunning = await waitForWorkflowsToClose(client, taskQueue, 60_000);
    if (stillRunning > 0) options.log(`${options.label}: ${stillRunning} workflows still running a minute after the crawl ended`);
    const temporal = await temporalFigures(client, taskQueue, summary.pagesFetched, options.maxHistoriesRead);
    const postgres = await postgresFigures(databaseUrl, summary.pagesFetched, stack.statementStats);
    postgres.activity = activityFigures;

    await Promise.all(workers.map((w) => stopWorker(w.child)));
    const profileFile = existsSync(profileDir) ? readdirSync(profileDir).find((file) => file.endsWith('.cpuprofile')) : undefined;
    const workerProfile = profileFile ? summarizeCpuProfile(join(profileDir, profileFile)) : undefined;
    return {
      crawlId,
      taskQueue,
      databaseUrl,
      summary,
      wallSeconds,
      timedOut,
      processes,
      temporal,
      postgres,
      ...(workerProfile ? { workerProfile } : {}),
      workerLog: workerLogFigures(logFile),
    };
  } finally {
    await activity?.stop().catch(() => undefined);
    await terminateBenchWorkflows(client, taskQueue, 'benchmark run ended').catch(() => undefined);
    await Promise.all(workers.map((w) => stopWorker(w.child)));
    await connection.close();
  }
}
