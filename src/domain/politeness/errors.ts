import { DomainInputError } from '../input-error.js';

/** Stable codes for misuse of the politeness module; match on these, not on messages. */
export type PolitenessErrorCode = 'POLITENESS_POLICY_INVALID' | 'POLITENESS_TTL_CACHE_INVALID' | 'POLITENESS_TIME_INVALID';

/**
 * Thrown for configuration or programming errors only (a negative delay, a cache of 0 entries, a
 * NaN time). Untrusted input such as a Retry-After header never throws: it parses or is ignored.
 */
export class PolitenessInputError extends DomainInputError<PolitenessErrorCode> {
  override readonly name = 'PolitenessInputError';
}

/** Throws POLITENESS_TIME_INVALID unless `value` is a finite duration in ms, 0 or more. */
export function requireDurationMs(field: string, value: number): void {
  if (typeof value !== 'number' || !Number.isFinite(value) || value < 0) {
    throw new PolitenessInputError('POLITENESS_TIME_INVALID', field, value, 'pass a finite duration in ms, 0 or more');
  }
}

/** Throws POLITENESS_TIME_INVALID unless `value` is a finite number (a time in ms since epoch). */
export function requireTimeMs(field: string, value: number): void {
  if (typeof value !== 'number' || !Number.isFinite(value)) {
    throw new PolitenessInputError('POLITENESS_TIME_INVALID', field, value, 'pass a finite time in ms since epoch (workflow time, not Date.now() in the domain)');
  }
}
