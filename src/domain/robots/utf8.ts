// UTF-8 by hand: the domain runs in the Temporal workflow sandbox and in unit tests alike, so it
// relies on no host encoder. Only what robots.txt needs: lenient decoding and byte counting.

const REPLACEMENT = 0xfffd;

/**
 * Decodes UTF-8 leniently: each byte that does not start or continue a valid sequence becomes
 * U+FFFD, so a robots file in another charset still yields its ASCII lines.
 */
export function decodeUtf8(bytes: Uint8Array, start = 0, end = bytes.length): string {
  const units: number[] = [];
  let out = '';
  let i = start;
  while (i < end) {
    const b0 = bytes[i] as number;
    let cp = REPLACEMENT;
    let size = 1;
    if (b0 < 0x80) {
      cp = b0;
    } else if (b0 >= 0xc2 && b0 <= 0xdf) {
      const b1 = continuation(bytes, i + 1, end);
      if (b1 >= 0) {
        cp = ((b0 & 0x1f) << 6) | b1;
        size = 2;
      }
    } else if (b0 >= 0xe0 && b0 <= 0xef) {
      const b1 = continuation(bytes, i + 1, end);
      const b2 = continuation(bytes, i + 2, end);
      const value = ((b0 & 0x0f) << 12) | (b1 << 6) | b2;
      // Reject overlong forms and UTF-16 surrogates, which are not valid UTF-8.
      if (b1 >= 0 && b2 >= 0 && value >= 0x800 && (value < 0xd800 || value > 0xdfff)) {
        cp = value;
        size = 3;
      }
    } else if (b0 >= 0xf0 && b0 <= 0xf4) {
      const b1 = continuation(bytes, i + 1, end);
      const b2 = continuation(bytes, i + 2, end);
      const b3 = continuation(bytes, i + 3, end);
      const value = ((b0 & 0x07) << 18) | (b1 << 12) | (b2 << 6) | b3;
      if (b1 >= 0 && b2 >= 0 && b3 >= 0 && value >= 0x10000 && value <= 0x10ffff) {
        cp = value;
        size = 4;
      }
    }
    if (cp >= 0x10000) {
      units.push(0xd800 + ((cp - 0x10000) >> 10), 0xdc00 + ((cp - 0x10000) & 0x3ff));
    } else {
      units.push(cp);
    }
    i += size;
    // Flush in chunks: String.fromCharCode with a huge argument list overflows the stack.
    if (units.length >= 8192) {
      out += String.fromCharCode(...units);
      units.length = 0;
    }
  }
  return out + String.fromCharCode(...units);
}

function continuation(bytes: Uint8Array, index: number, end: number): number {
  if (index >= end) return -1;
  const b = bytes[index] as number;
  return (b & 0xc0) === 0x80 ? b & 0x3f : -1;
}

/** Bytes that `codePoint` takes in UTF-8; a lone surrogate counts as U+FFFD (3 bytes), as encoders write it. */
export function utf8Length(codePoint: number): number {
  if (codePoint < 0x80) return 1;
  if (codePoint < 0x800) return 2;
  if (codePoint < 0x10000) return 3;
  return 4;
}

/** UTF-8 bytes of one code point; lone surrogates are written as U+FFFD. */
export function utf8Bytes(codePoint: number): number[] {
  const cp = codePoint >= 0xd800 && codePoint <= 0xdfff ? REPLACEMENT : codePoint;
  if (cp < 0x80) return [cp];
  if (cp < 0x800) return [0xc0 | (cp >> 6), 0x80 | (cp & 0x3f)];
  if (cp < 0x10000) return [0xe0 | (cp >> 12), 0x80 | ((cp >> 6) & 0x3f), 0x80 | (cp & 0x3f)];
  return [0xf0 | (cp >> 18), 0x80 | ((cp >> 12) & 0x3f), 0x80 | ((cp >> 6) & 0x3f), 0x80 | (cp & 0x3f)];
}
