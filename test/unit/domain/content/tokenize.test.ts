import { describe, expect, it } from 'vitest';
import { tokenize } from '../../../../src/domain/content/index.js';
import { referenceTokenize } from './tokenize-reference.js';

describe('tokenize', () => {
  it('splits words on punctuation and whitespace, keeping letters with diacritics and digits', () => {
    expect(tokenize('hello, wörld! 3.14 naïve-café')).toEqual(['hello', 'wörld', '3', '14', 'naïve', 'café']);
  });

  it('splits Korean, Japanese and Chinese runs into overlapping character bigrams', () => {
    expect(tokenize('자전거 도로')).toEqual(['자전', '전거', '도로']);
    expect(tokenize('東京タワー')).toEqual(['東京', '京タ', 'タワ', 'ワー']);
  });

  it('keeps a one-character CJK run as a unigram and separates scripts', () => {
    expect(tokenize('abc한국 가')).toEqual(['abc', '한국', '가']);
  });

  it('keeps normalizeTextForHash placeholders whole', () => {
    expect(tokenize('posted ⟨date⟩ id ⟨num⟩')).toEqual(['posted', '⟨date⟩', 'id', '⟨num⟩']);
  });

  it('returns nothing for text without letters or digits', () => {
    expect(tokenize(' ,.!? ')).toEqual([]);
  });

  it('splits every code point as the reference does: alone, in runs, beside Latin and beside Hangul', () => {
    const BLOCK = 2048;
    for (let start = 0; start <= 0x10ffff; start += BLOCK) {
      const pieces: string[] = [];
      for (let cp = start; cp < Math.min(start + BLOCK, 0x110000); cp += 1) {
        if (cp >= 0xd800 && cp <= 0xdfff) continue; // lone surrogates are not text
        const ch = String.fromCodePoint(cp);
        pieces.push(`${ch} a${ch}${ch}b 한${ch}국 ${ch}⟨num⟩ `);
      }
      const text = pieces.join('');
      const got = tokenize(text);
      const want = referenceTokenize(text);
      if (got.length !== want.length || got.some((token, i) => token !== want[i])) {
        expect(got, `code points from U+${start.toString(16)}`).toEqual(want);
      }
    }
  });
});
