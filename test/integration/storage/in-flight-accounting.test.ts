// A crawl's in-flight accounting on Postgres survives any crash. A settlement's move and its count
// commit together (a server or process dying between them once left `admitted` 6 above `settled`
// for good: the crawl never ended and `crawler stop` stuck in stopping); the frontier tick reads
// in flight from the frontier's own rows, and books any gap the counters show so claims get their
// room back.
import { MockActivityEnvironment } from '@temporalio/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FrontierTickInput, FrontierTickResult } from '../../../src/contracts/activities.js';
import { resolveCrawlConfig } from '../../../src/config/crawl-config.js';
import { createCrawl, frontierCounts, reconcileInFlight } from '../../../src/storage/postgres/crawl-repository.js';
import { takeHostClaim } from '../../../src/storage/postgres/frontier-claims.js';
import { registerFrontierEntries } from '../../../src/storage/postgres/frontier-registration.js';
import { settleFrontierEntry } from '../../../src/storage/postgres/frontier-settlement.js';
import { requeueOrphans } from '../../../src/storage/postgres/host-repository.js';
import type { HostWorkItem } from '../../../src/contracts/activities.js';
import { activitiesOf, createHarness, type Harness } from '../../support/crawler-harness.js';
import { frontierEntry } from '../../support/frontier-entry.js';


/** A claim's URLs alone. */
const claimUrls = (...args: Parameters<typeof takeHostClaim>) => takeHostClaim(...args).then(({ items }) => items);

describe('in-flight accounting', () => {
  let harness: Harness;
  let tick: (input: FrontierTickInput) => Promise<FrontierTickResult>;
  let crawls = 0;

  /** A crawl of its own host with `pages` URLs, all claimed. */
  const newCrawl = async (crawlId: string, pages: number): Promise<HostWorkItem[]> => {
    const host = `127.72.0.${++crawls}`;
    await createCrawl(harness.pool, { id: crawlId, config: resolveCrawlConfig({ allowPrivateNetworks: true, maxPages: 100 }), seedHosts: [host] });
    await registerFrontierEntries(harness.pool, crawlId, Array.from({ length: pages }, (_, i) => frontierEntry(host, `page-${i}`)), { respectDiscoveryBudget: false });
    return claimUrls(harness.pool, { host, maxItems: pages, claimToken: `accounting-${crawls}`, random: () => 0.5, freshToken: true });
  };
  const hostOf = (item: HostWorkItem) => new URL(item.url).hostname;
  const settle = (item: HostWorkItem, state: 'done' | 'queued' | 'fetched') =>
    settleFrontierEntry(harness.pool, { crawlId: item.crawlId, fingerprint: item.fingerprint, generation: item.generation, state, outcome: 'ok' });
  /** Makes every counter write of `crawlId` fail, as a server dying at that moment would. */
  const failCounterWrites = async (crawlId: string) => {
    await harness.pool.query(`CREATE OR REPLACE FUNCTION refuse_counters() RETURNS trigger AS $$
      BEGIN IF NEW.crawl_id = TG_ARGV[0] THEN RAISE EXCEPTION 'counter write refused'; END IF; RETURN NEW; END $$ LANGUAGE plpgsql`);
    await harness.pool.query(`CREATE TRIGGER refuse_counters BEFORE INSERT OR UPDATE ON crawl_counters FOR EACH ROW EXECUTE FUNCTION refuse_counters('${crawlId}')`);
  };
  const allowCounterWrites = () => harness.pool.query('DROP TRIGGER IF EXISTS refuse_counters ON crawl_counters');
  const statesOf = async (crawlId: string) =>
    (await harness.pool.query<{ state: string; n: number }>('SELECT state, count(*)::int AS n FROM frontier WHERE crawl_id = $1 GROUP BY state ORDER BY state', [crawlId])).rows;

  beforeAll(async () => {
    harness = await createHarness('in-flight-accounting');
    const activities = activitiesOf(harness, 'frontier ticks');
    const env = new MockActivityEnvironment();
    tick = (input) => env.run(activities.frontierTick, input);
  });

  afterAll(async () => {
    await allowCounterWrites().catch(() => undefined);
    await harness?.close();
  });

  it('counts each settlement once, however often it is repeated', async () => {
    const items = await newCrawl('accounting-repeat', 3);
    expect(items).toHaveLength(3);
    expect(await settle(items[0]!, 'done')).toBe(true);
    expect(await settle(items[0]!, 'done')).toBe(false);
    expect(await settle(items[1]!, 'queued')).toBe(true);
    expect(await settle(items[2]!, 'fetched')).toBe(true);
    const counts = await frontierCounts(harness.pool, 'accounting-repeat');
    expect({ inFlight: counts.inFlight, accounted: counts.accountedInFlight, admitted: counts.admitted }).toEqual({ inFlight: 1, accounted: 1, admitted: 2 });
  });

  it('moves nothing when its count cannot be written: the move and the count commit together', async () => {
    const items = await newCrawl('accounting-atomic', 2);
    await failCounterWrites('accounting-atomic');
    try {
      await expect(settle(items[0]!, 'done')).rejects.toThrow(/counter write refused/);
      await expect(requeueOrphans(harness.pool, 'accounting-atomic', hostOf(items[1]!))).rejects.toThrow(/counter write refused/);
    } finally {
      await allowCounterWrites();
    }
    expect(await statesOf('accounting-atomic')).toEqual([{ state: 'dispatched', n: 2 }]);
    expect(await settle(items[0]!, 'done')).toBe(true);
    expect(await requeueOrphans(harness.pool, 'accounting-atomic', hostOf(items[1]!))).toBe(1);
    const counts = await frontierCounts(harness.pool, 'accounting-atomic');
    expect({ inFlight: counts.inFlight, accounted: counts.accountedInFlight }).toEqual({ inFlight: 0, accounted: 0 });
  });

  it('ends a crawl whose counters drifted, and books the gap once', async () => {
    const items = await newCrawl('accounting-drift', 4);
    for (const item of items) await settle(item, 'done');
    // Six admissions that no settlement will ever count: what a crash between two statements left.
    await harness.pool.query(`UPDATE crawl_admission SET admitted = admitted + 6 WHERE crawl_id = 'accounting-drift'`);
    const before = await frontierCounts(harness.pool, 'accounting-drift');
    expect({ inFlight: before.inFlight, accounted: before.accountedInFlight }).toEqual({ inFlight: 0, accounted: 6 });

    const result = await tick({ crawlId: 'accounting-drift', control: { paused: false, stopping: false, maxInFlight: 100 }, maxHostsToWake: 0, taskQueue: 'accounting-test' });
    expect(result.counts.inFlight).toBe(0);
    expect(result.finished).toBe(true);
    const after = await frontierCounts(harness.pool, 'accounting-drift');
    expect(after.accountedInFlight).toBe(0);
    expect(await reconcileInFlight(harness.pool, 'accounting-drift')).toBe(0);
  });

  it('books a concurrent reconciliation once', async () => {
    await newCrawl('accounting-race', 1);
    await harness.pool.query(`UPDATE crawl_admission SET admitted = admitted + 5 WHERE crawl_id = 'accounting-race'`);
    const gaps = await Promise.all([reconcileInFlight(harness.pool, 'accounting-race'), reconcileInFlight(harness.pool, 'accounting-race')]);
    expect(gaps.sort()).toEqual([0, 5]);
    const counts = await frontierCounts(harness.pool, 'accounting-race');
    expect({ inFlight: counts.inFlight, accounted: counts.accountedInFlight }).toEqual({ inFlight: 1, accounted: 1 });
  });
});
