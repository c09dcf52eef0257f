import { describe, expect, it } from 'vitest';
import {
  DEFAULT_HOST_POLITENESS_POLICY,
  PolitenessInputError,
  applyHostOutcome,
  canStartFetch,
  hostDelayFloorMs,
  initialHostPolitenessState,
  nextFetchAtMs,
  onFetchStarted,
  policyDelayMs,
  resolveHostPolitenessPolicy,
  validateHostPolitenessPolicy,
} from '../../../../src/domain/politeness/index.js';
import { retryDelayMs } from '../../../../src/domain/failures/index.js';

const T0 = 1_700_000_000_000;
const neutral = () => 0.5;

describe('maxConcurrentFetches accounting', () => {
  it('by default never lets two requests to one host overlap', () => {
    const policy = DEFAULT_HOST_POLITENESS_POLICY;
    let state = initialHostPolitenessState(T0);
    expect(canStartFetch(state, policy, T0)).toBe(true);
    state = onFetchStarted(state, T0);
    expect(state.inFlight).toBe(1);
    expect(canStartFetch(state, policy, T0)).toBe(false);
    expect(canStartFetch(state, policy, T0 + 3_600_000)).toBe(false);
    state = applyHostOutcome(state, { kind: 'response', startedAtMs: T0, finishedAtMs: T0 + 100, status: 200 }, policy, neutral);
    expect(state.inFlight).toBe(0);
    expect(canStartFetch(state, policy, T0 + 1099)).toBe(false);
    expect(canStartFetch(state, policy, T0 + 1100)).toBe(true);
  });

  it('allows up to N in flight, spacing the starts by the host delay', () => {
    const policy = resolveHostPolitenessPolicy({ maxConcurrentFetches: 2 });
    let state = initialHostPolitenessState(T0);
    state = onFetchStarted(state, T0, policy);
    expect(canStartFetch(state, policy, T0 + 999)).toBe(false);
    expect(canStartFetch(state, policy, T0 + 1000)).toBe(true);
    state = onFetchStarted(state, T0 + 1000, policy);
    expect(state.inFlight).toBe(2);
    expect(canStartFetch(state, policy, T0 + 50_000)).toBe(false);
    state = applyHostOutcome(state, { kind: 'response', startedAtMs: T0, finishedAtMs: T0 + 1500, status: 200 }, policy, neutral);
    expect(state.inFlight).toBe(1);
    // A slot is free, but the finish at 1500 with a 1500 ms response time asks for 15 s.
    expect(canStartFetch(state, policy, T0 + 16_499)).toBe(false);
    expect(canStartFetch(state, policy, T0 + 16_500)).toBe(true);
  });

  it('an early finisher does not undo a later start', () => {
    const policy = resolveHostPolitenessPolicy({ maxConcurrentFetches: 3, minDelayMs: 5000 });
    let state = onFetchStarted(initialHostPolitenessState(T0), T0, policy);
    state = onFetchStarted(state, T0 + 5000, policy); // next start not before T0 + 10_000
    state = applyHostOutcome(state, { kind: 'response', startedAtMs: T0, finishedAtMs: T0 + 1, status: 200 }, policy, neutral);
    expect(state.nextFetchAtMs).toBe(T0 + 10_000);
  });

  it('allows a single probe while the circuit is half-open, whatever the concurrency', () => {
    const policy = resolveHostPolitenessPolicy({ maxConcurrentFetches: 4, circuitFailureThreshold: 1 });
    let state = onFetchStarted(initialHostPolitenessState(T0), T0);
    state = applyHostOutcome(state, { kind: 'response', startedAtMs: T0, finishedAtMs: T0, status: 500 }, policy, neutral);
    const probeAt = nextFetchAtMs(state, T0);
    expect(canStartFetch(state, policy, probeAt)).toBe(true);
    state = onFetchStarted(state, probeAt);
    expect(canStartFetch(state, policy, probeAt)).toBe(false);
  });

  it('never counts in-flight below zero', () => {
    const state = applyHostOutcome(initialHostPolitenessState(T0), { kind: 'not-sent', atMs: T0 }, DEFAULT_HOST_POLITENESS_POLICY, neutral);
    expect(state.inFlight).toBe(0);
  });
});

describe('nextFetchAtMs', () => {
  it('is never before nowMs, so it can be a timer deadline', () => {
    expect(nextFetchAtMs(initialHostPolitenessState(T0), T0 + 5000)).toBe(T0 + 5000);
  });

  it('includes the open circuit and host holds', () => {
    const state = { ...initialHostPolitenessState(T0), circuitOpenUntilMs: T0 + 7000, holdUntilMs: T0 + 3000 };
    expect(nextFetchAtMs(state, T0)).toBe(T0 + 7000);
    expect(nextFetchAtMs({ ...state, holdUntilMs: T0 + 9000 }, T0)).toBe(T0 + 9000);
  });
});

describe('activity retries respect the host delay', () => {
  it('hostDelayFloorMs as floorMs keeps a retry from undercutting the adaptive delay', () => {
    const policy = DEFAULT_HOST_POLITENESS_POLICY;
    let state = onFetchStarted(initialHostPolitenessState(T0), T0);
    state = applyHostOutcome(state, { kind: 'response', startedAtMs: T0, finishedAtMs: T0 + 4000, status: 200 }, policy, neutral);
    const floorMs = hostDelayFloorMs(state, policy);
    expect(floorMs).toBe(40_000);
    expect(retryDelayMs('FirstByteTimeout', 1, neutral, { floorMs })).toBe(40_000);
  });
});

describe('HostPolitenessPolicy', () => {
  it('has the documented defaults', () => {
    expect(DEFAULT_HOST_POLITENESS_POLICY).toEqual({
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
    expect(Object.isFrozen(DEFAULT_HOST_POLITENESS_POLICY)).toBe(true);
  });

  it('policy delay is the larger of minDelayMs and Crawl-delay', () => {
    expect(policyDelayMs(resolveHostPolitenessPolicy({ crawlDelayMs: 2500 }))).toBe(2500);
    expect(policyDelayMs(resolveHostPolitenessPolicy({ crawlDelayMs: 10 }))).toBe(1000);
    expect(policyDelayMs(DEFAULT_HOST_POLITENESS_POLICY)).toBe(1000);
  });

  it.each([
    [{ minDelayMs: -1 }, 'policy.minDelayMs'],
    [{ minDelayMs: Number.NaN }, 'policy.minDelayMs'],
    [{ crawlDelayMs: -5 }, 'policy.crawlDelayMs'],
    [{ adaptiveFactor: Number.POSITIVE_INFINITY }, 'policy.adaptiveFactor'],
    [{ maxConcurrentFetches: 0 }, 'policy.maxConcurrentFetches'],
    [{ maxConcurrentFetches: 1.5 }, 'policy.maxConcurrentFetches'],
    [{ circuitFailureThreshold: 0 }, 'policy.circuitFailureThreshold'],
    [{ circuitCooldownMs: 10_000, maxCircuitCooldownMs: 5000 }, 'policy.maxCircuitCooldownMs'],
  ])('rejects %o, naming %s', (overrides, field) => {
    expect(() => resolveHostPolitenessPolicy(overrides)).toThrow(PolitenessInputError);
    expect(() => resolveHostPolitenessPolicy(overrides)).toThrow(expect.objectContaining({ code: 'POLITENESS_POLICY_INVALID', field }));
  });

  it('accepts the defaults and leaves undefined overrides at their default', () => {
    expect(() => validateHostPolitenessPolicy({ ...DEFAULT_HOST_POLITENESS_POLICY })).not.toThrow();
    expect(resolveHostPolitenessPolicy({ minDelayMs: undefined }).minDelayMs).toBe(1000);
  });
});
