import { FrontierInputError } from './errors.js';
import { requireNumber } from './validate.js';

/** Front-queue tiers (docs/design.md, "Front queues": high / mid / low, plus a floor for demoted URLs). 0 is highest. */
export const TIER_COUNT = 4;

/**
 * Lower priority bounds of tiers 0..TIER_COUNT-2, descending; anything below the last is in the
 * last tier. Even quarters of the 0..1 priority range.
 */
export const DEFAULT_TIER_BOUNDS: readonly number[] = Object.freeze([0.75, 0.5, 0.25]);

const CODE = 'FRONTIER_TIER_INPUT_INVALID';

/**
 * The tier a priority falls in: the first tier whose lower bound it reaches.
 *
 * @param priority 0..1 from `urlPriority`.
 * @param bounds strictly descending lower bounds in (0, 1); `bounds.length + 1` tiers.
 *   Default {@link DEFAULT_TIER_BOUNDS}.
 * @throws FrontierInputError `FRONTIER_TIER_INPUT_INVALID` for a priority outside 0..1 or bad bounds.
 */
export function tierOf(priority: number, bounds: readonly number[] = DEFAULT_TIER_BOUNDS): number {
  requireNumber(CODE, 'priority', priority, { min: 0, max: 1 });
  validateBounds(bounds);
  const tier = bounds.findIndex((bound) => priority >= bound);
  return tier === -1 ? bounds.length : tier;
}

function validateBounds(bounds: readonly number[]): void {
  if (!Array.isArray(bounds)) throw new FrontierInputError(CODE, 'bounds', bounds, 'pass an array of descending priority bounds');
  let previous = Number.POSITIVE_INFINITY;
  bounds.forEach((bound, i) => {
    requireNumber(CODE, `bounds[${i}]`, bound, { min: 0, max: 1, minExclusive: true });
    if (bound >= previous) throw new FrontierInputError(CODE, `bounds[${i}]`, bound, 'bounds must be strictly descending');
    previous = bound;
  });
}
