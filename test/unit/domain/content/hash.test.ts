import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { fnv1a32, fnv1a64, hash32, hash64 } from '../../../../src/domain/content/index.js';
import { hash64Halves } from '../../../../src/domain/content/hash.js';

// Straightforward BigInt FNV-1a 64 over TextEncoder bytes: the reference our fast one must match.
function referenceFnv1a64(text: string): bigint {
  let h = 0xcbf29ce484222325n;
  for (const byte of new TextEncoder().encode(text)) h = ((h ^ BigInt(byte)) * 0x100000001b3n) & 0xffffffffffffffffn;
  return h;
}

// Straightforward BigInt MurmurHash3 fmix64: the reference of hash64, which computes it in 32-bit halves.
function referenceHash64(text: string): bigint {
  const mask = 0xffffffffffffffffn;
  let k = referenceFnv1a64(text);
  k ^= k >> 33n;
  k = (k * 0xff51afd7ed558ccdn) & mask;
  k ^= k >> 33n;
  k = (k * 0xc4ceb9fe1a85ec53n) & mask;
  return k ^ (k >> 33n);
}

describe('hashes', () => {
  it('FNV-1a 64 and 32 match the published test vectors', () => {
    expect(fnv1a64('')).toBe(0xcbf29ce484222325n);
    expect(fnv1a64('a')).toBe(0xaf63dc4c8601ec8cn);
    expect(fnv1a64('foobar')).toBe(0x85944171f73967e8n);
    expect(fnv1a32('')).toBe(0x811c9dc5);
    expect(fnv1a32('a')).toBe(0xe40c292c);
    expect(fnv1a32('foobar')).toBe(0xbf9cf968);
  });

  it('FNV-1a 64 hashes the UTF-8 bytes of any string', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary' }), (text) => {
        expect(fnv1a64(text)).toBe(referenceFnv1a64(text));
      }),
      { numRuns: 300 },
    );
  });

  it('hash64 writes the values stored SimHashes were computed from (vectors of its BigInt implementation)', () => {
    const vectors: Array<[string, bigint]> = [
      ['', 0xefd01f60ba992926n],
      ['a', 0x82a2a958a9bece5bn],
      ['solo', 0x6be871541c346f87n],
      ['⟨num⟩', 0xdcdc82630408fe20n],
      ['한국', 0xb2e5f1cef24e1cf2n],
      ['😀', 0xda89b0991f06f386n],
      ['\ud800', 0xcf0b301fe2a776cdn],
      ['café', 0xf50b1f8e2c0682e6n],
    ];
    for (const [text, expected] of vectors) {
      expect(hash64(text)).toBe(expected);
      expect(hash64Halves(text)).toEqual({ hi: Number(expected >> 32n), lo: Number(expected & 0xffffffffn) });
    }
  });

  it('hash64 in 32-bit halves is fmix64 of FNV-1a 64, bit for bit, for any string', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary' }), (text) => {
        expect(hash64(text)).toBe(referenceHash64(text));
      }),
      { numRuns: 2000 },
    );
  });

  it('hash64 spreads tokens evenly over all 64 bits', () => {
    const counts = new Array<number>(64).fill(0);
    const n = 4000;
    for (let i = 0; i < n; i += 1) {
      const h = hash64(`w${i}`);
      for (let bit = 0; bit < 64; bit += 1) if ((h >> BigInt(bit)) & 1n) counts[bit] = (counts[bit] ?? 0) + 1;
    }
    for (const count of counts) expect(Math.abs(count / n - 0.5)).toBeLessThan(0.04);
  });

  it('hash32 is an unsigned 32-bit integer and differs from raw FNV-1a (finalized)', () => {
    const h = hash32('abc');
    expect(Number.isInteger(h) && h >= 0 && h < 2 ** 32).toBe(true);
    expect(h).not.toBe(fnv1a32('abc'));
  });
});
