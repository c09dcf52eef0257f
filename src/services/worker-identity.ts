/**
 * How a crawler worker names itself to Temporal (its polls, the tasks it runs) and in robots
 * leases: `<hostname>/<pid>`. Naming the process lets a worker tell a sibling that has exited on
 * this machine from one that still runs.
 */
import os from 'node:os';
import { isProcessAlive } from '../stack/process-supervisor.js';

export function workerIdentity(pid: number = process.pid): string {
  return `${os.hostname()}/${pid}`;
}

/** The pid in a worker identity of this machine's; undefined for another machine's or another naming. */
export function localWorkerPid(identity: string): number | undefined {
  const prefix = `${os.hostname()}/`;
  if (!identity.startsWith(prefix)) return undefined;
  const pid = identity.slice(prefix.length);
  return /^[1-9][0-9]{0,9}$/.test(pid) ? Number(pid) : undefined;
}

/** Whether `identity` names a worker process of this machine that has exited (or is a zombie). Unknown: false. */
export function isExitedLocalWorker(identity: string): boolean {
  const pid = localWorkerPid(identity);
  return pid !== undefined && !isProcessAlive(pid);
}
