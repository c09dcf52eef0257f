import { describe, expect, it } from 'vitest';
import {
  DEFAULT_VALUE_TIERS,
  START_INTERVAL_DAYS,
  TOMBSTONE_RECHECK_DAYS,
  freshnessGain,
  isTombstoneStatus,
  recrawlPriority,
  visitCost,
  type RecrawlCandidate,
} from '../../../../src/domain/recrawl/index.js';

const page = (over: Partial<RecrawlCandidate> = {}): RecrawlCandidate => ({ id: 'p', value: 1, ratePerDay: 1, daysSinceVisit: 1, costUnits: 1, ...over });

describe('recrawlPriority', () => {
  it('is value × freshness_gain / cost (docs/design.md, "Cost per detected change")', () => {
    const c = page({ value: 4, ratePerDay: 0.5, daysSinceVisit: 3, costUnits: 2 });
    expect(recrawlPriority(c, 2)).toBeCloseTo((4 * freshnessGain(0.5, 3, 2)) / 2, 15);
    expect(recrawlPriority({ ...c, value: 8 }, 2)).toBeCloseTo(2 * recrawlPriority(c, 2), 15);
    expect(recrawlPriority({ ...c, costUnits: 4 }, 2)).toBeCloseTo(recrawlPriority(c, 2) / 2, 15);
  });

  it('prefers the page changing about as often as it can be revisited over faster and slower ones', () => {
    const daily = recrawlPriority(page({ ratePerDay: 1 }), 1);
    expect(daily).toBeGreaterThan(recrawlPriority(page({ ratePerDay: 96 }), 1));
    expect(daily).toBeGreaterThan(recrawlPriority(page({ ratePerDay: 1 / 365 }), 1));
  });

  it('trusts cheap signals: a newer sitemap lastmod makes staleness certain, a trusted unchanged one makes the visit worthless', () => {
    const c = page({ ratePerDay: 0.05, daysSinceVisit: 2 });
    expect(recrawlPriority({ ...c, cheapSignal: 'changed' }, 7)).toBeCloseTo((1 - Math.exp(-0.05 * 7)) / 0.05, 12);
    expect(recrawlPriority({ ...c, cheapSignal: 'changed' }, 7)).toBeGreaterThan(recrawlPriority(c, 7));
    expect(recrawlPriority({ ...c, cheapSignal: 'unchanged' }, 7)).toBe(0);
  });

  it('rejects candidates it cannot price, naming the field', () => {
    expect(() => recrawlPriority(page({ costUnits: 0 }), 1)).toThrow(expect.objectContaining({ code: 'RECRAWL_CANDIDATE_INVALID', field: 'candidate.costUnits' }));
    expect(() => recrawlPriority(page({ id: '' }), 1)).toThrow(expect.objectContaining({ field: 'candidate.id' }));
    expect(() => recrawlPriority(page({ ratePerDay: Number.POSITIVE_INFINITY }), 1)).toThrow(expect.objectContaining({ field: 'candidate.ratePerDay' }));
  });
});

describe('visitCost', () => {
  const healthy = { expectedBytes: 100_000, conditional: false, hostHealth: 1 };

  it('charges one unit per 100 kB with a floor for tiny responses', () => {
    expect(visitCost(healthy)).toBe(1);
    expect(visitCost({ ...healthy, expectedBytes: 250_000 })).toBe(2.5);
    expect(visitCost({ ...healthy, expectedBytes: 500 })).toBe(0.1);
    expect(visitCost({ ...healthy, expectedBytes: 500 }, { minCostUnits: 0.001 })).toBeCloseTo(0.005, 12);
  });

  it('makes a likely 304 cheap and blends when the change probability is known', () => {
    expect(visitCost({ ...healthy, expectedBytes: 2_000_000, conditional: true })).toBe(0.1);
    expect(visitCost({ ...healthy, expectedBytes: 2_000_000, conditional: true, probabilityChanged: 0.5 })).toBeCloseTo((0.5 * 1_000 + 0.5 * 2_000_000) / 100_000, 12);
  });

  it('raises the effective cost as host health falls (docs/design.md, "Cost per detected change")', () => {
    const costs = [1, 0.75, 0.5, 0.25, 0].map((hostHealth) => visitCost({ ...healthy, hostHealth }));
    for (let i = 1; i < costs.length; i += 1) expect(costs[i]).toBeGreaterThan(costs[i - 1] ?? Infinity);
    expect(costs[4]).toBe(5);
    expect(visitCost({ ...healthy, hostHealth: 0 }, { hostHealthPenalty: 0 })).toBe(1);
  });

  it('rejects inputs outside their ranges with codes', () => {
    expect(() => visitCost({ ...healthy, hostHealth: 1.5 })).toThrow(expect.objectContaining({ code: 'RECRAWL_COST_INPUT_INVALID', field: 'input.hostHealth' }));
    expect(() => visitCost({ ...healthy, expectedBytes: -1 })).toThrow(expect.objectContaining({ field: 'input.expectedBytes' }));
    expect(() => visitCost(healthy, { bytesPerUnit: 0 })).toThrow(expect.objectContaining({ code: 'RECRAWL_OPTIONS_INVALID' }));
  });
});

describe('policy constants', () => {
  it('has 3-4 value tiers, most valuable first', () => {
    expect(DEFAULT_VALUE_TIERS.length).toBeGreaterThanOrEqual(3);
    expect(DEFAULT_VALUE_TIERS.length).toBeLessThanOrEqual(4);
    const values = DEFAULT_VALUE_TIERS.map((t) => t.value);
    expect([...values].sort((a, b) => b - a)).toEqual(values);
    expect(DEFAULT_VALUE_TIERS.find((t) => t.name === 'normal')?.value).toBe(1);
  });

  it('rechecks 404/410 tombstones every 30 days and follows the starting intervals of docs/design.md, "Recrawl"', () => {
    expect(TOMBSTONE_RECHECK_DAYS).toBe(30);
    expect(isTombstoneStatus(404) && isTombstoneStatus(410)).toBe(true);
    expect(isTombstoneStatus(500) || isTombstoneStatus(200) || isTombstoneStatus(403)).toBe(false);
    expect(START_INTERVAL_DAYS.newsOrPrice * 24 * 60).toBeCloseTo(10, 9);
    expect([START_INTERVAL_DAYS.productDetail, START_INTERVAL_DAYS.documentation, START_INTERVAL_DAYS.tombstone]).toEqual([1, 7, 30]);
  });
});
