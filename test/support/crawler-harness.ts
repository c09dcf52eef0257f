// A crawler wired to the test run's real stack, isolated per test file: its own database,
// bucket and task queue. Workers run in this process unless a test spawns its own.
import path from 'node:path';
import type { Client } from '@temporalio/client';
import { Context } from '@temporalio/activity';
import { resolveCrawlConfig, type CrawlConfig } from '../../src/config/crawl-config.js';
import type { StackEndpoints } from '../../src/stack/index.js';
import { BodyStore } from '../../src/storage/object-store/body-store.js';
import { migrate } from '../../src/storage/postgres/migrate.js';
import { createPool, type Pool } from '../../src/storage/postgres/pool.js';
import { createActivities } from '../../src/activities/index.js';
import { createCrawlerWorker, type CrawlerWorker, type CrawlerWorkerOptions } from '../../src/workers/crawler-worker.js';
import type { CrawlWorkflowInput } from '../../src/workflows/crawl-workflow.js';
import { crawlWorkflowId } from '../../src/contracts/messages.js';
import type { CrawlSummary } from '../../src/contracts/status.js';
import type { FetchBurstInput } from '../../src/contracts/activities.js';
import { freshBucket, freshDatabase, temporalClient, testStack, uniqueTaskQueue } from './stack-context.js';
import { testDataRoot } from './global-stack.js';

export interface Harness {
  name: string;
  taskQueue: string;
  databaseUrl: string;
  s3: StackEndpoints['s3'];
  stack: StackEndpoints;
  client: Client;
  pool: Pool;
  bodies: BodyStore;
  dataDir: string;
  /** Environment for a `crawler` child process that must use this harness's services. */
  childEnv: NodeJS.ProcessEnv;
  /**
   * The input of each burst run as a local activity by an in-process worker, by
   * `<workflowId>/<runId>/<activityId>`: a local activity's marker records its result, not its input.
   */
  localBurstInputs: Map<string, FetchBurstInput>;
  /** An in-process worker; `wrapActivities` injects faults. */
  startWorker(options?: Pick<CrawlerWorkerOptions, 'wrapActivities' | 'htmlParsing' | 'proxyCredentials' | 'renderSlots' | 'renderPageHeapMiB'>): Promise<CrawlerWorker>;
  stopWorker(): Promise<void>;
  startCrawl(input: { crawlId: string; seeds: string[]; config?: Partial<CrawlConfig> }): Promise<{ result: () => Promise<CrawlSummary> }>;
  runCrawl(input: { crawlId: string; seeds: string[]; config?: Partial<CrawlConfig> }): Promise<CrawlSummary>;
  close(): Promise<void>;
}

export async function createHarness(name: string): Promise<Harness> {
  const stack = testStack();
  const [databaseUrl, s3] = await Promise.all([freshDatabase(name), freshBucket(name)]);
  const taskQueue = uniqueTaskQueue(name);
  const localBurstInputs = new Map<string, FetchBurstInput>();
  const recordLocalBurst = (input: FetchBurstInput): void => {
    const { isLocal, workflowExecution, activityId } = Context.current().info;
    if (isLocal && workflowExecution) localBurstInputs.set(`${workflowExecution.workflowId}/${workflowExecution.runId}/${activityId}`, input);
  };
  const { client, connection } = await temporalClient();
  const pool = createPool({ connectionString: databaseUrl, maxConnections: 5 });
  await migrate(pool);
  const bodies = new BodyStore(s3);
  const dataDir = path.join(testDataRoot(), `harness-${name}-${process.pid}`);
  let worker: CrawlerWorker | undefined;
  let running: Promise<void> | undefined;

  const harness: Harness = {
    name,
    taskQueue,
    databaseUrl,
    s3,
    stack,
    client,
    pool,
    bodies,
    dataDir,
    childEnv: {
      ...process.env,
      TEMPORAL_ADDRESS: stack.temporal.address,
      TEMPORAL_NAMESPACE: stack.temporal.namespace,
      DATABASE_URL: databaseUrl,
      S3_ENDPOINT: `http://${s3.endPoint}:${s3.port}`,
      S3_ACCESS_KEY: s3.accessKey,
      S3_SECRET_KEY: s3.secretKey,
      S3_BUCKET: s3.bucket,
      S3_REGION: s3.region,
    },
    localBurstInputs,
    async startWorker(options = {}) {
      const wrapActivities: CrawlerWorkerOptions['wrapActivities'] = (created) => {
        const activities = options.wrapActivities ? options.wrapActivities(created) : created;
        return { ...activities, fetchBurst: (input) => (recordLocalBurst(input), activities.fetchBurst(input)) };
      };
      worker = await createCrawlerWorker({ temporal: stack.temporal, databaseUrl, s3, dataDir, taskQueue, maxDatabaseConnections: 10, ...options, wrapActivities });
      running = worker.run();
      return worker;
    },
    async stopWorker() {
      await worker?.shutdown();
      await running;
      worker = undefined;
      running = undefined;
    },
    async startCrawl({ crawlId, seeds, config }) {
      const input: CrawlWorkflowInput = {
        crawlId,
        seeds,
        taskQueue,
        // Only the sitemaps a test web's robots.txt declares: a /sitemap.xml request to every seed
        // host would be in every test's request log. Tests of sitemap discovery set their own mode.
        config: resolveCrawlConfig({ allowPrivateNetworks: true, scope: { mode: 'any', allowPrefixes: [], denyPrefixes: [] }, sitemaps: 'declared', ...config }),
        options: { tickIntervalMs: 500 },
      };
      const handle = await client.workflow.start('crawlWorkflow', { workflowId: crawlWorkflowId(crawlId), taskQueue, args: [input] });
      return { result: async () => (await handle.result()) as CrawlSummary };
    },
    async runCrawl(input) {
      const { result } = await harness.startCrawl(input);
      return result();
    },
    async close() {
      // Host workflows of this file must not linger into the next file's run.
      for await (const execution of client.workflow.list({ query: `TaskQueue = '${taskQueue}' AND ExecutionStatus = 'Running'` })) {
        await client.workflow.getHandle(execution.workflowId, execution.runId).terminate('test file finished').catch(() => undefined);
      }
      await harness.stopWorker();
      await pool.end();
      await connection.close();
    },
  };
  return harness;
}

/**
 * The crawler's activities on a harness's stack, for calling one directly (in a
 * MockActivityEnvironment): any HTTP request fails the test, naming `purpose`.
 */
export function activitiesOf(harness: Harness, purpose: string): ReturnType<typeof createActivities> {
  return createActivities({
    pool: harness.pool,
    bodies: harness.bodies,
    http: () => {
      throw new Error(`${purpose} must not fetch`);
    },
    temporal: harness.client,
    workerId: `${purpose.replace(/[^a-z0-9]+/gi, '-')}-test`,
    spoolDir: path.join(harness.dataDir, `${purpose.replace(/[^a-z0-9]+/gi, '-')}-spool`),
    now: Date.now,
  });
}
