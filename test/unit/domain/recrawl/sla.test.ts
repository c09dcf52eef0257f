import { describe, expect, it } from 'vitest';
import { isSlaDue, planSlaVisits, quantile, slaDueHorizonMs, type FreshnessSla, type SlaUrl } from '../../../../src/domain/recrawl/index.js';

const NOW = 1_000_000_000;
const MIN = 60_000;
const prices: FreshnessSla = { id: 1, prefix: 'https://shop.example/prices/', maxStalenessMs: 60 * MIN };
const news: FreshnessSla = { id: 2, prefix: 'https://shop.example/news/', maxStalenessMs: 10 * MIN };
const url = (id: string, sla: FreshnessSla, minutesAgo: number): SlaUrl => ({ id, slaId: sla.id, lastSuccessAtMs: NOW - minutesAgo * MIN });

describe('freshness SLAs in a cycle', () => {
  it('counts a URL due when its promise would lapse before the next cycle’s visits could keep it', () => {
    expect(slaDueHorizonMs(NOW, 15 * MIN)).toBe(NOW + 30 * MIN);
    // An hour's promise, cycles every 15 minutes: due from 30 minutes after its last fetch.
    expect(isSlaDue(url('a', prices, 31), prices, NOW, 15 * MIN)).toBe(true);
    expect(isSlaDue(url('a', prices, 29), prices, NOW, 15 * MIN)).toBe(false);
    expect(() => slaDueHorizonMs(NOW, 0)).toThrow(expect.objectContaining({ code: 'RECRAWL_DAYS_INVALID' }));
  });

  it('plans the URLs closest to breaching first, across SLAs', () => {
    // Deadlines: p1 +10 min, p2 -5 min (breached), n1 +2 min, n2 -20 min (breached).
    const due = [url('p1', prices, 50), url('p2', prices, 65), url('n1', news, 8), url('n2', news, 30)];
    const plan = planSlaVisits(due, { 1: 2, 2: 2 }, [prices, news], 10, NOW);
    expect(plan.chosen).toEqual(['n2', 'p2', 'n1', 'p1']);
    expect(plan.shortfalls).toEqual([]);
    expect(plan.dueBySla).toEqual({ 1: 2, 2: 2 });
  });

  it('says which SLA a budget too small cannot keep, how many URLs it leaves and how far behind they are', () => {
    const due = [url('p1', prices, 50), url('p2', prices, 65), url('p3', prices, 90), url('n1', news, 8)];
    // 40 more of the price URLs are due than were read.
    const plan = planSlaVisits(due, { 1: 43, 2: 1 }, [prices, news], 2, NOW);
    expect(plan.chosen).toEqual(['p3', 'p2']);
    expect(plan.shortfalls).toEqual([
      { slaId: 1, prefix: prices.prefix, maxStalenessMs: 60 * MIN, dueUrls: 43, unplannedUrls: 41, stalestUnplannedMs: 50 * MIN, behindMs: 0 },
      { slaId: 2, prefix: news.prefix, maxStalenessMs: 10 * MIN, dueUrls: 1, unplannedUrls: 1, stalestUnplannedMs: 8 * MIN, behindMs: 0 },
    ]);
    const broke = planSlaVisits(due, { 1: 3, 2: 1 }, [prices, news], 1, NOW);
    expect(broke.shortfalls[0]).toMatchObject({ slaId: 1, unplannedUrls: 2, stalestUnplannedMs: 65 * MIN, behindMs: 5 * MIN });
    expect(planSlaVisits(due, {}, [prices, news], 0, NOW).chosen).toEqual([]);
  });

  it('breaks deadline ties by id, so a retried plan plans the same URLs', () => {
    const due = [url('b', prices, 61), url('a', prices, 61), url('c', prices, 61)];
    expect(planSlaVisits(due, {}, [prices], 2, NOW).chosen).toEqual(['a', 'b']);
  });

  it('refuses a due URL of an SLA it was not given, and a bad budget', () => {
    expect(() => planSlaVisits([url('x', news, 5)], {}, [prices], 1, NOW)).toThrow(expect.objectContaining({ code: 'RECRAWL_CANDIDATE_INVALID' }));
    expect(() => planSlaVisits([], {}, [prices], 1.5, NOW)).toThrow(expect.objectContaining({ code: 'RECRAWL_BUDGET_INVALID' }));
  });
});

describe('quantile', () => {
  it('interpolates between closest ranks as Postgres’ percentile_cont does', () => {
    expect(quantile([], 0.5)).toBeNull();
    expect(quantile([7], 0.95)).toBe(7);
    expect(quantile([4, 1, 3, 2], 0.5)).toBe(2.5);
    expect(quantile([0, 10, 20, 30, 40, 50, 60, 70, 80, 90, 100], 0.95)).toBeCloseTo(95, 12);
    expect(quantile([5, 1, 9], 1)).toBe(9);
    expect(() => quantile([1], 1.5)).toThrow(expect.objectContaining({ code: 'RECRAWL_OPTIONS_INVALID' }));
  });
});
