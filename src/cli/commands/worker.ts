import { createCrawlerWorker, WORKER_ROLES, type WorkerRole } from '../../workers/crawler-worker.js';
import { CliError } from '../cli-error.js';
import { DEFAULT_TASK_QUEUE, renderTaskQueueOf } from '../../contracts/messages.js';
import { findChromium } from '../../browser/index.js';
import { dataDirOption, defaultDataDir, integerOption, logFormatOption, parseCommandArgs, proxyCredentialsOption } from '../args.js';
import { connectServices } from '../services.js';
import { jsonLogLine } from '../../workers/log-format.js';
import { WorkerStartError } from '../../workers/worker-start-error.js';
import { openInputFile } from '../input-file.js';

export const workerUsage = `usage: crawler worker [--task-queue Q] [--max-concurrent-activities N] [--max-cached-workflows N] [--max-database-connections N] [--role all|workflows|activities] [--log-format text|json]
                      [--metrics-port N] [--metrics-host ADDR] [--metrics-token-file F] [--parse-threads N]
                      [--parse-timeout-ms MS] [--render-slots N] [--data-dir DIR] [--proxy-credentials-file F]

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
SDK's worker metrics; 0 picks a free port, printed at start); --metrics-host ADDR binds elsewhere
(beyond loopback it warns). --metrics-token-file F: a scrape must send \`Authorization: Bearer
<token>\`, the token being F's one line (Prometheus: authorization.credentials_file).

--proxy-credentials-file F: logins of the proxies crawls name (--proxy), lines of user:password
(every proxy) or http://user:password@host:port (that proxy); CRAWLER_PROXY_CREDENTIALS in the
environment works too. They stay in this process: never stored, logged or shown.

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

/** Longest metrics token file read: a token is a line. */
const MAX_METRICS_TOKEN_FILE_BYTES = 4096;

/** The bearer token in `file`: one line of visible ASCII characters (RFC 6750's token characters and more). */
async function readMetricsToken(file: string): Promise<string> {
  const hint = 'give a file holding the one-line token scrapers send as `Authorization: Bearer <token>`; nothing was started.';
  const { handle } = await openInputFile(file, { what: 'metrics token file', maxBytes: MAX_METRICS_TOKEN_FILE_BYTES, hint });
  let token: string;
  try {
    token = (await handle.readFile('utf8')).trim();
  } finally {
    await handle.close();
  }
  if (!/^[\x21-\x7e]{16,}$/.test(token)) throw new CliError(`metrics token file '${file}' does not hold a token of at least 16 visible ASCII characters on one line: ${hint}`, 2);
  return token;
}

export async function workerCommand(argv: string[]): Promise<number> {
  const { values } = parseCommandArgs(
    argv,
    { ...dataDirOption, 'task-queue': { type: 'string' }, 'max-concurrent-activities': { type: 'string' }, 'max-cached-workflows': { type: 'string' }, 'max-database-connections': { type: 'string' }, role: { type: 'string' }, 'log-format': { type: 'string' }, 'metrics-port': { type: 'string' }, 'metrics-host': { type: 'string' }, 'metrics-token-file': { type: 'string' }, 'parse-threads': { type: 'string' }, 'parse-timeout-ms': { type: 'string' }, 'proxy-credentials-file': { type: 'string' }, 'render-slots': { type: 'string' } },
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
  const metricsTokenFile = values['metrics-token-file'];
  if (metricsTokenFile !== undefined && metricsPort === undefined) throw new CliError('--metrics-token-file guards the metrics server: give --metrics-port with it', 2);
  const metricsBearerToken = metricsTokenFile === undefined ? undefined : await readMetricsToken(metricsTokenFile);
  const say = (level: 'INFO' | 'WARN', message: string, meta: Record<string, unknown> = {}): void =>
    // With --log-format json every line on stderr is a record.
    void process.stderr.write(`${logFormat === 'json' ? jsonLogLine({ level, message, timestampNanos: BigInt(Date.now()) * 1_000_000n, meta }) : message}\n`);
  const proxyCredentials = await proxyCredentialsOption(values['proxy-credentials-file']);
  const renderSlots = integerOption('render-slots', values['render-slots'], 0, 64) ?? 0;
  if (renderSlots > 0) {
    const chromium = findChromium();
    if (!chromium.found) throw new CliError(`--render-slots ${renderSlots}: ${chromium.reason}`, 2);
  }
  const endpoints = await connectServices({ dataDir, start: false });
  const taskQueue = values['task-queue'] ?? DEFAULT_TASK_QUEUE;
  const worker = await createCrawlerWorker({
    warn: (line) => say('WARN', line),
    ...(metricsBearerToken === undefined ? {} : { metricsBearerToken }),
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
    proxyCredentials,
    htmlParsing: { ...(parseThreads !== undefined ? { parseThreads } : {}), ...(parseTimeoutMs !== undefined ? { parseTimeoutMs } : {}) },
    renderSlots,
  }).catch((error: unknown) => {
    if (error instanceof WorkerStartError) throw new CliError(error.message);
    throw error;
  });
  const stop = (): void => void worker.shutdown();
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
  say(
    'INFO',
    `worker ${process.pid} (${role}) polling task queue '${taskQueue}'${renderSlots > 0 ? ` and '${renderTaskQueueOf(taskQueue)}' with ${renderSlots} browser slot(s)` : ''} on ${endpoints.temporal.address}${worker.metricsUrl ? `; metrics at ${worker.metricsUrl}` : ''}`,
    { taskQueue, role, renderSlots },
  );
  await worker.run();
  return 0;
}
