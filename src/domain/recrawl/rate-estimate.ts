import { RecrawlInputError, requireNumber } from './errors.js';

/** One visit: time since the previous visit, and whether the normalized content (or the configured fields) changed. */
export interface ChangeObservation {
  intervalDays: number;
  changed: boolean;
}

/** A change-rate estimate with its evidence, as the URL record stores it. */
export interface RateEstimate {
  /** The estimate the scheduler uses (smoothed toward the prior). */
  ratePerDay: number;
  /** Visits in the history. */
  observations: number;
  /** Visits that saw a change. */
  changes: number;
  /** Sum of the intervals: the time the history covers. */
  observedDays: number;
  /** 'prior' (no history), 'censored-mle' (no prior weight) or 'censored-mle+prior'. */
  method: RateEstimateMethod;
  /** The history's own estimate before smoothing; 0 with no history. */
  mleRatePerDay: number;
}

export type RateEstimateMethod = 'prior' | 'censored-mle' | 'censored-mle+prior';

/** The rate of similar pages (e.g. the same host and value tier), and how much it weighs. */
export interface RatePrior {
  ratePerDay: number;
  /** The prior counts as this many days of observation: a page's own history outweighs it once it covers more. */
  strengthDays: number;
}

/** Used when the caller has no group mean: a weekly-changing page (000 §8.1's technical documents), worth one week of history. */
export const DEFAULT_RATE_PRIOR: Readonly<RatePrior> = Object.freeze({ ratePerDay: 1 / 7, strengthDays: 7 });

/** Tuning of {@link estimateChangeRate}. */
export interface RateEstimateOptions {
  /**
   * Unchanged pseudo-visits added to the likelihood, each as long as the shortest interval that
   * saw a change. 0.5 makes the estimator Cho & Garcia-Molina's bias-reduced one for equal
   * intervals and keeps it finite when every visit saw a change. Default 0.5.
   */
  pseudoUnchangedVisits: number;
  /**
   * Upper bound on any estimate, per day. Default 1_000_000 (a change every ~0.09 seconds). The
   * censored estimate cannot exceed about ln(2n + 1) / the shortest interval anyway, so the bound
   * binds only when revisits come seconds apart (compressed time); there a lower one (10,000, a
   * change every 9 s) made pages changing every second look like pages changing every few revisits.
   */
  maxRatePerDay: number;
}

export const DEFAULT_RATE_ESTIMATE_OPTIONS: Readonly<RateEstimateOptions> = Object.freeze({ pseudoUnchangedVisits: 0.5, maxRatePerDay: 1_000_000 });

/**
 * Change rate of a page from its visit history (001), under a Poisson change model.
 *
 * A visit sees at most one change, so changes / time under-estimates pages that change faster
 * than they are visited. The maximum-likelihood estimate for such censored observations solves
 *   Σ_changed t_i e^(-r t_i) / (1 - e^(-r t_i)) = Σ_unchanged t_j + 0.5 × min_changed t_i
 * whose left side falls as r grows; it is found by bisection. The last term is half an unchanged
 * pseudo-visit: with equal intervals I it gives r = -ln((n - X + 0.5) / (n + 0.5)) / I
 * (Cho & Garcia-Molina), X changes out of n visits. Its length is the shortest interval that saw
 * a change, the finest resolution the history has: a history where every visit saw a change then
 * reads "faster than the shortest look", and a quick revisit that finds a change again raises
 * the estimate to match (were the pseudo-visit as long as the mean interval, such a probe would
 * barely move it: six 4-day changes and a 1-hour change give 0.91/day instead of 26/day).
 *
 * The result is then smoothed toward `prior` as a time-weighted mean,
 *   (prior.rate × prior.strengthDays + mle × observedDays) / (prior.strengthDays + observedDays),
 * so three visits do not give a page an extreme rate. No history → the prior's rate.
 *
 * @param prior defaults to DEFAULT_RATE_PRIOR; pass `{ ratePerDay: 0, strengthDays: 0 }` for the
 *   unsmoothed estimate.
 */
export function estimateChangeRate(
  history: readonly ChangeObservation[],
  prior: RatePrior = DEFAULT_RATE_PRIOR,
  options: Partial<RateEstimateOptions> = {},
): RateEstimate {
  const { pseudoUnchangedVisits, maxRatePerDay } = { ...DEFAULT_RATE_ESTIMATE_OPTIONS, ...options };
  requireNumber('RECRAWL_OPTIONS_INVALID', 'options.pseudoUnchangedVisits', pseudoUnchangedVisits, { min: 0 });
  requireNumber('RECRAWL_OPTIONS_INVALID', 'options.maxRatePerDay', maxRatePerDay, { min: 0, minExclusive: true });
  requireNumber('RECRAWL_PRIOR_INVALID', 'prior.ratePerDay', prior.ratePerDay, { min: 0 });
  requireNumber('RECRAWL_PRIOR_INVALID', 'prior.strengthDays', prior.strengthDays, { min: 0 });
  const { observations, changes, observedDays } = summarize(history);
  if (observations === 0) {
    return { ratePerDay: Math.min(prior.ratePerDay, maxRatePerDay), observations, changes, observedDays, method: 'prior', mleRatePerDay: 0 };
  }
  const mle = censoredMaximumLikelihoodRate(history, pseudoUnchangedVisits, maxRatePerDay);
  const weight = prior.strengthDays + observedDays;
  const ratePerDay = (prior.ratePerDay * prior.strengthDays + mle * observedDays) / weight;
  return {
    ratePerDay: Math.min(ratePerDay, maxRatePerDay),
    observations,
    changes,
    observedDays,
    method: prior.strengthDays > 0 ? 'censored-mle+prior' : 'censored-mle',
    mleRatePerDay: mle,
  };
}

/**
 * The prior for a group of similar pages (same host, page type or value tier): the geometric
 * mean of their current estimates, weighted as `strengthDays` of observation. Rates span five
 * orders of magnitude, so an arithmetic mean is set by the few fastest pages; in our simulation
 * it made yearly pages look seventeen times faster than they are. Non-positive rates are
 * skipped; with none left the result carries `fallbackRatePerDay`.
 */
export function ratePriorFromGroup(ratesPerDay: Iterable<number>, strengthDays: number, fallbackRatePerDay: number = DEFAULT_RATE_PRIOR.ratePerDay): RatePrior {
  requireNumber('RECRAWL_PRIOR_INVALID', 'strengthDays', strengthDays, { min: 0 });
  requireNumber('RECRAWL_PRIOR_INVALID', 'fallbackRatePerDay', fallbackRatePerDay, { min: 0 });
  let logSum = 0;
  let count = 0;
  for (const rate of ratesPerDay) {
    if (!(rate > 0) || !Number.isFinite(rate)) continue;
    logSum += Math.log(rate);
    count += 1;
  }
  return { ratePerDay: count > 0 ? Math.exp(logSum / count) : fallbackRatePerDay, strengthDays };
}

/**
 * How many days of observation a group prior weighs for a page with this history: one of the
 * page's own mean revisit intervals (the simulation's default, about the mean revisit interval),
 * at most `maxDays`. A fixed number of days would make the prior outweigh every page revisited
 * faster than that: a crawl revisiting every minute would never move off the prior.
 */
export function revisitPriorStrengthDays(history: readonly ChangeObservation[], maxDays: number): number {
  requireNumber('RECRAWL_PRIOR_INVALID', 'maxDays', maxDays, { min: 0 });
  const { observations, observedDays } = summarize(history);
  return observations > 0 ? Math.min(maxDays, observedDays / observations) : maxDays;
}

/** changes / observed time: the estimate a visit log suggests at first sight, biased low for fast pages. */
export function naiveChangeRate(history: readonly ChangeObservation[]): number {
  const { changes, observedDays } = summarize(history);
  return observedDays > 0 ? changes / observedDays : 0;
}

/**
 * Cho & Garcia-Molina's estimator for `visits` equally spaced visits `intervalDays` apart, of
 * which `changes` saw a change: r = -ln((n - X + 0.5) / (n + 0.5)) / I.
 */
export function choGarciaMolinaRate(visits: number, changes: number, intervalDays: number): number {
  requireNumber('RECRAWL_OBSERVATION_INVALID', 'visits', visits, { min: 1, integer: true });
  requireNumber('RECRAWL_OBSERVATION_INVALID', 'changes', changes, { min: 0, max: visits, integer: true });
  requireNumber('RECRAWL_OBSERVATION_INVALID', 'intervalDays', intervalDays, { min: 0, minExclusive: true });
  return -Math.log((visits - changes + 0.5) / (visits + 0.5)) / intervalDays;
}

function summarize(history: readonly ChangeObservation[]): { observations: number; changes: number; observedDays: number } {
  let changes = 0;
  let observedDays = 0;
  history.forEach((observation, i) => {
    requireNumber('RECRAWL_OBSERVATION_INVALID', `history[${i}].intervalDays`, observation.intervalDays, { min: 0, minExclusive: true });
    if (typeof observation.changed !== 'boolean') {
      throw new RecrawlInputError('RECRAWL_OBSERVATION_INVALID', `history[${i}].changed`, observation.changed, 'pass true or false');
    }
    if (observation.changed) changes += 1;
    observedDays += observation.intervalDays;
  });
  return { observations: history.length, changes, observedDays };
}

function censoredMaximumLikelihoodRate(history: readonly ChangeObservation[], pseudoUnchangedVisits: number, maxRatePerDay: number): number {
  let unchangedDays = 0;
  let shortestChangedDays = Infinity;
  const changedIntervals: number[] = [];
  for (const { intervalDays, changed } of history) {
    if (changed) {
      changedIntervals.push(intervalDays);
      shortestChangedDays = Math.min(shortestChangedDays, intervalDays);
    } else {
      unchangedDays += intervalDays;
    }
  }
  if (changedIntervals.length === 0) return 0;
  unchangedDays += pseudoUnchangedVisits * shortestChangedDays;
  if (unchangedDays === 0) return maxRatePerDay;
  // Score: positive below the root, negative above. t / expm1(r t) is the stable form of t e^(-rt) / (1 - e^(-rt)).
  const score = (r: number): number => changedIntervals.reduce((sum, t) => sum + t / Math.expm1(r * t), 0) - unchangedDays;
  // Since 1/r - t/2 <= t / expm1(r t) <= 1/r, the root lies between changes / all days (the naive
  // rate) and changes / unchanged days.
  const changedDays = changedIntervals.reduce((sum, t) => sum + t, 0);
  const lo = changedIntervals.length / (changedDays + unchangedDays);
  const hi = changedIntervals.length / unchangedDays;
  if (lo >= maxRatePerDay) return maxRatePerDay;
  return Math.min(bisect(score, lo, hi), maxRatePerDay);
}

function bisect(score: (r: number) => number, lo: number, hi: number): number {
  for (let i = 0; i < 100 && hi - lo > 1e-10 * hi; i += 1) {
    const mid = (lo + hi) / 2;
    if (score(mid) > 0) lo = mid;
    else hi = mid;
  }
  return (lo + hi) / 2;
}
