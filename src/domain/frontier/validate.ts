import { FrontierInputError, type FrontierErrorCode } from './errors.js';

/** Bounds for {@link requireNumber}; both ends inclusive unless marked exclusive. */
export interface NumberBounds {
  min?: number;
  max?: number;
  minExclusive?: boolean;
  maxExclusive?: boolean;
  integer?: boolean;
}

/** Returns `value` if it is a finite number within `bounds`, else throws a {@link FrontierInputError}. */
export function requireNumber(code: FrontierErrorCode, field: string, value: unknown, bounds: NumberBounds = {}): number {
  const { min, max, minExclusive = false, maxExclusive = false, integer = false } = bounds;
  const fail = (): never => {
    const parts: string[] = [integer ? 'an integer' : 'a finite number'];
    if (min !== undefined) parts.push(`${minExclusive ? '>' : '>='} ${min}`);
    if (max !== undefined) parts.push(`${maxExclusive ? '<' : '<='} ${max}`);
    throw new FrontierInputError(code, field, value, `pass ${parts.join(', ')}`);
  };
  if (typeof value !== 'number' || !Number.isFinite(value)) return fail();
  if (integer && !Number.isSafeInteger(value)) return fail();
  if (min !== undefined && (minExclusive ? value <= min : value < min)) return fail();
  if (max !== undefined && (maxExclusive ? value >= max : value > max)) return fail();
  return value;
}
