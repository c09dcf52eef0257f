import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import {
  DEFAULT_RATE_MIX,
  allocateVisitFrequencies,
  averageFreshness,
  expectedFreshness,
  optimalVisitFrequencies,
  proportionalVisitFrequencies,
  syntheticRates,
  uniformVisitFrequencies,
} from '../../../../src/domain/recrawl/index.js';

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

describe('allocateVisitFrequencies', () => {
  const page = (ratePerDay: number, over: { value?: number; unchangedCostUnits?: number; changedCostUnits?: number } = {}) => ({
    ratePerDay,
    value: 1,
    unchangedCostUnits: 1,
    changedCostUnits: 1,
    ...over,
  });

  it('is the optimum when every visit costs the same, and spends exactly the budget', () => {
    const rates = MIXED_WEB.slice(0, 200);
    const weights = rates.map((_, i) => [1, 4, 0.25][i % 3] ?? 1);
    const allocated = allocateVisitFrequencies(
      rates.map((r, i) => page(r, { value: weights[i] ?? 1, unchangedCostUnits: 0.3, changedCostUnits: 0.3 })),
      60,
    );
    const optimum = optimalVisitFrequencies(rates, 60, weights);
    allocated.forEach((f, i) => expect(f).toBeCloseTo(optimum[i] ?? 0, 6));
    expect(sum(allocated)).toBeCloseTo(60, 9);
  });

  it('equalizes marginal freshness per unit of marginal cost across the pages it visits', () => {
    const pages = [page(0.05, { changedCostUnits: 5 }), page(0.3), page(0.3, { changedCostUnits: 8 }), page(1, { value: 4, changedCostUnits: 2 }), page(2)];
    const f = allocateVisitFrequencies(pages, 3);
    const costPerDay = (p: (typeof pages)[number], fi: number) => (fi > 0 ? fi * (p.unchangedCostUnits + (p.changedCostUnits - p.unchangedCostUnits) * -Math.expm1(-p.ratePerDay / fi)) : 0);
    const ratios = pages.flatMap((p, i) => {
      const fi = f[i] ?? 0;
      if (fi <= 0) return [];
      const d = 1e-6;
      const gain = p.value * (expectedFreshness(p.ratePerDay, fi + d) - expectedFreshness(p.ratePerDay, fi - d));
      return [gain / (costPerDay(p, fi + d) - costPerDay(p, fi - d))];
    });
    expect(ratios.length).toBeGreaterThan(2);
    for (const ratio of ratios) expect(ratio).toBeCloseTo(ratios[0] ?? 0, 4);
  });

  it('gives a page kept fresh by cheap 304s more looks than one that costs a full fetch each time', () => {
    const [cheapLooks, fullFetches] = allocateVisitFrequencies([page(0.2, { unchangedCostUnits: 0.1, changedCostUnits: 1 }), page(0.2, { unchangedCostUnits: 1, changedCostUnits: 1 })], 1);
    expect(cheapLooks).toBeGreaterThan(fullFetches ?? Infinity);
  });

  it('gives nothing to a page that changes too often for what its copy is worth, nor to one that never changes', () => {
    const f = allocateVisitFrequencies([page(500), page(1), page(0.1), page(0)], 2);
    expect(f[0]).toBe(0);
    expect(f[3]).toBe(0);
    expect(f[1]).toBeGreaterThan(0);
    expect(f[2]).toBeGreaterThan(0);
  });

  it('rejects costs it cannot price with codes', () => {
    expect(() => allocateVisitFrequencies([page(1, { unchangedCostUnits: 0 })], 1)).toThrow(expect.objectContaining({ code: 'RECRAWL_COST_INPUT_INVALID', field: 'pages[0].unchangedCostUnits' }));
    expect(() => allocateVisitFrequencies([page(1, { unchangedCostUnits: 2, changedCostUnits: 1 })], 1)).toThrow(expect.objectContaining({ field: 'pages[0].changedCostUnits' }));
    expect(() => allocateVisitFrequencies([], 1)).toThrow(expect.objectContaining({ code: 'RECRAWL_RATE_INVALID' }));
  });
});
