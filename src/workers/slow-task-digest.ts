/**
 * Temporal's core warns about every workflow task that takes over 5 s (TMPRL1104), with about 18
 * lines of metadata each. On a loaded machine a wide crawl prints dozens of them, hundreds of lines
 * on the user's terminal, all saying one thing: the worker is short of CPU, or the local claims in
 * host workflows' first tasks wait on Postgres. The first is printed in one line that says so;
 * later ones are counted and summed up at most once per interval.
 */
import type { LogEntry } from '@temporalio/worker';

export type LogFunction = (entry: LogEntry) => void;

export interface SlowTaskDigestOptions {
  /** Least time between two lines about slow workflow tasks, ms. Default one minute. */
  intervalMs?: number;
}

const SLOW_TASK_CODE = '[TMPRL1104]';

/** Whether an entry is core's warning about a slow workflow task. */
export function isSlowTaskWarning(entry: LogEntry): boolean {
  return entry.message.includes(SLOW_TASK_CODE);
}

/** Passes every entry to `write`, except slow-task warnings: the first in one line, then a count at most once per interval. */
export function digestSlowTaskWarnings(write: LogFunction, options: SlowTaskDigestOptions = {}): LogFunction {
  const intervalMs = options.intervalMs ?? 60_000;
  let lastPrintedMs: number | undefined;
  let countedSince = 0;
  let slowestMs = 0;

  return (entry) => {
    if (!isSlowTaskWarning(entry)) return write(entry);
    const atMs = Number(entry.timestampNanos / 1_000_000n);
    const durationMs = Number(entry.meta?.['workflowTaskDuration']);
    const workflowType = entry.meta?.['workflowType'];
    if (lastPrintedMs === undefined) {
      lastPrintedMs = atMs;
      const took = Number.isFinite(durationMs) ? ` took ${(durationMs / 1000).toFixed(1)} s` : ' took over 5 s';
      write({
        level: entry.level,
        timestampNanos: entry.timestampNanos,
        message: `${SLOW_TASK_CODE} a ${typeof workflowType === 'string' ? workflowType : 'workflow'} task${took} (Temporal warns over 5 s): the worker is short of CPU, or host workflows' claims wait on Postgres; later ones are counted, one line a minute at most`,
        meta: { ...(typeof workflowType === 'string' ? { workflowType } : {}), ...(Number.isFinite(durationMs) ? { workflowTaskDurationMs: durationMs } : {}) },
      });
      return;
    }
    countedSince += 1;
    if (Number.isFinite(durationMs)) slowestMs = Math.max(slowestMs, durationMs);
    if (atMs - lastPrintedMs < intervalMs) return;
    write({
      level: entry.level,
      timestampNanos: entry.timestampNanos,
      message: `${SLOW_TASK_CODE} ${countedSince} more workflow ${countedSince === 1 ? 'task' : 'tasks'} took over 5 s since ${new Date(lastPrintedMs).toISOString()} (slowest ${(slowestMs / 1000).toFixed(1)} s)`,
    });
    lastPrintedMs = atMs;
    countedSince = 0;
    slowestMs = 0;
  };
}
