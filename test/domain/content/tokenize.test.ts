import { describe, expect, it } from 'vitest';
import { tokenize } from '../../../src/domain/content/index.js';

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
});
