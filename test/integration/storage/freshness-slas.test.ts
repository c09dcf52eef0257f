// Freshness SLAs and value tiers by URL prefix, in Postgres: applied to the URLs known under a
// prefix and, by the urls trigger, to every URL recorded later; staleness per SLA and per tier;
// and a recrawl plan that takes an SLA's due URLs first, closest to breaching first, and reports
// the SLAs its budget cannot keep.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { resolveCrawlConfig } from '../../../src/config/crawl-config.js';
import { canonicalizeUrl, urlFingerprint } from '../../../src/domain/url/index.js';
import { dueSlaUrls, deleteSla, deleteTierRule, listSlas, setSla, setTierRule, stalenessReport } from '../../../src/storage/postgres/freshness-repository.js';
import { recordUrlIdentities } from '../../../src/storage/postgres/frontier-registration.js';
import { fingerprintToBytes } from '../../../src/storage/postgres/sql-codec.js';
import { activitiesOf, createHarness, type Harness } from '../../support/crawler-harness.js';

const SECOND = 1000;
const MINUTE = 60 * SECOND;
const ORIGIN = 'http://127.89.0.1:8080';
const PRICES = `${ORIGIN}/prices/`;
const SALE = `${ORIGIN}/prices/sale/`;
const BLOG = `${ORIGIN}/blog/`;

describe('freshness SLAs and value tiers by prefix', () => {
  let harness: Harness;
  const nowMs = Date.now();

  /** Records URLs (as link registration does) fetched successfully `minutesAgo` minutes ago. */
  async function known(paths: Record<string, number | null>): Promise<void> {
    const identities = Object.keys(paths).map((path) => {
      const url = canonicalizeUrl(`${ORIGIN}${path}`);
      return { fingerprint: urlFingerprint(url.url), url: url.url, canonicalizationVersion: 1, host: url.host, origin: url.origin };
    });
    await recordUrlIdentities(harness.pool, identities);
    for (const [path, minutesAgo] of Object.entries(paths)) {
      if (minutesAgo === null) continue;
      await harness.pool.query(`UPDATE urls SET state = 'ok', last_success_at = to_timestamp($2 / 1000.0) WHERE fingerprint = $1`, [
        fingerprintToBytes(urlFingerprint(canonicalizeUrl(`${ORIGIN}${path}`).url)),
        nowMs - minutesAgo * MINUTE,
      ]);
    }
  }

  async function ruleOf(path: string): Promise<{ sla_prefix: string | null; value_tier: number }> {
    const result = await harness.pool.query<{ sla_prefix: string | null; value_tier: number }>('SELECT sla_prefix, value_tier FROM urls WHERE url = $1', [canonicalizeUrl(`${ORIGIN}${path}`).url]);
    return result.rows[0]!;
  }

  beforeAll(async () => {
    harness = await createHarness('freshness-slas');
    await known({ '/prices/a': 50, '/prices/b': 20, '/prices/c': 5, '/prices/sale/x': 12, '/blog/post-1': 600, '/about': null });
  });

  afterAll(async () => {
    await harness?.close();
  });

  it('applies an SLA and its tier to the URLs known under its prefix, and to URLs recorded later', async () => {
    const { sla, urls } = await setSla(harness.pool, { prefix: PRICES, maxStalenessMs: 30 * MINUTE, tier: 0 });
    expect(urls).toBe(4);
    expect(await ruleOf('/prices/a')).toEqual({ sla_prefix: PRICES, value_tier: 0 });
    expect(await ruleOf('/blog/post-1')).toEqual({ sla_prefix: null, value_tier: 2 });
    await known({ '/prices/d': null });
    expect(await ruleOf('/prices/d')).toEqual({ sla_prefix: PRICES, value_tier: 0 });
    expect(await listSlas(harness.pool)).toEqual([{ id: sla.id, prefix: PRICES, maxStalenessMs: 30 * MINUTE, tier: 0 }]);
  });

  it('lets the longest prefix win, and a deleted rule hand its URLs back to the next one', async () => {
    await setSla(harness.pool, { prefix: SALE, maxStalenessMs: 5 * MINUTE });
    expect((await ruleOf('/prices/sale/x')).sla_prefix).toBe(SALE);
    // The sale SLA sets no tier: the prices SLA's tier still holds there.
    expect((await ruleOf('/prices/sale/x')).value_tier).toBe(0);
    await setTierRule(harness.pool, { prefix: BLOG, tier: 3 });
    expect((await ruleOf('/blog/post-1')).value_tier).toBe(3);
    await known({ '/blog/post-2': null });
    expect((await ruleOf('/blog/post-2')).value_tier).toBe(3);
    expect(await deleteTierRule(harness.pool, BLOG)).toBe(true);
    expect((await ruleOf('/blog/post-2')).value_tier).toBe(2);
    expect(await deleteSla(harness.pool, SALE)).toBe(true);
    expect((await ruleOf('/prices/sale/x')).sla_prefix).toBe(PRICES);
    expect(await deleteSla(harness.pool, SALE)).toBe(false);
  });

  it('measures staleness per SLA against its promise, and per tier', async () => {
    const report = await stalenessReport(harness.pool, nowMs);
    // The prices SLA: 50, 20, 12 and 5 minutes, and /prices/d never fetched.
    expect(report.bySla).toEqual([
      expect.objectContaining({ prefix: PRICES, maxStalenessMs: 30 * MINUTE, urls: 4, neverFetched: 1, p50Ms: 16 * MINUTE, maxMs: 50 * MINUTE, breaching: 1 }),
    ]);
    expect(report.bySla[0]!.p95Ms).toBeCloseTo(45.5 * MINUTE, -2);
    const tier0 = report.byTier.find((tier) => tier.tier === 0)!;
    expect(tier0).toMatchObject({ urls: 4, neverFetched: 1, maxMs: 50 * MINUTE });
    expect(report.tiersSampled).toBe(false);
  });

  it('reads the URLs due this cycle, closest to breaching first, and counts them all', async () => {
    // A 30-minute promise, due before now + 20 minutes: fetched more than 10 minutes ago.
    const due = await dueSlaUrls(harness.pool, { dueBeforeMs: nowMs + 20 * MINUTE, limit: 2 });
    const [sla] = await listSlas(harness.pool);
    expect(due.counts).toEqual({ [sla!.id]: 3 });
    expect(due.urls.map((row) => Math.round((nowMs - row.lastSuccessAtMs) / MINUTE))).toEqual([50, 20]);
  });

  it('plans an SLA’s due URLs first, and reports a budget too small to keep it', async () => {
    const plan = await activitiesOf(harness, 'sla plan').planRecrawl({
      crawlId: 'sla-plan-1',
      workflowId: 'recrawl/sla-plan-1',
      config: resolveCrawlConfig({ allowPrivateNetworks: true }),
      // Cycles every 10 minutes: the 30-minute promise is due 10 minutes after a fetch.
      settings: { budget: 2, everyMs: 10 * MINUTE },
    });
    expect(plan.planned.sla).toBe(2);
    expect(plan.budget.sla).toBe(2);
    expect(plan.sla?.due).toBe(3);
    expect(plan.sla?.shortfalls).toEqual([expect.objectContaining({ prefix: PRICES, dueUrls: 3, unplannedUrls: 1, behindMs: 0 })]);
    // The URL left is the one fetched 12 minutes ago (the plan's clock ran on a little since).
    expect(plan.sla!.shortfalls[0]!.stalestUnplannedMs).toBeGreaterThanOrEqual(12 * MINUTE);
    expect(plan.sla!.shortfalls[0]!.stalestUnplannedMs).toBeLessThan(13 * MINUTE);
    const frontier = await harness.pool.query<{ url: string; purpose: string; priority: number }>(`SELECT url, purpose, priority FROM frontier WHERE crawl_id = 'sla-plan-1' ORDER BY priority DESC`);
    expect(frontier.rows.filter((row) => row.purpose === 'sla').map((row) => row.url)).toEqual([`${PRICES}a`, `${PRICES}b`]);
    // Planned first: they come before anything else of the plan in their host's queue.
    expect(frontier.rows.slice(0, 2).map((row) => row.purpose)).toEqual(['sla', 'sla']);

    const roomy = await activitiesOf(harness, 'sla plan').planRecrawl({
      crawlId: 'sla-plan-2',
      workflowId: 'recrawl/sla-plan-2',
      config: resolveCrawlConfig({ allowPrivateNetworks: true }),
      settings: { budget: 20, everyMs: 10 * MINUTE },
    });
    expect(roomy.planned.sla).toBe(3);
    expect(roomy.sla?.shortfalls).toEqual([]);
  });
});
