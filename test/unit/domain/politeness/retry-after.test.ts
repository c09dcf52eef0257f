import { describe, expect, it } from 'vitest';
import { DEFAULT_MAX_RETRY_AFTER_MS, parseHttpDate, parseRetryAfter } from '../../../../src/domain/politeness/index.js';

const NOW = Date.UTC(2024, 2, 1, 12, 0, 0); // 2024-03-01T12:00:00Z
const SUN_06_NOV_1994 = Date.UTC(1994, 10, 6, 8, 49, 37);

describe('parseRetryAfter: delta-seconds', () => {
  it.each([
    ['0', NOW],
    ['1', NOW + 1000],
    ['120', NOW + 120_000],
    ['  120  ', NOW + 120_000],
    ['007', NOW + 7000],
    ['86400', NOW + 86_400_000],
  ])('%j -> now + delta', (value, expected) => {
    expect(parseRetryAfter(value, NOW)).toBe(expected);
  });

  it.each(['86401', '999999999', '9'.repeat(400)])('clamps a huge delta %s to the maximum (24 h)', (value) => {
    expect(parseRetryAfter(value, NOW)).toBe(NOW + DEFAULT_MAX_RETRY_AFTER_MS);
  });

  it('honours a custom maximum', () => {
    expect(parseRetryAfter('7200', NOW, { maxRetryAfterMs: 3_600_000 })).toBe(NOW + 3_600_000);
  });
});

describe('parseRetryAfter: HTTP-date', () => {
  const future = Date.UTC(2024, 2, 1, 12, 30, 0);

  it.each([
    ['IMF-fixdate', 'Fri, 01 Mar 2024 12:30:00 GMT'],
    ['obsolete RFC 850', 'Friday, 01-Mar-24 12:30:00 GMT'],
    ['asctime, one-digit day', 'Fri Mar  1 12:30:00 2024'],
    ['lowercase names', 'fri, 01 mar 2024 12:30:00 gmt'],
  ])('%s', (_form, value) => {
    expect(parseRetryAfter(value, NOW)).toBe(future);
  });

  it('asctime with a two-digit day', () => {
    expect(parseRetryAfter('Sun Mar 10 00:00:00 2024', NOW)).toBe(NOW + DEFAULT_MAX_RETRY_AFTER_MS);
    expect(parseHttpDate('Sun Mar 10 00:00:00 2024', NOW)).toBe(Date.UTC(2024, 2, 10));
  });

  it.each([
    ['a date in the past (clock skew)', 'Sun, 06 Nov 1994 08:49:37 GMT'],
    ['a second ago', 'Fri, 01 Mar 2024 11:59:59 GMT'],
    ['exactly now', 'Fri, 01 Mar 2024 12:00:00 GMT'],
  ])('%s becomes now', (_why, value) => {
    expect(parseRetryAfter(value, NOW)).toBe(NOW);
  });

  it('clamps a date years ahead to the maximum', () => {
    expect(parseRetryAfter('Fri, 01 Jan 2100 00:00:00 GMT', NOW)).toBe(NOW + DEFAULT_MAX_RETRY_AFTER_MS);
  });
});

describe('parseRetryAfter: absent or invalid', () => {
  it.each([
    [undefined],
    [null],
    [''],
    ['   '],
    ['-5'],
    ['1.5'],
    ['+10'],
    ['10s'],
    ['0x10'],
    ['120, 30'],
    ['soon'],
    ['Fri, 01 Mar 2024 12:30:00 UTC'],
    ['Fri, 1 Mar 2024 12:30:00 GMT'],
    ['Fri, 30 Feb 2024 12:30:00 GMT'],
    ['Fri, 01 Mar 2024 24:00:00 GMT'],
    ['Fri, 01 Mar 2024 12:60:00 GMT'],
    ['Fri, 01 Foo 2024 12:30:00 GMT'],
    ['2024-03-01T12:30:00Z'],
    ['Fri Mar 1 12:30:00 2024'],
  ])('%j -> undefined', (value) => {
    expect(parseRetryAfter(value, NOW)).toBeUndefined();
  });

  it('rejects a NaN now with a typed error', () => {
    expect(() => parseRetryAfter('5', Number.NaN)).toThrow(expect.objectContaining({ code: 'POLITENESS_TIME_INVALID', field: 'nowMs' }));
  });
});

describe('parseHttpDate', () => {
  it('parses the three RFC 9110 examples to the same instant', () => {
    const forms = ['Sun, 06 Nov 1994 08:49:37 GMT', 'Sunday, 06-Nov-94 08:49:37 GMT', 'Sun Nov  6 08:49:37 1994'];
    for (const form of forms) expect(parseHttpDate(form, NOW)).toBe(SUN_06_NOV_1994);
  });

  it('reads an RFC 850 year more than 50 years ahead as the past century', () => {
    expect(parseHttpDate('Thursday, 01-Jan-70 00:00:00 GMT', NOW)).toBe(Date.UTC(2070, 0, 1)); // 46 years ahead: kept
    expect(parseHttpDate('Friday, 01-Jan-99 00:00:00 GMT', NOW)).toBe(Date.UTC(1999, 0, 1)); // 75 years ahead: 1999
    expect(parseHttpDate('Saturday, 01-Jan-00 00:00:00 GMT', NOW)).toBe(Date.UTC(2000, 0, 1));
  });

  it('accepts 29 Feb in a leap year only', () => {
    expect(parseHttpDate('Thu, 29 Feb 2024 00:00:00 GMT', NOW)).toBe(Date.UTC(2024, 1, 29));
    expect(parseHttpDate('Wed, 29 Feb 2023 00:00:00 GMT', NOW)).toBeUndefined();
  });
});
