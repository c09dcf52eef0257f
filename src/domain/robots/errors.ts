import { DomainInputError } from '../input-error.js';

/** Stable codes for misuse of the robots module; match on these, not on messages. */
export type RobotsErrorCode =
  | 'ROBOTS_OPTIONS_INVALID'
  | 'ROBOTS_PRODUCT_TOKEN_INVALID'
  | 'ROBOTS_OUTCOME_INVALID';

/**
 * Thrown for programming or configuration errors only (bad options, a User-Agent without a
 * product token, a fetch outcome whose kind contradicts its status). Untrusted input (robots
 * bodies, headers) never throws: it is tolerated or ignored.
 */
export class RobotsError extends DomainInputError<RobotsErrorCode> {
  override readonly name = 'RobotsError';
}

/** Returns `value` if it is a safe integer in [min, max], else throws `ROBOTS_OPTIONS_INVALID`. */
export function requireIntegerOption(field: string, value: number, min: number, max: number): number {
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < min || value > max) {
    throw new RobotsError('ROBOTS_OPTIONS_INVALID', field, value, `pass an integer in [${min}, ${max}]`);
  }
  return value;
}
