import { describe, expect, it } from 'vitest';
import { expectedFreshDays, expectedFreshness, freshnessGain, probabilityChanged } from '../../../../src/domain/recrawl/index.js';

// the freshness-gain table: fresh days bought per visit by a crawler that can revisit about once a day.
const TABLE_001: readonly [string, number, string][] = [
  ['every 15 minutes', 96, '0.010'],
  ['hourly', 24, '0.042'],
  ['every 6 hours', 4, '0.241'],
  ['daily', 1, '0.400'],
  ['weekly', 1 / 7, '0.124'],
  ['monthly', 1 / 30, '0.032'],
  ['yearly', 1 / 365, '0.003'],
];

describe('freshnessGain', () => {
  it.each(TABLE_001)('reproduces 001 for a page changing %s (rate %d/day)', (_label, ratePerDay, expected) => {
    expect(freshnessGain(ratePerDay, 1, 1).toFixed(3)).toBe(expected);
  });

  it('is largest for the page that changes about as often as it can be revisited', () => {
    const best = TABLE_001.reduce((a, b) => (freshnessGain(b[1], 1, 1) > freshnessGain(a[1], 1, 1) ? b : a));
    expect(best[0]).toBe('daily');
  });

  it('is p_stale × fresh-after, with fresh-after = interval for a page that never changes', () => {
    expect(freshnessGain(0.3, 2, 5)).toBeCloseTo((1 - Math.exp(-0.6)) * ((1 - Math.exp(-1.5)) / 0.3), 12);
    expect(freshnessGain(0, 10, 5)).toBe(0);
    expect(expectedFreshDays(0, 5)).toBe(5);
    expect(freshnessGain(2, 0, 1)).toBe(0);
  });

  it('rejects negative or non-finite inputs with codes', () => {
    expect(() => freshnessGain(-1, 1, 1)).toThrow(expect.objectContaining({ code: 'RECRAWL_RATE_INVALID' }));
    expect(() => freshnessGain(1, Number.NaN, 1)).toThrow(expect.objectContaining({ code: 'RECRAWL_DAYS_INVALID', field: 'days' }));
    expect(() => freshnessGain(1, 1, -1)).toThrow(expect.objectContaining({ code: 'RECRAWL_DAYS_INVALID', field: 'intervalDays' }));
  });
});

describe('probabilityChanged', () => {
  it('is 1 - e^(-rate × days)', () => {
    expect(probabilityChanged(1, 1)).toBeCloseTo(1 - Math.exp(-1), 15);
    expect(probabilityChanged(0, 100)).toBe(0);
    expect(probabilityChanged(96, 1)).toBeCloseTo(1, 12);
    expect(probabilityChanged(1e-9, 1) / 1e-9).toBeCloseTo(1, 8); // expm1 keeps tiny probabilities accurate
  });
});

describe('expectedFreshness', () => {
  it('is (f/r)(1 - e^(-r/f)) with the limits a page that never changes (1) and one never visited (0)', () => {
    expect(expectedFreshness(1, 1)).toBeCloseTo(1 - Math.exp(-1), 15);
    expect(expectedFreshness(0, 0)).toBe(1);
    expect(expectedFreshness(2, 0)).toBe(0);
    expect(expectedFreshness(96, 1)).toBeCloseTo(1 / 96, 6);
  });

  it('rises with visits and falls with the change rate', () => {
    expect(expectedFreshness(1, 2)).toBeGreaterThan(expectedFreshness(1, 1));
    expect(expectedFreshness(2, 1)).toBeLessThan(expectedFreshness(1, 1));
  });
});
