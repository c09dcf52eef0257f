import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { hostClaimCap, MIN_HOST_CLAIM, FrontierInputError } from '../../../../src/domain/frontier/index.js';

describe('hostClaimCap', () => {
  it('divides the in-flight limit evenly over the hosts with work', () => {
    expect(hostClaimCap({ maxInFlight: 200, throttleFactor: 1, hostsWithWork: 20 })).toBe(10);
    expect(hostClaimCap({ maxInFlight: 200, throttleFactor: 1, hostsWithWork: 7 })).toBe(28);
    expect(hostClaimCap({ maxInFlight: 200, throttleFactor: 0.5, hostsWithWork: 20 })).toBe(5);
  });

  it('never goes below the minimum claim, so a host can hold one URL while it fetches another', () => {
    expect(hostClaimCap({ maxInFlight: 200, throttleFactor: 1, hostsWithWork: 200 })).toBe(MIN_HOST_CLAIM);
    expect(hostClaimCap({ maxInFlight: 200, throttleFactor: 1, hostsWithWork: 10_000 })).toBe(MIN_HOST_CLAIM);
    expect(hostClaimCap({ maxInFlight: 200, throttleFactor: 0, hostsWithWork: 3 })).toBe(MIN_HOST_CLAIM);
  });

  it('with no host counted yet, the whole limit is one claim (the global limit still binds)', () => {
    expect(hostClaimCap({ maxInFlight: 50, throttleFactor: 1, hostsWithWork: 0 })).toBe(50);
  });

  it('the shares never exceed the limit by more than the minimum claim per host', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 100_000 }), fc.double({ min: 0, max: 1, noNaN: true }), fc.integer({ min: 1, max: 50_000 }), (maxInFlight, throttleFactor, hosts) => {
        const cap = hostClaimCap({ maxInFlight, throttleFactor, hostsWithWork: hosts });
        expect(Number.isInteger(cap)).toBe(true);
        expect(cap).toBeGreaterThanOrEqual(MIN_HOST_CLAIM);
        expect(cap * hosts).toBeLessThanOrEqual(Math.max(Math.floor(maxInFlight * throttleFactor), MIN_HOST_CLAIM * hosts));
      }),
    );
  });

  it('names the bad field', () => {
    expect(() => hostClaimCap({ maxInFlight: -1, throttleFactor: 1, hostsWithWork: 1 })).toThrow(FrontierInputError);
    expect(() => hostClaimCap({ maxInFlight: 10, throttleFactor: 2, hostsWithWork: 1 })).toThrow(/throttleFactor/);
    expect(() => hostClaimCap({ maxInFlight: 10, throttleFactor: 1, hostsWithWork: Number.NaN })).toThrow(/hostsWithWork/);
  });
});
