import { FrontierInputError } from './errors.js';
import { requireNumber } from './validate.js';

/** How {@link chooseTierCounts} splits a draw across tiers. */
export interface TierSelectionOptions {
  /**
   * Relative weight per tier, index 0 highest; one entry per tier, each >= 0.
   * Default [8, 4, 2, 1]: each tier gets about twice the next one's share.
   */
  weights?: readonly number[];
  /**
   * Least share of every draw that each non-empty tier is due, 0..1/tiers. Default 0.05.
   * A draw of at least `1 / minShare` URLs gives every non-empty tier at least one; smaller draws
   * give each non-empty tier at least this share in expectation.
   */
  minShare?: number;
}

const DEFAULT_WEIGHTS: readonly number[] = Object.freeze([8, 4, 2, 1]);
const DEFAULT_MIN_SHARE = 0.05;
const CODE = 'FRONTIER_TIER_INPUT_INVALID';

/**
 * How many URLs to take from each front-queue tier for one refill (Mercator's biased selection).
 *
 * Each non-empty tier's share is `minShare + (1 - minShare · E) · weight / Σweights` over the E
 * non-empty tiers, so high tiers dominate but no non-empty tier is starved. Tiers holding less than
 * their share give it all and the rest flows to the others (water-filling). Fractional counts are
 * rounded by systematic sampling with one `random()` draw: each tier gets the floor or the ceiling
 * of its expected count, and exactly its expected count on average.
 *
 * @param availableByTier URLs waiting per tier, non-negative integers, index 0 highest.
 * @param wanted URLs the caller can take, a non-negative integer.
 * @param random uniform in [0, 1); a workflow passes its deterministic random.
 * @returns counts per tier, each <= its availability, summing to `min(wanted, Σ available)`.
 * @throws FrontierInputError `FRONTIER_TIER_INPUT_INVALID` naming the bad argument.
 */
export function chooseTierCounts(
  availableByTier: readonly number[],
  wanted: number,
  random: () => number,
  options: TierSelectionOptions = {},
): number[] {
  if (!Array.isArray(availableByTier) || availableByTier.length === 0) {
    throw new FrontierInputError(CODE, 'availableByTier', availableByTier, 'pass one count per tier');
  }
  const available = availableByTier.map((count, i) => requireNumber(CODE, `availableByTier[${i}]`, count, { min: 0, integer: true }));
  requireNumber(CODE, 'wanted', wanted, { min: 0, integer: true });
  const weights = options.weights ?? DEFAULT_WEIGHTS;
  if (!Array.isArray(weights) || weights.length !== available.length) {
    throw new FrontierInputError(CODE, 'options.weights', weights, `pass one weight per tier (${available.length})`);
  }
  weights.forEach((weight, i) => requireNumber(CODE, `options.weights[${i}]`, weight, { min: 0 }));
  const minShare = requireNumber(CODE, 'options.minShare', options.minShare ?? DEFAULT_MIN_SHARE, { min: 0, max: 1 / available.length });

  const total = available.reduce((sum, count) => sum + count, 0);
  const take = Math.min(wanted, total);
  const counts = available.map(() => 0);
  if (take === 0) return counts;

  // Shares over the non-empty tiers; zero weights everywhere fall back to an even split.
  const nonEmpty = available.flatMap((count, i) => (count > 0 ? [i] : []));
  const weightSum = nonEmpty.reduce((sum, i) => sum + (weights[i] ?? 0), 0);
  const shares = available.map(() => 0);
  for (const i of nonEmpty) {
    const relative = weightSum > 0 ? (weights[i] ?? 0) / weightSum : 1 / nonEmpty.length;
    shares[i] = minShare + (1 - minShare * nonEmpty.length) * relative;
  }

  // Water-filling: a tier whose expected count reaches its availability takes all of it, and its
  // surplus is spread over the others in proportion to their shares.
  let open = nonEmpty;
  let remaining = take;
  while (open.length > 0 && remaining > 0) {
    const fractions = normalizedShares(open, shares);
    const full = open.filter((i, j) => remaining * (fractions[j] ?? 0) >= (available[i] ?? 0));
    if (full.length === 0) {
      const rounded = systematicRound(fractions.map((f) => remaining * f), remaining, drawUnit(random));
      open.forEach((tier, j) => {
        counts[tier] = rounded[j] ?? 0;
      });
      break;
    }
    for (const i of full) {
      counts[i] = available[i] ?? 0;
      remaining -= available[i] ?? 0;
    }
    open = open.filter((i) => !full.includes(i));
  }
  return repair(counts, available, take, shares);
}

/** The open tiers' shares rescaled to sum to 1; an even split if they are all zero. */
function normalizedShares(open: readonly number[], shares: readonly number[]): number[] {
  const sum = open.reduce((acc, i) => acc + (shares[i] ?? 0), 0);
  return open.map((i) => (sum > 0 ? (shares[i] ?? 0) / sum : 1 / open.length));
}

/** Rounds non-negative reals summing to the integer `total` so each gets its floor or ceiling. */
function systematicRound(expected: readonly number[], total: number, u: number): number[] {
  const floors = expected.map((value) => Math.floor(value));
  const extra = total - floors.reduce((sum, value) => sum + value, 0);
  if (extra <= 0) return floors;
  const fractions = expected.map((value, i) => value - (floors[i] ?? 0));
  const fractionSum = fractions.reduce((sum, value) => sum + value, 0);
  if (fractionSum <= 0) return floors;
  // Points u, u+1, …, u+extra-1 on the cumulative fractions (rescaled to sum to `extra` exactly);
  // a tier gets one extra URL per point in its interval.
  const scale = extra / fractionSum;
  let cumulative = 0;
  return floors.map((floor, i) => {
    const before = Math.ceil(cumulative - u);
    // Clamped so float error cannot push an earlier boundary past `extra` and make a count negative.
    cumulative = i === floors.length - 1 ? extra : Math.min(extra, cumulative + (fractions[i] ?? 0) * scale);
    return floor + Math.ceil(cumulative - u) - before;
  });
}

function drawUnit(random: () => number): number {
  const u = random();
  if (typeof u !== 'number' || Number.isNaN(u)) {
    throw new FrontierInputError(CODE, 'random()', u, 'pass a function returning numbers in [0, 1)');
  }
  return Math.min(Math.max(u, 0), 1 - Number.EPSILON);
}

/**
 * Float rounding can leave counts one off; this restores the hard guarantees (never above
 * availability, exact sum) by moving URLs from the lowest-share tiers to the highest-share ones.
 */
function repair(counts: number[], available: readonly number[], take: number, shares: readonly number[]): number[] {
  const byShare = shares
    .map((share, i) => ({ share, i }))
    .sort((a, b) => b.share - a.share || a.i - b.i)
    .map(({ i }) => i);
  counts.forEach((count, i) => {
    counts[i] = Math.min(count, available[i] ?? 0);
  });
  let missing = take - counts.reduce((sum, count) => sum + count, 0);
  for (const i of byShare) {
    if (missing <= 0) break;
    const add = Math.min((available[i] ?? 0) - (counts[i] ?? 0), missing);
    counts[i] = (counts[i] ?? 0) + add;
    missing -= add;
  }
  for (const i of [...byShare].reverse()) {
    if (missing >= 0) break;
    const remove = Math.min(counts[i] ?? 0, -missing);
    counts[i] = (counts[i] ?? 0) - remove;
    missing += remove;
  }
  return counts;
}
