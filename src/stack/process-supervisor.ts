import { spawn } from 'node:child_process';
import { closeSync, mkdirSync, openSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { basename, dirname } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { PRIVATE_DIR_MODE, PRIVATE_FILE_MODE } from './private-files.js';

export interface SpawnDetachedOptions {
  /** Executable path. */
  command: string;
  args: readonly string[];
  /** Environment of the child. Default: process.env. */
  env?: NodeJS.ProcessEnv;
  /** Working folder of the child. Default: the current folder. */
  cwd?: string;
  /** stdout and stderr are appended here (created with its folder when missing). */
  logFile: string;
  /** The child's pid is written here; omit when the program writes its own (postmaster.pid). */
  pidFile?: string;
  /** The child's umask, e.g. PRIVATE_UMASK so that what it creates is its user's alone. Default: this process's. */
  umask?: number;
}

export interface DetachedProcess {
  pid: number;
  logFile: string;
}

/**
 * Starts a process in its own session (so it outlives this one and a Ctrl-C here does not reach
 * it), output appended to logFile, and lets this process exit without waiting for it.
 */
export function spawnDetached(options: SpawnDetachedOptions): DetachedProcess {
  mkdirSync(dirname(options.logFile), { recursive: true, mode: PRIVATE_DIR_MODE });
  const logFd = openSync(options.logFile, 'a', PRIVATE_FILE_MODE);
  // Node cannot set a child's umask: a shell sets it, then becomes the program (same pid).
  const [command, args] =
    options.umask === undefined
      ? [options.command, options.args]
      : ['/bin/sh', ['-c', `umask ${options.umask.toString(8).padStart(3, '0')} && exec "$0" "$@"`, options.command, ...options.args]];
  try {
    const child = spawn(command, args, {
      cwd: options.cwd,
      env: options.env ?? process.env,
      detached: true,
      stdio: ['ignore', logFd, logFd],
    });
    // A spawn error (ENOENT, EACCES) arrives asynchronously; the liveness checks see the dead pid.
    child.on('error', () => undefined);
    child.unref();
    if (child.pid === undefined) throw new Error(`could not start ${options.command}`);
    if (options.pidFile !== undefined) {
      mkdirSync(dirname(options.pidFile), { recursive: true, mode: PRIVATE_DIR_MODE });
      writeFileSync(options.pidFile, `${child.pid}\n`, { mode: PRIVATE_FILE_MODE });
    }
    return { pid: child.pid, logFile: options.logFile };
  } finally {
    closeSync(logFd);
  }
}

/** The pid in the first line of a pid file (ours or Postgres' postmaster.pid), if any. */
export function readPidFile(path: string): number | undefined {
  try {
    const pid = Number.parseInt(readFileSync(path, 'utf8').split('\n', 1)[0] ?? '', 10);
    return Number.isInteger(pid) && pid > 0 ? pid : undefined;
  } catch {
    return undefined;
  }
}

export function removePidFile(path: string): void {
  rmSync(path, { force: true });
}

/** Linux process state letter from /proc, or undefined where /proc is not available. */
function procState(pid: number): string | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3);
  } catch {
    return undefined;
  }
}

function procCommandLine(pid: number): string[] | undefined {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').filter((part) => part !== '');
  } catch {
    return undefined;
  }
}

/**
 * True when pid is a live (not zombie) process and, when expectedProgram is given, runs a program
 * of that name: after a reboot a stale pid file can name an unrelated process.
 */
export function isProcessAlive(pid: number, expectedProgram?: string): boolean {
  try {
    process.kill(pid, 0);
  } catch (error) {
    // EPERM: it exists but belongs to someone else.
    if ((error as NodeJS.ErrnoException).code !== 'EPERM') return false;
  }
  const state = procState(pid);
  if (state === 'Z' || state === 'X') return false;
  if (expectedProgram === undefined) return true;
  const commandLine = procCommandLine(pid);
  if (commandLine === undefined) return true;
  const program = basename(expectedProgram);
  return commandLine.slice(0, 2).some((part) => basename(part) === program);
}

export interface StopProcessOptions {
  /** First, polite signal. Default: 'SIGTERM' (Postgres wants 'SIGINT', its fast shutdown). */
  signal?: NodeJS.Signals;
  /** How long to wait after the polite signal before SIGKILL. Default: 20_000 ms. */
  graceMs?: number;
  /** Signal the whole process group (the process was started detached). Default: true. */
  processGroup?: boolean;
  /** Program name the pid must run, so a reused pid is never signalled. Default: not checked. */
  expectedProgram?: string;
}

function signal(pid: number, sig: NodeJS.Signals, group: boolean): void {
  try {
    process.kill(group ? -pid : pid, sig);
  } catch (error) {
    // The group may be gone while the leader lingers; fall back to the pid alone.
    if (group && (error as NodeJS.ErrnoException).code === 'ESRCH') signal(pid, sig, false);
  }
}

async function waitForExit(pid: number, timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (!isProcessAlive(pid)) return true;
    await sleep(100);
  }
  return !isProcessAlive(pid);
}

/** Graceful stop: the polite signal, then SIGKILL after graceMs. Resolves once the process is gone. */
export async function stopProcess(pid: number, options: StopProcessOptions = {}): Promise<'not-running' | 'stopped' | 'killed'> {
  if (!isProcessAlive(pid, options.expectedProgram)) return 'not-running';
  const group = options.processGroup ?? true;
  signal(pid, options.signal ?? 'SIGTERM', group);
  if (await waitForExit(pid, options.graceMs ?? 20_000)) return 'stopped';
  signal(pid, 'SIGKILL', group);
  await waitForExit(pid, 5_000);
  return 'killed';
}

/** The last lines of a log file, for error messages. */
export function tailFile(path: string, maxLines = 15): string {
  try {
    const lines = readFileSync(path, 'utf8').trimEnd().split('\n');
    return lines.slice(-maxLines).join('\n');
  } catch {
    return '';
  }
}
