import { RecrawlInputError, requireNumber } from './errors.js';
import { expectedFreshness } from './poisson.js';

/**
 * Visit frequencies (visits per day, fixed intervals) that maximize the weighted average
 * freshness Σ w_i F(r_i, f_i) / Σ w_i under Σ f_i = visitsPerDay, for known rates
 * (Cho & Garcia-Molina 2003). With x = r/f, the Lagrange condition is
 *   w (1 - (1 + x) e^(-x)) / r = μ,
 * solved for each page by bisection on x, and μ by bisection on the budget. A page with
 * w / r <= μ changes too often to be worth any visit and gets f = 0 (the "penalize pages that
 * change too often" result); a page that never changes needs no visits. It is
 * {@link allocateVisitFrequencies} with every visit costing the same.
 */
export function optimalVisitFrequencies(ratesPerDay: readonly number[], visitsPerDay: number, weights?: readonly number[]): number[] {
  const { rates, w } = validatePolicyInput(ratesPerDay, visitsPerDay, weights);
  return solveAllocation(
    rates.map((ratePerDay, i) => ({ ratePerDay, value: w[i] ?? 0, unchangedCostUnits: 1, changedCostUnits: 1 })),
    visitsPerDay,
  );
}

/** One page for {@link allocateVisitFrequencies}. */
export interface AllocationPage {
  /** Change rate, per day (an estimate, for the scheduler). */
  ratePerDay: number;
  /** Value (docs/design.md, "Cost per detected change"): the weight of the page's freshness. */
  value: number;
  /** Cost of a visit that finds the page unchanged (a conditional request's 304), cost units. */
  unchangedCostUnits: number;
  /** Cost of a visit that finds it changed (a full fetch), cost units; at least unchangedCostUnits. */
  changedCostUnits: number;
}

/**
 * Visit frequencies (per day, fixed intervals) that spend `visitsPerDay` where the marginal
 * freshness per unit of cost is highest, equal across the pages visited (docs/design.md, "Cost per detected change": value ×
 * freshness_gain / cost, allocated as Cho & Garcia-Molina's optimum rather than greedily).
 * Visiting a page at f a day buys w F(r, f) and costs f (c_u + (c_c - c_u)(1 - e^(-x))) a day,
 * x = r/f: each visit pays c_u, and the full fetch c_c when the page changed. Both marginals
 * carry h(x) = 1 - (1 + x) e^(-x): d(wF)/df = w h(x) / r and d(cost)/df = c_u + (c_c - c_u) h(x).
 * Their ratio equal to μ gives h(x) = μ c_u r / (w - μ (c_c - c_u) r), solved per page as in the
 * optimum, and μ by bisection so that Σ f = visitsPerDay. A page with w / r <= μ c_c gets no
 * visits: it changes too often for what its fresh copy is worth at that price. A page kept fresh
 * by 304s (a large page that rarely changes) costs c_u a look, not c_c.
 */
export function allocateVisitFrequencies(pages: readonly AllocationPage[], visitsPerDay: number): number[] {
  if (pages.length === 0) throw new RecrawlInputError('RECRAWL_RATE_INVALID', 'pages', pages, 'pass at least one page');
  requireNumber('RECRAWL_BUDGET_INVALID', 'visitsPerDay', visitsPerDay, { min: 0 });
  pages.forEach((page, i) => {
    requireNumber('RECRAWL_RATE_INVALID', `pages[${i}].ratePerDay`, page.ratePerDay, { min: 0 });
    requireNumber('RECRAWL_OPTIONS_INVALID', `pages[${i}].value`, page.value, { min: 0 });
    requireNumber('RECRAWL_COST_INPUT_INVALID', `pages[${i}].unchangedCostUnits`, page.unchangedCostUnits, { min: 0, minExclusive: true });
    requireNumber('RECRAWL_COST_INPUT_INVALID', `pages[${i}].changedCostUnits`, page.changedCostUnits, { min: page.unchangedCostUnits });
  });
  return solveAllocation(pages, visitsPerDay);
}

function solveAllocation(pages: readonly AllocationPage[], visitsPerDay: number): number[] {
  const active = pages.map((page) => page.ratePerDay > 0 && page.value > 0);
  if (visitsPerDay === 0 || !active.includes(true)) return pages.map(() => 0);
  // Each page's x = r / f at the last μ tried: the next μ is close, so Newton starts next to its root.
  const lastX = new Float64Array(pages.length);
  const frequenciesAt = (mu: number): number[] =>
    pages.map((page, i) => {
      if (!active[i]) return 0;
      const { ratePerDay: r, value: w, unchangedCostUnits: cu, changedCostUnits: cc } = page;
      const room = w - mu * (cc - cu) * r;
      const target = (mu * cu * r) / room; // h(x) = 1 - (1 + x) e^(-x) must reach this
      if (room <= 0 || target >= 1) return 0;
      const x = solveH(target, lastX[i]);
      lastX[i] = x;
      return r / x;
    });
  const excess = (logMu: number): number => frequenciesAt(Math.exp(logMu)).reduce((a, b) => a + b, 0) - visitsPerDay;
  // Σ f falls from ∞ (μ → 0) to 0 (μ = max w / (r c_c)): find μ on a log scale by regula falsi
  // (Illinois), which keeps the bracket of bisection and converges in a few steps where Σ f is
  // smooth; the planner runs this every cycle over thousands of candidates.
  let hi = Math.log(Math.max(...pages.map((page, i) => (active[i] ? page.value / (page.ratePerDay * page.changedCostUnits) : 0))));
  let lo = hi;
  let excessLo = excess(lo);
  while (excessLo < 0) {
    lo -= Math.log(4);
    excessLo = excess(lo);
  }
  let excessHi = -visitsPerDay;
  for (let i = 0, side = 0; i < 200 && hi - lo > 1e-13; i += 1) {
    const falsi = hi - (excessHi * (hi - lo)) / (excessHi - excessLo);
    const mid = falsi > lo && falsi < hi ? falsi : (lo + hi) / 2;
    const value = excess(mid);
    if (value > 0) {
      lo = mid;
      excessLo = value;
      if (side === -1) excessHi /= 2;
      side = -1;
    } else {
      hi = mid;
      excessHi = value;
      if (side === 1) excessLo /= 2;
      side = 1;
    }
    if (Math.abs(value) <= 1e-12 * visitsPerDay) {
      hi = mid;
      break;
    }
  }
  const frequencies = frequenciesAt(Math.exp(hi));
  // The search leaves Σ f a hair off the budget: scale onto it exactly.
  const sum = frequencies.reduce((a, b) => a + b, 0);
  return sum > 0 ? frequencies.map((f) => (f * visitsPerDay) / sum) : frequencies;
}

/** Every page visited equally often: visitsPerDay / n each. */
export function uniformVisitFrequencies(ratesPerDay: readonly number[], visitsPerDay: number): number[] {
  const { rates } = validatePolicyInput(ratesPerDay, visitsPerDay);
  return rates.map(() => visitsPerDay / rates.length);
}

/** Pages visited in proportion to their change rate (the intuitive policy Cho & Garcia-Molina show loses to uniform). */
export function proportionalVisitFrequencies(ratesPerDay: readonly number[], visitsPerDay: number): number[] {
  const { rates } = validatePolicyInput(ratesPerDay, visitsPerDay);
  const sum = rates.reduce((a, b) => a + b, 0);
  return sum > 0 ? rates.map((r) => (visitsPerDay * r) / sum) : uniformVisitFrequencies(rates, visitsPerDay);
}

/** Weighted average of expectedFreshness over pages with the given rates and visit frequencies. */
export function averageFreshness(ratesPerDay: readonly number[], visitsPerDay: readonly number[], weights?: readonly number[]): number {
  if (visitsPerDay.length !== ratesPerDay.length) {
    throw new RecrawlInputError('RECRAWL_OPTIONS_INVALID', 'visitsPerDay.length', visitsPerDay.length, `pass one frequency per rate (${ratesPerDay.length})`);
  }
  const { rates, w } = validatePolicyInput(ratesPerDay, 0, weights);
  let sum = 0;
  let weight = 0;
  rates.forEach((r, i) => {
    const wi = w[i] ?? 0;
    sum += wi * expectedFreshness(r, visitsPerDay[i] ?? 0);
    weight += wi;
  });
  return weight > 0 ? sum / weight : 1;
}

/**
 * Inverse of h(x) = 1 - (1 + x) e^(-x) on (0, ∞) for y in (0, 1); h rises from 0 to 1. Newton's
 * method (h'(x) = x e^(-x)) from `guess` (the solution for a nearby y, when the caller has one),
 * inside the bracket its steps have established, bisecting when a step leaves it.
 */
function solveH(y: number, guess?: number): number {
  if (y <= 0) return 0;
  let lo = 0;
  let hi = Infinity;
  let x = guess !== undefined && guess > 0 ? guess : Math.sqrt(2 * y);
  for (let i = 0; i < 200; i += 1) {
    const value = h(x) - y;
    if (value === 0) return x;
    if (value < 0) lo = x;
    else hi = x;
    const step = x - value / (x * Math.exp(-x));
    const next = step > lo && step < hi ? step : hi === Infinity ? 2 * x + 1 : (lo + hi) / 2;
    if (Math.abs(next - x) <= 1e-14 * x || (hi < Infinity && hi - lo <= 1e-15 * hi)) return next;
    x = next;
  }
  return x;
}

function h(x: number): number {
  // Series near 0, where 1 - (1 + x) e^(-x) cancels: x²/2 - x³/3 + x⁴/8 - x⁵/30.
  if (x < 1e-3) return x * x * (0.5 - x / 3 + (x * x) / 8 - (x * x * x) / 30);
  return -Math.expm1(-x) - x * Math.exp(-x);
}

function validatePolicyInput(ratesPerDay: readonly number[], visitsPerDay: number, weights?: readonly number[]): { rates: readonly number[]; w: readonly number[] } {
  if (ratesPerDay.length === 0) throw new RecrawlInputError('RECRAWL_RATE_INVALID', 'ratesPerDay', ratesPerDay, 'pass at least one page rate');
  ratesPerDay.forEach((r, i) => requireNumber('RECRAWL_RATE_INVALID', `ratesPerDay[${i}]`, r, { min: 0 }));
  requireNumber('RECRAWL_BUDGET_INVALID', 'visitsPerDay', visitsPerDay, { min: 0 });
  if (weights === undefined) return { rates: ratesPerDay, w: ratesPerDay.map(() => 1) };
  if (weights.length !== ratesPerDay.length) {
    throw new RecrawlInputError('RECRAWL_OPTIONS_INVALID', 'weights.length', weights.length, `pass one weight per rate (${ratesPerDay.length})`);
  }
  weights.forEach((wi, i) => requireNumber('RECRAWL_OPTIONS_INVALID', `weights[${i}]`, wi, { min: 0 }));
  return { rates: ratesPerDay, w: weights };
}
