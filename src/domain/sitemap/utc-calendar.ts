// Calendar arithmetic for the date parsers, done by hand: Date.UTC maps years 0-99 to 1900-1999
// and silently rolls 31 April over into May, and a strict parser needs neither.

export const MS_PER_SECOND = 1_000;
export const MS_PER_MINUTE = 60_000;
export const MS_PER_DAY = 86_400_000;

/** Largest UTC offset in use, and the bound XML Schema puts on timezones: ±14:00. */
export const MAX_UTC_OFFSET_MINUTES = 14 * 60;

/**
 * The instants a date text may mean, at the precision it was written: `2024-05` is all of May,
 * `10:30Z` the whole minute. Both ends are included, in ms since epoch (UTC).
 */
export interface DatetimeSpan {
  fromMs: number;
  toMs: number;
}

/** A date and time as written, before any offset; month 1-12, day 1-31. */
export interface WallClockTime {
  year: number;
  month: number;
  day: number;
  hour: number;
  minute: number;
  second: number;
  millisecond: number;
}

export function isLeapYear(year: number): boolean {
  return (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0;
}

/** Days in `month` (1-12) of the proleptic Gregorian `year`. */
export function daysInMonth(year: number, month: number): number {
  if (month === 2) return isLeapYear(year) ? 29 : 28;
  return month === 4 || month === 6 || month === 9 || month === 11 ? 30 : 31;
}

/**
 * ms since epoch of `time` read at `offsetMinutes` east of UTC, or undefined when a field is out
 * of range (month 13, 30 February, hour 24, second 60, an offset beyond ±14:00).
 */
export function utcMsOf(time: WallClockTime, offsetMinutes: number): number | undefined {
  const { year, month, day, hour, minute, second, millisecond } = time;
  if (month < 1 || month > 12 || day < 1 || day > daysInMonth(year, month)) return undefined;
  if (hour > 23 || minute > 59 || second > 59 || millisecond > 999) return undefined;
  if (Math.abs(offsetMinutes) > MAX_UTC_OFFSET_MINUTES) return undefined;
  const wallMs = daysFromCivil(year, month, day) * MS_PER_DAY + ((hour * 60 + minute) * 60 + second) * 1000 + millisecond;
  return wallMs - offsetMinutes * MS_PER_MINUTE;
}

/** Days since 1970-01-01 of a proleptic Gregorian date (H. Hinnant's days_from_civil). */
function daysFromCivil(year: number, month: number, day: number): number {
  const y = month <= 2 ? year - 1 : year;
  const era = Math.floor(y / 400);
  const yearOfEra = y - era * 400;
  const dayOfYear = Math.floor((153 * (month > 2 ? month - 3 : month + 9) + 2) / 5) + day - 1;
  const dayOfEra = yearOfEra * 365 + Math.floor(yearOfEra / 4) - Math.floor(yearOfEra / 100) + dayOfYear;
  return era * 146_097 + dayOfEra - 719_468;
}
