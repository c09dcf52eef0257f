/**
 * Small non-cryptographic hashes in pure TypeScript (the domain may not use node:crypto).
 * Their outputs are stored (SimHash, MinHash), so the byte-level definition is part of the
 * contract: changing anything here means a new content-identity version.
 */

const MASK64 = 0xffff_ffff_ffff_ffffn;

/**
 * 64-bit hash of `text`: FNV-1a 64 over its UTF-8 bytes, then MurmurHash3's fmix64 finalizer.
 * FNV-1a alone mixes short inputs poorly into the high bits; SimHash needs every bit to be a
 * fair coin per token, which the finalizer provides.
 */
export function hash64(text: string): bigint {
  return fmix64(fnv1a64(text));
}

/** FNV-1a 64 over the UTF-8 bytes of `text` (offset basis 0xcbf29ce484222325, prime 0x100000001b3). */
export function fnv1a64(text: string): bigint {
  // FNV-1a with the 64-bit state in two 32-bit halves: BigInt per byte would be ~20x slower.
  let hi = 0xcbf29ce4;
  let lo = 0x84222325;
  forEachUtf8Byte(text, (byte) => {
    lo = (lo ^ byte) >>> 0;
    // state * 0x100000001b3 = state * 0x1b3 + (state << 40), modulo 2^64.
    const low = lo * 0x1b3;
    const carry = Math.floor(low / 0x1_0000_0000);
    hi = (Math.imul(hi, 0x1b3) + carry + (lo << 8)) >>> 0;
    lo = low >>> 0;
  });
  return (BigInt(hi) << 32n) | BigInt(lo);
}

/** 32-bit hash of `text`: FNV-1a 32 over its UTF-8 bytes, then MurmurHash3's fmix32. */
export function hash32(text: string): number {
  return fmix32(fnv1a32(text));
}

/** FNV-1a 32 over the UTF-8 bytes of `text` (offset basis 0x811c9dc5, prime 0x01000193). */
export function fnv1a32(text: string): number {
  let h = 0x811c9dc5;
  forEachUtf8Byte(text, (byte) => {
    h = Math.imul(h ^ byte, 0x01000193);
  });
  return h >>> 0;
}

/** MurmurHash3's 64-bit finalizer: a bijection on 64-bit values with full avalanche. */
export function fmix64(value: bigint): bigint {
  let k = value & MASK64;
  k ^= k >> 33n;
  k = (k * 0xff51afd7ed558ccdn) & MASK64;
  k ^= k >> 33n;
  k = (k * 0xc4ceb9fe1a85ec53n) & MASK64;
  k ^= k >> 33n;
  return k;
}

/** MurmurHash3's 32-bit finalizer: a bijection on unsigned 32-bit values. */
export function fmix32(value: number): number {
  let h = value >>> 0;
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}

// TextEncoder is not guaranteed in every sandbox the domain runs in; UTF-8 is short to write.
function forEachUtf8Byte(text: string, visit: (byte: number) => void): void {
  for (const char of text) {
    let cp = char.codePointAt(0) ?? 0;
    if (cp >= 0xd800 && cp <= 0xdfff) cp = 0xfffd; // lone surrogate: encode as U+FFFD like TextEncoder
    if (cp < 0x80) {
      visit(cp);
    } else if (cp < 0x800) {
      visit(0xc0 | (cp >> 6));
      visit(0x80 | (cp & 0x3f));
    } else if (cp < 0x10000) {
      visit(0xe0 | (cp >> 12));
      visit(0x80 | ((cp >> 6) & 0x3f));
      visit(0x80 | (cp & 0x3f));
    } else {
      visit(0xf0 | (cp >> 18));
      visit(0x80 | ((cp >> 12) & 0x3f));
      visit(0x80 | ((cp >> 6) & 0x3f));
      visit(0x80 | (cp & 0x3f));
    }
  }
}
