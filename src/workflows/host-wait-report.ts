/**
 * Which of a host's waits are worth telling the operator about, and why the host waits. A wait of
 * the host's ordinary delay is not; a throttle, an open circuit breaker, an unreachable robots.txt,
 * a retry's backoff or a long Crawl-delay is, once it lasts REPORTED_WAIT_MIN_MS. The workflow
 * writes the report through an activity (host_waits), and the crawl's progress line reads it.
 * Plain and deterministic, like the loop that calls it.
 */
import type { HostWaitReport } from '../contracts/activities.js';
import type { HostWaitReason } from '../contracts/status.js';
import type { HostPolitenessState } from '../domain/politeness/index.js';

/** Waits shorter than this are the host's ordinary pace: not reported. */
export const REPORTED_WAIT_MIN_MS = 10_000;
/** A new end this close to the reported one is the same wait. */
const SAME_END_WITHIN_MS = 1_000;

/**
 * Why a host waits until untilMs: the politeness field that holds it that long (an open circuit
 * breaker, a throttle), else `otherwise` (a retry's backoff, a long delay).
 */
export function hostWaitReason(politeness: HostPolitenessState | null, untilMs: number, otherwise: 'retry-backoff' | 'crawl-delay'): HostWaitReason {
  if (politeness !== null && politeness.circuitOpenUntilMs >= untilMs) return 'circuit-open';
  if (politeness !== null && politeness.retryAfterAtMs >= untilMs) return 'retry-after';
  return otherwise;
}

export class HostWaitReporter {
  private last: HostWaitReport | undefined;

  constructor(private readonly host: string) {}

  /**
   * The report for a wait from nowMs to untilMs, or undefined when it is short or already reported.
   * A run of long waits for one reason keeps the run's first `since`; `sinceMs` overrides it (an
   * unreachable robots.txt counts from its first failure).
   */
  reportFor(reason: HostWaitReason, nowMs: number, untilMs: number, sinceMs?: number): HostWaitReport | undefined {
    if (untilMs - nowMs < REPORTED_WAIT_MIN_MS) {
      // The host's ordinary pace: the next long wait starts a new run.
      this.last = undefined;
      return undefined;
    }
    const last = this.last;
    if (last !== undefined && last.reason === reason && Math.abs(last.untilMs - untilMs) < SAME_END_WITHIN_MS) return undefined;
    const since = sinceMs ?? (last !== undefined && last.reason === reason ? last.sinceMs : nowMs);
    this.last = { host: this.host, reason, sinceMs: since, untilMs };
    return this.last;
  }
}
