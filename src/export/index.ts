// WARC 1.1 export of the stored fetches: record serialization, files with rotation, the export
// itself, and a reader for checks.
export { exportWarc, captureRecordId, warcNaming, DEFAULT_MAX_WARC_FILE_BYTES } from './warc-export.js';
export type { WarcExportDeps, WarcExportOptions, WarcExportSummary } from './warc-export.js';
export { WarcFileWriter, warcFileName } from './warc-file-writer.js';
export type { WarcFileNaming, WarcFileWriterOptions } from './warc-file-writer.js';
export {
  serializeWarcRecord,
  warcDate,
  warcRecordId,
  sha256Digest,
  sha256DigestFromHex,
  base32,
  REVISIT_PROFILE,
  CONTENT_TYPE,
  WARC_VERSION,
} from './warc-record.js';
export type { WarcRecordInput, WarcRecordType } from './warc-record.js';
export { requestHead, responseHead, headerDisplayName } from './http-message.js';
export { readWarcRecords, splitHttpBlock, warcField } from './warc-reader.js';
export type { ParsedWarcRecord } from './warc-reader.js';
export { WarcExportError } from './errors.js';
export type { WarcExportErrorCode } from './errors.js';
