/**
 * What a service that runs inside an activity needs of it: heartbeats, cancellation, sleeps, its
 * timeout and attempt, its logger. The activity adapter builds it from Temporal's context
 * (activities/support/activity-scope.ts); a unit test may build its own.
 */
export interface ActivityScope {
  heartbeat(): void;
  /** Aborted when the activity is cancelled. */
  readonly cancellationSignal: AbortSignal;
  /** Rejects when the activity is cancelled; never resolves. */
  readonly cancelled: Promise<never>;
  /** A sleep that ends early, rejecting, when the activity is cancelled. */
  sleepMs(ms: number): Promise<void>;
  /** The activity's start-to-close timeout, ms. */
  readonly startToCloseTimeoutMs: number;
  /** The activity's attempt, 1 for the first. */
  readonly attempt: number;
  /** A local activity: no heartbeats reach the server. */
  readonly isLocal: boolean;
  /** Names the activity call: the same across its retries, different between calls. */
  callToken(): string;
  /** A warning in the worker's log, with the activity's context (Temporal's activity logger). */
  warn(message: string, attributes: Record<string, unknown>): void;
}

/** A scope's warning, for the helpers of a service that take only what they use. */
export type ScopeWarn = ActivityScope['warn'];
