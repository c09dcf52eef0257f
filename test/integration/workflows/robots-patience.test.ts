// A one-shot crawl ends while a host's robots.txt is down: the URLs only that robots.txt holds
// back wait for it within the crawl's patience (asked again at robotsUnreachableRetryMs), then are
// deferred, counted in the summary, and never fetched without rules (RFC 9309 §2.3.1.4).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHarness, type Harness } from '../../support/crawler-harness.js';
import { flatWeb } from '../../support/flat-web.js';
import { politenessReport, startTestWeb, type TestWeb } from '../../support/test-web/index.js';
import type { CrawlSummary } from '../../../src/contracts/status.js';

const PATIENCE_MS = 4000;
const ROBOTS_RETRY_MS = 1000;
const DELAY_MS = 100;
/** A 503 also throttles its host (docs/failures.md): kept short here, so robots.txt is asked again at its retry time. */
const THROTTLE_MS = 500;
const PAGES = 6;
const reachable = flatWeb({ base: '127.68.0.1', hosts: 2, pagesPerHost: PAGES });
const down = flatWeb({ base: '127.68.1.1', hosts: 2, pagesPerHost: PAGES });

describe('a crawl whose hosts answer robots.txt with 503', () => {
  let harness: Harness;
  let web: TestWeb;
  let summary: CrawlSummary;
  const crawlId = `robots-patience-${Date.now()}`;

  beforeAll(async () => {
    web = await startTestWeb({ hosts: [...reachable.specs, ...down.specs.map((spec) => ({ ...spec, robotsTxt: { status: 503 } }))] });
    harness = await createHarness('wf-robots-patience');
    await harness.startWorker();
    summary = await harness.runCrawl({
      crawlId,
      seeds: [...reachable.allPageUrls(web.port), ...down.allPageUrls(web.port)],
      config: { minHostDelayMs: DELAY_MS, politeness: { robotsUnreachablePatienceMs: PATIENCE_MS, robotsUnreachableRetryMs: ROBOTS_RETRY_MS, throttleBaseDelayMs: THROTTLE_MS } },
    });
  }, 120_000);

  afterAll(async () => {
    await harness?.close();
    await web?.close();
  });

  it('ends by itself, every reachable page fetched, the others deferred and counted', () => {
    expect(summary.state).toBe('finished');
    expect(summary.pagesFetched).toBe(reachable.hosts.length * PAGES);
    expect(summary.deferred).toEqual({ 'robots-unreachable': down.hosts.length * PAGES });
    expect(summary.errorsByType).toEqual({});
  });

  it('fetched nothing but robots.txt from the hosts whose robots.txt was down, asked again within the patience', () => {
    for (const host of down.hosts) {
      const requests = web.log().filter((entry) => entry.host === host);
      expect(requests.every((entry) => entry.path === '/robots.txt')).toBe(true);
      expect(requests.length).toBeGreaterThanOrEqual(3);
      // The last ask comes within the patience, give or take one retry and one throttle wait.
      const spanMs = requests.at(-1)!.startedAtMs - requests[0]!.startedAtMs;
      expect(spanMs).toBeLessThanOrEqual(PATIENCE_MS + ROBOTS_RETRY_MS + 1.5 * THROTTLE_MS);
    }
  });

  it('keeps the deferred URLs in the frontier, marked as such', async () => {
    const rows = await harness.pool.query<{ state: string; outcome: string; n: number }>(
      `SELECT state, outcome, count(*)::int AS n FROM frontier WHERE crawl_id = $1 AND outcome LIKE 'deferred:%' GROUP BY state, outcome`,
      [crawlId],
    );
    expect(rows.rows).toEqual([{ state: 'dropped', outcome: 'deferred:robots-unreachable', n: down.hosts.length * PAGES }]);
  });

  it('stays polite', () => {
    expect(politenessReport(web.log(), DELAY_MS).violations).toEqual([]);
  });
});
