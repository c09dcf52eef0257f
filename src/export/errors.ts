/** Stable codes for WARC export failures; match on these, not on messages. */
export type WarcExportErrorCode =
  /** A field name or value that would break the record framing (CR, LF, NUL), or an offset outside the block. */
  | 'WARC_INVALID_FIELD'
  /** Options that cannot work together, e.g. a file name without a .warc extension. */
  | 'WARC_INVALID_OPTION'
  /** Bytes that are not a WARC file (reader). */
  | 'WARC_MALFORMED';

/**
 * Thrown by the WARC writer and reader. An 'WARC_INVALID_FIELD' from stored data means a corrupt or
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
