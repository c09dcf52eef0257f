import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import {
  choGarciaMolinaRate,
  estimateChangeRate,
  naiveChangeRate,
  ratePriorFromGroup,
  revisitPriorStrengthDays,
  type ChangeObservation,
} from '../../../src/domain/recrawl/index.js';
import { seededRandom } from '../../../src/domain/random.js';

const NO_PRIOR = { ratePerDay: 0, strengthDays: 0 };

/** Visits a page changing at `ratePerDay`; `nextIntervalDays` chooses the gaps. */
function poissonHistory(ratePerDay: number, visits: number, nextIntervalDays: () => number, random: () => number): ChangeObservation[] {
  return Array.from({ length: visits }, () => {
    const intervalDays = nextIntervalDays();
    return { intervalDays, changed: random() < 1 - Math.exp(-ratePerDay * intervalDays) };
  });
}

describe('estimateChangeRate', () => {
  it('returns the prior for an empty history', () => {
    expect(estimateChangeRate([], { ratePerDay: 0.2, strengthDays: 10 })).toEqual({
      ratePerDay: 0.2,
      observations: 0,
      changes: 0,
      observedDays: 0,
      method: 'prior',
      mleRatePerDay: 0,
    });
  });

  it("reduces to Cho & Garcia-Molina's estimator for equal intervals", () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 60 }), fc.nat(), fc.double({ min: 0.01, max: 30, noNaN: true }), (n, x, intervalDays) => {
        const changes = x % (n + 1);
        const history = Array.from({ length: n }, (_, i) => ({ intervalDays, changed: i < changes }));
        const estimate = estimateChangeRate(history, NO_PRIOR);
        expect(estimate.method).toBe('censored-mle');
        expect(estimate.ratePerDay).toBeCloseTo(choGarciaMolinaRate(n, changes, intervalDays), 6);
      }),
      { numRuns: 300 },
    );
  });

  it('stays finite when every visit saw a change', () => {
    const history = Array.from({ length: 10 }, () => ({ intervalDays: 2, changed: true }));
    expect(estimateChangeRate(history, NO_PRIOR).ratePerDay).toBeCloseTo(Math.log(21) / 2, 6);
  });

  // Bounds are about 3.5 standard errors of the estimator at these sample sizes.
  it('converges on a slow page visited every 3 days', () => {
    const random = seededRandom(1);
    const history = poissonHistory(0.1, 2000, () => 3, random);
    const { ratePerDay } = estimateChangeRate(history, NO_PRIOR);
    expect(ratePerDay).toBeGreaterThan(0.085);
    expect(ratePerDay).toBeLessThan(0.115);
  });

  it('converges on a fast page visited at irregular intervals', () => {
    const random = seededRandom(2);
    const history = poissonHistory(3, 400, () => 0.1 + random() * 0.9, random);
    const { ratePerDay } = estimateChangeRate(history, NO_PRIOR);
    expect(ratePerDay).toBeGreaterThan(2.6);
    expect(ratePerDay).toBeLessThan(3.4);
  });

  it('corrects for censoring where changes / time under-estimates a page faster than its visits', () => {
    const random = seededRandom(3);
    const history = poissonHistory(3, 1000, () => 1, random);
    const naive = naiveChangeRate(history);
    const corrected = estimateChangeRate(history, NO_PRIOR).ratePerDay;
    expect(naive).toBeLessThan(1); // a daily visit sees at most one change a day
    expect(Math.abs(corrected - 3)).toBeLessThan(0.5);
    expect(Math.abs(corrected - 3)).toBeLessThan(Math.abs(naive - 3));
  });

  it('pulls a sparse history to the prior and lets a long one speak for itself', () => {
    const prior = { ratePerDay: 0.1, strengthDays: 30 };
    const sparse = estimateChangeRate([{ intervalDays: 1, changed: true }, { intervalDays: 1, changed: true }, { intervalDays: 1, changed: true }], prior);
    expect(sparse.mleRatePerDay).toBeCloseTo(Math.log(7), 6);
    expect(sparse.method).toBe('censored-mle+prior');
    expect(sparse.ratePerDay).toBeCloseTo((0.1 * 30 + Math.log(7) * 3) / 33, 9);
    expect(Math.abs(sparse.ratePerDay - 0.1)).toBeLessThan(Math.abs(sparse.ratePerDay - sparse.mleRatePerDay));
    const random = seededRandom(4);
    const long = estimateChangeRate(poissonHistory(1, 2000, () => 1, random), prior);
    expect(Math.abs(long.ratePerDay - 1)).toBeLessThan(0.12);
  });

  it('gives a never-changing page only what the prior lends it, fading with time', () => {
    const prior = { ratePerDay: 0.2, strengthDays: 10 };
    const unchanged = (days: number) => estimateChangeRate([{ intervalDays: days, changed: false }], prior).ratePerDay;
    expect(unchanged(10)).toBeCloseTo(0.1, 12);
    expect(unchanged(90)).toBeCloseTo(0.02, 12);
  });

  it('lets a quick revisit that finds a change again raise an all-changed estimate', () => {
    const slowLooks = Array.from({ length: 6 }, () => ({ intervalDays: 4, changed: true }));
    const before = estimateChangeRate(slowLooks, NO_PRIOR).ratePerDay;
    const after = estimateChangeRate([...slowLooks, { intervalDays: 1 / 24, changed: true }], NO_PRIOR).ratePerDay;
    expect(after).toBeGreaterThan(before * 5);
  });

  it('rejects bad observations and priors, naming the field', () => {
    expect(() => estimateChangeRate([{ intervalDays: 1, changed: true }, { intervalDays: 0, changed: false }])).toThrow(
      expect.objectContaining({ code: 'RECRAWL_OBSERVATION_INVALID', field: 'history[1].intervalDays' }),
    );
    expect(() => estimateChangeRate([{ intervalDays: 1, changed: 'yes' as unknown as boolean }])).toThrow(expect.objectContaining({ field: 'history[0].changed' }));
    expect(() => estimateChangeRate([], { ratePerDay: -1, strengthDays: 1 })).toThrow(expect.objectContaining({ code: 'RECRAWL_PRIOR_INVALID' }));
  });
});

describe('choGarciaMolinaRate and naiveChangeRate', () => {
  it('compute their textbook values', () => {
    expect(choGarciaMolinaRate(10, 5, 1)).toBeCloseTo(-Math.log(5.5 / 10.5), 12);
    expect(choGarciaMolinaRate(10, 0, 1)).toBe(-Math.log(1));
    expect(naiveChangeRate([{ intervalDays: 2, changed: true }, { intervalDays: 3, changed: false }])).toBeCloseTo(0.2, 12);
    expect(naiveChangeRate([])).toBe(0);
  });
});

describe('revisitPriorStrengthDays', () => {
  it('weighs the prior as one mean revisit interval of the page, at most the cap', () => {
    const minute = 1 / 1440;
    expect(revisitPriorStrengthDays([{ intervalDays: minute, changed: true }, { intervalDays: 3 * minute, changed: false }], 7)).toBeCloseTo(2 * minute, 15);
    expect(revisitPriorStrengthDays([{ intervalDays: 30, changed: false }], 7)).toBe(7);
    expect(revisitPriorStrengthDays([], 7)).toBe(7);
  });

  it('lets a page revisited every minute move off the prior within a few visits', () => {
    const minute = 1 / 1440;
    const history = Array.from({ length: 6 }, () => ({ intervalDays: minute, changed: true }));
    const prior = { ratePerDay: 1 / 7, strengthDays: revisitPriorStrengthDays(history, 7) };
    // Fixed at a week, the prior would hold the estimate near 1/7 per day; one interval's weight lets the history speak.
    expect(estimateChangeRate(history, prior).ratePerDay).toBeGreaterThan(1000);
  });
});

describe('ratePriorFromGroup', () => {
  it('is the geometric mean of positive rates, so one very fast page does not set it', () => {
    expect(ratePriorFromGroup([1 / 30, 1 / 30, 96], 7).ratePerDay).toBeCloseTo(Math.cbrt((1 / 30) * (1 / 30) * 96), 12);
    expect(ratePriorFromGroup([0.1, 0, Number.NaN, 10], 7)).toEqual({ ratePerDay: expect.closeTo(1, 12), strengthDays: 7 });
    expect(ratePriorFromGroup([], 3, 0.5)).toEqual({ ratePerDay: 0.5, strengthDays: 3 });
  });
});
