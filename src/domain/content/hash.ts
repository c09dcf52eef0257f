/**
 * Small non-cryptographic hashes in pure TypeScript (the domain may not use node:crypto).
 * Their outputs are stored (SimHash, MinHash), so the byte-level definition is part of the
 * contract: changing anything here means a new content-identity version.
 */

const MASK64 = 0xffff_ffff_ffff_ffffn;

/** A 64-bit value as its unsigned 32-bit halves: SimHash hashes every distinct token, and BigInt arithmetic per token cost more than the rest of SimHash. */
export interface Halves64 {
  hi: number;
  lo: number;
}

/**
 * 64-bit hash of `text`: FNV-1a 64 over its UTF-8 bytes, then MurmurHash3's fmix64 finalizer.
 * FNV-1a alone mixes short inputs poorly into the high bits; SimHash needs every bit to be a
 * fair coin per token, which the finalizer provides.
 */
export function hash64(text: string): bigint {
  return bigintOf(hash64Halves(text));
}

/** {@link hash64} as two 32-bit halves, computed without BigInt. */
export function hash64Halves(text: string): Halves64 {
  return fmix64Halves(fnv1a64Halves(text));
}

/** FNV-1a 64 over the UTF-8 bytes of `text` (offset basis 0xcbf29ce484222325, prime 0x100000001b3). */
export function fnv1a64(text: string): bigint {
  return bigintOf(fnv1a64Halves(text));
}

function fnv1a64Halves(text: string): Halves64 {
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
  return { hi, lo };
}

/** MurmurHash3's 64-bit finalizer: a bijection on 64-bit values with full avalanche. */
export function fmix64(value: bigint): bigint {
  const k = value & MASK64;
  return bigintOf(fmix64Halves({ hi: Number(k >> 32n), lo: Number(k & 0xffff_ffffn) }));
}

// fmix64's multipliers 0xff51afd7ed558ccd and 0xc4ceb9fe1a85ec53, in halves.
const FMIX64_C1: Halves64 = { hi: 0xff51afd7, lo: 0xed558ccd };
const FMIX64_C2: Halves64 = { hi: 0xc4ceb9fe, lo: 0x1a85ec53 };

function fmix64Halves(value: Halves64): Halves64 {
  let k = xorShift33(value);
  k = multiply64(k, FMIX64_C1);
  k = xorShift33(k);
  k = multiply64(k, FMIX64_C2);
  return xorShift33(k);
}

/** k ^ (k >> 33): the shifted value is the high half shifted by one, in the low half. */
function xorShift33(k: Halves64): Halves64 {
  return { hi: k.hi, lo: (k.lo ^ (k.hi >>> 1)) >>> 0 };
}

/** a * b modulo 2^64. */
function multiply64(a: Halves64, b: Halves64): Halves64 {
  // The low halves' full 64-bit product from 16-bit pieces (each partial product fits a double exactly).
  const a0 = a.lo & 0xffff;
  const a1 = a.lo >>> 16;
  const b0 = b.lo & 0xffff;
  const b1 = b.lo >>> 16;
  const low = a0 * b0;
  const cross1 = a1 * b0;
  const cross0 = a0 * b1;
  const middle = (low >>> 16) + (cross1 & 0xffff) + (cross0 & 0xffff);
  const lowProductHi = a1 * b1 + (cross1 >>> 16) + (cross0 >>> 16) + (middle >>> 16);
  // The high halves' products reach only the high half of the result.
  const hi = (lowProductHi + Math.imul(a.hi, b.lo) + Math.imul(a.lo, b.hi)) >>> 0;
  return { hi, lo: Math.imul(a.lo, b.lo) >>> 0 };
}

function bigintOf(value: Halves64): bigint {
  return (BigInt(value.hi) << 32n) | BigInt(value.lo);
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
