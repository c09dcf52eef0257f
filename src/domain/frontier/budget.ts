import { FrontierInputError } from './errors.js';
import { requireNumber } from './validate.js';

/**
 * A crawl cycle's fetch budget by purpose (docs/design.md, "Cost per detected change": "reserve budget for what the scheduler cannot
 * see"), as fractions of the cycle's total that sum to 1.
 */
export interface BudgetShares {
  /** New URLs. They have no history, so they never outrank known pages and need their own quota. */
  discovery: number;
  /** Known pages ranked by value × freshness gain / cost: the scheduler's main spend. */
  recrawl: number;
  /** Pages believed static, revisited now and then so a wrong change-rate estimate gets corrected. */
  reestimation: number;
  /** A small random sample fetched regardless of score, to check the model's assumptions still hold. */
  verification: number;
}

/** One cycle's budget in fetches per pool; integers. */
export type BudgetSplit = BudgetShares;

/** The pools in declaration order; validation reports the first bad one, rounding ties go to the earlier. */
export const BUDGET_POOLS: readonly (keyof BudgetShares)[] = Object.freeze(['discovery', 'recrawl', 'reestimation', 'verification']);

/**
 * Default shares. Recrawl gets the majority (0.6) because keeping known pages fresh is where the budget
 * pays (docs/design.md, "Cost per detected change"); discovery a large minority (0.3) so coverage keeps growing; re-estimation
 * (0.07) and verification (0.03) are small because they only correct and audit the model.
 */
export const DEFAULT_BUDGET_SHARES: Readonly<BudgetShares> = Object.freeze({
  discovery: 0.3,
  recrawl: 0.6,
  reestimation: 0.07,
  verification: 0.03,
});

const CODE = 'FRONTIER_BUDGET_INVALID';
const SUM_TOLERANCE = 1e-9;

/**
 * Checks that every share is in 0..1 and that they sum to 1.
 * @throws FrontierInputError `FRONTIER_BUDGET_INVALID` naming the bad field (`shares.<pool>` or `shares` for the sum).
 */
export function validateBudgetShares(shares: BudgetShares): BudgetShares {
  if (shares === null || typeof shares !== 'object') {
    throw new FrontierInputError(CODE, 'shares', shares, 'pass { discovery, recrawl, reestimation, verification } fractions');
  }
  let sum = 0;
  for (const pool of BUDGET_POOLS) sum += requireNumber(CODE, `shares.${pool}`, shares[pool], { min: 0, max: 1 });
  if (Math.abs(sum - 1) > SUM_TOLERANCE) {
    throw new FrontierInputError(CODE, 'shares', sum, 'the four shares must sum to 1; adjust them so they do');
  }
  return shares;
}

/**
 * Splits a cycle's budget into whole fetches per pool by the largest-remainder method, so the
 * parts sum to `total` exactly and each is within one of `total × share`.
 *
 * @param total fetches in the cycle, a non-negative integer.
 * @param shares fractions summing to 1; default {@link DEFAULT_BUDGET_SHARES}.
 */
export function splitBudget(total: number, shares: BudgetShares = DEFAULT_BUDGET_SHARES): BudgetSplit {
  requireNumber(CODE, 'total', total, { min: 0, integer: true });
  validateBudgetShares(shares);
  return largestRemainder(total, shares, BUDGET_POOLS);
}

/**
 * Moves budget a pool cannot use to the pools that can. A pool with fewer candidates than its
 * allocation keeps only as many as it has; the surplus goes to pools with candidates left, in
 * proportion to their shares, up to their candidates. No pool with enough candidates loses any
 * of its allocation. The result sums to `min(Σ split, Σ candidates)`; the rest goes unspent.
 *
 * @param split allocations from {@link splitBudget}, non-negative integers.
 * @param candidatesByPool fetchable candidates per pool this cycle, non-negative integers.
 * @param shares weights for redistributing the surplus; default {@link DEFAULT_BUDGET_SHARES}.
 */
export function reallocateBudget(
  split: BudgetSplit,
  candidatesByPool: BudgetShares,
  shares: BudgetShares = DEFAULT_BUDGET_SHARES,
): BudgetSplit {
  validateBudgetShares(shares);
  const result = { discovery: 0, recrawl: 0, reestimation: 0, verification: 0 };
  const candidates = { ...result };
  let surplus = 0;
  for (const pool of BUDGET_POOLS) {
    const allocated = requireNumber(CODE, `split.${pool}`, split?.[pool], { min: 0, integer: true });
    candidates[pool] = requireNumber(CODE, `candidatesByPool.${pool}`, candidatesByPool?.[pool], { min: 0, integer: true });
    result[pool] = Math.min(allocated, candidates[pool]);
    surplus += allocated - result[pool];
  }
  // Water-filling: hand the surplus out by share; a pool that fills up drops out and the rest repeats.
  while (surplus > 0) {
    const open = BUDGET_POOLS.filter((pool) => result[pool] < candidates[pool]);
    if (open.length === 0) break;
    const openShares = Object.fromEntries(open.map((pool) => [pool, shares[pool]])) as Partial<BudgetShares>;
    const shareSum = open.reduce((sum, pool) => sum + shares[pool], 0);
    // Pools with a zero share still absorb surplus when nothing else can: split evenly then.
    if (shareSum === 0) for (const pool of open) openShares[pool] = 1 / open.length;
    else for (const pool of open) openShares[pool] = shares[pool] / shareSum;
    const grant = largestRemainder(surplus, openShares, open);
    for (const pool of open) {
      const take = Math.min(grant[pool] ?? 0, candidates[pool] - result[pool]);
      result[pool] += take;
      surplus -= take;
    }
  }
  return result;
}

/** Sum of a split's pools. */
export function budgetTotal(split: BudgetSplit): number {
  return BUDGET_POOLS.reduce((sum, pool) => sum + split[pool], 0);
}

function largestRemainder(
  total: number,
  shares: Partial<BudgetShares>,
  pools: readonly (keyof BudgetShares)[],
): BudgetSplit {
  const result = { discovery: 0, recrawl: 0, reestimation: 0, verification: 0 };
  const remainders = pools.map((pool, order) => {
    const exact = total * (shares[pool] ?? 0);
    result[pool] = Math.floor(exact);
    return { pool, remainder: exact - result[pool], order };
  });
  let left = total - pools.reduce((sum, pool) => sum + result[pool], 0);
  remainders.sort((a, b) => b.remainder - a.remainder || a.order - b.order);
  // Shares sum to 1 within float error, so `left` is below pools.length; the modulo only guards that.
  for (let i = 0; left > 0; i = (i + 1) % remainders.length, left -= 1) {
    const entry = remainders[i];
    if (entry) result[entry.pool] += 1;
  }
  return result;
}
