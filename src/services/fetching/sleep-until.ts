/** The clock and the sleep that sleepUntilMs works with (an activity's Context.sleep and Date.now in a worker). */
export interface SleepClock {
  /** Milliseconds since the epoch. */
  nowMs: () => number;
  /** Resolves after about this many milliseconds; may resolve early. */
  sleepMs: (ms: number) => Promise<void>;
  /** Once aborted, the sleep ends at once (a sleep under way is not waited out). */
  until?: AbortSignal;
}

/**
 * Sleeps until the clock reads at least atMs. A Node timer counts from the event loop's cached
 * time, which lags the clock by however long the current tick has already run: on a busy worker a
 * 500 ms timer set late in a tick fires a few milliseconds early by the clock. So the clock is read
 * again on waking and the rest slept, until none is left (or `until` is aborted). Returns the
 * milliseconds it slept in all.
 */
export async function sleepUntilMs(atMs: number, clock: SleepClock): Promise<number> {
  if (!Number.isFinite(atMs)) throw new RangeError(`sleepUntilMs: atMs must be a finite time in ms since the epoch, got ${atMs}`);
  const fromMs = clock.nowMs();
  for (let leftMs = atMs - fromMs; leftMs > 0 && clock.until?.aborted !== true; leftMs = atMs - clock.nowMs()) await sleepUnlessAborted(clock.sleepMs(leftMs), clock.until);
  return Math.max(0, clock.nowMs() - fromMs);
}

/** `sleep`, or less once `until` is aborted. */
async function sleepUnlessAborted(sleep: Promise<void>, until: AbortSignal | undefined): Promise<void> {
  if (until === undefined) return sleep;
  let onAbort!: () => void;
  const aborted = new Promise<void>((resolve) => (onAbort = resolve));
  until.addEventListener('abort', onAbort, { once: true });
  try {
    await Promise.race([sleep, aborted]);
  } finally {
    until.removeEventListener('abort', onAbort);
  }
}
