import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  FAILURE_POLICIES,
  FETCH_FAILURE_TYPES,
  FailuresInputError,
  backoffDelayMs,
  jitterMultiplier,
  retryDelayMs,
  type FetchFailureType,
} from '../../../../src/domain/failures/index.js';

const constant = (value: number) => () => value;
const retriedTypes = FETCH_FAILURE_TYPES.filter((type) => FAILURE_POLICIES[type].retryLayer !== 'none');
const terminalTypes = FETCH_FAILURE_TYPES.filter((type) => FAILURE_POLICIES[type].retryLayer === 'none');

describe('backoffDelayMs', () => {
  it('doubles from the base and stops at the cap', () => {
    expect([1, 2, 3, 4, 5, 6].map((attempt) => backoffDelayMs(1000, 10_000, attempt))).toEqual([1000, 2000, 4000, 8000, 10_000, 10_000]);
  });

  it('stays at the cap for absurd attempt numbers', () => {
    expect(backoffDelayMs(1000, 10_000, 5000)).toBe(10_000);
  });
});

describe('retryDelayMs', () => {
  it('grows exponentially: with a neutral draw (1.0x) the delays double', () => {
    // random 0.5 gives multiplier 0.5 + 1.0 * 0.5 = 1.0 for the 0.5..1.5 range.
    expect(retryDelayMs('FirstByteTimeout', 1, constant(0.5))).toBe(2000);
    expect(retryDelayMs('FirstByteTimeout', 2, constant(0.5))).toBe(4000);
    expect(retryDelayMs('TooManyRequests', 1, constant(0.5))).toBe(10_000);
    expect(retryDelayMs('TooManyRequests', 5, constant(0.5))).toBe(160_000);
  });

  it('jitter spans 0.5x to 1.5x of the backoff', () => {
    expect(retryDelayMs('BodyTimeout', 2, constant(0))).toBe(2000);
    expect(retryDelayMs('BodyTimeout', 2, constant(0.999_999))).toBe(6000);
  });

  it.each(retriedTypes.map((type) => [type]))('%s stays within its jitter bounds at every attempt (property)', (type) => {
    const policy = FAILURE_POLICIES[type];
    fc.assert(
      fc.property(fc.integer({ min: 1, max: policy.maxAttempts - 1 }), fc.double({ min: 0, max: 1, maxExcluded: true, noNaN: true }), (attempt, draw) => {
        const delay = retryDelayMs(type, attempt, constant(draw));
        const backoff = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** (attempt - 1));
        expect(delay).toBeGreaterThanOrEqual(Math.floor(backoff * policy.jitter.min));
        expect(delay).toBeLessThanOrEqual(Math.ceil(backoff * policy.jitter.max));
      }),
    );
  });

  it.each(retriedTypes.map((type) => [type]))('%s gives up exactly at maxAttempts', (type) => {
    const { maxAttempts } = FAILURE_POLICIES[type];
    expect(retryDelayMs(type, maxAttempts - 1, constant(0.5))).toBeTypeOf('number');
    expect(retryDelayMs(type, maxAttempts, constant(0.5))).toBeUndefined();
    expect(retryDelayMs(type, maxAttempts + 7, constant(0.5))).toBeUndefined();
  });

  it.each(terminalTypes.map((type) => [type]))('%s is never retried', (type) => {
    expect(retryDelayMs(type, 1, constant(0.5), { floorMs: 5000 })).toBeUndefined();
  });

  it('is floored by the host politeness delay', () => {
    expect(retryDelayMs('FirstByteTimeout', 1, constant(0), { floorMs: 45_000 })).toBe(45_000);
    expect(retryDelayMs('FirstByteTimeout', 1, constant(0.5), { floorMs: 500 })).toBe(2000);
  });

  it('honours Retry-After when it is later than the backoff', () => {
    const nowMs = 1_700_000_000_000;
    expect(retryDelayMs('TooManyRequests', 1, constant(0.5), { retryAfterAtMs: nowMs + 120_000, nowMs })).toBe(120_000);
    expect(retryDelayMs('TooManyRequests', 1, constant(0.5), { retryAfterAtMs: nowMs + 1000, nowMs })).toBe(10_000);
    // A Retry-After in the past (clock skew) never shortens the backoff.
    expect(retryDelayMs('ServiceUnavailable', 1, constant(0.5), { retryAfterAtMs: nowMs - 60_000, nowMs })).toBe(30_000);
  });

  it('draws from the injected random once per decision, so a seeded run is reproducible', () => {
    let calls = 0;
    const random = () => {
      calls += 1;
      return 0.25;
    };
    expect(retryDelayMs('ServerError', 2, random)).toBe(15_000);
    expect(calls).toBe(1);
  });

  it.each([0, -1, 1.5, Number.NaN])('rejects attempt %s with FAILURES_ATTEMPT_INVALID', (attempt) => {
    expect(() => retryDelayMs('BodyTimeout', attempt, constant(0.5))).toThrow(expect.objectContaining({ code: 'FAILURES_ATTEMPT_INVALID', field: 'attempt' }));
  });

  it('rejects a random() outside [0, 1)', () => {
    expect(() => retryDelayMs('BodyTimeout', 1, constant(1))).toThrow(expect.objectContaining({ code: 'FAILURES_RANDOM_INVALID' }));
    expect(() => jitterMultiplier({ min: 0.5, max: 1.5 }, constant(-0.1))).toThrow(FailuresInputError);
  });

  it('rejects retryAfterAtMs without nowMs, and a negative floor', () => {
    expect(() => retryDelayMs('TooManyRequests', 1, constant(0.5), { retryAfterAtMs: 5 })).toThrow(expect.objectContaining({ code: 'FAILURES_RETRY_OPTIONS_INVALID', field: 'options.nowMs' }));
    expect(() => retryDelayMs('TooManyRequests', 1, constant(0.5), { floorMs: -1 })).toThrow(expect.objectContaining({ field: 'options.floorMs' }));
  });

  it('rejects a type that is not ours', () => {
    expect(() => retryDelayMs('Bogus' as FetchFailureType, 1, constant(0.5))).toThrow(expect.objectContaining({ code: 'FAILURES_UNKNOWN_TYPE' }));
  });
});
