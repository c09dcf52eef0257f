import { createHash } from 'node:crypto';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { canonicalizeUrl, isUrlFingerprint, urlFingerprint } from '../../../../src/domain/url/index.js';

describe('urlFingerprint', () => {
  // Pinned: these are primary keys in stored data. A change here is a migration, not a refactor.
  it.each([
    ['https://example.com/', '0f115db062b7c0dd030b16878c99dea5'],
    ['https://shop.example/item/42', 'dad499957af38807ac8c976bdeba477a'],
    ['http://xn--bcher-kva.de/stra%C3%9Fe?q=%C3%BC', '328fc1f11096adffb2425c7af02151d0'],
    ['', 'e3b0c44298fc1c149afbf4c8996fb924'],
  ])('%j → %s', (url, expected) => {
    expect(urlFingerprint(url)).toBe(expected);
  });

  it('is the first 16 bytes of node:crypto SHA-256 over the UTF-8 string', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'grapheme', maxLength: 120 }), (text) => {
        expect(urlFingerprint(text)).toBe(createHash('sha256').update(text, 'utf8').digest('hex').slice(0, 32));
      }),
      { numRuns: 500 },
    );
  });

  it('gives equivalent spellings one key and different URLs different keys', () => {
    const a = urlFingerprint(canonicalizeUrl('HTTPS://Shop.Example:443/item/42#reviews').url);
    expect(a).toBe(urlFingerprint(canonicalizeUrl('https://shop.example/item/42').url));
    expect(a).not.toBe(urlFingerprint(canonicalizeUrl('https://shop.example/Item/42').url));
  });

  it('is 32 lowercase hex characters', () => {
    expect(isUrlFingerprint(urlFingerprint('https://example.com/'))).toBe(true);
    expect(isUrlFingerprint('0F115DB062B7C0DD030B16878C99DEA5')).toBe(false);
    expect(isUrlFingerprint('0f115db0')).toBe(false);
  });
});
