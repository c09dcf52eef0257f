import { DomainInputError } from '../input-error.js';

/** Stable codes for bad input to the recrawl math; match on these, not on messages. */
export type RecrawlErrorCode =
  | 'RECRAWL_RATE_INVALID'
  | 'RECRAWL_DAYS_INVALID'
  | 'RECRAWL_OBSERVATION_INVALID'
  | 'RECRAWL_PRIOR_INVALID'
  | 'RECRAWL_CANDIDATE_INVALID'
  | 'RECRAWL_COST_INPUT_INVALID'
  | 'RECRAWL_BUDGET_INVALID'
  | 'RECRAWL_OPTIONS_INVALID'
  | 'RECRAWL_DUPLICATE_ID';

/**
 * Thrown when a recrawl function gets input it cannot give a meaningful answer for. The inputs
 * come from our own records and configuration, so this is a bug or a misconfiguration to fix,
 * never something to retry.
 */
export class RecrawlInputError extends DomainInputError<RecrawlErrorCode> {
  override readonly name = 'RecrawlInputError';
}

/** Bounds for {@link requireNumber}; both ends inclusive unless marked exclusive. */
export interface NumberBounds {
  min?: number;
  max?: number;
  minExclusive?: boolean;
  integer?: boolean;
}

/** Returns `value` if it is a finite number within `bounds`, else throws a {@link RecrawlInputError}. */
export function requireNumber(code: RecrawlErrorCode, field: string, value: unknown, bounds: NumberBounds = {}): number {
  const { min, max, minExclusive = false, integer = false } = bounds;
  const ok =
    typeof value === 'number' &&
    Number.isFinite(value) &&
    (!integer || Number.isSafeInteger(value)) &&
    (min === undefined || (minExclusive ? value > min : value >= min)) &&
    (max === undefined || value <= max);
  if (!ok) {
    const parts: string[] = [integer ? 'an integer' : 'a finite number'];
    if (min !== undefined) parts.push(`${minExclusive ? '>' : '>='} ${min}`);
    if (max !== undefined) parts.push(`<= ${max}`);
    throw new RecrawlInputError(code, field, value, `pass ${parts.join(', ')}`);
  }
  return value;
}
