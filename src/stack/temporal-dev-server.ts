import { Connection } from '@temporalio/client';
import { join } from 'node:path';
import { PRIVATE_UMASK } from './private-files.js';
import { spawnDetached, type DetachedProcess } from './process-supervisor.js';

export type SearchAttributeKind = 'Keyword' | 'Text' | 'Int' | 'Double' | 'Bool' | 'Datetime' | 'KeywordList';

/** The attributes the crawler's workflows upsert; they must exist before a workflow sets them. */
export const defaultSearchAttributes: Readonly<Record<string, SearchAttributeKind>> = {
  CrawlId: 'Keyword',
  CrawlHost: 'Keyword',
  CrawlState: 'Keyword',
  CrawlIds: 'KeywordList',
};

export interface TemporalDevServerOptions {
  /** Path of the `temporal` CLI binary. */
  binary: string;
  /** Folder for the SQLite file, log and pid file (`<dataDir>/temporal`). */
  dir: string;
  /** Frontend gRPC port. */
  port: number;
  /** Web UI port. */
  uiPort: number;
  /** Interface to bind. Default: '127.0.0.1' (a dev server has no auth: never a public interface). */
  ip?: string;
  /** Namespace created at launch besides 'default'. Default: 'default' (nothing extra). */
  namespace?: string;
  /** Registered at launch. Default: defaultSearchAttributes. */
  searchAttributes?: Readonly<Record<string, SearchAttributeKind>>;
  /** Extra dynamic config, each value JSON-encoded. Default: none. */
  dynamicConfig?: Readonly<Record<string, unknown>>;
  /** Server log level. Default: 'warn'. */
  logLevel?: 'debug' | 'info' | 'warn' | 'error';
}

export function temporalPaths(dir: string): { dbFile: string; logFile: string; pidFile: string } {
  return { dbFile: join(dir, 'temporal.db'), logFile: join(dir, 'temporal.log'), pidFile: join(dir, 'temporal.pid') };
}

const identifier = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** The `temporal server start-dev` argument list. The db file is what lets workflows survive a restart. */
export function temporalDevServerArgs(options: TemporalDevServerOptions): string[] {
  const args = [
    'server',
    'start-dev',
    '--db-filename',
    temporalPaths(options.dir).dbFile,
    '--ip',
    options.ip ?? '127.0.0.1',
    '--port',
    String(options.port),
    '--ui-port',
    String(options.uiPort),
    '--log-level',
    options.logLevel ?? 'warn',
    // WAL lets the UI and workers read while the server writes.
    '--sqlite-pragma',
    'journal_mode=WAL',
    // SQLite has one writer: with the default synchronous=FULL every history write waits for an
    // fsync and the whole server runs at the disk's flush rate. NORMAL in WAL mode still survives
    // a crash or restart of the server process; only an OS crash can lose the last writes.
    '--sqlite-pragma',
    'synchronous=NORMAL',
  ];
  const namespace = options.namespace ?? 'default';
  if (namespace !== 'default') args.push('--namespace', namespace);
  for (const [name, kind] of Object.entries(options.searchAttributes ?? defaultSearchAttributes)) {
    if (!identifier.test(name)) throw new Error(`search attribute name '${name}' is not an identifier`);
    args.push('--search-attribute', `${name}=${kind}`);
  }
  for (const [key, value] of Object.entries({ ...PRECISE_TIMERS, ...EAGER_ACTIVITIES, ...(options.dynamicConfig ?? {}) })) {
    args.push('--dynamic-config-value', `${key}=${JSON.stringify(value)}`);
  }
  return args;
}

/**
 * The server fires a timer no earlier than now + this shift (default 1 s), so every politeness
 * sleep would end up to a second late and a host with a 250 ms delay would be crawled at one
 * request a second. 10 ms keeps timers close to their due time.
 */
const PRECISE_TIMERS = { 'history.timerProcessorMaxTimeShift': '10ms' };

/**
 * Eager activity dispatch: when a host workflow schedules its fetch or parse and its worker has a
 * free slot, the server hands the activity task back in the workflow task's completion instead of
 * queueing it for a poller, saving a matching round trip per activity. Off by default on a server;
 * the SDK asks for it by default. Set the same key on a production cluster.
 */
const EAGER_ACTIVITIES = { 'system.enableActivityEagerExecution': true };

export function startTemporalDevServer(options: TemporalDevServerOptions): DetachedProcess {
  const paths = temporalPaths(options.dir);
  return spawnDetached({
    command: options.binary,
    args: temporalDevServerArgs(options),
    cwd: options.dir,
    logFile: paths.logFile,
    pidFile: paths.pidFile,
    // temporal.db holds every workflow's input and history.
    umask: PRIVATE_UMASK,
  });
}

/**
 * Whether a dev server's log says it gave up its own start-up: the server starts its internal
 * services under a deadline (`failed starting server: failed to start service worker: context
 * deadline exceeded`), and a store stopped with many workflows mid-run (a wide crawl
 * stopped as it ends) holds its one SQLite writer with their overdue timeouts and timers past it.
 * The work it got through is kept, so the next start gets further.
 */
export function temporalStartTimedOut(appendedLog: string): boolean {
  return /failed starting server:[^\n]*context deadline exceeded/.test(appendedLog);
}

/** IndexedValueType numbers of temporal.api.enums.v1 (the proto package is not a direct dependency). */
const indexedValueType = {
  Text: 1,
  Keyword: 2,
  Int: 3,
  Double: 4,
  Bool: 5,
  Datetime: 6,
  KeywordList: 7,
} as const satisfies Record<SearchAttributeKind, number>;

/** Connects and describes the namespace: true only when the frontend serves that namespace. */
export async function temporalAnswers(address: string, namespace: string, connectTimeoutMs = 3_000): Promise<boolean> {
  const connection = await Connection.connect({ address, connectTimeout: connectTimeoutMs });
  try {
    await connection.workflowService.describeNamespace({ namespace });
    return true;
  } finally {
    await connection.close();
  }
}

/** How long a namespace registered a moment ago may take to reach the service that answers for it. */
export const NAMESPACE_PROPAGATION_WAIT_MS = 30_000;

/**
 * Registers missing custom search attributes through the operator service (an external server
 * gets no --search-attribute flags). Idempotent: existing ones are left alone. Returns the names added.
 * A namespace registered just before (Temporal's auto-setup, a test cluster) is read from each
 * service's namespace cache, refreshed every few seconds: NOT_FOUND is asked again for up to
 * `namespaceWaitMs` before it is an error.
 */
export async function ensureSearchAttributes(
  address: string,
  namespace: string,
  searchAttributes: Readonly<Record<string, SearchAttributeKind>>,
  namespaceWaitMs = NAMESPACE_PROPAGATION_WAIT_MS,
): Promise<string[]> {
  const connection = await Connection.connect({ address, connectTimeout: 5_000 });
  const deadline = Date.now() + namespaceWaitMs;
  try {
    for (;;) {
      try {
        const existing = await connection.operatorService.listSearchAttributes({ namespace });
        const known = new Set([...Object.keys(existing.customAttributes ?? {}), ...Object.keys(existing.systemAttributes ?? {})]);
        const missing = Object.entries(searchAttributes).filter(([name]) => !known.has(name));
        if (missing.length === 0) return [];
        await connection.operatorService.addSearchAttributes({
          namespace,
          searchAttributes: Object.fromEntries(missing.map(([name, kind]) => [name, indexedValueType[kind]])),
        });
        return missing.map(([name]) => name);
      } catch (error) {
        if ((error as { code?: number }).code !== grpcNotFound || Date.now() >= deadline) {
          if ((error as { code?: number }).code === grpcNotFound) {
            throw new Error(`Temporal at ${address} has no namespace '${namespace}' (still not found after ${namespaceWaitMs} ms): register it, or set TEMPORAL_NAMESPACE to one that exists`, { cause: error });
          }
          throw error;
        }
        await new Promise((resolve) => setTimeout(resolve, 1_000));
      }
    }
  } finally {
    await connection.close();
  }
}

/** gRPC NOT_FOUND, as carried by @grpc/grpc-js errors. */
const grpcNotFound = 5;

/**
 * Registers the namespace on a dev server that lacks it (a server reused with a new namespace
 * option). Retention is short: this is a developer's machine. Returns true when it registered.
 */
export async function ensureNamespace(address: string, namespace: string, retentionDays = 3): Promise<boolean> {
  const connection = await Connection.connect({ address, connectTimeout: 5_000 });
  try {
    try {
      await connection.workflowService.describeNamespace({ namespace });
      return false;
    } catch (error) {
      if ((error as { code?: number }).code !== grpcNotFound) throw error;
    }
    type Request = Parameters<typeof connection.workflowService.registerNamespace>[0];
    // protobufjs takes a plain number where the generated type says Long.
    const retention = { seconds: retentionDays * 24 * 3600 } as unknown as Request['workflowExecutionRetentionPeriod'];
    await connection.workflowService.registerNamespace({ namespace, workflowExecutionRetentionPeriod: retention });
    return true;
  } finally {
    await connection.close();
  }
}
