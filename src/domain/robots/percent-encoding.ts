import { utf8Bytes } from './utf8.js';

// RFC 9309 §2.2.2 compares octets after percent-encoding. We bring every string (request path and
// each literal run of a pattern) to one canonical spelling before comparing:
// - %XX of an unreserved character (A-Z a-z 0-9 - . _ ~) is decoded: `/%7Ejoe` is `/~joe`;
// - every other %XX keeps its escape with uppercase hex: `/a%3cd` is `/a%3Cd`, and `%2F` never
//   becomes `/` (RFC 3986: an encoded reserved character is data, not a delimiter);
// - non-ASCII characters become UTF-8 escapes: `/ツ` is `/%E3%83%84`;
// - `*` and `$` are always escaped (`%2A`, `%24`), because in a pattern those characters are
//   operators and §2.2.3 says to write them percent-encoded to match them literally;
// - other characters that may not appear raw in a URI (space, `"`, `<`, `{`, controls...) are
//   escaped; a `%` not followed by two hex digits is a literal percent, `%25`.
// Reserved characters written raw stay raw, so `/a/b` and `/a%2Fb` stay different.

const HEX = '0123456789ABCDEF';

/** Characters that are already canonical as written. */
const CANONICAL_RUN = /^[A-Za-z0-9\-._~:/?#[\]@!&'()+,;=]*$/;

/** Raw ASCII characters kept as written: unreserved plus reserved, minus the pattern operators `*` and `$`. */
function keptRaw(code: number): boolean {
  return (
    (code >= 0x61 && code <= 0x7a) || // a-z
    (code >= 0x41 && code <= 0x5a) || // A-Z
    (code >= 0x30 && code <= 0x39) || // 0-9
    '-._~:/?#[]@!&\'()+,;='.includes(String.fromCharCode(code))
  );
}

function isUnreservedByte(byte: number): boolean {
  return (
    (byte >= 0x61 && byte <= 0x7a) ||
    (byte >= 0x41 && byte <= 0x5a) ||
    (byte >= 0x30 && byte <= 0x39) ||
    byte === 0x2d ||
    byte === 0x2e ||
    byte === 0x5f ||
    byte === 0x7e
  );
}

function hexValue(code: number): number {
  if (code >= 0x30 && code <= 0x39) return code - 0x30;
  if (code >= 0x41 && code <= 0x46) return code - 0x37;
  if (code >= 0x61 && code <= 0x66) return code - 0x57;
  return -1;
}

function escapeByte(byte: number): string {
  return `%${HEX[byte >> 4]}${HEX[byte & 0x0f]}`;
}

/**
 * Returns the canonical spelling of a request path (with query) or of one literal run of a
 * robots pattern, so that two spellings of the same octets compare equal. Idempotent.
 */
export function canonicalOctets(text: string): string {
  if (CANONICAL_RUN.test(text)) return text;
  let out = '';
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code === 0x25 /* % */) {
      const hi = hexValue(text.charCodeAt(i + 1));
      const lo = hexValue(text.charCodeAt(i + 2));
      if (hi >= 0 && lo >= 0) {
        const byte = (hi << 4) | lo;
        out += isUnreservedByte(byte) ? String.fromCharCode(byte) : escapeByte(byte);
        i += 2;
      } else {
        out += '%25';
      }
    } else if (code < 0x80) {
      out += keptRaw(code) ? text[i] : escapeByte(code);
    } else {
      const codePoint = text.codePointAt(i) as number;
      if (codePoint > 0xffff) i++;
      for (const byte of utf8Bytes(codePoint)) out += escapeByte(byte);
    }
  }
  return out;
}
