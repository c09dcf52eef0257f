import { describe, expect, it } from 'vitest';
import { ChangeTimeline, freshnessWeb, scoreFreshness, type FreshnessPage, type RequestLogEntry } from '../../../support/test-web/index.js';

const STARTED = 1_000_000;
const fetchOf = (page: FreshnessPage, atMs: number, status: 200 | 304, bytesSent = status === 200 ? page.bytes : 0): RequestLogEntry => ({
  host: page.host,
  method: 'GET',
  path: page.path,
  startedAtMs: atMs,
  finishedAtMs: atMs + 1,
  status,
  bytesSent,
  aborted: false,
  ...(status === 304 ? { ifNoneMatch: '"x"' } : {}),
});

function pageWithChanges(path: string, ratePerDay: number, seed: number): FreshnessPage {
  return { host: '127.0.0.1', path, ratePerDay, changesPerTableDay: 0, bytes: 5_000, inSitemap: false, seed, timeline: new ChangeTimeline({ seed, ratePerDay }) };
}

describe('scoreFreshness', () => {
  it('credits a copy from its fetch until the next true change, and counts the changes a fetch finds', () => {
    // About one change a second.
    const page = pageWithChanges('/fast', 86_400, 7);
    const changes = page.timeline.changesUntil(20_000).map((t) => STARTED + t);
    const first = changes[0]!;
    const second = changes[1]!;
    const log = [fetchOf(page, STARTED, 200), fetchOf(page, second + 1, 200)];
    const toMs = second + 3;
    expect(changes[2]).toBeGreaterThan(toMs);
    const score = scoreFreshness({ pages: [page], log, webStartedAtMs: STARTED, fromMs: STARTED, toMs });
    // Fresh from the start until the first change, stale until the refetch, fresh again after it.
    expect(score.pages[0]!.freshness).toBeCloseTo((first - STARTED + 2) / (toMs - STARTED), 9);
    expect(score.policies.crawler).toMatchObject({ fetches: 2, changesDetected: 1 });
  });

  it('keeps a never-changing page fresh from its first fetch, whether the refetch is a 200 or a 304', () => {
    const page = pageWithChanges('/still', 0, 3);
    const log = [fetchOf(page, STARTED + 5_000, 200), fetchOf(page, STARTED + 8_000, 304)];
    const score = scoreFreshness({ pages: [page], log, webStartedAtMs: STARTED, fromMs: STARTED, toMs: STARTED + 10_000 });
    expect(score.pages[0]).toMatchObject({ fetches: 2, conditionalFetches: 1 });
    expect(score.pages[0]!.freshness).toBeCloseTo(0.5, 9);
    expect(score.policies.crawler.bytes).toBe(5_000);
  });

  it('gives the fixed-interval policies the crawler budget, and the optimum beats uniform beats proportional on a mixed web', () => {
    const web = freshnessWeb({ hosts: 10, pagesPerHost: 20, secondsPerDay: 60, base: '127.90.0.1', seed: 2 });
    const fromMs = STARTED + 1_000;
    const toMs = fromMs + 600_000;
    // A crawler that fetched every page once before the window and then round-robin 1 page / 200 ms.
    const log: RequestLogEntry[] = web.pages.map((page, i) => fetchOf(page, STARTED + i, 200));
    for (let t = fromMs, k = 0; t < toMs; t += 200, k += 1) log.push(fetchOf(web.pages[k % web.pages.length]!, t, 304, 0));
    const score = scoreFreshness({ pages: web.pages, log, webStartedAtMs: STARTED, fromMs, toMs });
    const { uniform, proportional, optimum, crawler } = score.policies;
    expect(crawler.fetches).toBe(3_000);
    for (const policy of [uniform, proportional, optimum]) expect(Math.abs(policy.fetches - 3_000)).toBeLessThan(web.pages.length);
    expect(optimum.freshness).toBeGreaterThan(uniform.freshness);
    expect(uniform.freshness).toBeGreaterThan(proportional.freshness);
    // The replay on the web's own change times agrees with the analytic expectation.
    expect(Math.abs(uniform.freshness - uniform.expectedFreshness!)).toBeLessThan(0.05);
    expect(Math.abs(optimum.freshness - optimum.expectedFreshness!)).toBeLessThan(0.05);
  });
});
