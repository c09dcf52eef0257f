import { requireNumber } from './validate.js';

/** The frontier's view when it decides how many URLs to hand to host queues now. */
export interface AdmissionInput {
  /** URLs admitted and not yet finished (queued in host workflows or being fetched), >= 0. */
  inFlight: number;
  /** Global in-flight limit, >= 0; admission never takes `inFlight` above it. */
  maxInFlight: number;
  /** Fetches left in this crawl's (or cycle's) budget, >= 0; fractions are floored. */
  budgetRemaining: number;
  /** The slowest downstream stage (parse or store): its queue and how fast it drains. */
  downstream: {
    /** Items waiting downstream, >= 0. */
    backlogItems: number;
    /** Items the stage finished per second, recently (see `RateMeter`), >= 0. */
    consumeRatePerSecond: number;
    /**
     * Seconds the oldest waiting item has waited, >= 0; optional. The backlog never counts for
     * longer than this: a stage that clears its queue within seconds keeps up, however low its
     * recent throughput (a paused or polite upstream starves it, which is not lag). A stage that
     * hangs still stops admission, once its oldest item has waited `maxBacklogSeconds`.
     */
    oldestItemAgeSeconds?: number;
  };
  /** Current time in epoch ms (from the workflow clock); used for `recheckAtMs`. */
  nowMs: number;
  /** Operator paused the crawl: admit nothing, in-flight work finishes. */
  paused: boolean;
  /** The crawl is stopping gracefully: admit nothing more, ever. */
  stopping: boolean;
}

/** Backpressure thresholds (docs/design.md, "Backpressure"), all optional. */
export interface AdmissionOptions {
  /** Backlog, in seconds of downstream work, below which admission runs at full speed, >= 0. Default 10. */
  targetBacklogSeconds?: number;
  /** Backlog at or beyond which nothing is admitted, > target. Default 60. Between the two, admission scales down linearly. */
  maxBacklogSeconds?: number;
  /** Shortest wait before asking again after a backlog stop, >= 0. Default 1000 ms. */
  minRecheckDelayMs?: number;
  /** Longest such wait, >= minRecheckDelayMs; also used when the consume rate is 0. Default 30000 ms. */
  maxRecheckDelayMs?: number;
}

/** Why `admit` is what it is: 'ok' whenever it is above 0, else the first limit that held it at 0. */
export type AdmissionReason = 'ok' | 'in-flight-limit' | 'budget-exhausted' | 'backlog' | 'paused' | 'stopping';

export interface AdmissionDecision {
  /** URLs to admit now, an integer >= 0. */
  admit: number;
  /** Downstream backlog in seconds of work: `backlogItems / consumeRatePerSecond`, at most the oldest item's age; Infinity if items wait, nothing drains and no age is given (JSON renders it null). */
  backlogSeconds: number;
  /** Share of the in-flight headroom backpressure allows: 1 = full speed, 0 = stopped. */
  throttleFactor: number;
  reason: AdmissionReason;
  /**
   * When a backlog stop should be re-evaluated: `nowMs` plus the time to drain the backlog down
   * to the target at the current rate, clamped to the recheck delays. Null for other reasons,
   * which change on events (a fetch finishing, a signal), not with time.
   */
  recheckAtMs: number | null;
}

export const DEFAULT_ADMISSION_OPTIONS: Readonly<Required<AdmissionOptions>> = Object.freeze({
  targetBacklogSeconds: 10,
  maxBacklogSeconds: 60,
  minRecheckDelayMs: 1000,
  maxRecheckDelayMs: 30_000,
});

const CODE = 'FRONTIER_ADMISSION_INPUT_INVALID';

/**
 * How many URLs the frontier may admit into host queues now (docs/design.md, "Backpressure").
 *
 * Never more than `maxInFlight - inFlight`, never more than the budget, nothing while paused or
 * stopping. Backpressure is measured in backlog seconds, not items, so one threshold fits stages
 * of any speed: at or below the target the full headroom is admitted, between target and max it
 * shrinks linearly, at max it is 0. A consume rate of 0 with items waiting counts as an infinite
 * backlog: a stage that drains nothing (hung, or not started yet) gets no more work until it does.
 * Given the oldest waiting item's age, the backlog is capped by it: throughput measured while the
 * stage sat starved undercounts what it can do, and a burst it clears in a second is no backlog.
 *
 * @throws FrontierInputError `FRONTIER_ADMISSION_INPUT_INVALID` naming the bad field.
 */
export function admissionDecision(input: AdmissionInput, options: AdmissionOptions = {}): AdmissionDecision {
  const o = resolveAdmissionOptions(options);
  const inFlight = requireNumber(CODE, 'inFlight', input.inFlight, { min: 0 });
  const maxInFlight = requireNumber(CODE, 'maxInFlight', input.maxInFlight, { min: 0 });
  const budget = Math.floor(requireNumber(CODE, 'budgetRemaining', input.budgetRemaining, { min: 0 }));
  const backlogItems = requireNumber(CODE, 'downstream.backlogItems', input.downstream?.backlogItems, { min: 0 });
  const rate = requireNumber(CODE, 'downstream.consumeRatePerSecond', input.downstream?.consumeRatePerSecond, { min: 0 });
  const nowMs = requireNumber(CODE, 'nowMs', input.nowMs);

  const oldestAgeSeconds =
    input.downstream?.oldestItemAgeSeconds === undefined
      ? Number.POSITIVE_INFINITY
      : requireNumber(CODE, 'downstream.oldestItemAgeSeconds', input.downstream.oldestItemAgeSeconds, { min: 0 });

  // Lag over throughput, but never more than the oldest item has waited (docs/design.md, "Backpressure": a real
  // shortage shows as lag and oldest age rising together).
  const backlogByRateSeconds = backlogItems === 0 ? 0 : rate === 0 ? Number.POSITIVE_INFINITY : backlogItems / rate;
  const backlogSeconds = Math.min(backlogByRateSeconds, oldestAgeSeconds);
  const throttleFactor =
    input.stopping || input.paused ? 0 : throttleFor(backlogSeconds, o.targetBacklogSeconds, o.maxBacklogSeconds);
  const headroom = Math.max(0, Math.floor(maxInFlight - inFlight));
  const admit = Math.min(budget, Math.floor(headroom * throttleFactor));

  const decide = (reason: AdmissionReason, recheckAtMs: number | null = null): AdmissionDecision => ({
    admit: reason === 'ok' ? admit : 0,
    backlogSeconds,
    throttleFactor,
    reason,
    recheckAtMs,
  });
  if (input.stopping) return decide('stopping');
  if (input.paused) return decide('paused');
  if (budget === 0) return decide('budget-exhausted');
  if (headroom === 0) return decide('in-flight-limit');
  if (admit === 0) {
    // Time until the backlog drains to the target at today's rate; without a rate, the longest wait.
    const drainMs = rate > 0 ? ((backlogItems - o.targetBacklogSeconds * rate) / rate) * 1000 : o.maxRecheckDelayMs;
    return decide('backlog', nowMs + Math.min(o.maxRecheckDelayMs, Math.max(o.minRecheckDelayMs, Math.ceil(drainMs))));
  }
  return decide('ok');
}

function throttleFor(backlogSeconds: number, target: number, max: number): number {
  if (backlogSeconds <= target) return 1;
  if (backlogSeconds >= max) return 0;
  return (max - backlogSeconds) / (max - target);
}

/** Fills defaults and validates the thresholds once. */
export function resolveAdmissionOptions(options: AdmissionOptions = {}): Required<AdmissionOptions> {
  const o = {
    targetBacklogSeconds: options.targetBacklogSeconds ?? DEFAULT_ADMISSION_OPTIONS.targetBacklogSeconds,
    maxBacklogSeconds: options.maxBacklogSeconds ?? DEFAULT_ADMISSION_OPTIONS.maxBacklogSeconds,
    minRecheckDelayMs: options.minRecheckDelayMs ?? DEFAULT_ADMISSION_OPTIONS.minRecheckDelayMs,
    maxRecheckDelayMs: options.maxRecheckDelayMs ?? DEFAULT_ADMISSION_OPTIONS.maxRecheckDelayMs,
  };
  requireNumber(CODE, 'options.targetBacklogSeconds', o.targetBacklogSeconds, { min: 0 });
  requireNumber(CODE, 'options.maxBacklogSeconds', o.maxBacklogSeconds, { min: o.targetBacklogSeconds, minExclusive: true });
  requireNumber(CODE, 'options.minRecheckDelayMs', o.minRecheckDelayMs, { min: 0 });
  requireNumber(CODE, 'options.maxRecheckDelayMs', o.maxRecheckDelayMs, { min: o.minRecheckDelayMs });
  return o;
}

/** What a host's share of the in-flight limit is computed from. */
export interface HostClaimCapInput {
  /** Global in-flight limit, >= 0. */
  maxInFlight: number;
  /** The backpressure throttle in [0, 1] (`AdmissionDecision.throttleFactor`). */
  throttleFactor: number;
  /** Hosts with URLs of this crawl queued or in flight, >= 0. */
  hostsWithWork: number;
}

/** A claim never gets fewer than this (unless the global limit is spent): one to fetch, one to hold while the next claim runs. */
export const MIN_HOST_CLAIM = 2;

/**
 * The most URLs one claim of one host may take: an even share of the in-flight limit over the
 * hosts that have work, so that the limit spreads over many back queues instead of filling the
 * first few that ask (politeness makes one host slow; parallelism comes from hosts). The global
 * limit still binds every claim; this only divides it.
 *
 * @throws FrontierInputError `FRONTIER_ADMISSION_INPUT_INVALID` naming the bad field.
 */
export function hostClaimCap(input: HostClaimCapInput): number {
  requireNumber(CODE, 'maxInFlight', input.maxInFlight, { min: 0 });
  requireNumber(CODE, 'throttleFactor', input.throttleFactor, { min: 0, max: 1 });
  requireNumber(CODE, 'hostsWithWork', input.hostsWithWork, { min: 0 });
  const limit = Math.floor(input.maxInFlight * input.throttleFactor);
  if (input.hostsWithWork <= 0) return Math.max(MIN_HOST_CLAIM, limit);
  return Math.max(MIN_HOST_CLAIM, Math.floor(limit / input.hostsWithWork));
}
