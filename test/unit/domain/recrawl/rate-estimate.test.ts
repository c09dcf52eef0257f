import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import {
  choGarciaMolinaRate,
  estimateChangeRate,
  naiveChangeRate,
  ratePriorFromGroup,
  revisitIntervalRatePerDay,
  DEFAULT_RATE_LOG_SPREAD,
  type ChangeObservation,
} from '../../../../src/domain/recrawl/index.js';
import { seededRandom } from '../../../../src/domain/random.js';

const NO_PRIOR = { ratePerDay: 0, logSpread: 0 };

/** Visits a page changing at `ratePerDay`; `nextIntervalDays` chooses the gaps. */
function poissonHistory(ratePerDay: number, visits: number, nextIntervalDays: () => number, random: () => number): ChangeObservation[] {
  return Array.from({ length: visits }, () => {
    const intervalDays = nextIntervalDays();
    return { intervalDays, changed: random() < 1 - Math.exp(-ratePerDay * intervalDays) };
  });
}

/**
 * Visits a page changing at `ratePerDay` every `intervalDays`, with each changed visit dated by the
 * version's age (what a truthful Last-Modified says): the time since the latest change.
 */
function datedPoissonHistory(ratePerDay: number, visits: number, intervalDays: number, random: () => number): ChangeObservation[] {
  const history: ChangeObservation[] = [];
  let nextChange = -Math.log(1 - random()) / ratePerDay;
  for (let k = 1; k <= visits; k += 1) {
    const at = k * intervalDays;
    let lastChange: number | undefined;
    while (nextChange <= at) {
      lastChange = nextChange;
      nextChange += -Math.log(1 - random()) / ratePerDay;
    }
    history.push(lastChange === undefined ? { intervalDays, changed: false } : { intervalDays, changed: true, versionAgeDays: at - lastChange });
  }
  return history;
}

describe('estimateChangeRate', () => {
  it('returns the prior for an empty history', () => {
    expect(estimateChangeRate([], { ratePerDay: 0.2, logSpread: 2 })).toEqual({
      ratePerDay: 0.2,
      observations: 0,
      changes: 0,
      observedDays: 0,
      datedChanges: 0,
      method: 'prior',
      mleRatePerDay: 0,
    });
  });

  it('takes dated changes as changes over change-free days: unchanged intervals and the versions’ ages', () => {
    const history = [
      { intervalDays: 1, changed: true, versionAgeDays: 0.25 },
      { intervalDays: 1, changed: false },
      { intervalDays: 2, changed: true, versionAgeDays: 0.5 },
    ];
    const estimate = estimateChangeRate(history, NO_PRIOR);
    expect(estimate.method).toBe('dated-mle');
    expect(estimate.datedChanges).toBe(2);
    expect(estimate.ratePerDay).toBeCloseTo(2 / 1.75, 12);
    expect(estimateChangeRate(history).method).toBe('dated-mle+prior');
  });

  it('sees past the revisit interval where the censored estimate saturates (Last-Modified dates the change)', () => {
    // A page changing 500 times a day, visited daily: every visit sees a change.
    const history = datedPoissonHistory(500, 40, 1, seededRandom(11));
    expect(history.every((o) => o.changed)).toBe(true);
    const censored = estimateChangeRate(history.map(({ intervalDays, changed }) => ({ intervalDays, changed })), NO_PRIOR).ratePerDay;
    const dated = estimateChangeRate(history, NO_PRIOR).ratePerDay;
    expect(censored).toBeCloseTo(Math.log(81), 6); // ln(2n + 1) / I: all a daily look can say
    expect(dated).toBeGreaterThan(400);
    expect(dated).toBeLessThan(600);
  });

  it('converges on dated pages slower and faster than their visits', () => {
    for (const [rate, seed] of [
      [0.1, 12],
      [3, 13],
      [60, 14],
    ] as const) {
      const { ratePerDay } = estimateChangeRate(datedPoissonHistory(rate, 6000, 1, seededRandom(seed)), NO_PRIOR);
      expect(Math.abs(ratePerDay / rate - 1), `rate ${rate}`).toBeLessThan(0.12);
    }
  });

  it('combines dated and censored changes in one likelihood', () => {
    const censoredOnly = [
      { intervalDays: 1, changed: true },
      { intervalDays: 1, changed: false },
    ];
    const mixed = [...censoredOnly, { intervalDays: 1, changed: true, versionAgeDays: 0.01 }];
    const alsoCensored = [...censoredOnly, { intervalDays: 1, changed: true }];
    // A change dated a quarter of an hour old says the page is faster than one merely seen changed.
    expect(estimateChangeRate(mixed, NO_PRIOR).ratePerDay).toBeGreaterThan(estimateChangeRate(alsoCensored, NO_PRIOR).ratePerDay);
    // The score is zero at the estimate: 1/r + t/expm1(r t) = unchanged + age + half the shortest censored interval.
    const r = estimateChangeRate(mixed, NO_PRIOR).ratePerDay;
    expect(1 / r + 1 / Math.expm1(r) - (1 + 0.01 + 0.5)).toBeCloseTo(0, 9);
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

  it('draws a sparse history toward the prior, in orders of magnitude, and lets a long one speak for itself', () => {
    const prior = { ratePerDay: 0.1, logSpread: 1 };
    const daily = (changed: boolean) => ({ intervalDays: 1, changed });
    const sparse = estimateChangeRate([daily(true), daily(true), daily(true)], prior);
    expect(sparse.mleRatePerDay).toBeCloseTo(Math.log(7), 6);
    expect(sparse.method).toBe('censored-mle+prior');
    expect(sparse.ratePerDay).toBeGreaterThan(0.1);
    expect(sparse.ratePerDay).toBeLessThan(Math.log(7));
    // The most probable rate: the likelihood's pull (r × score) equals the prior's, (ln r - ln 0.1) / 1².
    const r = sparse.ratePerDay;
    expect(3 * (r / Math.expm1(r)) - 0.5 * r - Math.log(r / 0.1)).toBeCloseTo(0, 8);
    const random = seededRandom(4);
    const long = estimateChangeRate(poissonHistory(1, 2000, () => 1, random), prior);
    expect(Math.abs(long.ratePerDay - 1)).toBeLessThan(0.12);
  });

  it('gives a never-changing page only what the prior lends it, fading as unchanged time adds up', () => {
    const prior = { ratePerDay: 0.2, logSpread: 2 };
    const unchanged = (days: number, before = 0) => estimateChangeRate([{ intervalDays: days, changed: false }], prior, { unchangedDaysBefore: before }).ratePerDay;
    for (const days of [10, 90]) {
      const r = unchanged(days);
      // r × days = (ln 0.2 - ln r) / 2²
      expect(r * days - Math.log(0.2 / r) / 4).toBeCloseTo(0, 9);
    }
    expect(unchanged(90)).toBeLessThan(unchanged(10) / 3);
    // A trusted Last-Modified a year old says the same as a year of unchanged visits.
    expect(unchanged(10, 355)).toBeCloseTo(unchanged(365), 12);
  });

  it('is the same on any time scale: revisits a thousand times closer give a thousand times the rate', () => {
    fc.assert(
      fc.property(
        fc.array(fc.record({ intervalDays: fc.double({ min: 0.01, max: 30, noNaN: true }), changed: fc.boolean(), dated: fc.double({ min: 0, max: 1, noNaN: true }) }), { minLength: 1, maxLength: 20 }),
        fc.double({ min: 0.001, max: 100, noNaN: true }),
        (raw, priorRate) => {
          const history = raw.map(({ intervalDays, changed, dated }) => ({ intervalDays, changed, ...(changed && dated > 0.5 ? { versionAgeDays: intervalDays * dated } : {}) }));
          const compressed = history.map((o) => ({ ...o, intervalDays: o.intervalDays / 1000, ...(o.versionAgeDays === undefined ? {} : { versionAgeDays: o.versionAgeDays / 1000 }) }));
          const slow = estimateChangeRate(history, { ratePerDay: priorRate, logSpread: DEFAULT_RATE_LOG_SPREAD }, { maxRatePerDay: 1e12 }).ratePerDay;
          const fast = estimateChangeRate(compressed, { ratePerDay: priorRate * 1000, logSpread: DEFAULT_RATE_LOG_SPREAD }, { maxRatePerDay: 1e15 }).ratePerDay;
          expect(fast / 1000).toBeCloseTo(slow, 6 - Math.max(0, Math.ceil(Math.log10(slow))));
        },
      ),
      { numRuns: 200 },
    );
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
    expect(() => estimateChangeRate([], { ratePerDay: -1, logSpread: 1 })).toThrow(expect.objectContaining({ code: 'RECRAWL_PRIOR_INVALID' }));
    expect(() => estimateChangeRate([{ intervalDays: 1, changed: true, versionAgeDays: 2 }])).toThrow(expect.objectContaining({ field: 'history[0].versionAgeDays' }));
  });
});

describe('revisitIntervalRatePerDay', () => {
  it('is one change per mean revisit interval, whatever the time scale', () => {
    const second = 1 / 86_400;
    expect(revisitIntervalRatePerDay([{ intervalDays: 40 * second, changed: false }, { intervalDays: 20 * second, changed: true }])).toBeCloseTo(1 / (30 * second), 6);
    expect(revisitIntervalRatePerDay([{ intervalDays: 7, changed: false }])).toBeCloseTo(1 / 7, 12);
    expect(revisitIntervalRatePerDay([])).toBe(1 / 7);
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

describe('the prior on a compressed time scale', () => {
  it('lets a page revisited every minute move off a weekly prior within a few visits', () => {
    const minute = 1 / 1440;
    const history = Array.from({ length: 6 }, () => ({ intervalDays: minute, changed: true }));
    expect(estimateChangeRate(history, { ratePerDay: 1 / 7, logSpread: DEFAULT_RATE_LOG_SPREAD }).ratePerDay).toBeGreaterThan(1000);
  });
});

describe('ratePriorFromGroup', () => {
  it('is the geometric mean of positive rates, so one very fast page does not set it', () => {
    expect(ratePriorFromGroup([1 / 30, 1 / 30, 96]).ratePerDay).toBeCloseTo(Math.cbrt((1 / 30) * (1 / 30) * 96), 12);
    expect(ratePriorFromGroup([0.1, 0, Number.NaN, 10], 1 / 7, 2)).toEqual({ ratePerDay: expect.closeTo(1, 12), logSpread: 2 });
    expect(ratePriorFromGroup([], 0.5)).toEqual({ ratePerDay: 0.5, logSpread: DEFAULT_RATE_LOG_SPREAD });
  });
});
