import { FAILURE_POLICIES, POISON_ATTEMPT_LIMIT, countsTowardPoison, retryDelayMs, type FetchFailureType, type RetryDelayOptions } from '../failures/index.js';

/** How many of a URL's failures at the fetch stage since its last success count toward its poison limit. */
export function poisonCountOf(failureTypes: readonly string[]): number {
  return failureTypes.filter((type) => countsTowardPoison(type)).length;
}

export interface FetchRetryInput {
  type: FetchFailureType;
  /** This try's number under the type's policy, 1 for the first. */
  attemptNumber: number;
  /** The URL's counted failures, this one included; undefined when the type does not count. */
  poisonCount: number | undefined;
  random: () => number;
  delay: RetryDelayOptions;
}

/**
 * When the activity retries a failed fetch, ms from now, or undefined when it does not: a type
 * another layer retries (the host workflow, a recheck) or none does, a policy out of attempts, and
 * a URL whose counted failures reached POISON_ATTEMPT_LIMIT (the workflow dead-letters it,
 * docs/design.md, "Poison URLs").
 */
export function fetchRetryDelayMs(input: FetchRetryInput): number | undefined {
  const poisoned = (input.poisonCount ?? 0) >= POISON_ATTEMPT_LIMIT;
  if (FAILURE_POLICIES[input.type].retryLayer !== 'activity' || poisoned) return undefined;
  return retryDelayMs(input.type, input.attemptNumber, input.random, input.delay);
}
