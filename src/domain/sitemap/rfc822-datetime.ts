import { MS_PER_MINUTE, MS_PER_SECOND, utcMsOf, type DatetimeSpan } from './utc-calendar.js';

// RSS 2.0 dates (<pubDate>, <lastBuildDate>) are RFC 822 date-times, read here by RFC 5322
// §3.3 and §4.3. politeness/parseHttpDate does not fit: it takes only HTTP's fixed forms (GMT,
// two-digit day, mandatory weekday), while feeds write `+0000`, `-0500`, `EST`, `6 Sep`, and
// omit the weekday or the seconds.
const RFC822_DATETIME = new RegExp(
  '^(?:(?:Mon|Tue|Wed|Thu|Fri|Sat|Sun)\\s*,\\s*)?' +
    '(\\d{1,2})\\s+(Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec)\\s+(\\d{4}|\\d{2})\\s+' +
    '(\\d{2}):(\\d{2})(?::(\\d{2}))?\\s*' +
    '([+-]\\d{4}|UT|GMT|Z|[ECMP][SD]T)$',
  'i',
);

const MONTHS = ['jan', 'feb', 'mar', 'apr', 'may', 'jun', 'jul', 'aug', 'sep', 'oct', 'nov', 'dec'];

/** The North American zone names RFC 822 defines, in minutes east of UTC. */
const NAMED_ZONES: Readonly<Record<string, number>> = {
  ut: 0, gmt: 0, z: 0,
  est: -300, edt: -240, cst: -360, cdt: -300, mst: -420, mdt: -360, pst: -480, pdt: -420,
};

/**
 * ms since epoch (UTC) of an RFC 822 / RFC 5322 date-time such as `Sat, 07 Sep 2002 00:00:01 GMT`
 * or `6 Sep 2010 00:01 +0000`, or undefined. Names are case-insensitive; the weekday is optional
 * and not checked against the date. A two-digit year is 2000-2049 for 00-49 and 1950-1999 for
 * 50-99 (RFC 5322 §4.3). A leap second (:60) reads as :59. Military one-letter zones other than
 * `Z` are refused: RFC 822 got their signs backwards, so they say nothing reliable. Surrounding
 * whitespace is ignored.
 */
export function parseRfc822Datetime(text: string): number | undefined {
  return rfc822DatetimeSpan(text)?.fromMs;
}

/** The second (or, without seconds, the minute) an RFC 822 date-time names, read as parseRfc822Datetime reads it. */
export function rfc822DatetimeSpan(text: string): DatetimeSpan | undefined {
  const match = RFC822_DATETIME.exec(text.trim());
  if (!match) return undefined;
  // The regex makes every group but the seconds present; the defaults only satisfy the type checker.
  const [, day = '', monthName = '', yearText = '', hour = '', minute = '', second, zone = ''] = match;
  const offsetMinutes = zoneOffsetMinutes(zone);
  if (offsetMinutes === undefined) return undefined;
  const fromMs = utcMsOf(
    {
      year: fullYear(yearText),
      month: MONTHS.indexOf(monthName.toLowerCase()) + 1,
      day: Number(day),
      hour: Number(hour),
      minute: Number(minute),
      second: second === '60' ? 59 : Number(second ?? 0),
      millisecond: 0,
    },
    offsetMinutes,
  );
  if (fromMs === undefined) return undefined;
  return { fromMs, toMs: fromMs + (second === undefined ? MS_PER_MINUTE : MS_PER_SECOND) - 1 };
}

function fullYear(yearText: string): number {
  const year = Number(yearText);
  if (yearText.length === 4) return year;
  return year < 50 ? 2000 + year : 1900 + year;
}

/** `±hhmm` or a named zone, in minutes east of UTC; undefined for minutes past 59. */
function zoneOffsetMinutes(zone: string): number | undefined {
  const named = NAMED_ZONES[zone.toLowerCase()];
  if (named !== undefined) return named;
  const hours = Number(zone.slice(1, 3));
  const minutes = Number(zone.slice(3, 5));
  if (minutes > 59) return undefined;
  return (zone.startsWith('-') ? -1 : 1) * (hours * 60 + minutes);
}
