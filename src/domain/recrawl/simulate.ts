import { seededRandom } from '../random.js';
import { planRecrawlCycle } from './cycle.js';
import { RecrawlInputError, requireNumber } from './errors.js';
import { optimalVisitFrequencies, proportionalVisitFrequencies, uniformVisitFrequencies } from './optimum.js';
import { type RecrawlCandidate } from './priority.js';
import { DEFAULT_RATE_LOG_SPREAD, estimateChangeRate, ratePriorFromGroup, type ChangeObservation, type RatePrior } from './rate-estimate.js';

/** A share of the simulated web changing at about one rate. */
export interface RateClass {
  ratePerDay: number;
  /** Relative share of pages; shares need not sum to 1. */
  share: number;
}

/** The rates of the freshness-gain table (docs/recrawl.md, "The change model") as a mixed web: mostly weekly-to-monthly pages, some fast, some nearly static. */
export const DEFAULT_RATE_MIX: readonly RateClass[] = Object.freeze([
  { ratePerDay: 96, share: 0.05 }, // every 15 minutes
  { ratePerDay: 24, share: 0.05 }, // hourly
  { ratePerDay: 4, share: 0.1 }, // every 6 hours
  { ratePerDay: 1, share: 0.2 }, // daily
  { ratePerDay: 1 / 7, share: 0.25 }, // weekly
  { ratePerDay: 1 / 30, share: 0.2 }, // monthly
  { ratePerDay: 1 / 365, share: 0.15 }, // yearly
]);

export type FreshnessPolicy = 'scheduler' | 'uniform' | 'proportional' | 'optimum';

/** How the 'scheduler' policy runs: the settings the production recrawl cycle would use. */
export interface SchedulerSimulationOptions {
  /** Recrawl cycles per day; each spends visitsPerDay / cyclesPerDay visits. Default 24 (hourly Schedule). */
  cyclesPerDay: number;
  /** Share of each cycle reserved for re-estimation of pages believed static. Default 0.02. */
  reestimationShare: number;
  /** Share of each cycle reserved for a uniform random verification sample. Default 0.02. */
  verificationShare: number;
  /** Share of each cycle reserved for probing censored pages (RecrawlBudget.probe). Default 0.03. */
  probeShare: number;
  /** See RecrawlCycleOptions.probeStreak. Default 3. */
  probeStreak: number;
  /** See RecrawlCycleOptions.minProbeDays. Default 1/24. */
  minProbeDays: number;
  /** Rate assumed for every page before any page has history. Default: 1 / mean revisit interval. */
  initialRatePerDay?: number;
  /** See RecrawlCycleOptions.staticRateThresholdPerDay. Default 1/30. */
  staticRateThresholdPerDay: number;
  /** Most recent observations kept per page, as the URL record would: bounds work and lets the estimate follow a page that changes its habits. Default 64. */
  historyWindow: number;
  /**
   * The web dates its versions truthfully (a trusted Last-Modified): each changed visit tells
   * the version's age (ChangeObservation.versionAgeDays). Default false: changes are censored.
   */
  datedChanges: boolean;
}

export const DEFAULT_SCHEDULER_SIMULATION_OPTIONS: Readonly<SchedulerSimulationOptions> = Object.freeze({
  cyclesPerDay: 24,
  reestimationShare: 0.02,
  verificationShare: 0.02,
  probeShare: 0.03,
  probeStreak: 3,
  minProbeDays: 1 / 24,
  staticRateThresholdPerDay: 1 / 30,
  historyWindow: 64,
  datedChanges: false,
});

/** A freshness simulation run. */
export interface FreshnessSimulationOptions {
  /** Pages in the synthetic web. */
  pages: number;
  /** Fetch budget per day, the same for every policy. */
  visitsPerDay: number;
  /** Simulated days. */
  days: number;
  policy: FreshnessPolicy;
  /** Seeds the web (rates, change times) and the policies' randomness; same seed, same web. */
  seed: number;
  /** Rate classes of the web. Default {@link DEFAULT_RATE_MIX}. */
  rateDistribution?: readonly RateClass[];
  /** Each page's rate is its class rate times rateSpread^U(-1, 1). Default 2. */
  rateSpread?: number;
  /** Days excluded from the averages while policies reach steady state. Default days / 4. */
  warmupDays?: number;
  /** Settings of the 'scheduler' policy. */
  scheduler?: Partial<SchedulerSimulationOptions>;
}

/** Outcome of {@link simulateFreshness}, measured after the warm-up. */
export interface FreshnessSimulationResult {
  /** Time-averaged share of pages whose copy matches the live page. */
  freshness: number;
  /** Fetches that found a change, per fetch (cost per detected change, docs/design.md, is its inverse). */
  changesPerFetch: number;
  /** Fetches made. */
  fetches: number;
}

/**
 * A discrete-event freshness simulation over a synthetic web whose pages change as Poisson
 * processes at known rates. Every page is fetched at time 0. Each page's change times come from
 * its own seeded stream, so every policy faces the same changes.
 *
 * - uniform / proportional / optimum: fixed intervals per page (frequencies from the true rates;
 *   random phase), as Cho & Garcia-Molina analyse them;
 * - scheduler: our recrawl machinery, blind to the true rates. Each cycle it plans with
 *   planRecrawlCycle (the allocation of the cycle's visits, value 1, equal cost; reserved
 *   re-estimation, verification and probe shares) and, after each visit, re-estimates the page's
 *   rate with estimateChangeRate from the changed / unchanged outcomes it has seen (and, with
 *   datedChanges, the ages of the versions it fetched), smoothed toward ratePriorFromGroup of all
 *   visited pages (the web is one group of similar pages).
 */
export function simulateFreshness(options: FreshnessSimulationOptions): FreshnessSimulationResult {
  const pages = requireNumber('RECRAWL_OPTIONS_INVALID', 'options.pages', options.pages, { min: 1, max: 1_000_000, integer: true });
  const visitsPerDay = requireNumber('RECRAWL_OPTIONS_INVALID', 'options.visitsPerDay', options.visitsPerDay, { min: 0, minExclusive: true });
  const days = requireNumber('RECRAWL_OPTIONS_INVALID', 'options.days', options.days, { min: 0, minExclusive: true });
  const seed = requireNumber('RECRAWL_OPTIONS_INVALID', 'options.seed', options.seed, { integer: true });
  const warmupDays = requireNumber('RECRAWL_OPTIONS_INVALID', 'options.warmupDays', options.warmupDays ?? days / 4, { min: 0 });
  if (warmupDays >= days) throw new RecrawlInputError('RECRAWL_OPTIONS_INVALID', 'options.warmupDays', warmupDays, `pass fewer than options.days (${days})`);
  const rates = syntheticRates(pages, options.rateDistribution ?? DEFAULT_RATE_MIX, options.rateSpread ?? 2, seedFor(seed, 1));
  const web = new SyntheticWeb(rates, seed, warmupDays, days);

  switch (options.policy) {
    case 'uniform':
      runFixedIntervals(web, uniformVisitFrequencies(rates, visitsPerDay), seedFor(seed, 2));
      break;
    case 'proportional':
      runFixedIntervals(web, proportionalVisitFrequencies(rates, visitsPerDay), seedFor(seed, 2));
      break;
    case 'optimum':
      runFixedIntervals(web, optimalVisitFrequencies(rates, visitsPerDay), seedFor(seed, 2));
      break;
    case 'scheduler':
      runScheduler(web, visitsPerDay, { ...DEFAULT_SCHEDULER_SIMULATION_OPTIONS, ...options.scheduler }, seedFor(seed, 3));
      break;
    default:
      throw new RecrawlInputError('RECRAWL_OPTIONS_INVALID', 'options.policy', options.policy, "pass 'scheduler', 'uniform', 'proportional' or 'optimum'");
  }
  return web.result();
}

/** Draws each page's true rate: a class by share, then a log-uniform spread around it. */
export function syntheticRates(pages: number, mix: readonly RateClass[], rateSpread: number, seed: number): number[] {
  requireNumber('RECRAWL_OPTIONS_INVALID', 'rateSpread', rateSpread, { min: 1 });
  if (mix.length === 0) throw new RecrawlInputError('RECRAWL_OPTIONS_INVALID', 'rateDistribution', mix, 'pass at least one rate class');
  mix.forEach((c, i) => {
    requireNumber('RECRAWL_OPTIONS_INVALID', `rateDistribution[${i}].ratePerDay`, c.ratePerDay, { min: 0 });
    requireNumber('RECRAWL_OPTIONS_INVALID', `rateDistribution[${i}].share`, c.share, { min: 0 });
  });
  const total = mix.reduce((a, c) => a + c.share, 0);
  if (!(total > 0)) throw new RecrawlInputError('RECRAWL_OPTIONS_INVALID', 'rateDistribution', mix, 'give at least one class a positive share');
  const random = seededRandom(seed);
  return Array.from({ length: pages }, () => {
    let pick = random() * total;
    const chosen = mix.find((c) => (pick -= c.share) < 0) ?? mix[mix.length - 1];
    return (chosen?.ratePerDay ?? 0) * rateSpread ** (2 * random() - 1);
  });
}

/** The pages' change processes and the freshness bookkeeping shared by every policy. */
class SyntheticWeb {
  private readonly lastVisit: Float64Array;
  private readonly nextChange: Float64Array;
  private readonly streams: (() => number)[];
  private freshDays = 0;
  private fetches = 0;
  private changedFetches = 0;

  constructor(
    readonly rates: readonly number[],
    seed: number,
    private readonly fromDay: number,
    readonly toDay: number,
  ) {
    this.lastVisit = new Float64Array(rates.length);
    this.streams = rates.map((_, i) => seededRandom(seedFor(seed, 1000 + i)));
    this.nextChange = Float64Array.from(rates, (_, i) => this.drawChangeAfter(i, 0));
  }

  get size(): number {
    return this.rates.length;
  }

  /** Fetches page `i` at `t` (non-decreasing per page); returns whether the copy had gone stale. */
  visit(i: number, t: number): boolean {
    return this.visitDated(i, t, false).changed;
  }

  /**
   * visit(), and with `dated` the time of the latest change before `t` (what a truthful
   * Last-Modified says): the changes in between are drawn one by one, so the page's random
   * stream is spent differently than without.
   */
  visitDated(i: number, t: number, dated: boolean): { changed: boolean; lastChangeAt?: number } {
    const changeAt = this.nextChange[i] ?? Infinity;
    const changed = changeAt <= t;
    this.credit(this.lastVisit[i] ?? 0, Math.min(changeAt, t));
    if (t >= this.fromDay) {
      this.fetches += 1;
      if (changed) this.changedFetches += 1;
    }
    this.lastVisit[i] = t;
    if (!changed) return { changed };
    if (!dated) {
      this.nextChange[i] = this.drawChangeAfter(i, t);
      return { changed };
    }
    let lastChangeAt = changeAt;
    for (let next = this.drawChangeAfter(i, changeAt); ; next = this.drawChangeAfter(i, next)) {
      if (next > t) {
        this.nextChange[i] = next;
        return { changed, lastChangeAt };
      }
      lastChangeAt = next;
    }
  }

  result(): FreshnessSimulationResult {
    let fresh = this.freshDays;
    for (let i = 0; i < this.size; i += 1) {
      const from = this.lastVisit[i] ?? 0;
      const to = Math.min(this.nextChange[i] ?? Infinity, this.toDay);
      fresh += overlap(from, to, this.fromDay, this.toDay);
    }
    return {
      freshness: fresh / (this.size * (this.toDay - this.fromDay)),
      changesPerFetch: this.fetches > 0 ? this.changedFetches / this.fetches : 0,
      fetches: this.fetches,
    };
  }

  private credit(from: number, to: number): void {
    this.freshDays += overlap(from, to, this.fromDay, this.toDay);
  }

  // Poisson changes are memoryless: the first change after t is t + Exp(rate), whatever came before.
  private drawChangeAfter(i: number, t: number): number {
    const rate = this.rates[i] ?? 0;
    const random = this.streams[i];
    if (rate <= 0 || !random) return Infinity;
    return t - Math.log(1 - random()) / rate;
  }
}

function runFixedIntervals(web: SyntheticWeb, frequencies: readonly number[], seed: number): void {
  const random = seededRandom(seed);
  frequencies.forEach((f, i) => {
    const phase = random();
    if (!(f > 0)) return;
    const interval = 1 / f;
    for (let t = phase * interval; t <= web.toDay; t += interval) web.visit(i, t);
  });
}

function runScheduler(web: SyntheticWeb, visitsPerDay: number, options: SchedulerSimulationOptions, seed: number): void {
  const random = seededRandom(seed);
  const meanIntervalDays = web.size / visitsPerDay;
  const cycleDays = 1 / options.cyclesPerDay;
  const histories: ChangeObservation[][] = Array.from({ length: web.size }, () => []);
  const lastVisit = new Float64Array(web.size);
  const streaks = new Uint32Array(web.size);
  const estimates = new Float64Array(web.size).fill(options.initialRatePerDay ?? 1 / meanIntervalDays);
  let prior: RatePrior = { ratePerDay: options.initialRatePerDay ?? 1 / meanIntervalDays, logSpread: DEFAULT_RATE_LOG_SPREAD };
  const budgets = new Budgeter();
  for (let cycle = 0; cycle * cycleDays < web.toDay; cycle += 1) {
    const start = cycle * cycleDays;
    const slots = budgets.take('all', visitsPerDay * cycleDays);
    const verification = Math.min(slots, budgets.take('verification', slots * options.verificationShare));
    const reestimation = Math.min(slots - verification, budgets.take('reestimation', slots * options.reestimationShare));
    const probe = Math.min(slots - verification - reestimation, budgets.take('probe', slots * options.probeShare));
    const candidates: RecrawlCandidate[] = [];
    for (let i = 0; i < web.size; i += 1) {
      candidates.push({
        id: String(i),
        value: 1,
        ratePerDay: estimates[i] ?? 0,
        daysSinceVisit: start - (lastVisit[i] ?? 0),
        costUnits: 1,
        // A dated rate is no censored lower bound: nothing to probe (recrawlCandidateOf).
        changeStreak: options.datedChanges ? 0 : (streaks[i] ?? 0),
      });
    }
    const plan = planRecrawlCycle(
      candidates,
      { recrawl: slots - verification - reestimation - probe, reestimation, verification, probe },
      cycleDays,
      random,
      { staticRateThresholdPerDay: options.staticRateThresholdPerDay, probeStreak: options.probeStreak, minProbeDays: options.minProbeDays },
    );
    const chosen = [...plan.recrawl, ...plan.reestimation, ...plan.verification, ...(plan.probe ?? [])];
    chosen.forEach((id, k) => {
      const i = Number(id);
      const t = start + ((k + 0.5) / chosen.length) * cycleDays;
      if (t > web.toDay) return;
      const { changed, lastChangeAt } = web.visitDated(i, t, options.datedChanges);
      const history = histories[i] ?? [];
      const intervalDays = t - (lastVisit[i] ?? 0);
      history.push({ intervalDays, changed, ...(lastChangeAt === undefined ? {} : { versionAgeDays: Math.min(intervalDays, t - lastChangeAt) }) });
      if (history.length > options.historyWindow) history.shift();
      lastVisit[i] = t;
      streaks[i] = changed ? (streaks[i] ?? 0) + 1 : 0;
      estimates[i] = estimateChangeRate(history, prior).ratePerDay;
    });
    prior = ratePriorFromGroup(visitedEstimates(histories, estimates), prior.ratePerDay);
  }
}

/** Turns fractional per-cycle shares into whole visits without losing the remainders. */
class Budgeter {
  private readonly carry = new Map<string, number>();

  take(key: string, amount: number): number {
    const total = (this.carry.get(key) ?? 0) + amount;
    const whole = Math.floor(total + 1e-9);
    this.carry.set(key, total - whole);
    return whole;
  }
}

function* visitedEstimates(histories: readonly ChangeObservation[][], estimates: Float64Array): Generator<number> {
  for (let i = 0; i < histories.length; i += 1) if ((histories[i]?.length ?? 0) > 0) yield estimates[i] ?? 0;
}

function overlap(from: number, to: number, windowFrom: number, windowTo: number): number {
  return Math.max(0, Math.min(to, windowTo) - Math.max(from, windowFrom));
}

function seedFor(seed: number, stream: number): number {
  return (Math.imul(seed | 0, 0x9e3779b1) ^ Math.imul(stream + 1, 0x85ebca6b)) >>> 0;
}
