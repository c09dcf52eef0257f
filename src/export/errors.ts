/** Stable codes for WARC export failures; match on these, not on messages. */
export type WarcExportErrorCode =
  /** A field name or value that would break the record framing (CR, LF, NUL), or an offset outside the block. */
  | 'invalid-field'
  /** Options that cannot work together, e.g. a file name without a .warc extension. */
  | 'invalid-option'
  /** Bytes that are not a WARC file (reader). */
  | 'malformed-warc';

/**
 * Thrown by the WARC writer and reader. An 'invalid-field' from stored data means a corrupt or
 * hostile fetch record: the export names it so it can be repaired or excluded.
 */
export class WarcExportError extends Error {
  override readonly name = 'WarcExportError';

  constructor(
    readonly code: WarcExportErrorCode,
    message: string,
  ) {
    super(message);
  }
}
