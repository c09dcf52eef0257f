import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import {
  SIMHASH_MAX_DISTANCE,
  fromSignedInt64String,
  hammingDistance64,
  normalizeTextForHash,
  simhash64,
  simhashFromHex,
  simhashToHex,
  toSignedInt64String,
  tokenize,
} from '../../../../src/domain/content/index.js';
import { ARTICLE, ARTICLE_LATER, KOREAN_ARTICLE, KOREAN_LATER, UNRELATED } from './fixtures.js';

const u64 = fc.bigInt({ min: 0n, max: 2n ** 64n - 1n });
const fingerprint = (text: string): bigint => simhash64(tokenize(normalizeTextForHash(text)));

describe('simhash64', () => {
  it('is 0 for no tokens and a bag of words: order does not matter, frequency does', () => {
    expect(simhash64([])).toBe(0n);
    expect(simhash64(['a', 'b', 'c'])).toBe(simhash64(['c', 'a', 'b']));
    expect(simhash64(['solo'])).not.toBe(0n);
    // a single token's SimHash is its own hash bits, whatever its weight
    expect(simhash64(['solo', 'solo', 'solo'])).toBe(simhash64(['solo']));
  });

  it('writes the fingerprints stored ones were computed with (vectors of its BigInt implementation)', () => {
    expect(simhashToHex(fingerprint(ARTICLE))).toBe('ca2ff5753898fe31');
    expect(simhashToHex(fingerprint(KOREAN_ARTICLE))).toBe('94c18f6c1ed19edf');
    expect(simhashToHex(simhash64(['a', 'b', 'c', 'a']))).toBe('02222158a09ac25a');
  });

  it('puts the same article with new timestamps, a session token and a different ad line within k = 3', () => {
    expect(normalizeTextForHash(ARTICLE)).not.toBe(normalizeTextForHash(ARTICLE_LATER));
    expect(hammingDistance64(fingerprint(ARTICLE), fingerprint(ARTICLE_LATER))).toBeLessThanOrEqual(SIMHASH_MAX_DISTANCE);
  });

  it('puts a Korean article with a new time and ad line within k = 3 (bigram tokens)', () => {
    expect(hammingDistance64(fingerprint(KOREAN_ARTICLE), fingerprint(KOREAN_LATER))).toBeLessThanOrEqual(SIMHASH_MAX_DISTANCE);
  });

  it('gives identical fingerprints when only masked tokens change', () => {
    const later = ARTICLE.replace('2024-05-01T10:30:00Z', '2025-01-09T08:00:00Z').replace('3 minutes ago', '2 hours ago');
    expect(fingerprint(later)).toBe(fingerprint(ARTICLE));
  });

  it('keeps unrelated pages far apart', () => {
    expect(hammingDistance64(fingerprint(ARTICLE), fingerprint(UNRELATED))).toBeGreaterThan(10);
    expect(hammingDistance64(fingerprint(KOREAN_ARTICLE), fingerprint(ARTICLE))).toBeGreaterThan(20);
  });

  it('moves few bits for a small edit of a long text and about half of them for unrelated token sets', () => {
    const words = tokenize(normalizeTextForHash(ARTICLE));
    const edited = [...words];
    edited.splice(40, 5, 'completely', 'different', 'words', 'appear', 'here');
    expect(hammingDistance64(simhash64(words), simhash64(edited))).toBeLessThanOrEqual(SIMHASH_MAX_DISTANCE);
    const distances = Array.from({ length: 50 }, (_, i) =>
      hammingDistance64(
        simhash64(Array.from({ length: 200 }, (_, j) => `a${i}-${j}`)),
        simhash64(Array.from({ length: 200 }, (_, j) => `b${i}-${j}`)),
      ),
    );
    const mean = distances.reduce((a, b) => a + b, 0) / distances.length;
    expect(mean).toBeGreaterThan(28);
    expect(mean).toBeLessThan(36);
  });
});

describe('hammingDistance64', () => {
  it('counts differing bits', () => {
    expect(hammingDistance64(0n, 0n)).toBe(0);
    expect(hammingDistance64(0n, 2n ** 64n - 1n)).toBe(64);
    expect(hammingDistance64(0b1011n, 0b0001n)).toBe(2);
    expect(hammingDistance64(1n << 63n, 0n)).toBe(1);
  });

  it('counts the bits set in a XOR b, in either half and across them', () => {
    fc.assert(
      fc.property(u64, u64, (a, b) => {
        expect(hammingDistance64(a, b)).toBe([...(a ^ b).toString(2)].filter((bit) => bit === '1').length);
      }),
    );
    expect(hammingDistance64(2n ** 64n - 1n, 0n)).toBe(64);
    expect(hammingDistance64(0xffff_ffffn, 0n)).toBe(32);
    expect(hammingDistance64(0xffff_ffff_0000_0000n, 0n)).toBe(32);
  });

  it('is a metric: symmetric, zero only on equal values, triangle inequality', () => {
    fc.assert(
      fc.property(u64, u64, u64, (a, b, c) => {
        expect(hammingDistance64(a, b)).toBe(hammingDistance64(b, a));
        expect(hammingDistance64(a, b) === 0).toBe(a === b);
        expect(hammingDistance64(a, c)).toBeLessThanOrEqual(hammingDistance64(a, b) + hammingDistance64(b, c));
      }),
    );
  });

  it('rejects values outside unsigned 64 bits with a code that says how to convert', () => {
    expect(() => hammingDistance64(-1n, 0n)).toThrow(expect.objectContaining({ code: 'CONTENT_SIMHASH_RANGE_INVALID', field: 'a' }));
    expect(() => hammingDistance64(0n, 2n ** 64n)).toThrow(/fromSignedInt64String/);
  });
});

describe('SimHash text forms', () => {
  it('writes 16 zero-padded lowercase hex characters and reads either case', () => {
    expect(simhashToHex(10n)).toBe('000000000000000a');
    expect(simhashToHex(2n ** 64n - 1n)).toBe('ffffffffffffffff');
    expect(simhashFromHex('FFFFFFFFFFFFFFFF')).toBe(2n ** 64n - 1n);
    fc.assert(
      fc.property(u64, (h) => {
        expect(simhashFromHex(simhashToHex(h))).toBe(h);
      }),
    );
  });

  it('rejects hex that is not exactly 16 hex characters', () => {
    for (const bad of ['', 'abc', '0x000000000000000a', 'g000000000000000', '00000000000000000']) {
      expect(() => simhashFromHex(bad)).toThrow(expect.objectContaining({ code: 'CONTENT_SIMHASH_HEX_INVALID' }));
    }
  });

  it('maps to and from the signed bigint Postgres stores', () => {
    expect(toSignedInt64String(0n)).toBe('0');
    expect(toSignedInt64String(2n ** 64n - 1n)).toBe('-1');
    expect(toSignedInt64String(2n ** 63n)).toBe('-9223372036854775808');
    expect(toSignedInt64String(2n ** 63n - 1n)).toBe('9223372036854775807');
    expect(fromSignedInt64String('-1')).toBe(2n ** 64n - 1n);
    fc.assert(
      fc.property(u64, (h) => {
        expect(fromSignedInt64String(toSignedInt64String(h))).toBe(h);
      }),
    );
  });

  it('rejects strings that are not a signed 64-bit decimal', () => {
    for (const bad of ['', '1.5', '0x10', '9223372036854775808', '-9223372036854775809', '01', ' 1']) {
      expect(() => fromSignedInt64String(bad)).toThrow(expect.objectContaining({ code: 'CONTENT_INT64_STRING_INVALID' }));
    }
  });
});
