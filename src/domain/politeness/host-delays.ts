import { DEFAULT_JITTER, jitterMultiplier } from '../failures/index.js';
import { policyDelayMs, type HostPolitenessPolicy } from './host-politeness-policy.js';
import { hostResponseTimeMs, type HostPolitenessState } from './host-politeness-state.js';

/**
 * The adaptive delay, a duration in ms (docs/design.md, "Politeness"):
 * - no recent overload: min(adaptiveFactor * the host's response time, maxAdaptiveDelayMs), the
 *   Mercator rule (200 ms -> 2 s, 5 s -> 50 s); the response time is the least of the last few
 *   (hostResponseTimeMs), since our own event loop's lag only ever adds to a measurement;
 * - after n recent overload signals (429, 503, 5xx, timeouts): the larger of that and the policy
 *   delay, doubled n times, still capped at maxAdaptiveDelayMs. Basing it on the policy delay
 *   means a host that answers 429 in 5 ms still slows down.
 * Each healthy response lowers n by one, halving the penalty: slow down fast, recover step by step.
 */
export function adaptiveDelayMs(state: HostPolitenessState, policy: HostPolitenessPolicy): number {
  const responseDelayMs = policy.adaptiveFactor * hostResponseTimeMs(state);
  if (state.recentThrottles <= 0) return Math.min(policy.maxAdaptiveDelayMs, responseDelayMs);
  const penalisedMs = Math.max(responseDelayMs, policyDelayMs(policy)) * 2 ** state.recentThrottles;
  return Math.min(policy.maxAdaptiveDelayMs, penalisedMs);
}

/**
 * The least gap, in ms, before any request to this host: max(policy delay, adaptive delay). Pass it
 * as retryDelayMs's floorMs so an activity retry never comes sooner than the next fetch would.
 */
export function hostDelayFloorMs(state: HostPolitenessState, policy: HostPolitenessPolicy): number {
  return Math.max(policyDelayMs(policy), adaptiveDelayMs(state, policy));
}

/**
 * Host-wide wait after a 429/503 without Retry-After: min(base * 2^(n-1), max) * jitter(0.5..1.5),
 * n = recent throttles including this one (docs/design.md, "Politeness"). The cap applies before jitter.
 */
export function throttleDelayMs(recentThrottles: number, policy: HostPolitenessPolicy, random: () => number): number {
  const exponent = Math.max(0, recentThrottles - 1);
  const cappedMs = Math.min(policy.maxThrottleDelayMs, policy.throttleBaseDelayMs * 2 ** exponent);
  return Math.ceil(cappedMs * jitterMultiplier(DEFAULT_JITTER, random));
}
