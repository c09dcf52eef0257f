import { DomainInputError } from '../input-error.js';

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
export class ContentInputError extends DomainInputError<ContentErrorCode> {
  override readonly name = 'ContentInputError';
}

/** Returns `value` if it is an integer in [min, max], else throws a {@link ContentInputError}. */
export function requireInteger(code: ContentErrorCode, field: string, value: unknown, min: number, max: number): number {
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < min || value > max) {
    throw new ContentInputError(code, field, value, `pass an integer in [${min}, ${max}]`);
  }
  return value;
}
