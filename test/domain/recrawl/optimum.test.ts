import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import {
  DEFAULT_RATE_MIX,
  averageFreshness,
  expectedFreshness,
  optimalVisitFrequencies,
  proportionalVisitFrequencies,
  syntheticRates,
  uniformVisitFrequencies,
} from '../../../src/domain/recrawl/index.js';

const sum = (xs: readonly number[]): number => xs.reduce((a, b) => a + b, 0);
const MIXED_WEB = syntheticRates(500, DEFAULT_RATE_MIX, 2, 11);

describe('optimalVisitFrequencies', () => {
  it('spends exactly the budget', () => {
    expect(sum(optimalVisitFrequencies(MIXED_WEB, 120))).toBeCloseTo(120, 9);
    expect(sum(optimalVisitFrequencies([0.5, 2, 0.01], 1))).toBeCloseTo(1, 12);
  });

  it('ranks optimum >= uniform >= proportional on a mixed-rate web (Cho & Garcia-Molina)', () => {
    for (const budget of [50, 125, 250, 500]) {
      const optimum = averageFreshness(MIXED_WEB, optimalVisitFrequencies(MIXED_WEB, budget));
      const uniform = averageFreshness(MIXED_WEB, uniformVisitFrequencies(MIXED_WEB, budget));
      const proportional = averageFreshness(MIXED_WEB, proportionalVisitFrequencies(MIXED_WEB, budget));
      expect(optimum).toBeGreaterThanOrEqual(uniform);
      expect(uniform).toBeGreaterThan(proportional);
    }
  });

  it('gives nothing to pages that change too often and to pages that never change', () => {
    const f = optimalVisitFrequencies([96, 1, 0.2, 0], 1);
    expect(f[0]).toBe(0);
    expect(f[3]).toBe(0);
    expect(f[1]).toBeGreaterThan(0);
    expect(f[2]).toBeGreaterThan(0);
  });

  it('equalizes the weighted marginal freshness of every visited page (the Lagrange condition)', () => {
    const rates = [0.05, 0.2, 0.7, 2];
    const weights = [1, 3, 1, 2];
    const f = optimalVisitFrequencies(rates, 2, weights);
    const marginal = rates.map((r, i) => {
      const fi = f[i] ?? 0;
      const h = 1e-6;
      return ((weights[i] ?? 0) * (expectedFreshness(r, fi + h) - expectedFreshness(r, fi - h))) / (2 * h);
    });
    const visited = marginal.filter((_, i) => (f[i] ?? 0) > 0);
    expect(visited.length).toBeGreaterThan(1);
    for (const m of visited) expect(m).toBeCloseTo(visited[0] ?? 0, 4);
  });

  it('gives more visits to a more valuable page of the same rate', () => {
    const [low, high] = optimalVisitFrequencies([0.5, 0.5], 1, [1, 4]);
    expect(high).toBeGreaterThan(low ?? Infinity);
    const [a, b] = optimalVisitFrequencies([0.5, 0.5], 1);
    expect(a).toBeCloseTo(b ?? 0, 9);
  });

  it('is never beaten by another allocation of the same budget', () => {
    const rates = [0.02, 0.1, 0.3, 1, 3, 10];
    const best = averageFreshness(rates, optimalVisitFrequencies(rates, 2));
    fc.assert(
      fc.property(fc.array(fc.double({ min: 0, max: 1, noNaN: true }), { minLength: 6, maxLength: 6 }), (shares) => {
        const total = sum(shares);
        fc.pre(total > 0);
        const other = shares.map((s) => (2 * s) / total);
        expect(averageFreshness(rates, other)).toBeLessThanOrEqual(best + 1e-9);
      }),
      { numRuns: 500 },
    );
  });

  it('rejects empty or invalid input with codes', () => {
    expect(() => optimalVisitFrequencies([], 1)).toThrow(expect.objectContaining({ code: 'RECRAWL_RATE_INVALID' }));
    expect(() => optimalVisitFrequencies([1], -1)).toThrow(expect.objectContaining({ code: 'RECRAWL_BUDGET_INVALID' }));
    expect(() => optimalVisitFrequencies([1, 2], 1, [1])).toThrow(expect.objectContaining({ field: 'weights.length' }));
  });
});
