// What `crawler stack status` reports: for each service, whether this data folder's copy runs (and
// where, with its log), or the environment points at an external one.
import { join, resolve } from 'node:path';
import { redactCredentials } from '../domain/url/index.js';
import { externalServicesFromEnv } from './external-services.js';
import { configuredPostgresPort, postgresDatabase, postgresPaths, postgresUrl } from './postgres-cluster.js';
import { isProcessAlive, readPidFile } from './process-supervisor.js';
import { readStackState } from './stack-state.js';

/** Every service of the stack listens on loopback only. */
export const STACK_HOST = '127.0.0.1';
const host = STACK_HOST;
/** The data folder when none is given. */
export const defaultDataDir = '.crawler-data';

export interface ServiceStatus {
  state: 'running' | 'stopped' | 'external';
  endpoint?: string;
  pid?: number;
  logFile?: string;
  uiUrl?: string;
}

export interface StackStatus {
  temporal: ServiceStatus;
  postgres: ServiceStatus;
  s3: ServiceStatus;
}

/** What runs for this data folder, and which services the environment points elsewhere. */
export async function stackStatus(options: { dataDir?: string; env?: NodeJS.ProcessEnv } = {}): Promise<StackStatus> {
  const dataDir = resolve(options.dataDir ?? defaultDataDir);
  const external = externalServicesFromEnv(options.env ?? process.env);
  const state = readStackState(dataDir);

  const temporal: ServiceStatus = external.temporal
    ? { state: 'external', endpoint: external.temporal.address }
    : managedStatus(state.temporal?.pid, 'temporal', state.temporal && {
        endpoint: `${host}:${state.temporal.port}`,
        logFile: state.temporal.logFile,
        uiUrl: `http://${host}:${state.temporal.uiPort}`,
      });

  const postgresDir = join(dataDir, 'postgres');
  const postgresPort = configuredPostgresPort(postgresDir) ?? state.postgres?.port;
  const postgres: ServiceStatus = external.postgres
    ? { state: 'external', endpoint: redactCredentials(external.postgres.url) }
    : managedStatus(readPidFile(postgresPaths(postgresDir).pidFile), 'postgres', postgresPort === undefined ? undefined : {
        endpoint: redactCredentials(postgresUrl(postgresPort, postgresDatabase, state.postgresPassword)),
        logFile: postgresPaths(postgresDir).logFile,
      });

  const s3: ServiceStatus = external.s3
    ? { state: 'external', endpoint: `${external.s3.useSSL ? 'https' : 'http'}://${external.s3.endPoint}:${external.s3.port}` }
    : managedStatus(state.minio?.pid, 'minio', state.minio && {
        endpoint: `http://${host}:${state.minio.port}`,
        logFile: state.minio.logFile,
        uiUrl: `http://${host}:${state.minio.consolePort}`,
      });

  return { temporal, postgres, s3 };
}

function managedStatus(pid: number | undefined, program: string, known: Omit<ServiceStatus, 'state' | 'pid'> | undefined): ServiceStatus {
  if (pid !== undefined && isProcessAlive(pid, program)) return { state: 'running', pid, ...known };
  return { state: 'stopped', ...known };
}
