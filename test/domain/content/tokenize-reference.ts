// The oracle of tokenize.test.ts: tokenize as written before stop 39 made it faster, kept verbatim
// (a lookahead before every character of a non-CJK run), so a test can show the fast one splits
// every code point the same way. SimHashes are stored: a different split is a new content identity.
const CJK_CLASS = '[\\p{Script=Han}\\p{Script=Hiragana}\\p{Script=Katakana}\\p{Script=Hangul}\\u30fc]';
const CJK = new RegExp(CJK_CLASS, 'u');
const TOKEN = new RegExp(`⟨[a-z]+⟩|${CJK_CLASS}+|(?:(?!${CJK_CLASS})[\\p{L}\\p{M}\\p{N}])+`, 'gu');

export function referenceTokenize(text: string): string[] {
  const tokens: string[] = [];
  for (const match of text.matchAll(TOKEN)) {
    const run = match[0];
    if (!CJK.test(run)) {
      tokens.push(run);
      continue;
    }
    const chars = Array.from(run);
    if (chars.length === 1) {
      tokens.push(run);
      continue;
    }
    for (let i = 0; i + 1 < chars.length; i += 1) tokens.push(`${chars[i]}${chars[i + 1]}`);
  }
  return tokens;
}
