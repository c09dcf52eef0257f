import { chmodSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { PRIVATE_DIR_MODE, PRIVATE_FILE_MODE } from './private-files.js';

/** What this data folder started, as last recorded. Ports are kept so a restart reuses them. */
export interface StackState {
  version: 1;
  temporal?: { pid?: number; port: number; uiPort: number; namespace: string; logFile: string };
  postgres?: { pid?: number; port: number; logFile: string };
  minio?: { pid?: number; port: number; consolePort: number; logFile: string };
  /** MinIO root credentials, generated once per data folder. */
  minioCredentials?: { accessKey: string; secretKey: string };
  /** The local Postgres superuser's password (scram-sha-256), generated once per data folder. */
  postgresPassword?: string;
}

export function stackStatePath(dataDir: string): string {
  return join(dataDir, 'stack.json');
}

export function readStackState(dataDir: string): StackState {
  let text: string;
  try {
    text = readFileSync(stackStatePath(dataDir), 'utf8');
  } catch {
    return { version: 1 };
  }
  const parsed = JSON.parse(text) as Partial<StackState>;
  return { ...parsed, version: 1 };
}

/** Atomic (write then rename) and private (0600): the file holds the MinIO and Postgres passwords. */
export function writeStackState(dataDir: string, state: StackState): void {
  mkdirSync(dataDir, { recursive: true, mode: PRIVATE_DIR_MODE });
  const path = stackStatePath(dataDir);
  const tmp = `${path}.${process.pid}.tmp`;
  writeFileSync(tmp, `${JSON.stringify(state, null, 2)}\n`, { mode: PRIVATE_FILE_MODE });
  chmodSync(tmp, PRIVATE_FILE_MODE);
  renameSync(tmp, path);
}
