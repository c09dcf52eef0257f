import { requireInteger } from './errors.js';

/**
 * Placeholders that {@link normalizeTextForHash} writes in place of volatile tokens. They use
 * U+27E8/U+27E9 angle brackets so they cannot be produced by ordinary page text and survive
 * {@link tokenize} as single tokens.
 */
export const MASK_PLACEHOLDERS = {
  uuid: '⟨uuid⟩',
  date: '⟨date⟩',
  time: '⟨time⟩',
  ago: '⟨ago⟩',
  hex: '⟨hex⟩',
  token: '⟨token⟩',
  number: '⟨num⟩',
} as const;

/** Thresholds for what counts as volatile; exported so the parser version can record them. */
export interface NormalizeOptions {
  /** Digit runs at least this long become `⟨num⟩` (unix timestamps, ids, cache busters). Default 8: years, prices with separators and short counts stay. */
  minDigitRun: number;
  /** Hex runs at least this long become `⟨hex⟩` (hashes, session ids). Default 16. */
  minHexChars: number;
  /** Base64/base64url-like runs at least this long with letters and digits interleaved become `⟨token⟩` (CSRF, nonces). Default 20. */
  minTokenChars: number;
}

export const DEFAULT_NORMALIZE_OPTIONS: Readonly<NormalizeOptions> = Object.freeze({
  minDigitRun: 8,
  minHexChars: 16,
  minTokenChars: 20,
});

// A match must not start or end inside a word, or "a1b2…" inside a longer word would be cut.
const B = '(?<![\\p{L}\\p{N}])';
const E = '(?![\\p{L}\\p{N}])';
const MONTHS = 'january|february|march|april|may|june|july|august|september|october|november|december|jan|feb|mar|apr|jun|jul|aug|sept|sep|oct|nov|dec';

const UUID = new RegExp(`${B}[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}${E}`, 'gu');
const DATES = [
  // ISO 8601 date with optional time and zone: 2024-05-01, 2024-05-01t10:30:00.123z
  `\\d{4}-\\d{2}-\\d{2}(?:[t ]\\d{2}:\\d{2}(?::\\d{2}(?:[.,]\\d+)?)?(?:z|[+-]\\d{2}:?\\d{2})?)?`,
  // 2024/05/01, 2024.05.01.
  `\\d{4}[./]\\d{1,2}[./]\\d{1,2}\\.?`,
  // 01/05/2024, 1.5.2024, 01-05-2024
  `\\d{1,2}[./-]\\d{1,2}[./-]\\d{4}`,
  // 2024년 5월 1일
  `\\d{4}\\s?년\\s?\\d{1,2}\\s?월\\s?\\d{1,2}\\s?일`,
  // may 1, 2024 / may 1st 2024
  `(?:${MONTHS})\\.?\\s\\d{1,2}(?:st|nd|rd|th)?,?\\s\\d{4}`,
  // 1 may 2024 / 1st of may, 2024
  `\\d{1,2}(?:st|nd|rd|th)?\\s(?:of\\s)?(?:${MONTHS})\\.?,?\\s\\d{4}`,
].map((source) => new RegExp(`${B}(?:${source})${E}`, 'gu'));
const TIMES = [
  // 10:30, 10:30:15.5, 9:05 pm, 10:30 utc, 10:30 +09:00
  `\\d{1,2}:\\d{2}(?::\\d{2}(?:[.,]\\d+)?)?(?:\\s?[ap]\\.?m\\.?)?(?:\\s?(?:utc|gmt|kst|[+-]\\d{2}:?\\d{2}))?`,
  // 오후 3시 5분
  `(?:오전|오후)\\s?\\d{1,2}시(?:\\s?\\d{1,2}분)?`,
].map((source) => new RegExp(`${B}(?:${source})(?![\\p{L}\\p{N}])`, 'gu'));
const AGO = [
  `\\d+\\s?(?:seconds?|secs?|minutes?|mins?|hours?|hrs?|days?|weeks?|months?|years?)\\s+ago`,
  `\\d+\\s?(?:초|분|시간|일|주|개월|달|년)\\s?전`,
].map((source) => new RegExp(`${B}(?:${source})${E}`, 'gu'));
const TOKEN_RUN = /(?<![a-z0-9_+/=-])[a-z0-9_+/=-]+(?![a-z0-9_+/=-])/gu;
const LETTER_DIGIT = /[a-z](?=\d)|\d(?=[a-z])/g;
const INVISIBLE = /[\u00ad\u200b-\u200d\u2060\ufeff]/gu;

/**
 * The text whose hash is the "normalized content hash" (000 §7.1): a change to it is a change
 * in content, not in timestamps or tokens (001). Input is the main text after boilerplate removal
 * (the parser's job). Steps, in order:
 *
 * 1. Unicode NFC; remove invisible characters (soft hyphen, zero-width space/joiners, word
 *    joiner, BOM); lowercase.
 * 2. Replace volatile tokens with placeholders ({@link MASK_PLACEHOLDERS}):
 *    - `⟨uuid⟩`: 8-4-4-4-12 hex UUIDs;
 *    - `⟨date⟩`: ISO 8601 dates with optional time and zone, `yyyy/mm/dd`, `yyyy.mm.dd`,
 *      `dd/mm/yyyy` (also `.` and `-`), `2024년 5월 1일`, English month-name dates;
 *    - `⟨time⟩`: clock times `h:mm[:ss[.f]]` with optional am/pm and utc/gmt/kst/±hh:mm zone,
 *      `오전/오후 N시 [M분]`;
 *    - `⟨ago⟩`: relative times `N minutes ago`, `N분 전` (any unit from seconds to years);
 *    - `⟨hex⟩`: hex runs of `minHexChars`+ characters that contain a digit;
 *    - `⟨token⟩`: runs of `minTokenChars`+ characters from `[a-z0-9_+/=-]` in which a letter
 *      touches a digit at least twice (CSRF tokens, nonces, base64); hyphenated words are kept;
 *    - `⟨num⟩`: digit runs of `minDigitRun`+ digits.
 * 3. Collapse every whitespace run to one space and trim.
 *
 * Not masked: prices, short numbers, years and every word, so a real edit still changes the hash.
 */
export function normalizeTextForHash(text: string, options: Partial<NormalizeOptions> = {}): string {
  const { minDigitRun, minHexChars, minTokenChars } = resolveOptions(options);
  let out = text.normalize('NFC').replace(INVISIBLE, '').toLowerCase().replace(/\s+/gu, ' ');
  out = out.replace(UUID, MASK_PLACEHOLDERS.uuid);
  for (const re of DATES) out = out.replace(re, MASK_PLACEHOLDERS.date);
  for (const re of TIMES) out = out.replace(re, MASK_PLACEHOLDERS.time);
  for (const re of AGO) out = out.replace(re, MASK_PLACEHOLDERS.ago);
  out = out.replace(TOKEN_RUN, (run) => maskRun(run, minHexChars, minTokenChars));
  out = out.replace(new RegExp(`${B}\\d{${minDigitRun},}${E}`, 'gu'), MASK_PLACEHOLDERS.number);
  return out.replace(/\s+/gu, ' ').trim();
}

function maskRun(run: string, minHexChars: number, minTokenChars: number): string {
  if (run.length >= minHexChars && /^[0-9a-f]+$/.test(run) && /\d/.test(run)) return MASK_PLACEHOLDERS.hex;
  if (run.length >= minTokenChars && (run.match(LETTER_DIGIT)?.length ?? 0) >= 2) return MASK_PLACEHOLDERS.token;
  return run;
}

function resolveOptions(options: Partial<NormalizeOptions>): NormalizeOptions {
  const merged = { ...DEFAULT_NORMALIZE_OPTIONS, ...options };
  requireInteger('CONTENT_OPTIONS_INVALID', 'options.minDigitRun', merged.minDigitRun, 1, 1000);
  requireInteger('CONTENT_OPTIONS_INVALID', 'options.minHexChars', merged.minHexChars, 1, 1000);
  requireInteger('CONTENT_OPTIONS_INVALID', 'options.minTokenChars', merged.minTokenChars, 1, 1000);
  return merged;
}
