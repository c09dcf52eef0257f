import { FAILURE_POLICIES, type FailurePolicy } from './failure-policies.js';
import { FETCH_FAILURE_TYPES } from './fetch-failure-type.js';

/**
 * Plain data the workflow turns into the fetch activity's Temporal RetryPolicy (the domain does
 * not import Temporal). Field names mirror RetryPolicy with units added.
 */
export interface ActivityRetryShape {
  /** Smallest baseDelayMs among activity-layer types. */
  initialIntervalMs: number;
  /** Doubling, as in FailurePolicy's base * 2^(attempt-1). */
  backoffCoefficient: number;
  /** Largest maxDelayMs among activity-layer types. */
  maximumIntervalMs: number;
  /** Largest maxAttempts among activity-layer types; also bounds crashes and activity timeouts. */
  maximumAttempts: number;
  /** Every FetchFailureType whose retryLayer is not 'activity': Temporal must not retry these. */
  nonRetryableErrorTypes: string[];
}

/**
 * The fetch activity's retry policy. Temporal's policy is one per activity, while our types differ
 * in attempts and delays, so the activity refines it per failure: it throws
 * ApplicationFailure.create({ type, nextRetryDelay: retryDelayMs(type, info.attempt, ...) }), or
 * with nonRetryable: true when retryDelayMs returns undefined. This shape is then the outer bound
 * and the fallback for failures that are not ours (worker crash, activity timeout).
 */
export function fetchActivityRetryShape(): ActivityRetryShape {
  const policies: FailurePolicy[] = FETCH_FAILURE_TYPES.map((type) => FAILURE_POLICIES[type]);
  const retried = policies.filter((policy) => policy.retryLayer === 'activity');
  return {
    initialIntervalMs: Math.min(...retried.map((policy) => policy.baseDelayMs)),
    backoffCoefficient: 2,
    maximumIntervalMs: Math.max(...retried.map((policy) => policy.maxDelayMs)),
    maximumAttempts: Math.max(...retried.map((policy) => policy.maxAttempts)),
    nonRetryableErrorTypes: policies.filter((policy) => policy.retryLayer !== 'activity').map((policy) => policy.type),
  };
}
