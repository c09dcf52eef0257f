import { describe, it, expect } from 'vitest';
import fc from 'fast-check';
import { tierOf, TIER_COUNT, DEFAULT_TIER_BOUNDS, urlPriority } from '../../../../src/domain/frontier/index.js';

describe('tierOf', () => {
  it('maps the default quarters to tiers 0..3 with bounds inclusive', () => {
    expect(TIER_COUNT).toBe(4);
    expect(DEFAULT_TIER_BOUNDS).toHaveLength(TIER_COUNT - 1);
    expect([1, 0.75, 0.7499, 0.5, 0.25, 0.2499, 0].map((p) => tierOf(p))).toEqual([0, 0, 1, 1, 2, 3, 3]);
  });

  it('never puts a higher priority in a lower tier', () => {
    fc.assert(
      fc.property(fc.double({ min: 0, max: 1, noNaN: true }), fc.double({ min: 0, max: 1, noNaN: true }), (a, b) => {
        const [lo, hi] = a <= b ? [a, b] : [b, a];
        const tierHi = tierOf(hi);
        return tierHi <= tierOf(lo) && tierHi >= 0 && tierOf(lo) < TIER_COUNT;
      }),
    );
  });

  it('accepts custom bounds', () => {
    expect(tierOf(0.95, [0.9, 0.1])).toBe(0);
    expect(tierOf(0.5, [0.9, 0.1])).toBe(1);
    expect(tierOf(0.05, [0.9, 0.1])).toBe(2);
  });

  it('puts a seed page in tier 0 and a deep trap-penalised page in the last tier', () => {
    expect(tierOf(urlPriority({ depth: 0, inlinks: 200, hostImportance: 0.9 }))).toBe(0);
    expect(tierOf(urlPriority({ depth: 12, inlinks: 1, trapPenalty: 0.8 }))).toBe(TIER_COUNT - 1);
  });

  it.each([
    [1.1, DEFAULT_TIER_BOUNDS, 'priority'],
    [Number.NaN, DEFAULT_TIER_BOUNDS, 'priority'],
    [0.5, [0.25, 0.5], 'bounds[1]'],
    [0.5, [0.5, 0], 'bounds[1]'],
  ])('rejects priority %s with bounds %j, naming %s', (p, bounds, field) => {
    expect(() => tierOf(p, bounds)).toThrow(expect.objectContaining({ code: 'FRONTIER_TIER_INPUT_INVALID', field }));
  });
});
