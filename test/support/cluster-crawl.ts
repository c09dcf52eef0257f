// The cluster test's crawl, as an operator runs one on a deployment: several `crawler worker`
// processes started as docker-compose.yml starts its workers, and `crawler crawl --no-worker`
// driving a crawl of a generated web through them; optionally one worker killed mid-crawl. It
// records what the assertions and the figures need: the web's request log, the kill's instant,
// the workers' identities the task queue saw, visibility searches made while the crawl ran, and
// the Temporal server's CPU over the crawl.
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { createWriteStream, mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { Client, Connection } from '@temporalio/client';
import { findFreePorts } from '../../src/stack/free-port.js';
import { projectRoot } from '../../src/stack/index.js';
import { DEFAULT_TASK_QUEUE } from '../../src/contracts/messages.js';
import type { CrawlSummary } from '../../src/contracts/status.js';
import { composeCommand, readComposeFile } from './temporal-cluster.js';
import { stopProcess } from './crawler-process.js';
import { waitFor } from './wait-for.js';
import type { GeneratedWeb, TestWeb } from './test-web/index.js';

const root = projectRoot();
/** temporal.api.enums.v1.TaskQueueType.TASK_QUEUE_TYPE_WORKFLOW */
const TASK_QUEUE_TYPE_WORKFLOW = 1;

export interface ClusterCrawlOptions {
  /** Logs and the seeds file go here. */
  dir: string;
  /** The crawler processes' --data-dir (the workflow bundle's cache, body spools). */
  dataDir: string;
  crawlId: string;
  generated: GeneratedWeb;
  web: TestWeb;
  /** TEMPORAL_ADDRESS, DATABASE_URL and the S3_* variables of the deployment. */
  crawlerEnv: Record<string, string>;
  workers: number;
  minHostDelayMs: number;
  /** Kill (SIGKILL) the first worker once this share of the web's pages was fetched. Default: no kill. */
  killWorkerAtShare?: number;
  /** The Temporal server's CPU seconds so far (the figures' Temporal CPU per page). */
  temporalCpuSeconds: () => number;
  log?: (line: string) => void;
}

export interface ClusterCrawlResult {
  summary: CrawlSummary;
  crawlExitCode: number;
  crawlStderr: string;
  workerPids: number[];
  /** The identities polling the task queue for workflow tasks before the kill. */
  pollerIdentities: string[];
  killedPid?: number;
  /** When the kill was sent, and when the worker was seen gone (its exit): a request it started in between was still its own. */
  killAtMs?: number;
  deadAtMs?: number;
  /** Searches made while the crawl ran, after the kill if any: the query and the workflow ids it listed. */
  searchesWhileRunning: Record<string, string[]>;
  seconds: number;
  temporalCpuSeconds: number;
  /** Workers still running, for the tests' CLI commands (status queries need a worker to answer). */
  stopWorkers: () => Promise<void>;
}

/** The workflow ids a visibility query lists, each once. */
export async function workflowIdsMatching(client: Client, query: string): Promise<string[]> {
  const ids = new Set<string>();
  for await (const execution of client.workflow.list({ query })) ids.add(execution.workflowId);
  return [...ids].sort();
}

/** History events of every run a query lists (each continued run is listed on its own). */
export async function historyEventsMatching(client: Client, query: string): Promise<{ runs: number; events: number }> {
  let runs = 0;
  let events = 0;
  for await (const execution of client.workflow.list({ query })) {
    runs += 1;
    events += execution.historyLength;
  }
  return { runs, events };
}

export async function connectClusterClient(address: string): Promise<{ client: Client; connection: Connection }> {
  const connection = await Connection.connect({ address });
  return { client: new Client({ connection, namespace: 'default' }), connection };
}

export async function runClusterCrawl(options: ClusterCrawlOptions): Promise<ClusterCrawlResult> {
  const log = options.log ?? (() => undefined);
  const compose = readComposeFile();
  mkdirSync(options.dir, { recursive: true });
  const env = { ...process.env, ...options.crawlerEnv };
  const metricsPorts = await findFreePorts(options.workers);
  // The compose secret the workers read their metrics token from.
  const metricsTokenFile = path.join(options.dir, 'metrics-token');
  writeFileSync(metricsTokenFile, `${randomBytes(24).toString('hex')}\n`, { mode: 0o600 });
  const workers: ChildProcess[] = [];
  const startWorker = (index: number): ChildProcess => {
    // The compose file's worker command, each worker's metrics on a port of its own on loopback.
    const [command, ...args] = composeCommand(
      compose,
      'worker',
      { '--metrics-port': String(metricsPorts[index]), '--metrics-host': '127.0.0.1', '--metrics-token-file': metricsTokenFile },
      ['--data-dir', options.dataDir],
    );
    const child = spawn(command!, args, { cwd: root, env, stdio: ['ignore', 'ignore', 'pipe'] });
    // Private like every file of the stack's data folder (test/e2e/stack-secrets.test.ts walks it): a worker's log may name its services.
    child.stderr!.pipe(createWriteStream(path.join(options.dir, `worker-${index}.log`), { mode: 0o600 }));
    workers.push(child);
    return child;
  };
  const stopWorkers = async (): Promise<void> => {
    await Promise.all(workers.map((worker) => stopProcess(worker)));
  };
  const { client, connection } = await connectClusterClient(options.crawlerEnv['TEMPORAL_ADDRESS']!);
  const pollerIdentities = async (): Promise<string[]> => {
    const { pollers } = await client.workflowService.describeTaskQueue({ namespace: 'default', taskQueue: { name: DEFAULT_TASK_QUEUE }, taskQueueType: TASK_QUEUE_TYPE_WORKFLOW });
    return [...new Set((pollers ?? []).map((poller) => poller.identity ?? ''))];
  };
  const polling = (started: readonly ChildProcess[]) =>
    waitFor(pollerIdentities, (identities) => started.every((worker) => identities.some((identity) => identity.endsWith(`/${worker.pid}`))), {
      timeoutMs: 180_000,
      intervalMs: 250,
      what: 'the workers polling the task queue',
    });
  try {
    // The first worker bundles the workflow code into the data folder's cache; the others find it there.
    const setupStartedAtMs = Date.now();
    await polling([startWorker(0)]);
    for (let index = 1; index < options.workers; index += 1) startWorker(index);
    // Every worker polls before the crawl starts: the hosts spread over all of them.
    const identities = await polling(workers);
    log(`${options.workers} workers polling after ${((Date.now() - setupStartedAtMs) / 1000).toFixed(1)} s`);

    const seedsFile = path.join(options.dir, 'seeds.txt');
    writeFileSync(seedsFile, `${options.generated.seeds(options.web.port).join('\n')}\n`, { mode: 0o600 });
    const startedAtMs = Date.now();
    const cpuBefore = options.temporalCpuSeconds();
    const crawl = spawn(
      'node',
      [
        'bin/crawler.js', 'crawl', '--no-worker', '--json', '--crawl-id', options.crawlId, '--seeds-file', seedsFile,
        '--min-host-delay-ms', String(options.minHostDelayMs), '--allow-private-networks', '--scope', 'any', '--max-depth', '30',
        '--data-dir', options.dataDir,
      ],
      { cwd: root, env, stdio: ['ignore', 'pipe', 'pipe'] },
    );
    let stdout = '';
    let crawlStderr = '';
    crawl.stdout!.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    crawl.stderr!.on('data', (chunk: Buffer) => (crawlStderr += chunk.toString()));
    const crawlExit = new Promise<number>((resolve) => crawl.once('exit', (code) => resolve(code ?? 1)));

    let killedPid: number | undefined;
    let killAtMs: number | undefined;
    let deadAtMs: number | undefined;
    const searchesWhileRunning: Record<string, string[]> = {};
    if (options.killWorkerAtShare !== undefined) {
      const expected = options.generated.expectedReachable(options.web.port).size;
      const pages = () => options.web.log().filter((entry) => entry.path !== '/robots.txt').length;
      await waitFor(pages, (n) => n >= expected * options.killWorkerAtShare!, { timeoutMs: 600_000, intervalMs: 100, what: 'the pages before the kill' });
      const victim = workers[0]!;
      killedPid = victim.pid;
      killAtMs = Date.now();
      victim.kill('SIGKILL');
      await new Promise((resolve) => victim.once('exit', resolve));
      deadAtMs = Date.now();
      log(`killed worker ${killedPid} after ${pages()} of ${expected} pages`);
      // Searches the README's Temporal UI section gives, while the crawl runs on without it.
      for (const query of [`CrawlId = '${options.crawlId}' AND CrawlState = 'running'`, `WorkflowType = 'hostWorkflow' AND ExecutionStatus = 'Running'`]) {
        searchesWhileRunning[query] = await waitFor(() => workflowIdsMatching(client, query), (ids) => ids.length > 0, { timeoutMs: 60_000, intervalMs: 250, what: query }).catch(() => []);
      }
    }

    const crawlExitCode = await crawlExit;
    const seconds = (Date.now() - startedAtMs) / 1000;
    const temporalCpuSeconds = options.temporalCpuSeconds() - cpuBefore;
    let summary: CrawlSummary;
    try {
      summary = JSON.parse(stdout) as CrawlSummary;
    } catch {
      throw new Error(`crawler crawl exited ${crawlExitCode} without a JSON summary; stderr:\n${crawlStderr.slice(-3000)}`);
    }
    return { summary, crawlExitCode, crawlStderr, workerPids: workers.map((worker) => worker.pid!), pollerIdentities: identities, killedPid, killAtMs, deadAtMs, searchesWhileRunning, seconds, temporalCpuSeconds, stopWorkers };
  } catch (error) {
    await stopWorkers();
    throw error;
  } finally {
    await connection.close();
  }
}
