import { requireTimeMs } from './errors.js';

const MONTHS = ['jan', 'feb', 'mar', 'apr', 'may', 'jun', 'jul', 'aug', 'sep', 'oct', 'nov', 'dec'];
const MONTH = '(Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec)';
const TIME = '(\\d{2}):(\\d{2}):(\\d{2})';

// RFC 9110 §5.6.7. Names are matched case-insensitively and the weekday is not checked against the
// date: the RFC asks recipients to be robust, and a wrong weekday does not make the instant unclear.
const IMF_FIXDATE = new RegExp(`^(?:Mon|Tue|Wed|Thu|Fri|Sat|Sun), (\\d{2}) ${MONTH} (\\d{4}) ${TIME} GMT$`, 'i');
const RFC850_DATE = new RegExp(`^(?:Monday|Tuesday|Wednesday|Thursday|Friday|Saturday|Sunday), (\\d{2})-${MONTH}-(\\d{2}) ${TIME} GMT$`, 'i');
const ASCTIME_DATE = new RegExp(`^(?:Mon|Tue|Wed|Thu|Fri|Sat|Sun) ${MONTH} (\\d{2}| \\d) ${TIME} (\\d{4})$`, 'i');

/**
 * Parses an HTTP-date in any of its three forms (IMF-fixdate, obsolete RFC 850, asctime) to ms
 * since epoch, or undefined when it is not one. nowMs resolves RFC 850's two-digit year: a year
 * more than 50 years ahead is taken as the most recent past year with those digits (RFC 9110).
 */
export function parseHttpDate(value: string, nowMs: number): number | undefined {
  requireTimeMs('nowMs', nowMs);
  const text = value.trim();
  let match = IMF_FIXDATE.exec(text);
  if (match) return utcMs(Number(match[3]), match[2], Number(match[1]), match.slice(4, 7));
  match = RFC850_DATE.exec(text);
  if (match) return utcMs(fullYear(Number(match[3]), nowMs), match[2], Number(match[1]), match.slice(4, 7));
  match = ASCTIME_DATE.exec(text);
  if (match) return utcMs(Number(match[6]), match[1], Number(match[2]), match.slice(3, 6));
  return undefined;
}

function fullYear(twoDigitYear: number, nowMs: number): number {
  const currentYear = new Date(nowMs).getUTCFullYear();
  const candidate = Math.floor(currentYear / 100) * 100 + twoDigitYear;
  return candidate > currentYear + 50 ? candidate - 100 : candidate;
}

function utcMs(year: number, monthName: string | undefined, day: number, time: Array<string | undefined>): number | undefined {
  const month = MONTHS.indexOf((monthName ?? '').toLowerCase());
  const [hour, minute, second] = time.map(Number) as [number, number, number];
  if (month < 0 || hour > 23 || minute > 59 || second > 60) return undefined;
  // Date.UTC rolls 31 Feb over into March; a round trip rejects dates that do not exist.
  const ms = Date.UTC(year, month, day, hour, minute, Math.min(second, 59));
  const check = new Date(ms);
  if (check.getUTCFullYear() !== year || check.getUTCMonth() !== month || check.getUTCDate() !== day) return undefined;
  return ms;
}
