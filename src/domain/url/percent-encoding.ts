// Percent-encoding rules. The canonical string is the request target a WHATWG HTTP client
// (undici's `new URL`) actually sends: we encode exactly the raw characters it would encode,
// so that `new URL(canonical).href === canonical` and what we fingerprint is what goes on the wire.

import { encodeUtf8 } from '../hash/utf8.js';

const HEX_DIGITS = '0123456789ABCDEF';

/** WHATWG path percent-encode set, minus C0 controls (rejected earlier). */
const PATH_ENCODE = new Set([' ', '"', '#', '<', '>', '?', '`', '{', '}', '\u007f']);
/** WHATWG special-query percent-encode set, minus C0 controls (rejected earlier). */
const QUERY_ENCODE = new Set([' ', '"', '#', '<', '>', "'", '\u007f']);

/**
 * Path with percent-encoding normalized (RFC 3986 §6.2.2.2): escapes of unreserved characters
 * decoded (`%41` → `A`, `%7E` → `~`), other escapes given uppercase hex, raw characters a client
 * would encode encoded as UTF-8, and a `%` that starts no escape written `%25` — otherwise
 * decoding `%%41` would mint a new escape `%A` and break idempotence.
 */
export function normalizePathEncoding(path: string): string {
  return rewriteEscapes(path, PATH_ENCODE);
}

/**
 * Query with only its raw unsendable characters encoded. Everything else is kept byte for byte:
 * the query is opaque (docs/design.md, "URL identity"), so `%2f`, `%2F` and `/` stay three different queries.
 */
export function encodeQueryRaw(query: string): string {
  let out = '';
  let plainFrom = 0;
  for (let i = 0; i < query.length; i++) {
    const unit = query.charCodeAt(i);
    if (unit < 0x80 && !QUERY_ENCODE.has(query[i] as string)) continue;
    out += query.slice(plainFrom, i);
    const width = codePointWidth(query, i);
    out += percentEncode(query.slice(i, i + width));
    i += width - 1;
    plainFrom = i + 1;
  }
  return plainFrom === 0 ? query : out + query.slice(plainFrom);
}

/**
 * Query escapes normalized like the path's. Only for origins whose policy says the server
 * decodes its query that way (OriginQueryPolicy.normalizeQueryEscapes).
 */
export function normalizeQueryEncoding(query: string): string {
  return rewriteEscapes(query, QUERY_ENCODE);
}

/** True for RFC 3986 unreserved characters: ALPHA / DIGIT / "-" / "." / "_" / "~". */
export function isUnreserved(code: number): boolean {
  return (
    (code >= 0x41 && code <= 0x5a) ||
    (code >= 0x61 && code <= 0x7a) ||
    (code >= 0x30 && code <= 0x39) ||
    code === 0x2d ||
    code === 0x2e ||
    code === 0x5f ||
    code === 0x7e
  );
}

function rewriteEscapes(text: string, encodeSet: ReadonlySet<string>): string {
  let out = '';
  for (let i = 0; i < text.length; i++) {
    const ch = text[i] as string;
    const unit = text.charCodeAt(i);
    if (ch === '%') {
      const byte = hexByte(text, i + 1);
      if (byte === undefined) {
        out += '%25';
      } else {
        out += isUnreserved(byte) ? String.fromCharCode(byte) : `%${hex2(byte)}`;
        i += 2;
      }
    } else if (unit >= 0x80 || encodeSet.has(ch)) {
      const width = codePointWidth(text, i);
      out += percentEncode(text.slice(i, i + width));
      i += width - 1;
    } else {
      out += ch;
    }
  }
  return out;
}

function hexByte(text: string, at: number): number | undefined {
  const hi = hexValue(text.charCodeAt(at));
  const lo = hexValue(text.charCodeAt(at + 1));
  return hi < 0 || lo < 0 ? undefined : hi * 16 + lo;
}

function hexValue(code: number): number {
  if (code >= 0x30 && code <= 0x39) return code - 0x30;
  if (code >= 0x41 && code <= 0x46) return code - 0x37;
  if (code >= 0x61 && code <= 0x66) return code - 0x57;
  return -1;
}

function hex2(byte: number): string {
  return (HEX_DIGITS[byte >> 4] as string) + (HEX_DIGITS[byte & 0x0f] as string);
}

function percentEncode(chars: string): string {
  let out = '';
  for (const byte of encodeUtf8(chars)) out += `%${hex2(byte)}`;
  return out;
}

/** 2 for a surrogate pair starting at `i`, else 1 (lone surrogates are rejected upstream). */
function codePointWidth(text: string, i: number): number {
  const unit = text.charCodeAt(i);
  return unit >= 0xd800 && unit <= 0xdbff && i + 1 < text.length ? 2 : 1;
}
