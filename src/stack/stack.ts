import { join, resolve } from 'node:path';
import { bucketSettings, externalServicesFromEnv, type ExternalServices } from './external-services.js';
import { findFreePorts, isPortOpen } from './free-port.js';
import { startOnFreePorts, type StartRetry } from './port-retry.js';
import { ensureBucket, generateMinioCredentials, minioPaths, minioReady, s3Client, startMinioServer } from './minio-server.js';
import {
  configuredPostgresPort,
  ensurePostgresDatabase,
  generatePostgresPassword,
  initPostgresCluster,
  postgresAnswers,
  postgresClientUrl,
  postgresDatabase,
  postgresPaths,
  postgresUrl,
  requirePostgresPassword,
  startPostgresCluster,
} from './postgres-cluster.js';
import { makeDataDirPrivate, makePrivateDir } from './private-files.js';
import { isProcessAlive, readPidFile, removePidFile, stopProcess, tailFile } from './process-supervisor.js';
import { StackError, type StackService } from './stack-error.js';
import { withStackLock } from './stack-lock.js';
import { readStackState, writeStackState, type StackState } from './stack-state.js';
import { STACK_HOST, defaultDataDir } from './stack-status.js';
import { postgresRunAs } from './system-user.js';
import {
  defaultSearchAttributes,
  ensureNamespace,
  ensureSearchAttributes,
  startTemporalDevServer,
  temporalAnswers,
  temporalStartTimedOut,
  temporalPaths,
  type SearchAttributeKind,
} from './temporal-dev-server.js';
import { requirePostgresBinDir, requireTool } from './tool-paths.js';
import { describeError, waitUntil, type WaitOutcome } from './wait-until.js';
import { redactCredentials } from '../domain/url/index.js';

export interface StackOptions {
  /** Everything the stack keeps lives under it. Default: '.crawler-data', resolved against the current folder. */
  dataDir?: string;
  /**
   * Selects external services: TEMPORAL_ADDRESS, DATABASE_URL, S3_ENDPOINT (+ S3_ACCESS_KEY,
   * S3_SECRET_KEY); for a kind that is set nothing of that kind is started. S3_BUCKET and
   * S3_REGION name the bucket either way. Default: process.env.
   */
  env?: NodeJS.ProcessEnv;
  /** Default: 'default'. Created on a managed dev server when missing; must exist on an external one. */
  temporalNamespace?: string;
  /**
   * Custom search attributes, registered at dev-server start (--search-attribute) and, for an
   * external or reused server, through the operator service (idempotent).
   * Default: { CrawlId: 'Keyword', CrawlHost: 'Keyword', CrawlState: 'Keyword', CrawlIds: 'KeywordList' }.
   */
  searchAttributes?: Record<string, SearchAttributeKind>;
  /**
   * Extra `--dynamic-config-value KEY=JSON` for a dev server this call starts (a running one keeps
   * what it was started with). Default: none.
   */
  temporalDynamicConfig?: Record<string, unknown>;
  /** Progress lines ("starting Postgres on 127.0.0.1:54321 ..."). Default: discarded. */
  log?: (line: string) => void;
  /** How long a service this call starts may take to answer. Default: 120_000 ms (a 2-core machine under load). */
  startTimeoutMs?: number;
  /** How long an external or already running service may take to answer. Default: 15_000 ms. */
  connectTimeoutMs?: number;
}

export interface StackEndpoints {
  temporal: { address: string; namespace: string; uiUrl?: string; managed: boolean };
  postgres: { url: string; managed: boolean };
  s3: {
    endPoint: string;
    port: number;
    useSSL: boolean;
    accessKey: string;
    secretKey: string;
    bucket: string;
    region: string;
    managed: boolean;
    consoleUrl?: string;
  };
}

const host = STACK_HOST;

interface Context {
  dataDir: string;
  state: StackState;
  external: ExternalServices;
  namespace: string;
  searchAttributes: Record<string, SearchAttributeKind>;
  dynamicConfig: Record<string, unknown>;
  log: (line: string) => void;
  startTimeoutMs: number;
  connectTimeoutMs: number;
  bucket: string;
  region: string;
  /** Ports handed out by this call, so services starting side by side never get the same one. */
  claimPorts: (count: number, preferredPorts: readonly (number | undefined)[]) => Promise<number[]>;
}

/** One claim at a time, each excluding every port claimed before it in this ensureStack call. */
function portClaimer(): Context['claimPorts'] {
  const claimed = new Set<number>();
  let queue: Promise<unknown> = Promise.resolve();
  return (count, preferredPorts) => {
    const claim = queue.then(async () => {
      const ports = await findFreePorts(count, { host, preferredPorts, excludePorts: claimed });
      for (const port of ports) claimed.add(port);
      return ports;
    });
    queue = claim.catch(() => undefined);
    return claim;
  };
}

function serviceName(service: StackService): string {
  return { temporal: 'Temporal', postgres: 'Postgres', s3: 'MinIO', tools: 'tools' }[service];
}

function retryLine(service: StackService, retry: StartRetry): string {
  return retry.reason === 'port-taken'
    ? `${serviceName(service)} could not bind ${retry.ports.join(' or ')} (taken by another process since it was free); starting it on other ports`
    : `${serviceName(service)} ran out of start-up time working through what its stored workflows left due; starting it again on ${retry.ports.join(' and ')} (the work it did is kept)`;
}

const upHint = 'Start the stack with `crawler stack up` (binaries: `npm run tools`).';

/** The StackError for a service that did not come up; the message carries the log's last lines. */
function notReady(service: StackService, outcome: Exclude<WaitOutcome, { ready: true }>, endpoint: string, logFile: string): StackError {
  const tail = tailFile(logFile, 5);
  const died = outcome.reason === 'abandoned';
  return new StackError(
    `${serviceName(service)} ${died ? 'exited while starting' : 'did not answer in time'} on ${endpoint}: ${describeError(outcome.lastError)}${tail === '' ? '' : `\n${tail}\n`}`,
    { code: died ? 'STACK_START_FAILED' : 'STACK_NOT_READY', service, logFile, hint: `Read the log, then retry. ${upHint}`, cause: outcome.lastError },
  );
}

/** Probes a started service until it answers; gives up when its process exits (`pid`) or at the start timeout. */
async function untilAnswering(
  ctx: Context,
  service: StackService,
  probe: () => Promise<boolean>,
  started: { pid: number; endpoint: string; logFile: string },
): Promise<void> {
  const outcome = await waitUntil(probe, { timeoutMs: ctx.startTimeoutMs, abandonIf: () => !isProcessAlive(started.pid) });
  if (!outcome.ready) throw notReady(service, outcome, started.endpoint, started.logFile);
}

function unreachable(service: StackService, variable: string, endpoint: string, outcome: Exclude<WaitOutcome, { ready: true }>): StackError {
  return new StackError(`External ${serviceName(service)} at ${endpoint} (from ${variable}) did not answer: ${describeError(outcome.lastError)}`, {
    code: 'STACK_UNREACHABLE',
    service,
    hint: `Start that service or fix ${variable}; or unset ${variable} to let the project start its own.`,
    cause: outcome.lastError,
  });
}

/** A recorded process that is still ours and still answering on its port. */
async function stillServing(pid: number | undefined, program: string, port: number | undefined): Promise<boolean> {
  return pid !== undefined && port !== undefined && isProcessAlive(pid, program) && (await isPortOpen(host, port));
}

async function ensureTemporal(ctx: Context): Promise<StackEndpoints['temporal']> {
  const { namespace } = ctx;
  if (ctx.external.temporal !== undefined) {
    const { address } = ctx.external.temporal;
    const outcome = await waitUntil(() => temporalAnswers(address, namespace, Math.min(3_000, ctx.connectTimeoutMs)), {
      timeoutMs: ctx.connectTimeoutMs,
    });
    if (!outcome.ready) throw unreachable('temporal', 'TEMPORAL_ADDRESS', address, outcome);
    const added = await ensureSearchAttributes(address, namespace, ctx.searchAttributes);
    if (added.length > 0) ctx.log(`registered search attributes ${added.join(', ')} on ${address}`);
    return { address, namespace, managed: false };
  }

  const dir = join(ctx.dataDir, 'temporal');
  const recorded = ctx.state.temporal;
  // A fresh server has only 'default' until start-up finishes; describe 'default' first, then ours.
  const answering = (record: NonNullable<StackState['temporal']>): Promise<void> =>
    untilAnswering(ctx, 'temporal', () => temporalAnswers(`${host}:${record.port}`, 'default'), {
      pid: record.pid ?? 0,
      endpoint: `${host}:${record.port}`,
      logFile: record.logFile,
    });
  let record: NonNullable<StackState['temporal']>;
  if (recorded !== undefined && (await stillServing(recorded.pid, 'temporal', recorded.port))) {
    record = recorded;
    ctx.log(`Temporal dev server already running (pid ${recorded.pid}) on ${host}:${recorded.port}`);
    await answering(record);
  } else {
    if (recorded?.pid !== undefined) await stopProcess(recorded.pid, { expectedProgram: 'temporal' });
    const binary = requireTool('temporal');
    makePrivateDir(dir);
    record = await startOnFreePorts({
      count: 2,
      preferredPorts: [recorded?.port, recorded?.uiPort],
      claimPorts: ctx.claimPorts,
      logFile: temporalPaths(dir).logFile,
      startMayCatchUp: temporalStartTimedOut,
      onRetry: (retry) => ctx.log(retryLine('temporal', retry)),
      start: async ([port = 0, uiPort = 0]) => {
        ctx.log(`starting Temporal dev server on ${host}:${port} (UI http://${host}:${uiPort}) ...`);
        const started = startTemporalDevServer({
          binary,
          dir,
          port,
          uiPort,
          namespace,
          searchAttributes: ctx.searchAttributes,
          dynamicConfig: ctx.dynamicConfig,
        });
        const attempt = { pid: started.pid, port, uiPort, namespace, logFile: started.logFile };
        ctx.state.temporal = attempt;
        await answering(attempt);
        return attempt;
      },
    });
  }
  const address = `${host}:${record.port}`;
  if (await ensureNamespace(address, namespace)) ctx.log(`registered Temporal namespace ${namespace}`);
  const added = await ensureSearchAttributes(address, namespace, ctx.searchAttributes);
  if (added.length > 0) ctx.log(`registered search attributes ${added.join(', ')}`);
  return { address, namespace, uiUrl: `http://${host}:${record.uiPort}`, managed: true };
}

async function ensurePostgres(ctx: Context): Promise<StackEndpoints['postgres']> {
  if (ctx.external.postgres !== undefined) {
    const { url } = ctx.external.postgres;
    const outcome = await waitUntil(() => postgresAnswers(url, Math.min(3_000, ctx.connectTimeoutMs)), { timeoutMs: ctx.connectTimeoutMs });
    if (!outcome.ready) throw unreachable('postgres', 'DATABASE_URL', redactCredentials(url), outcome);
    return { url, managed: false };
  }

  const dir = join(ctx.dataDir, 'postgres');
  const paths = postgresPaths(dir);
  const password = (ctx.state.postgresPassword ??= generatePostgresPassword());
  // postmaster.pid, not our record, is the truth about a running cluster.
  const runningPid = readPidFile(paths.pidFile);
  const runningPort = configuredPostgresPort(dir);
  const answering = (port: number, pid: number): Promise<void> =>
    untilAnswering(ctx, 'postgres', () => postgresAnswers(postgresUrl(port, 'postgres', password)), { pid, endpoint: `${host}:${port}`, logFile: paths.logFile });
  let port: number;
  if (runningPort !== undefined && (await stillServing(runningPid, 'postgres', runningPort))) {
    port = runningPort;
    ctx.state.postgres = { pid: runningPid, port, logFile: paths.logFile };
    ctx.log(`Postgres already running (pid ${runningPid}) on ${host}:${port}`);
    await answering(port, runningPid ?? 0);
  } else {
    if (runningPid !== undefined) await stopProcess(runningPid, { signal: 'SIGINT', processGroup: false, expectedProgram: 'postgres' });
    const binDir = requirePostgresBinDir();
    const runAs = postgresRunAs();
    port = await startOnFreePorts({
      count: 1,
      preferredPorts: [ctx.state.postgres?.port],
      claimPorts: ctx.claimPorts,
      logFile: paths.logFile,
      onRetry: (retry) => ctx.log(retryLine('postgres', retry)),
      start: async ([attemptPort = 0]) => {
        ctx.log(`starting Postgres on ${host}:${attemptPort} ...`);
        await initPostgresCluster({ binDir, dir, port: attemptPort, runAs, password });
        const started = await startPostgresCluster({
          binDir,
          dir,
          port: attemptPort,
          runAs,
          startTimeoutSeconds: Math.ceil(ctx.startTimeoutMs / 1000),
        });
        ctx.state.postgres = { pid: started.pid, port: attemptPort, logFile: started.logFile };
        await answering(attemptPort, started.pid);
        return attemptPort;
      },
    });
  }
  const adminUrl = postgresUrl(port, 'postgres', password);
  if (await requirePostgresPassword({ dir, adminUrl, password, runAs: postgresRunAs() })) {
    ctx.log('Postgres trusted loopback connections: it now asks for the password in stack.json (scram-sha-256)');
  }
  await ensurePostgresDatabase(adminUrl, postgresDatabase);
  return { url: postgresClientUrl(port, paths.socketDir, postgresDatabase, password), managed: true };
}

async function ensureS3(ctx: Context): Promise<StackEndpoints['s3']> {
  const { bucket, region } = ctx;
  if (ctx.external.s3 !== undefined) {
    const s3 = { ...ctx.external.s3, bucket, region };
    const client = s3Client(s3);
    const outcome = await waitUntil(() => ensureBucket(client, bucket, region).then(() => true), { timeoutMs: ctx.connectTimeoutMs });
    if (!outcome.ready) throw unreachable('s3', 'S3_ENDPOINT', `${s3.endPoint}:${s3.port}`, outcome);
    return { ...s3, managed: false };
  }

  const dir = join(ctx.dataDir, 'minio');
  const credentials = (ctx.state.minioCredentials ??= generateMinioCredentials());
  const recorded = ctx.state.minio;
  const bucketReady = (record: NonNullable<StackState['minio']>): Promise<void> => {
    const client = s3Client({ endPoint: host, port: record.port, useSSL: false, ...credentials, region });
    const probe = async (): Promise<boolean> => {
      if (!(await minioReady(host, record.port))) return false;
      if (await ensureBucket(client, bucket, region)) ctx.log(`created bucket ${bucket}`);
      return true;
    };
    return untilAnswering(ctx, 's3', probe, { pid: record.pid ?? 0, endpoint: `${host}:${record.port}`, logFile: record.logFile });
  };
  let record: NonNullable<StackState['minio']>;
  if (recorded !== undefined && (await stillServing(recorded.pid, 'minio', recorded.port))) {
    record = recorded;
    ctx.log(`MinIO already running (pid ${recorded.pid}) on ${host}:${recorded.port}`);
    await bucketReady(record);
  } else {
    if (recorded?.pid !== undefined) await stopProcess(recorded.pid, { expectedProgram: 'minio' });
    const binary = requireTool('minio');
    makePrivateDir(minioPaths(dir).objectsDir);
    record = await startOnFreePorts({
      count: 2,
      preferredPorts: [recorded?.port, recorded?.consolePort],
      claimPorts: ctx.claimPorts,
      logFile: minioPaths(dir).logFile,
      onRetry: (retry) => ctx.log(retryLine('s3', retry)),
      start: async ([port = 0, consolePort = 0]) => {
        ctx.log(`starting MinIO on ${host}:${port} (console http://${host}:${consolePort}) ...`);
        const started = startMinioServer({ binary, dir, port, consolePort, ...credentials });
        const attempt = { pid: started.pid, port, consolePort, logFile: started.logFile };
        ctx.state.minio = attempt;
        await bucketReady(attempt);
        return attempt;
      },
    });
  }
  const s3 = { endPoint: host, port: record.port, useSSL: false, ...credentials, bucket, region };
  return { ...s3, managed: true, consoleUrl: `http://${host}:${record.consolePort}` };
}

/**
 * Brings the stack up: reuses what this data folder already runs (state in <dataDir>/stack.json,
 * pids verified alive and ports answering), starts what is missing, each on a free port, detached
 * so it outlives this process. Resolves when every service answers.
 */
export async function ensureStack(options: StackOptions = {}): Promise<StackEndpoints> {
  const dataDir = resolve(options.dataDir ?? defaultDataDir);
  const env = options.env ?? process.env;
  const ctx: Context = {
    dataDir,
    state: { version: 1 },
    external: externalServicesFromEnv(env),
    namespace: options.temporalNamespace ?? 'default',
    searchAttributes: options.searchAttributes ?? { ...defaultSearchAttributes },
    dynamicConfig: options.temporalDynamicConfig ?? {},
    log: options.log ?? (() => undefined),
    startTimeoutMs: options.startTimeoutMs ?? 120_000,
    connectTimeoutMs: options.connectTimeoutMs ?? 15_000,
    ...bucketSettings(env),
    claimPorts: portClaimer(),
  };
  const { temporal, postgres, s3 } = ctx.external;
  if (temporal !== undefined && postgres !== undefined && s3 !== undefined) {
    // Nothing to start: leave the data folder alone (it may not even be writable, as in a container).
    const [t, p, s] = await Promise.all([ensureTemporal(ctx), ensurePostgres(ctx), ensureS3(ctx)]);
    return { temporal: t, postgres: p, s3: s };
  }
  return withStackLock(dataDir, async () => {
    makeDataDirPrivate(dataDir);
    ctx.state = readStackState(dataDir);
    // The credentials must be on disk before MinIO first starts with them, and before initdb sets
    // the Postgres password: a cluster whose password was lost cannot be entered.
    const newMinioCredentials = ctx.external.s3 === undefined && ctx.state.minioCredentials === undefined;
    const newPostgresPassword = ctx.external.postgres === undefined && ctx.state.postgresPassword === undefined;
    if (newMinioCredentials) ctx.state.minioCredentials = generateMinioCredentials();
    if (newPostgresPassword) ctx.state.postgresPassword = generatePostgresPassword();
    if (newMinioCredentials || newPostgresPassword) writeStackState(dataDir, ctx.state);
    const [temporal, postgres, s3] = await Promise.allSettled([ensureTemporal(ctx), ensurePostgres(ctx), ensureS3(ctx)]);
    // Record every pid started, even when a sibling failed, so stopStack can stop it.
    writeStackState(dataDir, ctx.state);
    for (const result of [temporal, postgres, s3]) if (result.status === 'rejected') throw result.reason;
    return {
      temporal: (temporal as PromiseFulfilledResult<StackEndpoints['temporal']>).value,
      postgres: (postgres as PromiseFulfilledResult<StackEndpoints['postgres']>).value,
      s3: (s3 as PromiseFulfilledResult<StackEndpoints['s3']>).value,
    };
  });
}

/** Stops what this data folder started (not external services, not other folders' stacks); data stays. */
export async function stopStack(options: Pick<StackOptions, 'dataDir' | 'log'> = {}): Promise<void> {
  const dataDir = resolve(options.dataDir ?? defaultDataDir);
  const log = options.log ?? (() => undefined);
  await withStackLock(dataDir, async () => {
    const state = readStackState(dataDir);
    const postgresPid = readPidFile(postgresPaths(join(dataDir, 'postgres')).pidFile);
    await Promise.all([
      stopRecorded('Temporal', state.temporal?.pid, { expectedProgram: 'temporal' }, log, temporalPaths(join(dataDir, 'temporal')).pidFile),
      stopRecorded('MinIO', state.minio?.pid, { expectedProgram: 'minio' }, log, minioPaths(join(dataDir, 'minio')).pidFile),
      // SIGINT is Postgres' fast shutdown: it does not wait for clients to disconnect.
      stopRecorded('Postgres', postgresPid ?? state.postgres?.pid, { signal: 'SIGINT', processGroup: false, expectedProgram: 'postgres', graceMs: 30_000 }, log),
    ]);
    for (const record of [state.temporal, state.postgres, state.minio]) if (record !== undefined) delete record.pid;
    writeStackState(dataDir, state);
  });
}

async function stopRecorded(
  name: string,
  pid: number | undefined,
  stopOptions: Parameters<typeof stopProcess>[1],
  log: (line: string) => void,
  pidFile?: string,
): Promise<void> {
  if (pid !== undefined) {
    const result = await stopProcess(pid, stopOptions);
    if (result !== 'not-running') log(`${name} (pid ${pid}) ${result}`);
  }
  if (pidFile !== undefined) removePidFile(pidFile);
}
