/** Stable codes for misuse of the politeness module; match on these, not on messages. */
export type PolitenessErrorCode = 'POLITENESS_POLICY_INVALID' | 'POLITENESS_TTL_CACHE_INVALID' | 'POLITENESS_TIME_INVALID';

/**
 * Thrown for configuration or programming errors only (a negative delay, a cache of 0 entries, a
 * NaN time). Untrusted input such as a Retry-After header never throws: it parses or is ignored.
 */
export class PolitenessInputError extends Error {
  override readonly name = 'PolitenessInputError';

  /**
   * @param code stable code for the kind of mistake.
   * @param field dotted name of the bad input, e.g. `policy.minDelayMs`.
   * @param hint what the caller should do instead.
   */
  constructor(
    readonly code: PolitenessErrorCode,
    readonly field: string,
    value: unknown,
    hint: string,
  ) {
    super(`${field} = ${describeValue(value)} is invalid: ${hint}`);
  }
}

function describeValue(value: unknown): string {
  if (typeof value === 'string') return JSON.stringify(value.length > 80 ? `${value.slice(0, 80)}…` : value);
  if (typeof value === 'number' || typeof value === 'boolean' || value === undefined || value === null) return String(value);
  return typeof value;
}

/** Throws POLITENESS_TIME_INVALID unless `value` is a finite number (a time in ms since epoch). */
export function requireTimeMs(field: string, value: number): void {
  if (typeof value !== 'number' || !Number.isFinite(value)) {
    throw new PolitenessInputError('POLITENESS_TIME_INVALID', field, value, 'pass a finite time in ms since epoch (workflow time, not Date.now() in the domain)');
  }
}
