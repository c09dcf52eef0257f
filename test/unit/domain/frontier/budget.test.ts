import { describe, it, expect } from 'vitest';
import fc from 'fast-check';
import {
  splitBudget,
  reallocateBudget,
  budgetTotal,
  validateBudgetShares,
  DEFAULT_BUDGET_SHARES,
  type BudgetShares,
} from '../../../../src/domain/frontier/index.js';

const sharesArb: fc.Arbitrary<BudgetShares> = fc
  .tuple(fc.nat(1000), fc.nat(1000), fc.nat(1000), fc.nat(1000))
  .filter((parts) => parts.some((p) => p > 0))
  .map(([a, b, c, d]) => {
    const sum = a + b + c + d;
    return { discovery: a / sum, recrawl: b / sum, reestimation: c / sum, verification: 1 - (a + b + c) / sum };
  });

describe('splitBudget (docs/design.md, "Cost per detected change": reserved budgets)', () => {
  it('splits by the defaults: 0.3 discovery, 0.6 recrawl, 0.07 re-estimation, 0.03 verification', () => {
    expect(splitBudget(1000)).toEqual({ discovery: 300, recrawl: 600, reestimation: 70, verification: 30 });
    expect(budgetTotal(DEFAULT_BUDGET_SHARES)).toBeCloseTo(1, 12);
  });

  it('uses largest remainders so the parts sum to the total exactly', () => {
    // Exact: 2.1, 4.2, 0.49, 0.21 -> floors 2, 4, 0, 0; the one left goes to the largest remainder (0.49).
    expect(splitBudget(7)).toEqual({ discovery: 2, recrawl: 4, reestimation: 1, verification: 0 });
    expect(splitBudget(0)).toEqual({ discovery: 0, recrawl: 0, reestimation: 0, verification: 0 });
  });

  it('sums exactly and stays within one of each exact share (property)', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 10_000_000 }), sharesArb, (total, shares) => {
        const split = splitBudget(total, shares);
        expect(budgetTotal(split)).toBe(total);
        for (const pool of ['discovery', 'recrawl', 'reestimation', 'verification'] as const) {
          expect(Number.isInteger(split[pool])).toBe(true);
          expect(Math.abs(split[pool] - total * shares[pool])).toBeLessThan(1 + 1e-6);
        }
      }),
      { numRuns: 2000 },
    );
  });

  it.each([
    [{ discovery: 0.5, recrawl: 0.6, reestimation: 0, verification: 0 }, 'shares'],
    [{ discovery: -0.1, recrawl: 1.1, reestimation: 0, verification: 0 }, 'shares.discovery'],
    [{ discovery: 0.3, recrawl: 0.6, reestimation: Number.NaN, verification: 0.1 }, 'shares.reestimation'],
    [{ discovery: 0.3, recrawl: 0.6, reestimation: 0.1 } as BudgetShares, 'shares.verification'],
  ])('rejects shares %j naming %s', (shares, field) => {
    expect(() => splitBudget(100, shares)).toThrow(expect.objectContaining({ code: 'FRONTIER_BUDGET_INVALID', field }));
    expect(() => validateBudgetShares(shares)).toThrow(expect.objectContaining({ field }));
  });

  it('rejects a fractional or negative total', () => {
    expect(() => splitBudget(10.5)).toThrow(expect.objectContaining({ code: 'FRONTIER_BUDGET_INVALID', field: 'total' }));
    expect(() => splitBudget(-1)).toThrow(expect.objectContaining({ field: 'total' }));
  });
});

describe('reallocateBudget', () => {
  it('leaves the split alone when every pool has enough candidates', () => {
    const split = splitBudget(1000);
    expect(reallocateBudget(split, { discovery: 5000, recrawl: 5000, reestimation: 5000, verification: 5000 })).toEqual(split);
  });

  it('flows an unused share to the other pools in proportion to their shares', () => {
    const split = splitBudget(1000); // 300 / 600 / 70 / 30
    const result = reallocateBudget(split, { discovery: 100, recrawl: 5000, reestimation: 5000, verification: 5000 });
    // 200 spare, over recrawl 0.6, re-estimation 0.07, verification 0.03 (of 0.7).
    expect(result).toEqual({ discovery: 100, recrawl: 600 + 171, reestimation: 70 + 20, verification: 30 + 9 });
    expect(budgetTotal(result)).toBe(1000);
  });

  it('caps receivers at their candidates and keeps flowing the rest', () => {
    const split = splitBudget(1000);
    const result = reallocateBudget(split, { discovery: 0, recrawl: 650, reestimation: 1000, verification: 35 });
    expect(result).toEqual({ discovery: 0, recrawl: 650, reestimation: 315, verification: 35 });
  });

  it('spends only what candidates allow when all pools are short', () => {
    const result = reallocateBudget(splitBudget(1000), { discovery: 10, recrawl: 20, reestimation: 3, verification: 0 });
    expect(result).toEqual({ discovery: 10, recrawl: 20, reestimation: 3, verification: 0 });
  });

  it('never exceeds candidates, never cuts a pool that had enough, and spends min(total, Σ candidates) (property)', () => {
    const candidatesArb = fc.record({
      discovery: fc.nat(2000),
      recrawl: fc.nat(2000),
      reestimation: fc.nat(2000),
      verification: fc.nat(2000),
    });
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 5000 }), sharesArb, candidatesArb, (total, shares, candidates) => {
        const split = splitBudget(total, shares);
        const result = reallocateBudget(split, candidates, shares);
        for (const pool of ['discovery', 'recrawl', 'reestimation', 'verification'] as const) {
          expect(result[pool]).toBeLessThanOrEqual(candidates[pool]);
          if (candidates[pool] >= split[pool]) expect(result[pool]).toBeGreaterThanOrEqual(split[pool]);
        }
        expect(budgetTotal(result)).toBe(Math.min(total, budgetTotal(candidates)));
      }),
      { numRuns: 2000 },
    );
  });

  it('rejects negative candidates with a typed error naming the pool', () => {
    expect(() =>
      reallocateBudget(splitBudget(10), { discovery: 1, recrawl: -1, reestimation: 1, verification: 1 }),
    ).toThrow(expect.objectContaining({ code: 'FRONTIER_BUDGET_INVALID', field: 'candidatesByPool.recrawl' }));
  });
});
