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
import { describeHostWaitReason } from '../contracts/describe-waits.js';

/** What the loop waits for; every wait also ends when a burst hands back bodies to parse. */
export type HostWait =
  /** Nothing of this run in flight (before continue-as-new). */
  | 'quiet'
  /** The queue is empty: in-flight work finished, a URL requeued, or a wake. */
  | 'idle-or-requeue'
  /** A signal, or the timeout. */
  | 'change'
  /** A signal, or a request of the host finished (every slot was taken). */
  | 'change-or-outcome';

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

/** What a host run's current details say while it waits: the wait, and the run's work in numbers. */
export interface HostWaitDetailsInput {
  wait: HostWait;
  nowMs: number;
  /** The wait ends by then at the latest, ms since the epoch (none: only a signal or an outcome ends it). */
  untilMs?: number;
  /** Why a timed wait lasts until untilMs. */
  reason?: HostWaitReason;
  paused: boolean;
  queued: number;
  inFlight: number;
  parsing: number;
}

/**
 * A host run's current details in the Temporal UI: what it waits for and until when, in one line.
 * The workflow holds it and answers the UI's metadata query with it: it never enters the history.
 */
export function describeHostWait(input: HostWaitDetailsInput): string {
  const work = `${input.queued} queued · ${input.inFlight} in flight · ${input.parsing} parsing`;
  if (input.paused) return `**paused** by the operator · ${work}`;
  switch (input.wait) {
    case 'quiet':
      return `finishing its work in flight, then continuing as new · ${work}`;
    case 'idle-or-requeue':
      return `waiting for its work in flight to finish · ${work}`;
    case 'change-or-outcome':
      return `next request as soon as one in flight finishes · ${work}`;
    case 'change': {
      if (input.untilMs === undefined) return `waiting for a signal · ${work}`;
      const until = preciseClockTime(input.untilMs);
      // The host's ordinary delay is not a hold: the operator is told of long waits only.
      const ordinary = input.reason === undefined || (input.reason === 'crawl-delay' && input.untilMs - input.nowMs < REPORTED_WAIT_MIN_MS);
      return ordinary ? `next request at ${until} · ${work}` : `${describeHostWaitReason(input.reason!)} until ${until} · ${work}`;
    }
  }
}

/** A host run's current details while a fetch or a burst it started runs (a burst waits out the host's delays itself). */
export function describeHostFetch(urls: number, burst: boolean, queued: number): string {
  return burst ? `fetching a burst of ${urls} URLs, the host's delay kept inside it · ${queued} queued` : `fetching a URL · ${queued} queued`;
}

/** "12:03:04.250Z": a host's delays are often under a second. */
function preciseClockTime(ms: number): string {
  return `${new Date(ms).toISOString().slice(11, 23)}Z`;
}
