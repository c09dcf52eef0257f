import { daysInMonth, isLeapYear, MS_PER_DAY, MS_PER_MINUTE, MS_PER_SECOND, utcMsOf, type DatetimeSpan } from './utc-calendar.js';

// The W3C Datetime profile (https://www.w3.org/TR/NOTE-datetime) that sitemaps.org names for
// <lastmod>: YYYY, YYYY-MM, YYYY-MM-DD, YYYY-MM-DDThh:mm[:ss[.s+]]TZD, TZD = Z | ±hh:mm.
// One deliberate extension: a date-time without TZD (XML Schema's "no timezone" dateTime) is read
// as UTC. Many real sitemaps omit it; the error is at most the site's own offset, small beside
// what a lastmod is used for, whereas refusing it would lose the change signal altogether.
const W3C_DATETIME =
  /^(\d{4})(?:-(\d{2})(?:-(\d{2})(?:T(\d{2}):(\d{2})(?::(\d{2})(?:\.(\d+))?)?(Z|[+-]\d{2}:\d{2})?)?)?)?$/;

/**
 * ms since epoch (UTC) of a W3C Datetime, or undefined for anything else: other separators
 * (space for `T`, lower-case `t`/`z`), a time without minutes, a fraction without seconds, a
 * field out of range (month 13, 31 April, 29 February of a common year, hour 24, second 60),
 * an offset beyond ±14:00, trailing text. Surrounding whitespace is ignored. Partial dates mean
 * the start of the period (`2005` is 2005-01-01T00:00Z); fractions finer than 1 ms are cut.
 */
export function parseW3cDatetime(text: string): number | undefined {
  return w3cDatetimeSpan(text)?.fromMs;
}

/**
 * The period a W3C Datetime names, read as parseW3cDatetime reads it: `2024` spans the year,
 * `2024-05-03` the UTC day, `2024-05-03T10:30Z` the minute, `...:07.5Z` 100 ms.
 */
export function w3cDatetimeSpan(text: string): DatetimeSpan | undefined {
  const match = W3C_DATETIME.exec(text.trim());
  if (!match) return undefined;
  const [, yearText = '', month, day, hour, minute, second, fraction, zone] = match;
  const offsetMinutes = zoneOffsetMinutes(zone);
  if (offsetMinutes === undefined) return undefined;
  const year = Number(yearText);
  const wallClock = {
    year,
    month: Number(month ?? 1),
    day: Number(day ?? 1),
    hour: Number(hour ?? 0),
    minute: Number(minute ?? 0),
    second: Number(second ?? 0),
    millisecond: Number((fraction ?? '').slice(0, 3).padEnd(3, '0')),
  };
  const fromMs = utcMsOf(wallClock, offsetMinutes);
  if (fromMs === undefined) return undefined;
  return { fromMs, toMs: fromMs + writtenPeriodMs({ year, month, day, hour, second, fraction }) - 1 };
}

/** Length of the period the text's last written field names. */
function writtenPeriodMs(written: { year: number; month?: string; day?: string; hour?: string; second?: string; fraction?: string }): number {
  const { year, month, day, hour, second, fraction } = written;
  if (month === undefined) return (isLeapYear(year) ? 366 : 365) * MS_PER_DAY;
  if (day === undefined) return daysInMonth(year, Number(month)) * MS_PER_DAY;
  if (hour === undefined) return MS_PER_DAY;
  if (second === undefined) return MS_PER_MINUTE;
  if (fraction === undefined) return MS_PER_SECOND;
  return fraction.length >= 3 ? 1 : 10 ** (3 - fraction.length);
}

/** Minutes east of UTC for `Z`, no zone (read as UTC) or `±hh:mm`; undefined for minutes past 59. */
function zoneOffsetMinutes(zone: string | undefined): number | undefined {
  if (zone === undefined || zone === 'Z') return 0;
  const hours = Number(zone.slice(1, 3));
  const minutes = Number(zone.slice(4, 6));
  if (minutes > 59) return undefined;
  return (zone.startsWith('-') ? -1 : 1) * (hours * 60 + minutes);
}
