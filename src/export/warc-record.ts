/**
 * One WARC 1.1 record as bytes (ISO 28500:2017; the IIPC text at
 * iipc.github.io/warc-specifications/specifications/warc-format/warc-1.1/): the version line,
 * named fields, a blank line, the block, then CRLF CRLF. Digests are `sha256:` + RFC 4648 base32
 * with padding, the form warcio computes and checks for any hashlib algorithm; SHA-256 because the
 * fetch records already carry the payload's SHA-256 (the body store's key), so a revisit record
 * can name its payload without reading it.
 */
import { createHash } from 'node:crypto';
import { WarcExportError } from './errors.js';

export const WARC_VERSION = 'WARC/1.1';

export type WarcRecordType = 'warcinfo' | 'response' | 'resource' | 'request' | 'metadata' | 'revisit' | 'conversion' | 'continuation';

/** The revisit profiles WARC 1.1 defines (§6.7.2, §6.7.3). */
export const REVISIT_PROFILE = {
  identicalPayloadDigest: 'http://netpreserve.org/warc/1.1/revisit/identical-payload-digest',
  serverNotModified: 'http://netpreserve.org/warc/1.1/revisit/server-not-modified',
} as const;

export const CONTENT_TYPE = {
  httpResponse: 'application/http;msgtype=response',
  httpRequest: 'application/http;msgtype=request',
  warcFields: 'application/warc-fields',
} as const;

export interface WarcRecordInput {
  type: WarcRecordType;
  /** `<urn:uuid:...>`, see {@link warcRecordId}. */
  recordId: string;
  date: Date;
  /** Written without angle brackets, as WARC 1.1 §5.6 has it. */
  targetUri?: string;
  contentType?: string;
  /** Further named fields, written in this order after WARC-Target-URI (WARC-Concurrent-To, WARC-Profile, ...). */
  fields?: ReadonlyArray<readonly [name: string, value: string]>;
  block: Buffer;
  /**
   * Where the payload starts in the block (after the HTTP head of a response or request record):
   * its digest is written as WARC-Payload-Digest. Absent: no payload digest is computed.
   */
  payloadOffset?: number;
  /** A payload digest given as is, for a revisit record whose block holds no payload. Wins over payloadOffset. */
  payloadDigest?: string;
}

const CRLF = '\r\n';
const FIELD_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;

/** Serializes one record: header, block, CRLF CRLF. Throws WarcExportError('WARC_INVALID_FIELD') for a field that would break the framing. */
export function serializeWarcRecord(record: WarcRecordInput): Buffer {
  const fields: Array<readonly [string, string]> = [
    ['WARC-Type', record.type],
    ['WARC-Record-ID', record.recordId],
    ['WARC-Date', warcDate(record.date)],
  ];
  if (record.targetUri !== undefined) fields.push(['WARC-Target-URI', record.targetUri]);
  fields.push(...(record.fields ?? []));
  if (record.contentType !== undefined) fields.push(['Content-Type', record.contentType]);
  fields.push(['WARC-Block-Digest', sha256Digest(record.block)]);
  if (record.payloadDigest !== undefined) {
    fields.push(['WARC-Payload-Digest', record.payloadDigest]);
  } else if (record.payloadOffset !== undefined) {
    if (!Number.isInteger(record.payloadOffset) || record.payloadOffset < 0 || record.payloadOffset > record.block.length) {
      throw new WarcExportError('WARC_INVALID_FIELD', `payloadOffset ${record.payloadOffset} is outside the ${record.block.length}-byte block of ${record.recordId}`);
    }
    fields.push(['WARC-Payload-Digest', sha256Digest(record.block.subarray(record.payloadOffset))]);
  }
  fields.push(['Content-Length', String(record.block.length)]);

  let head = WARC_VERSION + CRLF;
  for (const [name, value] of fields) head += `${checkedName(name)}: ${checkedValue(name, value)}${CRLF}`;
  head += CRLF;
  return Buffer.concat([Buffer.from(head, 'utf8'), record.block, Buffer.from(CRLF + CRLF, 'latin1')]);
}

/** WARC-Date: UTC, W3C-ISO8601; WARC 1.1 §5.4 allows the fraction, which keeps two fetches in one second apart. */
export function warcDate(date: Date): string {
  if (Number.isNaN(date.getTime())) throw new WarcExportError('WARC_INVALID_FIELD', 'WARC-Date from an invalid Date');
  return date.toISOString();
}

/** `sha256:` + base32 (RFC 4648, padded) of SHA-256 over `bytes`. */
export function sha256Digest(bytes: Buffer): string {
  return labelledSha256(createHash('sha256').update(bytes).digest());
}

/** The labelled digest of a SHA-256 already known as hex (a fetch record's raw hash). */
export function sha256DigestFromHex(hex: string): string {
  if (!/^[0-9a-f]{64}$/.test(hex)) throw new WarcExportError('WARC_INVALID_FIELD', `not a SHA-256 hex digest: ${hex}`);
  return labelledSha256(Buffer.from(hex, 'hex'));
}

function labelledSha256(digest: Buffer): string {
  return `sha256:${base32(digest)}`;
}

const BASE32_ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';

/** RFC 4648 §6 base32 with '=' padding. */
export function base32(bytes: Uint8Array): string {
  let out = '';
  let buffer = 0;
  let bits = 0;
  for (const byte of bytes) {
    buffer = (buffer << 8) | byte;
    bits += 8;
    while (bits >= 5) {
      out += BASE32_ALPHABET[(buffer >>> (bits - 5)) & 31];
      bits -= 5;
    }
    buffer &= (1 << bits) - 1;
  }
  if (bits > 0) out += BASE32_ALPHABET[(buffer << (5 - bits)) & 31];
  while (out.length % 8 !== 0) out += '=';
  return out;
}

// RFC 9562 namespace for names in this crawler's exports (itself a random v4 UUID).
const RECORD_ID_NAMESPACE = Buffer.from('6f1d7c2a9b3e4f508a1c2d3e4f5a6b7c', 'hex');

/**
 * A name-based (version 5) UUID as `<urn:uuid:...>`: the same fetch gets the same record id in
 * every export, so a revisit's WARC-Refers-To names its original even across files and runs.
 */
export function warcRecordId(name: string): string {
  const hash = createHash('sha1').update(RECORD_ID_NAMESPACE).update(name, 'utf8').digest();
  hash[6] = (hash[6]! & 0x0f) | 0x50;
  hash[8] = (hash[8]! & 0x3f) | 0x80;
  const hex = hash.subarray(0, 16).toString('hex');
  return `<urn:uuid:${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}>`;
}

function checkedName(name: string): string {
  if (!FIELD_NAME.test(name)) throw new WarcExportError('WARC_INVALID_FIELD', `WARC field name ${JSON.stringify(name)} is not a token`);
  return name;
}

function checkedValue(name: string, value: string): string {
  // A CR or LF in a value would end the field early and let stored data forge fields or records.
  if (/[\r\n\0]/.test(value)) throw new WarcExportError('WARC_INVALID_FIELD', `WARC field ${name} has a CR, LF or NUL in its value: ${JSON.stringify(value.slice(0, 200))}`);
  return value;
}
