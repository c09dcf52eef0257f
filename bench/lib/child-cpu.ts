// CPU seconds of processes that come and go during a run, read from /proc (Linux): a process
// that has exited is counted through its parent's reaped-children times, so a CLI that exits or
// a Postgres backend that closes loses nothing.
import { readFileSync } from 'node:fs';

const CLOCK_TICKS_PER_SECOND = 100;

/** utime, stime, cutime, cstime of one process in clock ticks; undefined when it is gone. */
export function statTicks(pid: number | 'self'): { own: number; reaped: number } | undefined {
  let stat: string;
  try {
    stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return undefined;
  }
  // The command name may hold spaces and parentheses: fields start after the last ')'.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ').map(Number);
  return { own: (fields[11] ?? 0) + (fields[12] ?? 0), reaped: (fields[13] ?? 0) + (fields[14] ?? 0) };
}

/**
 * CPU of the children this process reaps between two reads: a benchmark that runs one child at a
 * time (a `crawler crawl`, a Crawlee run) gets that child's whole CPU, its reaped descendants included.
 */
export class ReapedChildrenCpu {
  private readonly startTicks = statTicks('self')?.reaped ?? 0;

  seconds(): number {
    return ((statTicks('self')?.reaped ?? 0) - this.startTicks) / CLOCK_TICKS_PER_SECOND;
  }
}

/**
 * CPU of a long-lived service process (Temporal, Postgres's postmaster with the backends it has
 * reaped, MinIO) and its live children, in seconds since it started. The difference of two reads
 * is the CPU of the run between them; a process born after the first read counts from zero.
 */
export function serviceCpuSeconds(pid: number | undefined, livingChildren: readonly number[] = []): number {
  if (pid === undefined) return 0;
  const main = statTicks(pid);
  if (main === undefined) return 0;
  let ticks = main.own + main.reaped;
  for (const child of livingChildren) ticks += statTicks(child)?.own ?? 0;
  return ticks / CLOCK_TICKS_PER_SECOND;
}

/** Pids of the living children of `pid` (Postgres backends, the checkpointer, ...). */
export function childrenOf(pid: number | undefined): number[] {
  if (pid === undefined) return [];
  try {
    const tasks = readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').trim();
    return tasks === '' ? [] : tasks.split(/\s+/).map(Number);
  } catch {
    return [];
  }
}
