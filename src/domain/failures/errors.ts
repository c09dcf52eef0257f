/** Stable codes for misuse of the failures module; match on these, not on messages. */
export type FailuresErrorCode =
  | 'FAILURES_UNKNOWN_TYPE'
  | 'FAILURES_ATTEMPT_INVALID'
  | 'FAILURES_RETRY_OPTIONS_INVALID'
  | 'FAILURES_RANDOM_INVALID'
  | 'FAILURES_LEDGER_OPTIONS_INVALID';

/**
 * Thrown for programming or configuration errors only (an attempt number of 0, a failure type
 * that is not in FETCH_FAILURE_TYPES, a `random` outside [0, 1)). A fetch outcome itself never
 * throws here: every outcome classifies to a type.
 */
export class FailuresInputError extends Error {
  override readonly name = 'FailuresInputError';

  /**
   * @param code stable code for the kind of mistake.
   * @param field dotted name of the bad input, e.g. `options.floorMs`.
   * @param hint what the caller should do instead.
   */
  constructor(
    readonly code: FailuresErrorCode,
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
