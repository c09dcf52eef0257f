/** Stable codes for bad input to content identity; match on these, not on messages. */
export type ContentErrorCode =
  | 'CONTENT_SIMHASH_HEX_INVALID'
  | 'CONTENT_INT64_STRING_INVALID'
  | 'CONTENT_SIMHASH_RANGE_INVALID'
  | 'CONTENT_MINHASH_OPTIONS_INVALID'
  | 'CONTENT_SIGNATURES_INCOMPATIBLE'
  | 'CONTENT_IDENTITY_INVALID'
  | 'CONTENT_OPTIONS_INVALID';

/**
 * Thrown when a content-identity function gets input it cannot answer for. Stored values
 * (hex, signed bigint strings) that fail here are corrupt rows or a version mismatch: fix the
 * data or recompute, do not retry.
 */
export class ContentInputError extends Error {
  override readonly name = 'ContentInputError';

  /**
   * @param code stable code for the kind of input.
   * @param field dotted name of the bad input, e.g. `options.permutations`.
   * @param hint what the caller should do instead.
   */
  constructor(
    readonly code: ContentErrorCode,
    readonly field: string,
    value: unknown,
    hint: string,
  ) {
    super(`${field} = ${describeValue(value)} is invalid: ${hint}`);
  }
}

function describeValue(value: unknown): string {
  if (typeof value === 'string') return JSON.stringify(value.length > 80 ? `${value.slice(0, 80)}…` : value);
  if (typeof value === 'bigint') return `${value}n`;
  if (typeof value === 'number' || typeof value === 'boolean' || value === undefined || value === null) return String(value);
  if (Array.isArray(value)) return `array(${value.length})`;
  return typeof value;
}

/** Returns `value` if it is an integer in [min, max], else throws a {@link ContentInputError}. */
export function requireInteger(code: ContentErrorCode, field: string, value: unknown, min: number, max: number): number {
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < min || value > max) {
    throw new ContentInputError(code, field, value, `pass an integer in [${min}, ${max}]`);
  }
  return value;
}
