// The normalized hash moved from the domain's pure SHA-256 to node:crypto: stored hashes and change
// keys must not move with it, whatever the text, lone surrogates included.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { sha256Hex } from '../../../src/domain/hash/index.js';
import { sha256HexOfText } from '../../../src/services/documents/text-hash.js';

describe('sha256HexOfText', () => {
  it('is the SHA-256 of the UTF-8 bytes (FIPS 180-4 vectors)', () => {
    expect(sha256HexOfText('')).toBe('e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855');
    expect(sha256HexOfText('abc')).toBe('ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
  });

  it.each([
    ['a lone high surrogate at the end', 'text \ud83d'],
    ['a lone low surrogate', 'a\ude00b'],
    ['a pair in the wrong order', '\ude00\ud83d'],
    ['two high surrogates, then a low one', '\ud83d\ud83d\ude00'],
    ['astral, Korean, combining and NUL', '😀 한국어 e\u0301 \u0000'],
  ])('writes what the domain writes for %s (U+FFFD for a lone surrogate)', (_, text) => {
    expect(sha256HexOfText(text)).toBe(sha256Hex(text));
    const loneAsReplacement = text.replace(/[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g, '\ufffd');
    expect(sha256HexOfText(text)).toBe(sha256HexOfText(loneAsReplacement));
  });

  it('writes what the domain writes for any string of UTF-16 code units', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary', maxLength: 200 }), fc.string({ unit: fc.integer({ min: 0xd800, max: 0xdfff }).map((unit) => String.fromCharCode(unit)), maxLength: 4 }), (text, surrogates) => {
        const mixed = text + surrogates + text;
        expect(sha256HexOfText(mixed)).toBe(sha256Hex(mixed));
      }),
      { numRuns: 500 },
    );
  });
});
