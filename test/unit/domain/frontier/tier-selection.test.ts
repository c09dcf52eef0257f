import { describe, it, expect } from 'vitest';
import fc from 'fast-check';
import { chooseTierCounts } from '../../../../src/domain/frontier/index.js';
import { seededRandom } from '../../../../src/domain/random.js';

const sum = (xs: readonly number[]) => xs.reduce((s, x) => s + x, 0);

describe('chooseTierCounts', () => {
  it('never exceeds availability and sums to min(wanted, total) (property)', () => {
    fc.assert(
      fc.property(
        fc.array(fc.integer({ min: 0, max: 1000 }), { minLength: 4, maxLength: 4 }),
        fc.integer({ min: 0, max: 5000 }),
        fc.double({ min: 0, max: 1, maxExcluded: true, noNaN: true }),
        fc.array(fc.double({ min: 0, max: 100, noNaN: true }), { minLength: 4, maxLength: 4 }),
        fc.double({ min: 0, max: 0.25, noNaN: true }),
        (available, wanted, u, weights, minShare) => {
          const counts = chooseTierCounts(available, wanted, () => u, { weights, minShare });
          expect(counts).toHaveLength(4);
          counts.forEach((c, i) => {
            expect(Number.isInteger(c)).toBe(true);
            expect(c).toBeGreaterThanOrEqual(0);
            expect(c).toBeLessThanOrEqual(available[i]!);
          });
          expect(sum(counts)).toBe(Math.min(wanted, sum(available)));
        },
      ),
      { numRuns: 2000 },
    );
  });

  it('stays non-negative when float error crowds the cumulative shares (fast-check counterexample)', () => {
    const counts = chooseTierCounts([0, 1, 7, 1], 7, () => 0, { weights: [0, 1.45088483221862e-156, 2.9040908398832355e-141, 0], minShare: 0 });
    expect(counts.every((c) => c >= 0)).toBe(true);
    expect(sum(counts)).toBe(7);
    counts.forEach((c, i) => expect(c).toBeLessThanOrEqual([0, 1, 7, 1][i]!));
  });

  it('is biased toward high tiers: over 10k seeded draws tier 0 gets the most, in weight order', () => {
    const random = seededRandom(11);
    const totals = [0, 0, 0, 0];
    for (let round = 0; round < 10_000; round += 1) {
      const counts = chooseTierCounts([1e6, 1e6, 1e6, 1e6], 10, random);
      counts.forEach((c, i) => (totals[i]! += c));
    }
    const shares = totals.map((t) => t / 100_000);
    expect(shares[0]).toBeGreaterThan(0.4);
    expect(shares[0]!).toBeGreaterThan(shares[1]!);
    expect(shares[1]!).toBeGreaterThan(shares[2]!);
    expect(shares[2]!).toBeGreaterThan(shares[3]!);
    // Expected shares: minShare + (1 - 4·minShare) · w/15 for weights [8, 4, 2, 1].
    const expected = [8, 4, 2, 1].map((w) => 0.05 + 0.8 * (w / 15));
    shares.forEach((s, i) => expect(s).toBeCloseTo(expected[i]!, 2));
  });

  it('never starves: every non-empty tier gets at least minShare over time, even one-at-a-time draws', () => {
    const random = seededRandom(12);
    const minShare = 0.05;
    const weights = [1000, 10, 1, 0];
    const totals = [0, 0, 0, 0];
    for (let round = 0; round < 10_000; round += 1) {
      chooseTierCounts([1e6, 1e6, 1e6, 1e6], 1, random, { weights, minShare }).forEach((c, i) => (totals[i]! += c));
    }
    for (const total of totals) expect(total / 10_000).toBeGreaterThanOrEqual(minShare * 0.9);
    expect(totals[3]! / 10_000).toBeGreaterThan(0.04);
  });

  it('gives every non-empty tier at least one URL whenever wanted >= 1 / minShare', () => {
    fc.assert(
      fc.property(
        fc.array(fc.integer({ min: 0, max: 1e6 }), { minLength: 4, maxLength: 4 }),
        fc.integer({ min: 20, max: 200 }),
        fc.double({ min: 0, max: 1, maxExcluded: true, noNaN: true }),
        (available, wanted, u) => {
          const counts = chooseTierCounts(available, wanted, () => u, { minShare: 0.05 });
          available.forEach((a, i) => {
            if (a > 0) expect(counts[i]).toBeGreaterThanOrEqual(1);
          });
        },
      ),
    );
  });

  it('picks a lone low-tier URL under a million tier-0 URLs within a bounded number of single draws', () => {
    for (let seed = 1; seed <= 50; seed += 1) {
      const random = seededRandom(seed);
      let rounds = 0;
      let picked = false;
      while (!picked && rounds < 200) {
        rounds += 1;
        picked = chooseTierCounts([1_000_000, 0, 0, 1], 1, random)[3] === 1;
      }
      // Its share is 0.05 + 0.9 · 1/9 = 0.15 per draw: 200 misses in a row would be 0.85^200 ≈ 8e-15.
      expect(picked).toBe(true);
    }
    // With a refill of 1 / minShare or more it is picked in the first round, whatever the draw.
    expect(chooseTierCounts([1_000_000, 0, 0, 1], 20, () => 0)[3]).toBe(1);
    expect(chooseTierCounts([1_000_000, 0, 0, 1], 20, () => 0.999999)[3]).toBe(1);
  });

  it('rounds systematically: each tier gets the floor or ceiling of its expected count', () => {
    // Expected counts for 10 URLs: 4.77, 2.63, 1.57, 1.03.
    for (const u of [0, 0.25, 0.5, 0.75, 0.9999]) {
      const counts = chooseTierCounts([100, 100, 100, 100], 10, () => u);
      expect(counts[0]).toBeGreaterThanOrEqual(4);
      expect(counts[0]).toBeLessThanOrEqual(5);
      expect(counts[1]).toBeGreaterThanOrEqual(2);
      expect(counts[1]).toBeLessThanOrEqual(3);
      expect(counts[2]).toBeGreaterThanOrEqual(1);
      expect(counts[2]).toBeLessThanOrEqual(2);
      expect(counts[3]).toBeGreaterThanOrEqual(1);
      expect(counts[3]).toBeLessThanOrEqual(2);
      expect(sum(counts)).toBe(10);
    }
  });

  it('gives a short tier all it has and spreads its surplus over the others', () => {
    expect(chooseTierCounts([2, 100, 100, 100], 40, () => 0.5)[0]).toBe(2);
    const counts = chooseTierCounts([2, 100, 100, 100], 40, () => 0.5);
    expect(sum(counts)).toBe(40);
    expect(counts[1]!).toBeGreaterThan(counts[2]!);
    // Everything is taken when less is available than wanted.
    expect(chooseTierCounts([3, 0, 5, 1], 100, () => 0.3)).toEqual([3, 0, 5, 1]);
  });

  it('returns zeros for nothing wanted or nothing available, and ignores empty tiers', () => {
    expect(chooseTierCounts([5, 5, 5, 5], 0, () => 0.5)).toEqual([0, 0, 0, 0]);
    expect(chooseTierCounts([0, 0, 0, 0], 10, () => 0.5)).toEqual([0, 0, 0, 0]);
    expect(chooseTierCounts([0, 50, 0, 0], 10, () => 0.5)).toEqual([0, 10, 0, 0]);
  });

  it('is deterministic for a seeded random (workflow replay)', () => {
    const run = () => {
      const random = seededRandom(99);
      return Array.from({ length: 50 }, () => chooseTierCounts([40, 30, 20, 10], 7, random));
    };
    expect(run()).toEqual(run());
  });

  it.each([
    [[1, 2, 3], 5, {}, 'options.weights'],
    [[1, -2, 3, 4], 5, {}, 'availableByTier[1]'],
    [[1, 2, 3, 4], 1.5, {}, 'wanted'],
    [[1, 2, 3, 4], 5, { minShare: 0.3 }, 'options.minShare'],
    [[1, 2, 3, 4], 5, { weights: [1, 1, -1, 1] }, 'options.weights[2]'],
    [[], 5, {}, 'availableByTier'],
  ])('rejects available %j, wanted %s, options %j naming %s', (available, wanted, options, field) => {
    expect(() => chooseTierCounts(available, wanted, () => 0.5, options)).toThrow(
      expect.objectContaining({ code: 'FRONTIER_TIER_INPUT_INVALID', field }),
    );
  });
});
