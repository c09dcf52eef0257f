import { monitorEventLoopDelay, performance } from 'node:perf_hooks';

/** The lag monitor's timer period, ms: each of its samples is how long one such timer took. */
const SAMPLE_EVERY_MS = 20;
/** The lag is a mean over windows of this long, ms: recent enough to follow the load, about 100 samples. */
const WINDOW_MS = 2000;

/**
 * How late this process's event loop has lately been running its callbacks, ms. A fetch timed in
 * JavaScript ends when the loop gets to the response, so it includes about this much of our own
 * wait on top of the host's time: adaptive politeness takes it off (url-fetcher.ts). The larger of
 * the last full window's mean and the current window's, so a stall counts as soon as it happened.
 */
export class EventLoopLag {
  private readonly histogram = monitorEventLoopDelay({ resolution: SAMPLE_EVERY_MS });
  private lastWindowMs = 0;
  private windowStartedAt = performance.now();
  private readAt = Number.NEGATIVE_INFINITY;
  private lastReadMs = 0;

  constructor() {
    // The monitor's timer does not keep the process alive.
    this.histogram.enable();
  }

  currentMs(): number {
    const now = performance.now();
    // The histogram gains at most one sample a period, and reading its mean walks every bucket
    // (54 µs a call in a crawl's profile, once per fetch): within a period the last read stands.
    if (now - this.readAt < SAMPLE_EVERY_MS) return this.lastReadMs;
    this.readAt = now;
    this.lastReadMs = this.readMs(now);
    return this.lastReadMs;
  }

  stop(): void {
    this.histogram.disable();
  }

  private readMs(now: number): number {
    const current = this.meanLagMs();
    if (now - this.windowStartedAt < WINDOW_MS) return Math.max(this.lastWindowMs, current);
    this.lastWindowMs = current;
    this.histogram.reset();
    this.windowStartedAt = now;
    return current;
  }

  /** Each sample is the timer's whole period; the lag is what it took beyond it. */
  private meanLagMs(): number {
    return this.histogram.count === 0 ? 0 : Math.max(0, this.histogram.mean / 1e6 - SAMPLE_EVERY_MS);
  }
}

let shared: EventLoopLag | undefined;

/** The process's one lag monitor, started on first use. */
export function processEventLoopLag(): EventLoopLag {
  return (shared ??= new EventLoopLag());
}
