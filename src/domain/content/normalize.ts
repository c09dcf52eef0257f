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

/**
 * One masking pass. `mayMatch` is a necessary condition of a match, far cheaper than `pattern`
 * (no lookbehind at every position, no long alternation): every match of `pattern` contains a
 * match of `mayMatch`, so when it finds nothing the pass would change nothing and is skipped.
 */
interface MaskPass {
  pattern: RegExp;
  placeholder: string;
  mayMatch?: RegExp;
}

/** A pass that replaces `source`, not starting or ending inside a word, by `placeholder`. */
function maskPass(source: string, placeholder: string, mayMatch?: RegExp): MaskPass {
  return { pattern: new RegExp(`${B}(?:${source})${E}`, 'gu'), placeholder, mayMatch };
}

const HAS_DIGIT = /\d/;
/** Every date form below has a four-digit year. */
const HAS_YEAR = /\d{4}/;
/** The first three letters of every name in MONTHS. */
const MONTH_PREFIXES = 'jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec';

const UUID = maskPass('[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}', MASK_PLACEHOLDERS.uuid, /-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-/);
const DATES = [
  // ISO 8601 date with optional time and zone: 2024-05-01, 2024-05-01t10:30:00.123z
  maskPass(`\\d{4}-\\d{2}-\\d{2}(?:[t ]\\d{2}:\\d{2}(?::\\d{2}(?:[.,]\\d+)?)?(?:z|[+-]\\d{2}:?\\d{2})?)?`, MASK_PLACEHOLDERS.date),
  // 2024/05/01, 2024.05.01.
  maskPass(`\\d{4}[./]\\d{1,2}[./]\\d{1,2}\\.?`, MASK_PLACEHOLDERS.date),
  // 01/05/2024, 1.5.2024, 01-05-2024
  maskPass(`\\d{1,2}[./-]\\d{1,2}[./-]\\d{4}`, MASK_PLACEHOLDERS.date),
  // 2024년 5월 1일
  maskPass(`\\d{4}\\s?년\\s?\\d{1,2}\\s?월\\s?\\d{1,2}\\s?일`, MASK_PLACEHOLDERS.date),
  // may 1, 2024 / may 1st 2024 (may match: what follows the month)
  maskPass(`(?:${MONTHS})\\.?\\s\\d{1,2}(?:st|nd|rd|th)?,?\\s\\d{4}`, MASK_PLACEHOLDERS.date, /\s\d{1,2}(?:st|nd|rd|th)?,?\s\d{4}/),
  // 1 may 2024 / 1st of may, 2024 (may match: up to the month's first three letters)
  maskPass(`\\d{1,2}(?:st|nd|rd|th)?\\s(?:of\\s)?(?:${MONTHS})\\.?,?\\s\\d{4}`, MASK_PLACEHOLDERS.date, new RegExp(`\\d(?:st|nd|rd|th)?\\s(?:of\\s)?(?:${MONTH_PREFIXES})`)),
];
const TIMES = [
  // 10:30, 10:30:15.5, 9:05 pm, 10:30 utc, 10:30 +09:00
  maskPass(`\\d{1,2}:\\d{2}(?::\\d{2}(?:[.,]\\d+)?)?(?:\\s?[ap]\\.?m\\.?)?(?:\\s?(?:utc|gmt|kst|[+-]\\d{2}:?\\d{2}))?`, MASK_PLACEHOLDERS.time),
  // 오후 3시 5분
  maskPass(`(?:오전|오후)\\s?\\d{1,2}시(?:\\s?\\d{1,2}분)?`, MASK_PLACEHOLDERS.time),
];
const AGO = [
  maskPass(`\\d+\\s?(?:seconds?|secs?|minutes?|mins?|hours?|hrs?|days?|weeks?|months?|years?)\\s+ago`, MASK_PLACEHOLDERS.ago, /\sago/),
  maskPass(`\\d+\\s?(?:초|분|시간|일|주|개월|달|년)\\s?전`, MASK_PLACEHOLDERS.ago, /전/),
];
const LETTER_DIGIT = /[a-z](?=\d)|\d(?=[a-z])/g;
const INVISIBLE = /[\u00ad\u200b-\u200d\u2060\ufeff]/gu;
/** Whitespace that collapsing rewrites: runs of two or more, and any single character but a space (a lone space is its own collapse). */
const WHITESPACE_TO_REWRITE = /\s{2,}|[^\S ]/gu;

/**
 * The text whose hash is the "normalized content hash" (docs/design.md, "Content identity"): a change to it is a change
 * in content, not in timestamps or tokens (docs/design.md, "Change model"). Input is the main text after boilerplate removal
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
  let out = text.normalize('NFC').replace(INVISIBLE, '').toLowerCase().replace(WHITESPACE_TO_REWRITE, ' ');
  out = masked(out, UUID);
  // Every pass after this one masks something with a digit in it; a masked text keeps no digit it did not have.
  if (!HAS_DIGIT.test(out)) return out.trim();
  if (HAS_YEAR.test(out)) for (const pass of DATES) out = masked(out, pass);
  for (const pass of TIMES) out = masked(out, pass);
  for (const pass of AGO) out = masked(out, pass);
  out = maskTokenRuns(out, minHexChars, minTokenChars);
  out = out.replace(digitRunPattern(minDigitRun), MASK_PLACEHOLDERS.number);
  // Whitespace is already single spaces: no match starts or ends with whitespace, and no placeholder holds any.
  return out.trim();
}

function masked(text: string, pass: MaskPass): string {
  if (pass.mayMatch !== undefined && !pass.mayMatch.test(text)) return text;
  return text.replace(pass.pattern, pass.placeholder);
}

const DIGITS = /\d/g;

/**
 * Each maximal run of token characters ([a-z0-9_+/=-]) through maskRun. Both of its masks need a
 * digit, so only the runs around digits are looked at: a regex over every run, with a lookbehind
 * at every position, cost more than all the other passes together.
 */
function maskTokenRuns(text: string, minHexChars: number, minTokenChars: number): string {
  const minChars = Math.min(minHexChars, minTokenChars);
  let out = '';
  let copiedUpTo = 0;
  DIGITS.lastIndex = 0;
  for (let digit = DIGITS.exec(text); digit !== null; digit = DIGITS.exec(text)) {
    let start = digit.index;
    while (start > 0 && isTokenChar(text.charCodeAt(start - 1))) start -= 1;
    let end = digit.index + 1;
    while (end < text.length && isTokenChar(text.charCodeAt(end))) end += 1;
    // The next digit is past this run, so each run is looked at once.
    DIGITS.lastIndex = end;
    if (end - start < minChars) continue;
    const run = text.slice(start, end);
    const mask = maskRun(run, minHexChars, minTokenChars);
    if (mask === run) continue;
    out += text.slice(copiedUpTo, start) + mask;
    copiedUpTo = end;
  }
  return copiedUpTo === 0 ? text : out + text.slice(copiedUpTo);
}

/** [a-z0-9_+/=-] */
function isTokenChar(code: number): boolean {
  return (code >= 0x61 && code <= 0x7a) || (code >= 0x30 && code <= 0x39) || code === 0x5f || code === 0x2b || code === 0x2f || code === 0x3d || code === 0x2d;
}

const digitRunPatterns = new Map<number, RegExp>();

/** Digit runs at least `minDigits` long, not inside a word. */
function digitRunPattern(minDigits: number): RegExp {
  let pattern = digitRunPatterns.get(minDigits);
  if (pattern === undefined) {
    pattern = new RegExp(`${B}\\d{${minDigits},}${E}`, 'gu');
    digitRunPatterns.set(minDigits, pattern);
  }
  return pattern;
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
