import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { PRIVATE_DIR_MODE, PRIVATE_FILE_MODE } from './private-files.js';
import { isProcessAlive } from './process-supervisor.js';
import { StackError } from './stack-error.js';

export interface StackLockOptions {
  /** How long to wait for another process's lock. Default: 180_000 ms (a cold start can take a minute). */
  timeoutMs?: number;
}

/** Per data folder: the tail of this process's queue for the lock. */
const heldHere = new Map<string, Promise<void>>();

/**
 * Runs fn holding `<dataDir>/stack.lock`, so two commands starting the same stack at once do
 * not start two of each service. A lock whose holder died is taken over.
 */
export async function withStackLock<T>(dataDir: string, fn: () => Promise<T>, options: StackLockOptions = {}): Promise<T> {
  // Callers in this process queue here; the file lock is for other processes.
  const previous = heldHere.get(dataDir) ?? Promise.resolve();
  const run = previous.catch(() => undefined).then(() => withFileLock(dataDir, fn, options));
  const settled = run.then(
    () => undefined,
    () => undefined,
  );
  heldHere.set(dataDir, settled);
  try {
    return await run;
  } finally {
    if (heldHere.get(dataDir) === settled) heldHere.delete(dataDir);
  }
}

async function withFileLock<T>(dataDir: string, fn: () => Promise<T>, options: StackLockOptions): Promise<T> {
  mkdirSync(dataDir, { recursive: true, mode: PRIVATE_DIR_MODE });
  const lockPath = join(dataDir, 'stack.lock');
  const deadline = Date.now() + (options.timeoutMs ?? 180_000);
  for (;;) {
    try {
      writeFileSync(lockPath, `${process.pid}\n`, { flag: 'wx', mode: PRIVATE_FILE_MODE });
      break;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
    const holder = Number.parseInt(readLock(lockPath), 10);
    // Our own pid here is a leftover of an earlier process with the same pid: in this process
    // only the queue above reaches this point.
    if (!Number.isInteger(holder) || holder === process.pid || !isProcessAlive(holder)) {
      rmSync(lockPath, { force: true });
      continue;
    }
    if (Date.now() >= deadline) {
      throw new StackError(`The stack in ${dataDir} is locked by process ${holder}`, {
        code: 'STACK_LOCKED',
        service: 'tools',
        hint: `Wait for that command to finish, or stop it and remove ${lockPath}.`,
      });
    }
    await sleep(200);
  }
  try {
    return await fn();
  } finally {
    rmSync(lockPath, { force: true });
  }
}

function readLock(path: string): string {
  try {
    return readFileSync(path, 'utf8').trim();
  } catch {
    return '';
  }
}
