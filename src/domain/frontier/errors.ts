/** Stable codes for bad input to the frontier's math; match on these, not on messages. */
export type FrontierErrorCode =
  | 'FRONTIER_BLOOM_SIZING_INVALID'
  | 'FRONTIER_BLOOM_STATE_INVALID'
  | 'FRONTIER_FINGERPRINT_INVALID'
  | 'FRONTIER_PRIORITY_INPUT_INVALID'
  | 'FRONTIER_TIER_INPUT_INVALID'
  | 'FRONTIER_ADMISSION_INPUT_INVALID'
  | 'FRONTIER_RATE_METER_INVALID'
  | 'FRONTIER_BUDGET_INVALID'
  | 'FRONTIER_CAPACITY_INPUT_INVALID';

/**
 * Thrown when a frontier function gets input it cannot give a meaningful answer for.
 * These inputs come from our own configuration and state, so the error is a bug or a
 * misconfiguration to fix, never something to retry.
 */
export class FrontierInputError extends Error {
  override readonly name = 'FrontierInputError';

  /**
   * @param code stable code for the kind of input.
   * @param field dotted name of the bad input, e.g. `shares.discovery`.
   * @param hint what the caller should do instead.
   */
  constructor(
    readonly code: FrontierErrorCode,
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
  if (Array.isArray(value)) return `array(${value.length})`;
  return typeof value;
}
