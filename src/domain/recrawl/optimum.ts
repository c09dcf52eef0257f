import { RecrawlInputError, requireNumber } from './errors.js';
import { expectedFreshness } from './poisson.js';

/**
 * Visit frequencies (visits per day, fixed intervals) that maximize the weighted average
 * freshness Σ w_i F(r_i, f_i) / Σ w_i under Σ f_i = visitsPerDay, for known rates
 * (Cho & Garcia-Molina 2003). With x = r/f, the Lagrange condition is
 *   w (1 - (1 + x) e^(-x)) / r = μ,
 * solved for each page by bisection on x, and μ by bisection on the budget. A page with
 * w / r <= μ changes too often to be worth any visit and gets f = 0 (the "penalize pages that
 * change too often" result); a page that never changes needs no visits.
 */
export function optimalVisitFrequencies(ratesPerDay: readonly number[], visitsPerDay: number, weights?: readonly number[]): number[] {
  const { rates, w } = validatePolicyInput(ratesPerDay, visitsPerDay, weights);
  const active = rates.map((r, i) => r > 0 && (w[i] ?? 0) > 0);
  if (visitsPerDay === 0 || !active.includes(true)) return rates.map(() => 0);
  const frequenciesAt = (mu: number): number[] =>
    rates.map((r, i) => {
      const wi = w[i] ?? 0;
      if (!active[i]) return 0;
      const target = (mu * r) / wi; // h(x) = 1 - (1 + x) e^(-x) must reach this
      return target >= 1 ? 0 : r / solveH(target);
    });
  const total = (mu: number): number => frequenciesAt(mu).reduce((a, b) => a + b, 0);
  // Σ f falls from ∞ (μ → 0) to 0 (μ = max w/r): bisect μ on a log scale.
  let hi = Math.max(...rates.map((r, i) => (active[i] ? (w[i] ?? 0) / r : 0)));
  let lo = hi;
  while (total(lo) < visitsPerDay) lo /= 4;
  for (let i = 0; i < 200 && hi / lo > 1 + 1e-13; i += 1) {
    const mid = Math.sqrt(lo * hi);
    if (total(mid) > visitsPerDay) lo = mid;
    else hi = mid;
  }
  const frequencies = frequenciesAt(hi);
  // Bisection leaves Σ f a hair under the budget: scale onto it exactly.
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

/** Inverse of h(x) = 1 - (1 + x) e^(-x) on (0, ∞) for y in (0, 1); h rises from 0 to 1. */
function solveH(y: number): number {
  if (y <= 0) return 0;
  let lo = 0;
  let hi = Math.max(1, Math.sqrt(2 * y) * 2);
  while (h(hi) < y) hi *= 2;
  for (let i = 0; i < 200 && hi - lo > 1e-15 * hi; i += 1) {
    const mid = (lo + hi) / 2;
    if (h(mid) < y) lo = mid;
    else hi = mid;
  }
  return (lo + hi) / 2;
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
