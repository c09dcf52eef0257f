import { RecrawlInputError, requireNumber } from './errors.js';
import { allocateVisitFrequencies } from './optimum.js';
import { validateCandidate, type RecrawlCandidate } from './priority.js';

/** Visits a recrawl cycle may spend, by purpose (docs/design.md, "Cost per detected change": reserve budget for what the scores cannot see). */
export interface RecrawlBudget {
  /** Visits spent by priority. */
  recrawl: number;
  /** Visits reserved for pages believed static, so a wrong "never changes" estimate gets corrected. */
  reestimation: number;
  /** Visits reserved for a uniform random sample that checks the model's assumptions. */
  verification: number;
  /**
   * Visits reserved for probing censored pages (changeStreak >= probeStreak): revisited soon
   * after their last visit, so a short interval can tell "changes often" from "changes
   * constantly", which long intervals cannot (docs/design.md, "Cost per detected change": a visit sees at most one change). Default 0.
   */
  probe?: number;
}

/** Tuning of {@link planRecrawlCycle}. */
export interface RecrawlCycleOptions {
  /** Pages with an estimated rate at or below this (per day) count as believed static for re-estimation. Default 1/30 (monthly). */
  staticRateThresholdPerDay: number;
  /** A page whose last this-many visits all found a change is censored and may be probed. Default 3. */
  probeStreak: number;
  /** A probe waits at least this long after the last visit (days): the shortest interval worth measuring. Default 1/24 (one hour). */
  minProbeDays: number;
}

export const DEFAULT_RECRAWL_CYCLE_OPTIONS: Readonly<RecrawlCycleOptions> = Object.freeze({
  staticRateThresholdPerDay: 1 / 30,
  probeStreak: 3,
  minProbeDays: 1 / 24,
});

/** The ids chosen for one cycle, by purpose; no id appears twice. */
export interface RecrawlPlan {
  /** Most overdue against its allotted interval first. */
  recrawl: string[];
  reestimation: string[];
  verification: string[];
  /** Present (possibly empty) when the budget reserves probes. */
  probe?: string[];
  /**
   * Each candidate's allotted visits a day (0: none), by id: when it is next due
   * (allottedRevisitDelayDays). Empty when the cycle has no recrawl visits to allot.
   */
  allottedVisitsPerDay: ReadonlyMap<string, number>;
}

/**
 * Chooses one cycle's visits (docs/design.md, "Cost per detected change"):
 * 1. verification: a uniform random sample of all candidates, regardless of score;
 * 2. re-estimation: of the rest, pages believed static (rate <= staticRateThresholdPerDay),
 *    longest since visit first, then lowest rate;
 * 3. probe (when budgeted): of the rest, censored pages (changeStreak >= probeStreak) last
 *    visited at least minProbeDays ago and not signalled unchanged, most recently visited first;
 * 4. recrawl: of the rest, by the allocation of the recrawl visits a day the budget affords
 *    (recrawl slots every `cycleDays`) over all candidates, as the optimum allocates them
 *    (allocateVisitFrequencies: equal marginal freshness per unit of cost; a page changing too
 *    often for its value gets nothing): the pages most overdue against their allotted interval,
 *    daysSinceVisit × visits a day, first (ties by id). A per-cycle greedy pick of the highest
 *    freshness gain cannot do this: a page that changes every second offers a small gain every
 *    cycle, and a plan with budget to spare keeps buying it. A cheap signal 'unchanged' skips the
 *    page; 'changed' makes a page with an allotment due now at the latest. A reserved share
 *    that finds too few candidates goes to recrawl.
 */
export function planRecrawlCycle(
  candidates: readonly RecrawlCandidate[],
  budget: RecrawlBudget,
  cycleDays: number,
  random: () => number,
  options: Partial<RecrawlCycleOptions> = {},
): RecrawlPlan {
  const { staticRateThresholdPerDay, probeStreak, minProbeDays } = { ...DEFAULT_RECRAWL_CYCLE_OPTIONS, ...options };
  requireNumber('RECRAWL_OPTIONS_INVALID', 'options.staticRateThresholdPerDay', staticRateThresholdPerDay, { min: 0 });
  requireNumber('RECRAWL_OPTIONS_INVALID', 'options.probeStreak', probeStreak, { min: 1, integer: true });
  requireNumber('RECRAWL_OPTIONS_INVALID', 'options.minProbeDays', minProbeDays, { min: 0 });
  requireNumber('RECRAWL_DAYS_INVALID', 'cycleDays', cycleDays, { min: 0, minExclusive: true });
  for (const key of ['recrawl', 'reestimation', 'verification'] as const) {
    requireNumber('RECRAWL_BUDGET_INVALID', `budget.${key}`, budget[key], { min: 0, integer: true });
  }
  const probeBudget = budget.probe === undefined ? 0 : requireNumber('RECRAWL_BUDGET_INVALID', 'budget.probe', budget.probe, { min: 0, integer: true });
  const ids = new Set<string>();
  candidates.forEach((candidate, i) => {
    validateCandidate(candidate, `candidates[${i}]`);
    if (ids.has(candidate.id)) {
      throw new RecrawlInputError('RECRAWL_DUPLICATE_ID', `candidates[${i}].id`, candidate.id, 'pass each URL once per cycle');
    }
    ids.add(candidate.id);
  });

  const verification = sampleIndices(candidates.length, budget.verification, random).map((i) => candidates[i]?.id ?? '');
  const taken = new Set(verification);

  const staticPages = candidates.filter((c) => !taken.has(c.id) && c.ratePerDay <= staticRateThresholdPerDay);
  const reestimation = topK(staticPages, budget.reestimation, (a, b) => b.daysSinceVisit - a.daysSinceVisit || a.ratePerDay - b.ratePerDay || compareIds(a.id, b.id)).map(
    (c) => c.id,
  );
  for (const id of reestimation) taken.add(id);

  // A trusted signal that the copy is unchanged answers what the probe would ask.
  const censored = candidates.filter((c) => !taken.has(c.id) && (c.changeStreak ?? 0) >= probeStreak && c.daysSinceVisit >= minProbeDays && c.cheapSignal !== 'unchanged');
  const probe = topK(censored, probeBudget, (a, b) => a.daysSinceVisit - b.daysSinceVisit || compareIds(a.id, b.id)).map((c) => c.id);
  for (const id of probe) taken.add(id);

  const unused = budget.reestimation - reestimation.length + (budget.verification - verification.length) + (probeBudget - probe.length);
  const recrawlSlots = budget.recrawl + unused;
  const allotted = recrawlSlots > 0 && candidates.length > 0 ? allotVisits(candidates, recrawlSlots / cycleDays) : [];
  const recrawl = mostOverdue(candidates, allotted, taken, recrawlSlots);
  const allottedVisitsPerDay = new Map(allotted.map((visitsPerDay, i) => [candidates[i]?.id ?? '', visitsPerDay]));

  const plan = { recrawl, reestimation, verification, allottedVisitsPerDay };
  return budget.probe === undefined ? plan : { ...plan, probe };
}

/** Each candidate's share of `visitsPerDay`, as the optimum with costs allocates it. */
function allotVisits(candidates: readonly RecrawlCandidate[], visitsPerDay: number): number[] {
  return allocateVisitFrequencies(
    candidates.map((c) => ({
      ratePerDay: c.ratePerDay,
      value: c.value,
      unchangedCostUnits: c.unchangedCostUnits ?? c.costUnits,
      changedCostUnits: Math.max(c.changedCostUnits ?? c.costUnits, c.unchangedCostUnits ?? c.costUnits),
    })),
    visitsPerDay,
  );
}

/** The `slots` candidates not yet taken most overdue against their allotted visits a day. */
function mostOverdue(candidates: readonly RecrawlCandidate[], allotted: readonly number[], taken: ReadonlySet<string>, slots: number): string[] {
  const due: { id: string; overdue: number }[] = [];
  candidates.forEach((c, i) => {
    const visitsPerDay = allotted[i] ?? 0;
    // Nothing to buy: no allotment, a copy a trusted signal vouches for, or one just taken.
    if (taken.has(c.id) || visitsPerDay <= 0 || c.cheapSignal === 'unchanged' || (c.daysSinceVisit === 0 && c.cheapSignal !== 'changed')) return;
    const overdue = c.daysSinceVisit * visitsPerDay;
    due.push({ id: c.id, overdue: c.cheapSignal === 'changed' ? Math.max(1, overdue) : overdue });
  });
  return topK(due, slots, (a, b) => b.overdue - a.overdue || compareIds(a.id, b.id)).map((c) => c.id);
}

/** `count` distinct indices of [0, n), uniformly (Floyd's algorithm with the injected random). */
function sampleIndices(n: number, count: number, random: () => number): number[] {
  const chosen = new Set<number>();
  for (let j = n - Math.min(n, count); j < n; j += 1) {
    const draw = random();
    if (!(draw >= 0 && draw < 1)) throw new RecrawlInputError('RECRAWL_OPTIONS_INVALID', 'random()', draw, 'inject a function returning numbers in [0, 1), e.g. seededRandom(seed)');
    const t = Math.floor(draw * (j + 1));
    chosen.add(chosen.has(t) ? j : t);
  }
  return [...chosen];
}

/** The first `k` of `items` in `compare` order, sorted; a bounded heap, since k is a cycle's budget and items the whole frontier. */
function topK<T>(items: readonly T[], k: number, compare: (a: T, b: T) => number): T[] {
  if (k <= 0) return [];
  // Max-heap on `compare`: the root is the worst item kept so far.
  const heap: T[] = [];
  const worse = (i: number, j: number): boolean => compare(heap[i] as T, heap[j] as T) > 0;
  const swap = (i: number, j: number): void => {
    const t = heap[i] as T;
    heap[i] = heap[j] as T;
    heap[j] = t;
  };
  for (const item of items) {
    if (heap.length < k) {
      heap.push(item);
      for (let i = heap.length - 1; i > 0 && worse(i, (i - 1) >> 1); i = (i - 1) >> 1) swap(i, (i - 1) >> 1);
    } else if (compare(item, heap[0] as T) < 0) {
      heap[0] = item;
      for (let i = 0; ; ) {
        const l = 2 * i + 1;
        const r = l + 1;
        let m = i;
        if (l < heap.length && worse(l, m)) m = l;
        if (r < heap.length && worse(r, m)) m = r;
        if (m === i) break;
        swap(i, m);
        i = m;
      }
    }
  }
  return heap.sort(compare);
}

function compareIds(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
