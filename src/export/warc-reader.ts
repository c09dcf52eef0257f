/**
 * A strict reader for the WARC files this crawler writes (and other WARC 1.0/1.1 files): checks
 * the version line, the named fields, Content-Length and the CRLF CRLF after every block. For
 * tests and spot checks; standard tools (warcio) remain the judge of interoperability.
 */
import { gunzipSync } from 'node:zlib';
import { WarcExportError } from './errors.js';

export interface ParsedWarcRecord {
  version: string;
  /** Field names as written, in order. */
  fields: Array<[name: string, value: string]>;
  block: Buffer;
  /** Byte offset of the record in the uncompressed stream. */
  offset: number;
}

/** The first value of a field, by case-insensitive name. */
export function warcField(record: ParsedWarcRecord, name: string): string | undefined {
  const lower = name.toLowerCase();
  return record.fields.find(([field]) => field.toLowerCase() === lower)?.[1];
}

/** Every record of a .warc or .warc.gz (one gzip member per record, or one for the file). */
export function readWarcRecords(file: Buffer): ParsedWarcRecord[] {
  // Node's gunzip reads concatenated members one after another.
  const data = file.length >= 2 && file[0] === 0x1f && file[1] === 0x8b ? gunzipSync(file) : file;
  const records: ParsedWarcRecord[] = [];
  let at = 0;
  while (at < data.length) {
    const headEnd = data.indexOf('\r\n\r\n', at, 'latin1');
    if (headEnd < 0) throw new WarcExportError('WARC_MALFORMED', `no end of header for the record at byte ${at}`);
    const lines = data.subarray(at, headEnd).toString('utf8').split('\r\n');
    const version = lines[0] ?? '';
    if (!/^WARC\/1\.[01]$/.test(version)) throw new WarcExportError('WARC_MALFORMED', `record at byte ${at} starts with ${JSON.stringify(version.slice(0, 40))}, not WARC/1.x`);
    const fields: Array<[string, string]> = [];
    for (const line of lines.slice(1)) {
      const colon = line.indexOf(':');
      if (colon <= 0) throw new WarcExportError('WARC_MALFORMED', `record at byte ${at}: not a named field: ${JSON.stringify(line.slice(0, 80))}`);
      fields.push([line.slice(0, colon), line.slice(colon + 1).trim()]);
    }
    const lengthField = fields.find(([name]) => name.toLowerCase() === 'content-length')?.[1];
    const length = Number(lengthField);
    if (lengthField === undefined || !Number.isSafeInteger(length) || length < 0) {
      throw new WarcExportError('WARC_MALFORMED', `record at byte ${at} has no valid Content-Length (${String(lengthField)})`);
    }
    const blockStart = headEnd + 4;
    const blockEnd = blockStart + length;
    if (blockEnd + 4 > data.length || data.toString('latin1', blockEnd, blockEnd + 4) !== '\r\n\r\n') {
      throw new WarcExportError('WARC_MALFORMED', `record at byte ${at}: block of ${length} bytes is not followed by CRLF CRLF`);
    }
    records.push({ version, fields, block: data.subarray(blockStart, blockEnd), offset: at });
    at = blockEnd + 4;
  }
  return records;
}

/** Splits an HTTP message block at its blank line: the head as text and the payload bytes. */
export function splitHttpBlock(block: Buffer): { startLine: string; headers: Array<[string, string]>; payload: Buffer } {
  const end = block.indexOf('\r\n\r\n', 0, 'latin1');
  if (end < 0) throw new WarcExportError('WARC_MALFORMED', 'HTTP block without the blank line after its head');
  const [startLine = '', ...lines] = block.toString('latin1', 0, end).split('\r\n');
  const headers = lines.map((line): [string, string] => {
    const colon = line.indexOf(':');
    return [line.slice(0, colon), line.slice(colon + 1).trim()];
  });
  return { startLine, headers, payload: block.subarray(end + 4) };
}
