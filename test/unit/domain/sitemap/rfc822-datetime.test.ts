import { describe, expect, it } from 'vitest';
import { parseRfc822Datetime, rfc822DatetimeSpan } from '../../../../src/domain/sitemap/index.js';

const utc = (iso: string): number => {
  const ms = Date.parse(iso);
  if (Number.isNaN(ms)) throw new Error(`bad oracle ${iso}`);
  return ms;
};

describe('parseRfc822Datetime: RSS 2.0 pubDate', () => {
  it.each([
    ['Sat, 07 Sep 2002 00:00:01 GMT', '2002-09-07T00:00:01Z'],
    ['Sat, 07 Sep 2002 00:00:01 UT', '2002-09-07T00:00:01Z'],
    ['Sat, 07 Sep 2002 00:00:01 Z', '2002-09-07T00:00:01Z'],
    ['Mon, 06 Sep 2010 00:01:00 +0000', '2010-09-06T00:01:00Z'],
    ['Tue, 10 Jun 2003 04:00:00 -0500', '2003-06-10T09:00:00Z'],
    ['Tue, 10 Jun 2003 04:00:00 +0530', '2003-06-09T22:30:00Z'],
    ['Tue, 10 Jun 2003 04:00:00 EST', '2003-06-10T09:00:00Z'],
    ['Tue, 10 Jun 2003 04:00:00 EDT', '2003-06-10T08:00:00Z'],
    ['Tue, 10 Jun 2003 04:00:00 CST', '2003-06-10T10:00:00Z'],
    ['Tue, 10 Jun 2003 04:00:00 CDT', '2003-06-10T09:00:00Z'],
    ['Tue, 10 Jun 2003 04:00:00 MST', '2003-06-10T11:00:00Z'],
    ['Tue, 10 Jun 2003 04:00:00 MDT', '2003-06-10T10:00:00Z'],
    ['Tue, 10 Jun 2003 04:00:00 PST', '2003-06-10T12:00:00Z'],
    ['Tue, 10 Jun 2003 04:00:00 PDT', '2003-06-10T11:00:00Z'],
    // Weekday optional, one-digit day, no seconds, names in any case, extra spaces.
    ['6 Sep 2010 00:01 +0000', '2010-09-06T00:01:00Z'],
    ['mon,6  SEP  2010   00:01:02   gmt', '2010-09-06T00:01:02Z'],
    ['  Thu, 01 Jan 1970 00:00:00 GMT\n', '1970-01-01T00:00:00Z'],
    // The weekday is not checked against the date (07 Sep 2002 was a Saturday).
    ['Mon, 07 Sep 2002 00:00:01 GMT', '2002-09-07T00:00:01Z'],
    // Two-digit years (RFC 5322 §4.3): 00-49 are 2000s, 50-99 1900s.
    ['07 Sep 02 00:00:01 GMT', '2002-09-07T00:00:01Z'],
    ['07 Sep 49 00:00:01 GMT', '2049-09-07T00:00:01Z'],
    ['07 Sep 50 00:00:01 GMT', '1950-09-07T00:00:01Z'],
    // A leap second reads as :59.
    ['Sat, 31 Dec 2016 23:59:60 GMT', '2016-12-31T23:59:59Z'],
    ['Thu, 29 Feb 2024 12:00:00 +1400', '2024-02-28T22:00:00Z'],
  ])('%j is %s', (text, iso) => {
    expect(parseRfc822Datetime(text)).toBe(utc(iso));
  });

  it.each([
    ['empty', ''],
    ['W3C datetime', '2002-09-07T00:00:01Z'],
    ['full month name', 'Sat, 07 September 2002 00:00:01 GMT'],
    ['full weekday', 'Saturday, 07 Sep 2002 00:00:01 GMT'],
    ['no zone', 'Sat, 07 Sep 2002 00:00:01'],
    ['ambiguous zone name', 'Sat, 07 Sep 2002 00:00:01 CET'],
    ['military zone other than Z', 'Sat, 07 Sep 2002 00:00:01 A'],
    ['offset with colon', 'Sat, 07 Sep 2002 00:00:01 +01:00'],
    ['offset beyond 14h', 'Sat, 07 Sep 2002 00:00:01 +1500'],
    ['offset minutes 60', 'Sat, 07 Sep 2002 00:00:01 +0160'],
    ['31 April', 'Sun, 31 Apr 2002 00:00:01 GMT'],
    ['29 February, common year', '29 Feb 2023 00:00:01 GMT'],
    ['day 0', '0 Feb 2023 00:00:01 GMT'],
    ['hour 24', '07 Sep 2002 24:00:00 GMT'],
    ['minute 60', '07 Sep 2002 23:60:00 GMT'],
    ['second 61', '07 Sep 2002 23:59:61 GMT'],
    ['three-digit year', '07 Sep 102 00:00:01 GMT'],
    ['fractional seconds', '07 Sep 2002 00:00:01.5 GMT'],
    ['trailing text', 'Sat, 07 Sep 2002 00:00:01 GMT (UTC)'],
  ])('refuses %s: %j', (_, text) => {
    expect(parseRfc822Datetime(text)).toBeUndefined();
  });

  it('spans the second written, or the minute when seconds are left out', () => {
    expect(rfc822DatetimeSpan('Sat, 07 Sep 2002 10:20:30 GMT')).toEqual({ fromMs: utc('2002-09-07T10:20:30.000Z'), toMs: utc('2002-09-07T10:20:30.999Z') });
    expect(rfc822DatetimeSpan('Sat, 07 Sep 2002 10:20 +0100')).toEqual({ fromMs: utc('2002-09-07T09:20:00.000Z'), toMs: utc('2002-09-07T09:20:59.999Z') });
  });
});
