import { describe, expect, it } from 'vitest';
import { expectedFreshness, simulateFreshness, type FreshnessPolicy } from '../../../../src/domain/recrawl/index.js';

describe('simulateFreshness', () => {
  it('learns faster where the web dates its versions (a truthful Last-Modified)', () => {
    // Six days from a fresh start, a revisit a day per page (a short window, as the live
    // benchmark's), on a web where a third of the pages change every 15 minutes.
    const rateDistribution = [
      { ratePerDay: 96, share: 0.3 },
      { ratePerDay: 1, share: 0.4 },
      { ratePerDay: 0.1, share: 0.3 },
    ];
    const base = { pages: 300, visitsPerDay: 300, days: 6, warmupDays: 0.01, seed: 4, policy: 'scheduler' as const, rateDistribution };
    const censored = simulateFreshness(base).freshness;
    const dated = simulateFreshness({ ...base, scheduler: { datedChanges: true } }).freshness;
    expect(dated).toBeGreaterThan(censored * 1.03);
  });

  it('matches the analytic freshness of fixed-interval visits', () => {
    // one rate, 0.25 visits a day per page: F = (0.25 / 0.5)(1 - e^-2)
    const result = simulateFreshness({
      pages: 400,
      visitsPerDay: 100,
      days: 400,
      policy: 'uniform',
      seed: 3,
      rateDistribution: [{ ratePerDay: 0.5, share: 1 }],
      rateSpread: 1,
    });
    expect(result.freshness).toBeCloseTo(expectedFreshness(0.5, 0.25), 2);
    expect(result.changesPerFetch).toBeCloseTo(1 - Math.exp(-2), 1);
    expect(result.fetches).toBeGreaterThan(0.98 * 100 * 300);
    expect(result.fetches).toBeLessThan(1.02 * 100 * 300);
  });

  it('is deterministic for a seed and spends the same budget under every policy', () => {
    // Cycles every 3 hours rather than hourly: the same planning, a third of the plans to compute.
    const base = { pages: 200, visitsPerDay: 50, days: 16, seed: 5, scheduler: { cyclesPerDay: 8 } };
    expect(simulateFreshness({ ...base, policy: 'scheduler' })).toEqual(simulateFreshness({ ...base, policy: 'scheduler' }));
    for (const policy of ['uniform', 'proportional', 'optimum', 'scheduler'] as const) {
      const { fetches } = simulateFreshness({ ...base, policy });
      expect(Math.abs(fetches - 50 * 12)).toBeLessThan(0.02 * 50 * 12);
    }
  });

  it.each([1, 2])('our scheduler, learning rates from its own visits, beats uniform and proportional (seed %d)', (seed) => {
    const base = { pages: 300, visitsPerDay: 75, days: 60, seed, scheduler: { cyclesPerDay: 8 } };
    const run = (policy: FreshnessPolicy) => simulateFreshness({ ...base, policy }).freshness;
    const scheduler = run('scheduler');
    const uniform = run('uniform');
    expect(scheduler).toBeGreaterThan(uniform);
    expect(scheduler).toBeGreaterThan(run('proportional'));
    expect(scheduler).toBeLessThanOrEqual(run('optimum') * 1.01);
  });

  it('rejects options it cannot simulate', () => {
    const base = { pages: 10, visitsPerDay: 1, days: 10, seed: 1, policy: 'uniform' as const };
    expect(() => simulateFreshness({ ...base, pages: 0 })).toThrow(expect.objectContaining({ code: 'RECRAWL_OPTIONS_INVALID', field: 'options.pages' }));
    expect(() => simulateFreshness({ ...base, warmupDays: 10 })).toThrow(expect.objectContaining({ field: 'options.warmupDays' }));
    expect(() => simulateFreshness({ ...base, policy: 'random' as FreshnessPolicy })).toThrow(expect.objectContaining({ field: 'options.policy' }));
    expect(() => simulateFreshness({ ...base, rateDistribution: [] })).toThrow(expect.objectContaining({ field: 'rateDistribution' }));
  });
});
