import { ContentInputError } from './errors.js';
import { hash64Halves } from './hash.js';

/** Google's near-duplicate threshold for 64-bit SimHash (docs/design.md, "Near-duplicates", Manku et al. 2007). */
export const SIMHASH_MAX_DISTANCE = 3;

const MASK64 = 0xffff_ffff_ffff_ffffn;
const HEX16 = /^[0-9a-fA-F]{16}$/;
const INT64_DECIMAL = /^-?(?:0|[1-9]\d{0,18})$/;

/**
 * 64-bit SimHash (Charikar) of a token list: each distinct token votes +w on the bits set in its
 * 64-bit hash and -w on the others, w = its term frequency; bit i of the result is 1 where the
 * vote is positive. Documents sharing most weighted tokens land a few bits apart. No tokens → 0.
 */
export function simhash64(tokens: readonly string[]): bigint {
  const frequencies = new Map<string, number>();
  for (const token of tokens) frequencies.set(token, (frequencies.get(token) ?? 0) + 1);
  const votes = new Float64Array(64);
  for (const [token, weight] of frequencies) {
    const { hi, lo } = hash64Halves(token);
    for (let bit = 0; bit < 32; bit += 1) {
      votes[bit] = (votes[bit] ?? 0) + ((lo >>> bit) & 1 ? weight : -weight);
      votes[bit + 32] = (votes[bit + 32] ?? 0) + ((hi >>> bit) & 1 ? weight : -weight);
    }
  }
  let hi = 0;
  let lo = 0;
  for (let bit = 0; bit < 32; bit += 1) {
    if ((votes[bit] ?? 0) > 0) lo |= 1 << bit;
    if ((votes[bit + 32] ?? 0) > 0) hi |= 1 << bit;
  }
  return (BigInt(hi >>> 0) << 32n) | BigInt(lo >>> 0);
}

/** Number of differing bits between two 64-bit values. */
export function hammingDistance64(a: bigint, b: bigint): number {
  // Two 32-bit popcounts: a BigInt loop over the set bits cost more than the rest of a near-duplicate check.
  const x = requireU64('a', a) ^ requireU64('b', b);
  return popcount32(Number(x & 0xffff_ffffn)) + popcount32(Number(x >> 32n));
}

/** Set bits of an unsigned 32-bit integer (the SWAR count). */
function popcount32(value: number): number {
  let v = value - ((value >>> 1) & 0x5555_5555);
  v = (v & 0x3333_3333) + ((v >>> 2) & 0x3333_3333);
  return Math.imul((v + (v >>> 4)) & 0x0f0f_0f0f, 0x0101_0101) >>> 24;
}

/** 16 lowercase hex characters, zero-padded: the text form in logs, APIs and fixtures. */
export function simhashToHex(h: bigint): string {
  return requireU64('h', h).toString(16).padStart(16, '0');
}

/** Parses {@link simhashToHex} output (either case); anything but 16 hex characters throws. */
export function simhashFromHex(hex: string): bigint {
  if (typeof hex !== 'string' || !HEX16.test(hex)) {
    throw new ContentInputError('CONTENT_SIMHASH_HEX_INVALID', 'hex', hex, 'pass exactly 16 hex characters, as written by simhashToHex');
  }
  return BigInt(`0x${hex}`);
}

/**
 * Postgres has no unsigned 64-bit type; a SimHash is stored in a `bigint` column as the signed
 * two's-complement reading of the same 64 bits. Returns that value in decimal (pg's wire text).
 */
export function toSignedInt64String(h: bigint): string {
  return BigInt.asIntN(64, requireU64('h', h)).toString();
}

/** Inverse of {@link toSignedInt64String}: a signed decimal int64 (as pg returns it) back to the unsigned SimHash. */
export function fromSignedInt64String(text: string): bigint {
  if (typeof text !== 'string' || !INT64_DECIMAL.test(text)) {
    throw new ContentInputError('CONTENT_INT64_STRING_INVALID', 'text', text, 'pass a decimal signed 64-bit integer as read from a Postgres bigint column');
  }
  const value = BigInt(text);
  if (value < -(2n ** 63n) || value >= 2n ** 63n) {
    throw new ContentInputError('CONTENT_INT64_STRING_INVALID', 'text', text, 'the value is outside the signed 64-bit range; the column is not a bigint SimHash');
  }
  return BigInt.asUintN(64, value);
}

/** Returns `value` if it is an unsigned 64-bit bigint, else throws. */
export function requireU64(field: string, value: bigint): bigint {
  if (typeof value !== 'bigint' || value < 0n || value > MASK64) {
    throw new ContentInputError('CONTENT_SIMHASH_RANGE_INVALID', field, value, 'pass an unsigned 64-bit bigint (0n to 2n ** 64n - 1n); convert stored signed values with fromSignedInt64String');
  }
  return value;
}
