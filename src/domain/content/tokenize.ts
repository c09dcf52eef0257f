/**
 * Scripts written without spaces between words (Han, Hiragana, Katakana) and Hangul, whose
 * space-separated units glue particles onto words. A whitespace tokenizer under-counts their
 * similarity (000 §7.2), so their runs are split into overlapping character bigrams, the usual
 * language-independent CJK tokenization.
 */
const CJK_CLASS = '[\\p{Script=Han}\\p{Script=Hiragana}\\p{Script=Katakana}\\p{Script=Hangul}\\u30fc]';
const CJK = new RegExp(CJK_CLASS, 'u');
// A placeholder from normalizeTextForHash, a CJK run, or a run of other letters/digits/marks.
const TOKEN = new RegExp(`⟨[a-z]+⟩|${CJK_CLASS}+|(?:(?!${CJK_CLASS})[\\p{L}\\p{M}\\p{N}])+`, 'gu');

/**
 * Word tokens of `text`, in order, for SimHash features. Words are maximal runs of letters,
 * combining marks and digits; punctuation and whitespace separate them. CJK runs become
 * overlapping character bigrams (a one-character run is kept as a unigram). Placeholders such as
 * `⟨num⟩` stay whole. Case is kept: pass the output of `normalizeTextForHash`.
 */
export function tokenize(text: string): string[] {
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
