/**
 * The composition root of a worker process: it connects to Temporal, Postgres and MinIO, wires
 * them into the activities, and polls one task queue for workflows and activities. Run more of
 * these, on more machines, against one Temporal cluster to scale out.
 */
import path from 'node:path';
import { Client, Connection } from '@temporalio/client';
import { IllegalStateError } from '@temporalio/common';
import { DefaultLogger, NativeConnection, Runtime, Worker, type LogLevel } from '@temporalio/worker';
import { jsonLogLine, textLogLine, type LogFormat } from './log-format.js';
import { digestSlowTaskWarnings } from './slow-task-digest.js';
import { PrometheusCrawlMetrics, startMetricsServer, type MetricsServer } from './prometheus-metrics.js';
import { findFreePorts } from '../stack/free-port.js';
import { WorkerStartError } from './worker-start-error.js';
import { createActivities, type CrawlerActivities } from '../activities/index.js';
import { HttpClientPool } from './http-client-pool.js';
import { readProxyCredentials, type ProxyCredentials } from '../http/proxy-credentials.js';
import { workerIdentity } from '../services/worker-identity.js';
import { createWorkerStopping } from './worker-stopping.js';
import { workerWithSandboxCallTimeout } from './sandbox-call-timeout.js';
import { BodyStore, type BodyStoreOptions } from '../storage/object-store/body-store.js';
import { migrate } from '../storage/postgres/migrate.js';
import { createPool, type Pool } from '../storage/postgres/pool.js';
import { stalenessReport } from '../storage/postgres/freshness-repository.js';
import { DEFAULT_TASK_QUEUE } from '../contracts/messages.js';
import { loadWorkflowBundle } from './workflow-bundle.js';
import { HtmlParsePool, type HtmlParsePoolOptions } from '../parse/html-parse-pool.js';
import { BrowserPool, findChromium } from '../browser/index.js';
import { renderTaskQueueOf } from '../contracts/messages.js';

/** See WorkerOptions.maxConcurrentActivities. */
export const DEFAULT_MAX_CONCURRENT_ACTIVITIES = 400;

export interface CrawlerWorkerOptions {
  temporal: { address: string; namespace: string };
  databaseUrl: string;
  s3: BodyStoreOptions;
  /** Default 'crawler'. */
  taskQueue?: string;
  /** Names this worker in the Temporal UI and in robots leases. Default host name and pid. */
  identity?: string;
  /**
   * Activities run at once by this process. Default 400: a fetch burst holds its slot while it
   * waits out its host's delay, so a worker needs about one per host it fetches, plus parses and claims.
   */
  maxConcurrentActivities?: number;
  /** Workflow executions kept in memory; host workflows sleep a lot, so keep many. Default 1,000. */
  maxCachedWorkflows?: number;
  /** Postgres connections of this process. Default DEFAULT_MAX_DATABASE_CONNECTIONS (40). */
  maxDatabaseConnections?: number;
  /** Where the workflow bundle is cached and bodies are spooled. */
  dataDir: string;
  /** Worker log level, for the whole process (Temporal's runtime is installed once). Default 'WARN'. */
  logLevel?: LogLevel;
  /**
   * Serve Prometheus metrics (ours and the Temporal SDK's) on this port at /metrics; 0 picks a free
   * one. Default: no metrics. The SDK's exporter is set up with the process's runtime, so only the
   * first worker of a process can have its metrics.
   */
  metricsPort?: number;
  /** The address metrics are served on. Default 127.0.0.1; anything beyond loopback is warned about. */
  metricsHost?: string;
  /** A scrape must send `Authorization: Bearer <token>`. Default none. */
  metricsBearerToken?: string;
  /** Where the worker's start-up warnings go (metrics beyond loopback). Default: stderr. */
  warn?: (line: string) => void;
  /** 'text' (default) or 'json': one JSON object per line on stderr, with crawlId, host and workflowId where known. */
  logFormat?: LogFormat;
  /**
   * What this process polls for. Default 'all'. Workflow activations are handled on the process's
   * main thread, the same thread activities parse pages on, so under load a host's next step waits
   * behind other hosts' parsing. A 'workflows' process beside 'activities' processes avoids that
   * where cores are to spare (on 2 cores it does not pay: bench/README.md, "Figures behind the defaults"). A
   * 'workflows' process runs the host workflows' claims itself (local activities): it needs Postgres.
   */
  role?: WorkerRole;
  /** Parse threads and the per-page parse time budget (html-parse-pool.ts). Default its defaults. */
  htmlParsing?: HtmlParsePoolOptions;
  /**
   * Milliseconds a call into the workflow sandbox may run before the SDK fails the activation as a
   * potential deadlock. Default none: Node's timeout costs a thread start a call (sandbox-call-timeout.ts).
   */
  sandboxCallTimeoutMs?: number;
  /**
   * Logins of the proxies crawls may name (CrawlConfig.proxy). Default: read at start from
   * CRAWLER_PROXY_CREDENTIALS and the file named by CRAWLER_PROXY_CREDENTIALS_FILE, if set.
   */
  proxyCredentials?: ProxyCredentials;
  /** Wraps the activities this worker registers: fault injection in tests. Default: as created. */
  wrapActivities?: (activities: CrawlerActivities) => CrawlerActivities;
  /**
   * Browser slots: renders this worker runs at once, one headless Chromium each (docs/rendering.md).
   * With 0 the worker never polls the render task queue. Default 0. More than 0 needs the browser
   * (Debian's chromium package, or CRAWLER_CHROMIUM_PATH): the worker does not start without it.
   */
  renderSlots?: number;
  /** A browser is replaced after this many pages. Default 50. */
  maxPagesPerBrowser?: number;
  /** V8 heap of each rendered page, MiB: a page that allocates more crashes its renderer. Default 512. */
  renderPageHeapMiB?: number;
}

/** The render task queue's worker and its browsers, when the worker has render slots. */
interface RenderPart {
  worker: Worker;
  browsers: BrowserPool;
}

/** Workflow tasks held open at once, and local activities run at once, by an 'all' worker: about one per host it fetches. */
export const MAX_OPEN_WORKFLOW_TASKS = 400;

/** A worker that runs both: its claims say so, and a host's first burst runs in it as a local activity. */
function withLocalBursts(activities: CrawlerActivities): CrawlerActivities {
  const { claimHostWork } = activities;
  return { ...activities, claimHostWork: async (input) => ({ ...(await claimHostWork(input)), localBursts: true }) };
}

export type WorkerRole = 'all' | 'workflows' | 'activities';
export const WORKER_ROLES: readonly WorkerRole[] = ['all', 'workflows', 'activities'];

let runtimeInstalled = false;

/** Exporter ports tried: a port found free may be taken by another process before the exporter binds it. */
const SDK_METRICS_BIND_TRIES = 3;

export interface WorkerRuntimeOptions {
  logLevel: LogLevel;
  logFormat: LogFormat;
  /** Run the SDK's Prometheus exporter on a loopback port. */
  sdkMetrics: boolean;
  /** Picks the exporter's port for each try. Default: a free loopback port. */
  sdkMetricsPort?: () => Promise<number>;
}

/**
 * Temporal's runtime is per process and can be installed only before its first use. With
 * `sdkMetrics`, its Prometheus exporter listens on a free loopback port, whose address this
 * returns; a port it cannot bind is an error (the worker would otherwise run on the SDK's
 * defaults: its own signal handling, no JSON log). Undefined when an embedding program installed
 * the runtime first, whose settings then stay.
 */
export async function installWorkerRuntime(options: WorkerRuntimeOptions): Promise<string | undefined> {
  if (runtimeInstalled) return undefined;
  const { logLevel, logFormat } = options;
  const sdkMetricsPort = options.sdkMetricsPort ?? (async () => (await findFreePorts(1))[0]!);
  for (let attempt = 1; ; attempt += 1) {
    const sdkMetricsAddress = options.sdkMetrics ? `127.0.0.1:${await sdkMetricsPort()}` : undefined;
    try {
      Runtime.install({
        // The commands own their signals: Ctrl-C on `crawler crawl` stops the crawl gracefully, which
        // needs its worker. The runtime's default (shut every worker down on SIGINT or SIGTERM)
        // took the worker and its client away mid-crawl: the CLI then exited 1 on a gRPC error.
        shutdownSignals: [],
        logger: new DefaultLogger(
          logLevel,
          digestSlowTaskWarnings((entry) => {
            // The render worker polls activities only, by design: the SDK's note that it runs no workflows says nothing.
            if (entry.message.startsWith('No workflows registered') && String(entry.meta?.['taskQueue'] ?? '').endsWith('-render')) return;
            process.stderr.write(`${logFormat === 'json' ? jsonLogLine(entry) : textLogLine(entry)}\n`);
          }),
        ),
        telemetryOptions: {
          // Core's own logs (gRPC retry warnings while Temporal is down) go through the same logger, to
          // stderr: printed by core directly, they went to stdout, before `--json`'s summary. With
          // --log-format json every line is then JSON.
          logging: { filter: { core: logLevel, other: 'ERROR' }, forward: {} },
          // The SDK's worker metrics, from its own exporter: served with ours (prometheus-metrics.ts).
          ...(sdkMetricsAddress === undefined ? {} : { metrics: { prometheus: { bindAddress: sdkMetricsAddress } } }),
        },
      });
      runtimeInstalled = true;
      return sdkMetricsAddress;
    } catch (error) {
      if (error instanceof IllegalStateError) {
        // Already installed by the embedding program: keep its settings.
        runtimeInstalled = true;
        return undefined;
      }
      if (sdkMetricsAddress !== undefined && attempt < SDK_METRICS_BIND_TRIES) continue;
      throw new WorkerStartError(
        sdkMetricsAddress === undefined ? 'WORKER_RUNTIME_INSTALL_FAILED' : 'WORKER_SDK_METRICS_BIND_FAILED',
        sdkMetricsAddress === undefined
          ? `Temporal's runtime could not be installed: ${(error as Error).message}`
          : `Temporal's metrics exporter could not listen on ${sdkMetricsAddress} (tried ${attempt} free loopback ports): ${(error as Error).message}. Free some loopback ports or run the worker without --metrics-port.`,
        { cause: error },
      );
    }
  }
}

export interface CrawlerWorker {
  worker: Worker;
  /** Polls the render task queue; present with render slots. */
  renderWorker?: Worker;
  /** The browsers of the render slots; present with render slots. */
  browsers?: BrowserPool;
  client: Client;
  /** A client on the worker's own connection: workflows it starts may run their first task here at once (eager start). */
  workflowStarter: Client;
  pool: Pool;
  bodies: BodyStore;
  /** Where this worker serves its Prometheus metrics, when metricsPort was given. */
  metricsUrl?: string;
  /** Resolves when the worker stops (after shutdown() or a fatal error). */
  run(): Promise<void>;
  shutdown(): Promise<void>;
}

/**
 * A worker's Postgres pool. A transaction holds its connection while it waits for the worker's
 * event loop between statements, so a busy worker needs more connections than it runs statements
 * at once: 40 crawl faster than 20, and at less CPU per page (bench/README.md, "Figures behind the defaults"). Two workers' pools still fit well under the embedded cluster's max_connections (200).
 */
export const DEFAULT_MAX_DATABASE_CONNECTIONS = 40;

export async function createCrawlerWorker(options: CrawlerWorkerOptions): Promise<CrawlerWorker> {
  // First: a credentials file that cannot be read stops the worker before it connects anywhere.
  const proxyCredentials = options.proxyCredentials ?? (await readProxyCredentials({ env: process.env }));
  const metrics = options.metricsPort === undefined ? undefined : new PrometheusCrawlMetrics();
  const sdkMetricsAddress = await installWorkerRuntime({ logLevel: options.logLevel ?? 'WARN', logFormat: options.logFormat ?? 'text', sdkMetrics: metrics !== undefined });
  const identity = options.identity ?? workerIdentity();
  const pool = createPool({ connectionString: options.databaseUrl, maxConnections: options.maxDatabaseConnections ?? DEFAULT_MAX_DATABASE_CONNECTIONS, applicationName: `crawler-worker ${identity}` });
  await migrate(pool);
  metrics?.provideStaleness(() => stalenessReport(pool, Date.now()));
  const bodies = new BodyStore(options.s3);
  await bodies.ensureBucket();

  const connection = await Connection.connect({ address: options.temporal.address });
  const client = new Client({ connection, namespace: options.temporal.namespace });
  const nativeConnection = await NativeConnection.connect({ address: options.temporal.address });
  const workflowStarter = new Client({ connection: nativeConnection, namespace: options.temporal.namespace });

  const httpClients = new HttpClientPool(proxyCredentials);
  // Threads start on the first large page, so a workflows-only process never starts one.
  const htmlParsing = new HtmlParsePool(options.htmlParsing);
  const stopping = createWorkerStopping();
  const renderSlots = options.renderSlots ?? 0;
  const browsers = renderSlots > 0 ? startBrowsers(options, renderSlots) : undefined;
  const created = createActivities({
    pool,
    bodies,
    http: (identity) => httpClients.get(identity),
    temporal: client,
    workflowStarter,
    workerId: identity,
    spoolDir: path.join(options.dataDir, 'spool', String(process.pid)),
    now: Date.now,
    ...(metrics === undefined ? {} : { metrics }),
    extractHtml: htmlParsing.extract,
    stopping: stopping.signal,
    ...(browsers === undefined ? {} : { browsers }),
  });
  const activities = options.wrapActivities ? options.wrapActivities(created) : created;

  const worker = await createMainWorker(options, nativeConnection, identity, activities);

  // Renders go to their own task queue, taken only by workers with browser slots: one render per slot.
  const render: RenderPart | undefined =
    browsers === undefined ? undefined : { browsers, worker: await createRenderWorker(options, nativeConnection, identity, activities, renderSlots) };

  const metricsServer = metrics === undefined ? undefined : await serveMetrics(options, metrics, sdkMetricsAddress);

  let closed = false;
  const close = async (): Promise<void> => {
    if (closed) return;
    closed = true;
    await metricsServer?.close();
    await render?.browsers.close();
    await httpClients.closeAll();
    await Promise.allSettled([htmlParsing.close(), pool.end(), connection.close(), nativeConnection.close()]);
  };

  return {
    worker,
    ...(render ? { renderWorker: render.worker, browsers: render.browsers } : {}),
    client,
    workflowStarter,
    pool,
    bodies,
    ...(metricsServer === undefined ? {} : { metricsUrl: metricsServer.url }),
    async run() {
      const renderRun = render?.worker.run();
      try {
        await worker.run();
      } finally {
        // The render worker goes with the main one, whatever ended it.
        if (render?.worker.getState() === 'RUNNING') render.worker.shutdown();
        await Promise.allSettled([renderRun]);
        await close();
      }
    },
    async shutdown() {
      stopping.abort();
      if (worker.getState() === 'RUNNING') worker.shutdown();
      if (render?.worker.getState() === 'RUNNING') render.worker.shutdown();
    },
  };
}

function startBrowsers(options: CrawlerWorkerOptions, renderSlots: number): BrowserPool {
  const chromium = findChromium();
  if (!chromium.found) throw new Error(`--render-slots ${renderSlots}: ${chromium.reason}`);
  return new BrowserPool({
    executablePath: chromium.executablePath,
    slots: renderSlots,
    profileRoot: path.join(options.dataDir, 'browsers'),
    ...(options.maxPagesPerBrowser === undefined ? {} : { maxPagesPerBrowser: options.maxPagesPerBrowser }),
    ...(options.renderPageHeapMiB === undefined ? {} : { pageHeapMiB: options.renderPageHeapMiB }),
  });
}

/** The worker of the crawl's task queue: workflows, activities or both, by role. */
async function createMainWorker(options: CrawlerWorkerOptions, nativeConnection: NativeConnection, identity: string, activities: CrawlerActivities): Promise<Worker> {
  const role = options.role ?? 'all';
  return workerWithSandboxCallTimeout(options.sandboxCallTimeoutMs).create({
    connection: nativeConnection,
    namespace: options.temporal.namespace,
    taskQueue: options.taskQueue ?? DEFAULT_TASK_QUEUE,
    identity,
    shutdownGraceTime: '10s',
    ...(role === 'activities'
      ? {}
      : { workflowBundle: await loadWorkflowBundle(path.join(options.dataDir, 'cache')), maxCachedWorkflows: options.maxCachedWorkflows ?? 1000 }),
    ...(role === 'workflows'
      ? // Host workflows run their claims and wait reports as local activities, in the worker that runs them.
        { activities: { claimHostWork: activities.claimHostWork, reportHostWait: activities.reportHostWait }, enableNonLocalActivities: false }
      : { activities: role === 'all' ? withLocalBursts(activities) : activities, maxConcurrentActivityTaskExecutions: options.maxConcurrentActivities ?? DEFAULT_MAX_CONCURRENT_ACTIVITIES }),
    // A host's first burst runs as a local activity and holds its workflow task open meanwhile
    // (LOCAL_BURST: its 5 URLs and their parses): the SDK's defaults (40 tasks, 100 local activities)
    // would let only that many hosts fetch at once.
    ...(role === 'all' ? { maxConcurrentWorkflowTaskExecutions: MAX_OPEN_WORKFLOW_TASKS, maxConcurrentLocalActivityExecutions: MAX_OPEN_WORKFLOW_TASKS } : {}),
  });
}

async function createRenderWorker(options: CrawlerWorkerOptions, nativeConnection: NativeConnection, identity: string, activities: CrawlerActivities, renderSlots: number): Promise<Worker> {
  return Worker.create({
    connection: nativeConnection,
    namespace: options.temporal.namespace,
    taskQueue: renderTaskQueueOf(options.taskQueue ?? DEFAULT_TASK_QUEUE),
    identity,
    shutdownGraceTime: '10s',
    activities: { renderPage: activities.renderPage },
    maxConcurrentActivityTaskExecutions: renderSlots,
  });
}

async function serveMetrics(options: CrawlerWorkerOptions, metrics: PrometheusCrawlMetrics, sdkMetricsAddress: string | undefined): Promise<MetricsServer> {
  return startMetricsServer({
    port: options.metricsPort!,
    ...(options.metricsHost === undefined ? {} : { host: options.metricsHost }),
    ...(options.metricsBearerToken === undefined ? {} : { bearerToken: options.metricsBearerToken }),
    ...(options.warn === undefined ? {} : { warn: options.warn }),
    metrics,
    ...(sdkMetricsAddress === undefined ? {} : { sdkMetricsUrl: `http://${sdkMetricsAddress}/metrics` }),
  }).catch((error: unknown) => {
    throw new WorkerStartError('WORKER_METRICS_LISTEN_FAILED', `metrics could not listen on ${options.metricsHost ?? '127.0.0.1'}:${options.metricsPort}: ${(error as Error).message}. Give a free --metrics-port (0 picks one).`, { cause: error });
  });
}
