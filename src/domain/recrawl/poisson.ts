import { requireNumber } from './errors.js';

/**
 * Probability that a page changing as a Poisson process at `ratePerDay` changed at least once
 * in `days` (docs/design.md, "Change model"): 1 - e^(-rate × days).
 */
export function probabilityChanged(ratePerDay: number, days: number): number {
  requireNumber('RECRAWL_RATE_INVALID', 'ratePerDay', ratePerDay, { min: 0 });
  requireNumber('RECRAWL_DAYS_INVALID', 'days', days, { min: 0 });
  return -Math.expm1(-ratePerDay * days);
}

/**
 * Expected fresh days bought by visiting now (`freshness_gain` in docs/design.md, "Cost per detected change"): the probability
 * the copy is stale now, times the expected time the new copy stays fresh within the next
 * `intervalDays`, (1 - e^(-rate × interval)) / rate, or `intervalDays` when rate = 0.
 */
export function freshnessGain(ratePerDay: number, daysSinceVisit: number, intervalDays: number): number {
  return probabilityChanged(ratePerDay, daysSinceVisit) * expectedFreshDays(ratePerDay, intervalDays);
}

/** Expected days a just-fetched copy stays fresh within the next `intervalDays`: (1 - e^(-rate × interval)) / rate. */
export function expectedFreshDays(ratePerDay: number, intervalDays: number): number {
  requireNumber('RECRAWL_RATE_INVALID', 'ratePerDay', ratePerDay, { min: 0 });
  requireNumber('RECRAWL_DAYS_INVALID', 'intervalDays', intervalDays, { min: 0 });
  return ratePerDay > 0 ? -Math.expm1(-ratePerDay * intervalDays) / ratePerDay : intervalDays;
}

/**
 * Time-averaged freshness of a page changing at `ratePerDay` and visited at fixed intervals
 * `visitsPerDay` times a day (Cho & Garcia-Molina 2003): F = (f/r)(1 - e^(-r/f)). A page that
 * never changes is always fresh; a changing page never visited is (in the long run) never fresh.
 */
export function expectedFreshness(ratePerDay: number, visitsPerDay: number): number {
  requireNumber('RECRAWL_RATE_INVALID', 'ratePerDay', ratePerDay, { min: 0 });
  requireNumber('RECRAWL_RATE_INVALID', 'visitsPerDay', visitsPerDay, { min: 0 });
  if (ratePerDay === 0) return 1;
  if (visitsPerDay === 0) return 0;
  const x = ratePerDay / visitsPerDay;
  return -Math.expm1(-x) / x;
}
