import { PolitenessInputError } from './errors.js';

/**
 * How gently one host is crawled. Per host: the workflow may lower or raise any knob for a host,
 * and robots.txt supplies crawlDelayMs. Validate once at the boundary with resolveHostPolitenessPolicy.
 */
export interface HostPolitenessPolicy {
  /** Least time from the end of one fetch to the start of the next, ms. Default 1000. */
  minDelayMs: number;
  /**
   * robots.txt Crawl-delay in ms. Not part of RFC 9309; we honour it as a floor next to
   * minDelayMs (the larger wins), never as permission to go faster. Default: none.
   */
  crawlDelayMs?: number;
  /** Mercator factor: the next fetch waits at least this many times the last response time. Default 10. */
  adaptiveFactor: number;
  /** Cap on the adaptive delay (response time and overload penalty), ms. Default 60_000. */
  maxAdaptiveDelayMs: number;
  /** Requests in flight to the host at once. Default 1 (docs/design.md, "Politeness": the conservative default). */
  maxConcurrentFetches: number;
  /** 429/503 without Retry-After: the host waits min(base * 2^(n-1), max) * jitter, n = recent throttles. Default 10_000. */
  throttleBaseDelayMs: number;
  /** Cap on that throttle backoff before jitter, ms. Default 3_600_000 (1 h, docs/design.md, "Politeness"). */
  maxThrottleDelayMs: number;
  /** Consecutive cooldown failures (5xx, timeouts, connection and DNS failures) that open the circuit. Default 5. */
  circuitFailureThreshold: number;
  /** First open period of the circuit, ms; doubles with each reopening without a success. Default 300_000. */
  circuitCooldownMs: number;
  /** Cap on the doubled open period, ms. Default 3_600_000. */
  maxCircuitCooldownMs: number;
}

export const DEFAULT_HOST_POLITENESS_POLICY: Readonly<HostPolitenessPolicy> = Object.freeze({
  minDelayMs: 1000,
  adaptiveFactor: 10,
  maxAdaptiveDelayMs: 60_000,
  maxConcurrentFetches: 1,
  throttleBaseDelayMs: 10_000,
  maxThrottleDelayMs: 3_600_000,
  circuitFailureThreshold: 5,
  circuitCooldownMs: 300_000,
  maxCircuitCooldownMs: 3_600_000,
});

/** The defaults with `overrides` applied, validated: the one place a policy is checked. */
export function resolveHostPolitenessPolicy(overrides: Partial<HostPolitenessPolicy> = {}): HostPolitenessPolicy {
  const policy: HostPolitenessPolicy = { ...DEFAULT_HOST_POLITENESS_POLICY };
  for (const [key, value] of Object.entries(overrides) as Array<[keyof HostPolitenessPolicy, number | undefined]>) {
    if (value !== undefined) policy[key] = value;
  }
  validateHostPolitenessPolicy(policy);
  return policy;
}

/** Throws POLITENESS_POLICY_INVALID naming the first bad field. */
export function validateHostPolitenessPolicy(policy: HostPolitenessPolicy): void {
  const nonNegativeMs: Array<keyof HostPolitenessPolicy> = ['minDelayMs', 'maxAdaptiveDelayMs', 'throttleBaseDelayMs', 'maxThrottleDelayMs', 'circuitCooldownMs', 'maxCircuitCooldownMs'];
  for (const field of nonNegativeMs) requireFinite(field, policy[field], 0);
  if (policy.crawlDelayMs !== undefined) requireFinite('crawlDelayMs', policy.crawlDelayMs, 0);
  requireFinite('adaptiveFactor', policy.adaptiveFactor, 0);
  requireInteger('maxConcurrentFetches', policy.maxConcurrentFetches);
  requireInteger('circuitFailureThreshold', policy.circuitFailureThreshold);
  if (policy.maxCircuitCooldownMs < policy.circuitCooldownMs) {
    throw new PolitenessInputError('POLITENESS_POLICY_INVALID', 'policy.maxCircuitCooldownMs', policy.maxCircuitCooldownMs, 'make it at least circuitCooldownMs');
  }
}

/** The static delay: max(minDelayMs, crawlDelayMs). A duration, not a time. */
export function policyDelayMs(policy: HostPolitenessPolicy): number {
  return Math.max(policy.minDelayMs, policy.crawlDelayMs ?? 0);
}

function requireFinite(field: string, value: number | undefined, min: number): void {
  if (typeof value !== 'number' || !Number.isFinite(value) || value < min) {
    throw new PolitenessInputError('POLITENESS_POLICY_INVALID', `policy.${field}`, value, `pass a finite number >= ${min}`);
  }
}

function requireInteger(field: string, value: number): void {
  if (!Number.isSafeInteger(value) || value < 1) {
    throw new PolitenessInputError('POLITENESS_POLICY_INVALID', `policy.${field}`, value, 'pass an integer >= 1');
  }
}
