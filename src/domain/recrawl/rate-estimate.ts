import { RecrawlInputError, requireNumber } from './errors.js';

/** One visit: time since the previous visit, and whether the normalized content (or the configured fields) changed. */
export interface ChangeObservation {
  intervalDays: number;
  changed: boolean;
  /**
   * For a changed visit whose server dates its versions truthfully (a trusted Last-Modified): days
   * from the version's change to this visit, at most intervalDays. The visit then says when the
   * latest change happened, not only that one did, so the estimate is not censored by the
   * interval. Omitted: the change is only known to lie somewhere in the interval. Ignored on an
   * unchanged visit, whose whole interval is known to be change-free.
   */
  versionAgeDays?: number;
}

/** A change-rate estimate with its evidence, as the URL record stores it. */
export interface RateEstimate {
  /** The estimate the scheduler uses (drawn toward the prior). */
  ratePerDay: number;
  /** Visits in the history. */
  observations: number;
  /** Visits that saw a change. */
  changes: number;
  /** Sum of the intervals: the time the history covers. */
  observedDays: number;
  /** Changes dated by the version's age (ChangeObservation.versionAgeDays). */
  datedChanges: number;
  /**
   * 'prior' (no history); 'censored-mle' when no change in the history is dated, 'dated-mle' when
   * at least one is; '+prior' when drawn toward a prior.
   */
  method: RateEstimateMethod;
  /** The history's own estimate, without the prior; 0 with no history. */
  mleRatePerDay: number;
}

export type RateEstimateMethod = 'prior' | 'censored-mle' | 'censored-mle+prior' | 'dated-mle' | 'dated-mle+prior';

/** Whether a stored estimate's method read at least one change's date: its rate is not a censored lower bound. */
export function isDatedRateMethod(method: string | null | undefined): boolean {
  return method === 'dated-mle' || method === 'dated-mle+prior';
}

/**
 * What the rate of a page is believed to be before its own history: log-normal, centred on the
 * rate of similar pages (e.g. the same host), `logSpread` wide (the standard deviation of ln rate).
 * Rates span five orders of magnitude, so the belief is about their order of magnitude, and it is
 * the same whatever the time unit: nothing in it is counted in days.
 */
export interface RatePrior {
  ratePerDay: number;
  /** Standard deviation of ln(rate). 0 (or a rate of 0): no prior, the history's own estimate. */
  logSpread: number;
}

/**
 * The ln-spread of the freshness-gain table (docs/recrawl.md, "The change model"): its rates, every 15 minutes to yearly, span ln(96 × 365) = 10.5,
 * and a log-uniform spread that wide has a standard deviation of 3.0.
 */
export const DEFAULT_RATE_LOG_SPREAD = 3;

/** Used when the caller has no group rate: a weekly-changing page, as technical documentation starts (docs/design.md, "Recrawl"). */
export const DEFAULT_RATE_PRIOR: Readonly<RatePrior> = Object.freeze({ ratePerDay: 1 / 7, logSpread: DEFAULT_RATE_LOG_SPREAD });

/** Tuning of {@link estimateChangeRate}. */
export interface RateEstimateOptions {
  /**
   * Unchanged pseudo-visits added to the likelihood, each as long as the shortest censored interval
   * that saw a change. 0.5 makes the estimator Cho & Garcia-Molina's bias-reduced one for equal
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
  /**
   * Days before the history's first visit during which the page is known not to have changed: the
   * age of the version its first fetch got, by a trusted Last-Modified. Counted as change-free
   * time, with no change at its start (that may be the page's creation). Default 0.
   */
  unchangedDaysBefore: number;
}

export const DEFAULT_RATE_ESTIMATE_OPTIONS: Readonly<RateEstimateOptions> = Object.freeze({ pseudoUnchangedVisits: 0.5, maxRatePerDay: 1_000_000, unchangedDaysBefore: 0 });

/**
 * Change rate of a page from its visit history (docs/design.md, "Change model"), under a Poisson change model.
 *
 * A visit sees at most one change, so changes / time under-estimates pages that change faster
 * than they are visited. The likelihood of what each visit showed: an unchanged interval t,
 * e^(-r t); a change known only to lie in the interval t (censored), 1 - e^(-r t); a change dated
 * by the version's age a (versionAgeDays), r e^(-r a), since the changes before the latest one are
 * unconstrained. Its score,
 *   D/r + Σ_censored t_i e^(-r t_i) / (1 - e^(-r t_i)) - (Σ_unchanged t_j + Σ_dated a_k + 0.5 × min_censored t_i),
 * with D dated changes, falls as r grows. Its root, the history's own estimate (mleRatePerDay), is
 * D / (unchanged days + ages) when every change is dated: a page changing every second reads as
 * such after one visit, however long the interval. With none dated it is the censored estimate:
 * the last term is half an unchanged pseudo-visit, which with equal intervals I gives
 * r = -ln((n - X + 0.5) / (n + 0.5)) / I (Cho & Garcia-Molina), X changes out of n visits. Its
 * length is the shortest censored interval that saw a change, the finest resolution the history
 * has: a history where every visit saw a change then reads "faster than the shortest look", and a
 * quick revisit that finds a change again raises the estimate to match (were the pseudo-visit as
 * long as the mean interval, such a probe would barely move it: six 4-day changes and a 1-hour
 * change give 0.91/day instead of 26/day).
 *
 * With a prior (docs/design.md, "Change model": smooth toward similar pages, so that three visits do not give a page an
 * extreme rate) the estimate is the most probable rate given both, the root in u = ln r of
 *   r × score(r) - (u - ln prior.ratePerDay) / prior.logSpread²,
 * which also falls as u grows. A few visits move it by orders of magnitude only when they say so
 * sharply (a change dated seconds old); unchanged visits pull it down as their time adds up, on
 * any time scale. No history → the prior's rate.
 *
 * @param prior defaults to DEFAULT_RATE_PRIOR; pass `{ ratePerDay: 0, logSpread: 0 }` for the
 *   history's own estimate.
 */
export function estimateChangeRate(
  history: readonly ChangeObservation[],
  prior: RatePrior = DEFAULT_RATE_PRIOR,
  options: Partial<RateEstimateOptions> = {},
): RateEstimate {
  const { pseudoUnchangedVisits, maxRatePerDay, unchangedDaysBefore } = { ...DEFAULT_RATE_ESTIMATE_OPTIONS, ...options };
  requireNumber('RECRAWL_OPTIONS_INVALID', 'options.pseudoUnchangedVisits', pseudoUnchangedVisits, { min: 0 });
  requireNumber('RECRAWL_OPTIONS_INVALID', 'options.maxRatePerDay', maxRatePerDay, { min: 0, minExclusive: true });
  requireNumber('RECRAWL_OPTIONS_INVALID', 'options.unchangedDaysBefore', unchangedDaysBefore, { min: 0 });
  requireNumber('RECRAWL_PRIOR_INVALID', 'prior.ratePerDay', prior.ratePerDay, { min: 0 });
  requireNumber('RECRAWL_PRIOR_INVALID', 'prior.logSpread', prior.logSpread, { min: 0 });
  const { observations, changes, observedDays, datedChanges } = summarize(history);
  if (observations === 0) {
    return { ratePerDay: Math.min(prior.ratePerDay, maxRatePerDay), observations, changes, observedDays, datedChanges, method: 'prior', mleRatePerDay: 0 };
  }
  const terms = likelihoodTerms(history, pseudoUnchangedVisits, unchangedDaysBefore);
  const mle = maximumLikelihoodRate(terms, maxRatePerDay);
  const withPrior = prior.ratePerDay > 0 && prior.logSpread > 0;
  const ratePerDay = withPrior ? posteriorModeRate(terms, prior, maxRatePerDay) : mle;
  const base = datedChanges > 0 ? 'dated-mle' : 'censored-mle';
  return {
    ratePerDay: Math.min(ratePerDay, maxRatePerDay),
    observations,
    changes,
    observedDays,
    datedChanges,
    method: withPrior ? `${base}+prior` : base,
    mleRatePerDay: mle,
  };
}

/**
 * The prior for a group of similar pages (same host, page type or value tier): centred on the
 * geometric mean of their current estimates. Rates span five orders of magnitude, so an
 * arithmetic mean is set by the few fastest pages; in our simulation it made yearly pages look
 * seventeen times faster than they are. Non-positive rates are skipped; with none left the
 * prior is centred on `fallbackRatePerDay`.
 */
export function ratePriorFromGroup(
  ratesPerDay: Iterable<number>,
  fallbackRatePerDay: number = DEFAULT_RATE_PRIOR.ratePerDay,
  logSpread: number = DEFAULT_RATE_LOG_SPREAD,
): RatePrior {
  requireNumber('RECRAWL_PRIOR_INVALID', 'fallbackRatePerDay', fallbackRatePerDay, { min: 0 });
  requireNumber('RECRAWL_PRIOR_INVALID', 'logSpread', logSpread, { min: 0 });
  let logSum = 0;
  let count = 0;
  for (const rate of ratesPerDay) {
    if (!(rate > 0) || !Number.isFinite(rate)) continue;
    logSum += Math.log(rate);
    count += 1;
  }
  return { ratePerDay: count > 0 ? Math.exp(logSum / count) : fallbackRatePerDay, logSpread };
}

/**
 * The rate to centre a page's prior on when no similar page has an estimate yet
 * (ratePriorFromGroup's fallback): one change per mean revisit interval of the page's history,
 * the rate at which a visit buys the most (docs/recrawl.md, "The change model"), so neither "changes all the time" nor
 * "never changes" is assumed before the history says so. A fixed rate is a guess on one time
 * scale: a week, where revisits come seconds apart (the live freshness benchmark's compressed
 * time), made every page whose first comparison found no change look static, and the cycles never
 * came back to it. DEFAULT_RATE_PRIOR's rate for an empty history.
 */
export function revisitIntervalRatePerDay(history: readonly ChangeObservation[]): number {
  const { observations, observedDays } = summarize(history);
  return observations > 0 ? observations / observedDays : DEFAULT_RATE_PRIOR.ratePerDay;
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

function summarize(history: readonly ChangeObservation[]): { observations: number; changes: number; observedDays: number; datedChanges: number } {
  let changes = 0;
  let observedDays = 0;
  let datedChanges = 0;
  history.forEach((observation, i) => {
    requireNumber('RECRAWL_OBSERVATION_INVALID', `history[${i}].intervalDays`, observation.intervalDays, { min: 0, minExclusive: true });
    if (typeof observation.changed !== 'boolean') {
      throw new RecrawlInputError('RECRAWL_OBSERVATION_INVALID', `history[${i}].changed`, observation.changed, 'pass true or false');
    }
    if (observation.versionAgeDays !== undefined) {
      requireNumber('RECRAWL_OBSERVATION_INVALID', `history[${i}].versionAgeDays`, observation.versionAgeDays, { min: 0, max: observation.intervalDays });
    }
    if (observation.changed) changes += 1;
    if (observation.changed && observation.versionAgeDays !== undefined) datedChanges += 1;
    observedDays += observation.intervalDays;
  });
  return { observations: history.length, changes, observedDays, datedChanges };
}

/** What the likelihood needs from a history. */
interface LikelihoodTerms {
  datedChanges: number;
  censoredIntervals: number[];
  /** Unchanged intervals, dated changes' ages, the pseudo-visit and the days before the history. */
  changeFreeDays: number;
}

function likelihoodTerms(history: readonly ChangeObservation[], pseudoUnchangedVisits: number, unchangedDaysBefore: number): LikelihoodTerms {
  let changeFreeDays = unchangedDaysBefore;
  let datedChanges = 0;
  let shortestCensoredDays = Infinity;
  const censoredIntervals: number[] = [];
  for (const { intervalDays, changed, versionAgeDays } of history) {
    if (!changed) {
      changeFreeDays += intervalDays;
    } else if (versionAgeDays !== undefined) {
      datedChanges += 1;
      changeFreeDays += versionAgeDays;
    } else {
      censoredIntervals.push(intervalDays);
      shortestCensoredDays = Math.min(shortestCensoredDays, intervalDays);
    }
  }
  if (censoredIntervals.length > 0) changeFreeDays += pseudoUnchangedVisits * shortestCensoredDays;
  return { datedChanges, censoredIntervals, changeFreeDays };
}

/** r × d(log-likelihood)/dr = D + Σ_censored r t / expm1(r t) - r × change-free days; it falls as r grows. */
function scaledScore({ datedChanges, censoredIntervals, changeFreeDays }: LikelihoodTerms, r: number): number {
  // r t / expm1(r t) is the stable form of r t e^(-rt) / (1 - e^(-rt)); it tends to 1 as r t → 0.
  return datedChanges + censoredIntervals.reduce((sum, t) => sum + (r * t > 0 ? (r * t) / Math.expm1(r * t) : 1), 0) - r * changeFreeDays;
}

function maximumLikelihoodRate(terms: LikelihoodTerms, maxRatePerDay: number): number {
  const { datedChanges, censoredIntervals, changeFreeDays } = terms;
  const changes = datedChanges + censoredIntervals.length;
  if (changes === 0) return 0;
  if (changeFreeDays === 0) return maxRatePerDay;
  // Since 1/r - t/2 <= t / expm1(r t) <= 1/r, the root lies between changes / (change-free days +
  // censored days) and changes / change-free days.
  const censoredDays = censoredIntervals.reduce((sum, t) => sum + t, 0);
  const lo = changes / (changeFreeDays + censoredDays);
  const hi = changes / changeFreeDays;
  if (lo >= maxRatePerDay) return maxRatePerDay;
  if (censoredIntervals.length === 0) return Math.min(hi, maxRatePerDay);
  return Math.min(bisect((r) => scaledScore(terms, r), lo, hi, 1e-10 * hi), maxRatePerDay);
}

/** The most probable rate under the log-normal prior: the root in u = ln r of scaledScore - (u - ln prior) / spread². */
function posteriorModeRate(terms: LikelihoodTerms, prior: RatePrior, maxRatePerDay: number): number {
  const center = Math.log(prior.ratePerDay);
  const precision = 1 / (prior.logSpread * prior.logSpread);
  const score = (u: number): number => scaledScore(terms, Math.exp(u)) - (u - center) * precision;
  // scaledScore is at most the number of changes, so the root is at most changes × spread² above
  // the centre; below it, step down until the score turns positive.
  const changes = terms.datedChanges + terms.censoredIntervals.length;
  const hi = Math.min(center + changes / precision, Math.log(maxRatePerDay));
  if (score(hi) >= 0) return Math.exp(hi);
  let lo = Math.min(center, hi) - 1;
  while (score(lo) < 0) lo -= 2 * (hi - lo);
  return Math.exp(bisect(score, lo, hi, 1e-12));
}

/** The root of a score that falls from positive at `lo` to negative at `hi`, to within `tolerance`. */
function bisect(score: (x: number) => number, lo: number, hi: number, tolerance: number): number {
  for (let i = 0; i < 200 && hi - lo > tolerance; i += 1) {
    const mid = (lo + hi) / 2;
    if (score(mid) > 0) lo = mid;
    else hi = mid;
  }
  return (lo + hi) / 2;
}
