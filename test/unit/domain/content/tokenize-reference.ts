// The oracle of tokenize.test.ts: tokenize's run pattern as written before stop 39 made it faster,
// kept verbatim (a lookahead before every character of a non-CJK run, a second regex to tell a CJK
// run), so a test can show the fast one splits every code point the same way. SimHashes are
// stored: a different split is a new content identity.
import { pushRunTokens } from '../../../../src/domain/content/tokenize.js';

const CJK_CLASS = '[\\p{Script=Han}\\p{Script=Hiragana}\\p{Script=Katakana}\\p{Script=Hangul}\\u30fc]';
const CJK = new RegExp(CJK_CLASS, 'u');
const TOKEN = new RegExp(`⟨[a-z]+⟩|${CJK_CLASS}+|(?:(?!${CJK_CLASS})[\\p{L}\\p{M}\\p{N}])+`, 'gu');

export function referenceTokenize(text: string): string[] {
  const tokens: string[] = [];
  for (const match of text.matchAll(TOKEN)) pushRunTokens(tokens, match[0], CJK.test(match[0]));
  return tokens;
}
