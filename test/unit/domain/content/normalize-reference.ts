// The oracle of normalize.test.ts: normalizeTextForHash as written before issue 24 made it faster,
// kept verbatim (regexes and steps) so a property test can show the fast one writes the same text.
import { DEFAULT_NORMALIZE_OPTIONS, MASK_PLACEHOLDERS, type NormalizeOptions } from '../../../../src/domain/content/index.js';

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

/** normalizeTextForHash as it was before its passes were skipped by cheap pre-tests (issue 24). */
export function normalizeTextForHashReference(text: string, options: Partial<NormalizeOptions> = {}): string {
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
  return { ...DEFAULT_NORMALIZE_OPTIONS, ...options };
}
