import { createCrawlerWorker, WORKER_ROLES, type WorkerRole } from '../../workers/crawler-worker.js';
import { CliError } from '../cli-error.js';
import { DEFAULT_TASK_QUEUE, renderTaskQueueOf } from '../../contracts/messages.js';
import { findChromium } from '../../browser/index.js';
import { dataDirOption, defaultDataDir, integerOption, logFormatOption, parseCommandArgs } from '../args.js';
import { connectServices } from '../services.js';

export const workerUsage = `usage: crawler worker [--task-queue Q] [--max-concurrent-activities N] [--max-cached-workflows N] [--max-database-connections N] [--role all|workflows|activities] [--log-format text|json]
                      [--metrics-port N] [--metrics-host ADDR] [--parse-threads N] [--parse-timeout-ms MS]
                      [--render-slots N] [--data-dir DIR]

Runs a worker against the configured services (TEMPORAL_ADDRESS, DATABASE_URL, S3_* or the local
stack of the data folder) until SIGINT or SIGTERM. Run more of them to scale out.

--max-database-connections N: Postgres connections of this process (default 40); a transaction
holds one while it waits for the process's event loop, so a busy worker may need more.

--role workflows|activities splits a worker in two processes: workflow activations run on a
process's main thread, so in an 'all' worker a host's next step waits behind page parsing.

--parse-threads N: worker threads that parse pages over 64 KiB, off the event loop that runs
workflow tasks and heartbeats (default the cores less one, at least 1). --parse-timeout-ms MS: a
page whose parse runs longer ends its thread and is recorded as ParseBudgetExceeded (default 15000).

--metrics-port N: serve Prometheus metrics at http://127.0.0.1:N/metrics (ours and the Temporal
SDK's worker metrics; 0 picks a free port, printed at start); --metrics-host ADDR binds elsewhere.

--render-slots N: render pages built by JavaScript, N at once, one headless Chromium each
(docs/rendering.md): this worker also polls the render task queue ('<task queue>-render'). It
needs Debian's chromium package (or CRAWLER_CHROMIUM_PATH). Default 0: no browser, and the render
queue is never polled by this worker.

--log-format json: one JSON object per line on stderr (time, level, message, crawlId, host,
workflowId where known) for a log pipeline; text (default) is for people.`;

function roleOption(value: string | undefined): WorkerRole {
  if (value === undefined) return 'all';
  if ((WORKER_ROLES as readonly string[]).includes(value)) return value as WorkerRole;
  throw new CliError(`--role '${value}' is not a worker role: use one of ${WORKER_ROLES.join(', ')}`, 2);
}

export async function workerCommand(argv: string[]): Promise<number> {
  const { values } = parseCommandArgs(
    argv,
    { ...dataDirOption, 'task-queue': { type: 'string' }, 'max-concurrent-activities': { type: 'string' }, 'max-cached-workflows': { type: 'string' }, 'max-database-connections': { type: 'string' }, role: { type: 'string' }, 'log-format': { type: 'string' }, 'metrics-port': { type: 'string' }, 'metrics-host': { type: 'string' }, 'parse-threads': { type: 'string' }, 'parse-timeout-ms': { type: 'string' }, 'render-slots': { type: 'string' } },
    workerUsage,
  );
  const role = roleOption(values.role);
  const logFormat = logFormatOption(values['log-format']);
  const metricsPort = integerOption('metrics-port', values['metrics-port'], 0, 65_535);
  const dataDir = defaultDataDir(values['data-dir']);
  const maxConcurrentActivities = integerOption('max-concurrent-activities', values['max-concurrent-activities'], 1);
  const maxCachedWorkflows = integerOption('max-cached-workflows', values['max-cached-workflows'], 0);
  const maxDatabaseConnections = integerOption('max-database-connections', values['max-database-connections'], 1);
  const parseThreads = integerOption('parse-threads', values['parse-threads'], 1);
  const parseTimeoutMs = integerOption('parse-timeout-ms', values['parse-timeout-ms'], 1);
  const renderSlots = integerOption('render-slots', values['render-slots'], 0, 64) ?? 0;
  if (renderSlots > 0) {
    const chromium = findChromium();
    if (!chromium.found) throw new CliError(`--render-slots ${renderSlots}: ${chromium.reason}`, 2);
  }
  const endpoints = await connectServices({ dataDir, start: false });
  const taskQueue = values['task-queue'] ?? DEFAULT_TASK_QUEUE;
  const worker = await createCrawlerWorker({
    temporal: endpoints.temporal,
    databaseUrl: endpoints.postgres.url,
    s3: endpoints.s3,
    dataDir,
    taskQueue,
    role,
    logFormat,
    ...(metricsPort !== undefined ? { metricsPort } : {}),
    ...(values['metrics-host'] !== undefined ? { metricsHost: values['metrics-host'] } : {}),
    ...(maxConcurrentActivities !== undefined ? { maxConcurrentActivities } : {}),
    ...(maxCachedWorkflows !== undefined ? { maxCachedWorkflows } : {}),
    ...(maxDatabaseConnections !== undefined ? { maxDatabaseConnections } : {}),
    htmlParsing: { ...(parseThreads !== undefined ? { parseThreads } : {}), ...(parseTimeoutMs !== undefined ? { parseTimeoutMs } : {}) },
    renderSlots,
  });
  const stop = (): void => void worker.shutdown();
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
  process.stderr.write(
    `worker ${process.pid} (${role}) polling task queue '${taskQueue}'${renderSlots > 0 ? ` and '${renderTaskQueueOf(taskQueue)}' with ${renderSlots} browser slot(s)` : ''} on ${endpoints.temporal.address}${worker.metricsUrl ? `; metrics at ${worker.metricsUrl}` : ''}\n`,
  );
  await worker.run();
  return 0;
}
