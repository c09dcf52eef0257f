/**
 * Scripts written without spaces between words (Han, Hiragana, Katakana) and Hangul, whose
 * space-separated units glue particles onto words. A whitespace tokenizer under-counts their
 * similarity (docs/design.md, "Near-duplicates"), so their runs are split into overlapping character bigrams, the usual
 * language-independent CJK tokenization.
 */
const CJK_CLASS = '[\\p{Script=Han}\\p{Script=Hiragana}\\p{Script=Katakana}\\p{Script=Hangul}\\u30fc]';
// A placeholder from normalizeTextForHash, a CJK run (group 1), or a run of other letters, digits
// and marks. The last is a class difference (the v flag), not a lookahead before every character:
// the same characters (test/unit/domain/content/tokenize.test.ts checks every code point), and faster.
const TOKEN = new RegExp(`⟨[a-z]+⟩|(${CJK_CLASS}+)|[[\\p{L}\\p{M}\\p{N}]--${CJK_CLASS}]+`, 'gv');

/**
 * Word tokens of `text`, in order, for SimHash features. Words are maximal runs of letters,
 * combining marks and digits; punctuation and whitespace separate them. CJK runs become
 * overlapping character bigrams (a one-character run is kept as a unigram). Placeholders such as
 * `⟨num⟩` stay whole. Case is kept: pass the output of `normalizeTextForHash`.
 */
export function tokenize(text: string): string[] {
  const tokens: string[] = [];
  for (const match of text.matchAll(TOKEN)) pushRunTokens(tokens, match[0], match[1] !== undefined);
  return tokens;
}

/** A run's tokens onto `into`: a CJK run's overlapping bigrams (a one-character run whole), any other run whole. */
export function pushRunTokens(into: string[], run: string, cjk: boolean): void {
  if (!cjk) {
    into.push(run);
    return;
  }
  const chars = Array.from(run);
  if (chars.length === 1) {
    into.push(run);
    return;
  }
  for (let i = 0; i + 1 < chars.length; i += 1) into.push(`${chars[i]}${chars[i + 1]}`);
}
