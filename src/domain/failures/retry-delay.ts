import { FailuresInputError } from './errors.js';
import { failurePolicyFor, type JitterRange } from './failure-policies.js';
import type { FetchFailureType } from './fetch-failure-type.js';

/** Options for retryDelayMs. All optional; without them the delay is the jittered backoff alone. */
export interface RetryDelayOptions {
  /** The host's current politeness delay in ms (hostDelayFloorMs): a retry never comes sooner. Default 0. */
  floorMs?: number;
  /** Absolute time (ms since epoch) the server asked us to wait for (parseRetryAfter). Needs nowMs. Default none. */
  retryAfterAtMs?: number;
  /** Current time in ms since epoch; required with retryAfterAtMs to turn it into a delay. */
  nowMs?: number;
  /** Multiplies the policy's backoff (a crawl's retryDelayScale), never the floor or Retry-After. Default 1. */
  scale?: number;
}

/** Exponential backoff before jitter: base * 2^(attempt-1), capped at maxDelayMs. `attempt` is 1-based. */
export function backoffDelayMs(baseDelayMs: number, maxDelayMs: number, attempt: number): number {
  requireAttempt(attempt);
  // 2^1024 is Infinity, and min() then picks the cap, so large attempts stay well defined.
  return Math.min(maxDelayMs, baseDelayMs * 2 ** (attempt - 1));
}

/** A multiplier drawn uniformly from [jitter.min, jitter.max) with the injected `random`. */
export function jitterMultiplier(jitter: Readonly<JitterRange>, random: () => number): number {
  const draw = random();
  if (!(draw >= 0 && draw < 1)) {
    throw new FailuresInputError('FAILURES_RANDOM_INVALID', 'random()', draw, 'inject a function returning floats in [0, 1), e.g. Math.random or seededRandom(seed)');
  }
  return jitter.min + (jitter.max - jitter.min) * draw;
}

/**
 * How long to wait before retrying after attempt `attempt` (1-based, the one that just failed)
 * ended in `type`, or undefined to give up: the type is terminal or its attempts are spent.
 *
 * delay = max(jitter * scale * min(base * 2^(attempt-1), maxDelayMs), floorMs, retryAfterAtMs - nowMs),
 * rounded up to whole ms. The floor keeps a retry from undercutting the host's politeness delay;
 * Retry-After wins over our own backoff when it is later (docs/design.md, "Politeness").
 */
export function retryDelayMs(type: FetchFailureType, attempt: number, random: () => number, options: RetryDelayOptions = {}): number | undefined {
  const policy = failurePolicyFor(type);
  requireAttempt(attempt);
  const { floorMs = 0, retryAfterAtMs, nowMs, scale = 1 } = options;
  requireNonNegative('options.floorMs', floorMs);
  requireNonNegative('options.scale', scale);
  if (retryAfterAtMs !== undefined) {
    if (!Number.isFinite(retryAfterAtMs)) {
      throw new FailuresInputError('FAILURES_RETRY_OPTIONS_INVALID', 'options.retryAfterAtMs', retryAfterAtMs, 'pass an absolute time in ms since epoch, or leave it out');
    }
    if (nowMs === undefined || !Number.isFinite(nowMs)) {
      throw new FailuresInputError('FAILURES_RETRY_OPTIONS_INVALID', 'options.nowMs', nowMs, 'pass nowMs with retryAfterAtMs so the absolute time can become a delay');
    }
  }
  if (policy.retryLayer === 'none' || attempt >= policy.maxAttempts) return undefined;

  const jittered = backoffDelayMs(policy.baseDelayMs, policy.maxDelayMs, attempt) * scale * jitterMultiplier(policy.jitter, random);
  const untilRetryAfter = retryAfterAtMs !== undefined && nowMs !== undefined ? retryAfterAtMs - nowMs : 0;
  return Math.ceil(Math.max(jittered, floorMs, untilRetryAfter));
}

function requireAttempt(attempt: number): void {
  if (!Number.isSafeInteger(attempt) || attempt < 1) {
    throw new FailuresInputError('FAILURES_ATTEMPT_INVALID', 'attempt', attempt, 'pass the 1-based number of the attempt that just failed (Temporal activity info.attempt)');
  }
}

function requireNonNegative(field: string, value: number): void {
  if (!Number.isFinite(value) || value < 0) {
    throw new FailuresInputError('FAILURES_RETRY_OPTIONS_INVALID', field, value, 'pass a finite number of ms >= 0');
  }
}
