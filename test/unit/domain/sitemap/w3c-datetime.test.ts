import { describe, expect, it } from 'vitest';
import { parseW3cDatetime, w3cDatetimeSpan } from '../../../../src/domain/sitemap/index.js';

/** The oracle: ECMAScript's own parser of full ISO 8601 UTC timestamps. */
const utc = (iso: string): number => {
  const ms = Date.parse(iso);
  if (Number.isNaN(ms)) throw new Error(`bad oracle ${iso}`);
  return ms;
};

describe('parseW3cDatetime: every form of the W3C Datetime profile', () => {
  it.each([
    ['1997', '1997-01-01T00:00:00.000Z'],
    ['1997-07', '1997-07-01T00:00:00.000Z'],
    ['1997-07-16', '1997-07-16T00:00:00.000Z'],
    ['1997-07-16T19:20+01:00', '1997-07-16T18:20:00.000Z'],
    ['1997-07-16T19:20:30+01:00', '1997-07-16T18:20:30.000Z'],
    ['1997-07-16T19:20:30.45+01:00', '1997-07-16T18:20:30.450Z'],
    ['1997-07-16T19:20:30.4+01:00', '1997-07-16T18:20:30.400Z'],
    ['2004-12-23T18:00:15+00:00', '2004-12-23T18:00:15.000Z'],
    ['2004-10-01T18:23:17Z', '2004-10-01T18:23:17.000Z'],
    ['2004-10-01T18:23Z', '2004-10-01T18:23:00.000Z'],
  ])('%s is %s', (text, iso) => {
    expect(parseW3cDatetime(text)).toBe(utc(iso));
  });
});

describe('parseW3cDatetime: offsets convert to UTC', () => {
  it.each([
    ['2005-01-01T00:30-05:00', '2005-01-01T05:30:00.000Z'],
    ['2024-01-01T00:30+01:00', '2023-12-31T23:30:00.000Z'],
    ['2023-12-31T23:30-01:00', '2024-01-01T00:30:00.000Z'],
    ['2024-03-01T00:15+00:30', '2024-02-29T23:45:00.000Z'],
    ['2023-03-01T05:00+05:45', '2023-02-28T23:15:00.000Z'],
    ['2024-06-01T12:00+14:00', '2024-05-31T22:00:00.000Z'],
    ['2024-06-01T12:00-14:00', '2024-06-02T02:00:00.000Z'],
    ['2024-06-01T12:00-00:00', '2024-06-01T12:00:00.000Z'],
    ['1970-01-01T00:00:00+01:00', '1969-12-31T23:00:00.000Z'],
  ])('%s is %s', (text, iso) => {
    expect(parseW3cDatetime(text)).toBe(utc(iso));
  });
});

describe('parseW3cDatetime: calendar', () => {
  it.each([
    ['2024-02-29', '2024-02-29T00:00:00.000Z'],
    ['2000-02-29', '2000-02-29T00:00:00.000Z'],
    ['1600-02-29', '1600-02-29T00:00:00.000Z'],
    ['2023-04-30', '2023-04-30T00:00:00.000Z'],
    ['2023-12-31T23:59:59Z', '2023-12-31T23:59:59.000Z'],
    ['1969-12-31T23:59:59Z', '1969-12-31T23:59:59.000Z'],
    ['9999-12-31T23:59:59.999Z', '9999-12-31T23:59:59.999Z'],
    // Years below 100 are real years, not 1900 + y as Date.UTC would have it.
    ['0099-03-01', '0099-03-01T00:00:00.000Z'],
    ['0000-01-01', '0000-01-01T00:00:00.000Z'],
  ])('%s is %s', (text, iso) => {
    expect(parseW3cDatetime(text)).toBe(utc(iso));
  });

  it('puts 0000-01-01 at the proleptic Gregorian instant', () => {
    expect(parseW3cDatetime('0000-01-01')).toBe(-62_167_219_200_000);
  });
});

describe('parseW3cDatetime: tolerated on purpose', () => {
  it.each([
    [' \n\t2024-05-03 \r\n', '2024-05-03T00:00:00.000Z'],
    ['  2024-05-03T10:30:07+02:00  ', '2024-05-03T08:30:07.000Z'],
    // No TZD: read as UTC (documented; many real sitemaps omit it).
    ['2024-05-03T10:30:07', '2024-05-03T10:30:07.000Z'],
    ['2024-05-03T10:30', '2024-05-03T10:30:00.000Z'],
    ['2024-05-03T10:30:07.250', '2024-05-03T10:30:07.250Z'],
    // Fractions finer than a millisecond are cut, never rounded up into the next second.
    ['2024-05-03T10:30:07.123456789Z', '2024-05-03T10:30:07.123Z'],
    ['2024-05-03T10:30:07.9999Z', '2024-05-03T10:30:07.999Z'],
  ])('%j is %s', (text, iso) => {
    expect(parseW3cDatetime(text)).toBe(utc(iso));
  });
});

describe('parseW3cDatetime: refuses everything else', () => {
  it.each([
    ['empty', ''],
    ['blank', '   '],
    ['words', 'yesterday'],
    ['two-digit year', '97'],
    ['five-digit year', '12024-01-01'],
    ['negative year', '-2024-01-01'],
    ['one-digit month', '1997-7'],
    ['one-digit day', '1997-07-1'],
    ['basic ISO format', '19970716'],
    ['basic ISO time', '1997-07-16T192030Z'],
    ['month 13', '1997-13'],
    ['month 00', '1997-00-10'],
    ['month 13 with day', '1997-13-01'],
    ['day 00', '1997-07-00'],
    ['day 32', '1997-07-32'],
    ['31 April (30-day month)', '2023-04-31'],
    ['31 June', '2023-06-31'],
    ['31 September', '2023-09-31'],
    ['31 November', '2023-11-31'],
    ['29 February, common year', '2023-02-29'],
    ['29 February, century not divisible by 400', '1900-02-29'],
    ['30 February, leap year', '2024-02-30'],
    ['hour 24', '1997-07-16T24:00Z'],
    ['hour 24 without zone', '1997-07-16T24:00:00'],
    ['minute 60', '1997-07-16T23:60Z'],
    ['second 60', '1997-07-16T23:59:60Z'],
    ['hour without minutes', '1997-07-16T19Z'],
    ['fraction without seconds', '1997-07-16T19:20.5Z'],
    ['empty fraction', '1997-07-16T19:20:30.Z'],
    ['offset +15:00', '1997-07-16T19:20+15:00'],
    ['offset -14:01', '1997-07-16T19:20-14:01'],
    ['offset +14:30', '1997-07-16T19:20+14:30'],
    ['offset minutes 60', '1997-07-16T19:20+05:60'],
    ['offset without colon', '1997-07-16T19:20+0500'],
    ['offset with one-digit hour', '1997-07-16T19:20+5:00'],
    ['offset hours only', '1997-07-16T19:20+05'],
    ['lower-case z', '1997-07-16T19:20z'],
    ['lower-case t', '1997-07-16t19:20Z'],
    ['space for T', '1997-07-16 19:20Z'],
    ['named zone', '1997-07-16T19:20 GMT'],
    ['date with a zone (not in the profile)', '2024-05-03Z'],
    ['year with a zone', '2024Z'],
    ['trailing letter', '2024-05-03x'],
    ['trailing text after zone', '2024-05-03T10:30Z junk'],
    ['double zone', '2024-05-03T10:30ZZ'],
    ['time alone', 'T10:30Z'],
    ['slashes', '2024/05/03'],
    ['RFC 822', 'Sat, 07 Sep 2002 00:00:01 GMT'],
    ['Arabic-Indic digits', '٢٠٢٤-٠٥-٠٣'],
    ['full-width digits', '２０２４-05-03'],
    ['two dates', '2024-05-03 2024-05-04'],
  ])('%s: %j', (_, text) => {
    expect(parseW3cDatetime(text)).toBeUndefined();
  });
});

describe('w3cDatetimeSpan: the period the text names at its precision', () => {
  it.each([
    ['2024', '2024-01-01T00:00:00.000Z', '2024-12-31T23:59:59.999Z'],
    ['2023', '2023-01-01T00:00:00.000Z', '2023-12-31T23:59:59.999Z'],
    ['2024-02', '2024-02-01T00:00:00.000Z', '2024-02-29T23:59:59.999Z'],
    ['2023-02', '2023-02-01T00:00:00.000Z', '2023-02-28T23:59:59.999Z'],
    ['2023-12', '2023-12-01T00:00:00.000Z', '2023-12-31T23:59:59.999Z'],
    ['2024-05-03', '2024-05-03T00:00:00.000Z', '2024-05-03T23:59:59.999Z'],
    ['2024-05-03T10:30+02:00', '2024-05-03T08:30:00.000Z', '2024-05-03T08:30:59.999Z'],
    ['2024-05-03T10:30:07Z', '2024-05-03T10:30:07.000Z', '2024-05-03T10:30:07.999Z'],
    ['2024-05-03T10:30:07.5Z', '2024-05-03T10:30:07.500Z', '2024-05-03T10:30:07.599Z'],
    ['2024-05-03T10:30:07.25Z', '2024-05-03T10:30:07.250Z', '2024-05-03T10:30:07.259Z'],
    ['2024-05-03T10:30:07.125Z', '2024-05-03T10:30:07.125Z', '2024-05-03T10:30:07.125Z'],
    ['2024-05-03T10:30:07.1259Z', '2024-05-03T10:30:07.125Z', '2024-05-03T10:30:07.125Z'],
  ])('%s spans %s to %s', (text, from, to) => {
    expect(w3cDatetimeSpan(text)).toEqual({ fromMs: utc(from), toMs: utc(to) });
  });

  it('refuses what parseW3cDatetime refuses', () => {
    expect(w3cDatetimeSpan('2023-02-29')).toBeUndefined();
    expect(w3cDatetimeSpan('2024-05-03T24:00Z')).toBeUndefined();
  });
});
