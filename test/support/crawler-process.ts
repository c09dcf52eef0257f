// `crawler` child processes wired to a harness's services: CLI commands, whole worker processes,
// and their resident memory read from /proc.
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { promisify } from 'node:util';
import type { Harness } from './crawler-harness.js';

const execFileAsync = promisify(execFile);

export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs `node bin/crawler.js ...args` against the harness's services; never throws on a non-zero exit. */
export async function runCrawlerCli(harness: Harness, args: string[]): Promise<CliResult> {
  try {
    const { stdout, stderr } = await execFileAsync('node', ['bin/crawler.js', ...args, '--data-dir', harness.dataDir], { env: harness.childEnv });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const failed = error as { code?: number; stdout?: string; stderr?: string };
    return { code: typeof failed.code === 'number' ? failed.code : 1, stdout: failed.stdout ?? '', stderr: failed.stderr ?? String(error) };
  }
}

export interface WorkerProcessOptions {
  maxConcurrentActivities?: number;
  maxCachedWorkflows?: number;
  /** `--role`: all (default), workflows or activities. */
  role?: string;
  /** Prefix of the lines it writes to our stderr. */
  label?: string;
  /** More flags, e.g. ['--metrics-port', '9464']. */
  extraArgs?: string[];
}

/** A `crawler worker` process on the harness's task queue; its stderr is copied to ours. */
export function spawnWorkerProcess(harness: Harness, options: WorkerProcessOptions = {}): ChildProcess {
  const args = ['bin/crawler.js', 'worker', '--task-queue', harness.taskQueue, '--data-dir', harness.dataDir];
  if (options.maxConcurrentActivities !== undefined) args.push('--max-concurrent-activities', String(options.maxConcurrentActivities));
  if (options.maxCachedWorkflows !== undefined) args.push('--max-cached-workflows', String(options.maxCachedWorkflows));
  if (options.role !== undefined) args.push('--role', options.role);
  if (options.extraArgs !== undefined) args.push(...options.extraArgs);
  const child = spawn('node', args, { env: harness.childEnv, stdio: ['ignore', 'ignore', 'pipe'] });
  const label = options.label ?? `worker ${child.pid}`;
  child.stderr?.on('data', (chunk: Buffer) => process.stderr.write(`[${label}] ${chunk.toString()}`));
  return child;
}

/** Stops a child we started: SIGTERM, then SIGKILL if it has not exited in `graceMs`. */
export async function stopProcess(child: ChildProcess, graceMs = 15_000): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
  await exited;
  clearTimeout(timer);
}

/**
 * Resident set size of a process and all its descendants in KiB (VmRSS from /proc), or undefined
 * once it has exited. Descendants count in case a command ever runs its work in a child process.
 */
export async function processTreeRssKb(pid: number): Promise<number | undefined> {
  const own = await vmRssKb(pid);
  if (own === undefined) return undefined;
  let total = own;
  for (const child of await childPids(pid)) total += (await processTreeRssKb(child)) ?? 0;
  return total;
}

async function vmRssKb(pid: number): Promise<number | undefined> {
  try {
    const status = await readFile(`/proc/${pid}/status`, 'utf8');
    const match = /^VmRSS:\s+(\d+)\s+kB/m.exec(status);
    return match ? Number(match[1]) : 0;
  } catch {
    return undefined;
  }
}

async function childPids(pid: number): Promise<number[]> {
  try {
    const text = await readFile(`/proc/${pid}/task/${pid}/children`, 'utf8');
    return text.trim().split(/\s+/).filter(Boolean).map(Number);
  } catch {
    return [];
  }
}
