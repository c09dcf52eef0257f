// A host's claim on Postgres: which crawls it serves (running ones with URLs queued on the host),
// how much each grants (the host's share, the in-flight limit, the page budget), that tiers are
// drawn from what each crawl holds, and that a retried claim returns what the first one took.
import { MockActivityEnvironment } from '@temporalio/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ClaimHostWorkResult } from '../../../src/contracts/activities.js';
import { resolveCrawlConfig } from '../../../src/config/crawl-config.js';
import type { RobotsCacheEntry } from '../../../src/domain/robots/index.js';
import { urlFingerprint } from '../../../src/domain/url/index.js';
import { createCrawl } from '../../../src/storage/postgres/crawl-repository.js';
import { readFetchPreflights } from '../../../src/storage/postgres/fetch-repository.js';
import { takeHostClaim } from '../../../src/storage/postgres/frontier-claims.js';
import { registerFrontierEntries, type NewFrontierEntry } from '../../../src/storage/postgres/frontier-registration.js';
import { fingerprintToBytes } from '../../../src/storage/postgres/sql-codec.js';
import { saveRobotsEntry } from '../../../src/storage/postgres/robots-repository.js';
import { activitiesOf, createHarness, type Harness } from '../../support/crawler-harness.js';
import { waitForLockWaiters } from '../../support/lock-waiters.js';

const HOST = '127.70.0.1';

const entry = (path: string, tier: number, host = HOST): NewFrontierEntry => {
  const url = `http://${host}/${path}`;
  return { fingerprint: urlFingerprint(url), url, host, origin: `http://${host}`, canonicalizationVersion: 1, depth: 1, priority: 10 - tier, tier };
};

/** A claim's URLs alone. */
const claimUrls = (...args: Parameters<typeof takeHostClaim>) => takeHostClaim(...args).then(({ items }) => items);

describe('claimHostWork', () => {
  let harness: Harness;
  let tokens = 0;
  const claim = (maxItems: number, claimToken = `claim-${++tokens}`) => claimUrls(harness.pool, { host: HOST, maxItems, claimToken, random: () => 0.5, freshToken: true });
  const stateOf = async (crawlId: string) =>
    (await harness.pool.query<{ state: string; n: number }>('SELECT state, count(*)::int AS n FROM frontier WHERE crawl_id = $1 GROUP BY state ORDER BY state', [crawlId])).rows;

  beforeAll(async () => {
    harness = await createHarness('claim-host-work');
    const config = resolveCrawlConfig({ allowPrivateNetworks: true, maxPages: 100 });
    for (const id of ['crawl-a', 'crawl-b', 'crawl-paused']) await createCrawl(harness.pool, { id, config, seedHosts: [HOST] });
    await harness.pool.query(`UPDATE crawls SET state = 'paused' WHERE id = 'crawl-paused'`);
    await registerFrontierEntries(harness.pool, 'crawl-a', [entry('a0', 0), entry('a1', 0), entry('a2', 0), entry('a3', 2), entry('a4', 2)], { respectDiscoveryBudget: false });
    await registerFrontierEntries(harness.pool, 'crawl-b', [entry('b0', 1), entry('b1', 1)], { respectDiscoveryBudget: false });
    await registerFrontierEntries(harness.pool, 'crawl-paused', [entry('p0', 0)], { respectDiscoveryBudget: false });
  });

  afterAll(async () => {
    await harness?.close();
  });

  it('grants each running crawl at most its host share, best tier first, and never a paused crawl', async () => {
    await harness.pool.query(`UPDATE crawls SET host_claim_cap = 2 WHERE id = 'crawl-a'`);
    const items = await claim(10);
    const byCrawl = (crawlId: string) => items.filter((item) => item.crawlId === crawlId).map((item) => item.url.split('/').pop());
    // Host share 2 for crawl A: with this random draw both come from tier 0 (3 there, 2 in tier 2);
    // crawl B has no cap: both of its URLs.
    expect(byCrawl('crawl-a')).toHaveLength(2);
    expect(byCrawl('crawl-a').every((path) => ['a0', 'a1', 'a2'].includes(path!))).toBe(true);
    expect(byCrawl('crawl-b').sort()).toEqual(['b0', 'b1']);
    expect(byCrawl('crawl-paused')).toEqual([]);
    expect(await stateOf('crawl-paused')).toEqual([{ state: 'queued', n: 1 }]);
    // Every claimed URL got a fetch generation and left the queue.
    expect(items.every((item) => item.generation > 0)).toBe(true);
    expect(await stateOf('crawl-b')).toEqual([{ state: 'dispatched', n: 2 }]);
  });

  it('answers a retried claim with what the first try took, and takes nothing more', async () => {
    const first = await claim(1, 'retried-claim');
    expect(first).toHaveLength(1);
    const again = await claimUrls(harness.pool, { host: HOST, maxItems: 1, claimToken: 'retried-claim', random: () => 0.5 });
    expect(again).toEqual(first);
  });

  it('stops at the in-flight limit and the page budget, and at maxItems', async () => {
    await harness.pool.query(`UPDATE crawls SET host_claim_cap = 100, max_in_flight = 4 WHERE id = 'crawl-a'`);
    // Crawl A has 3 in flight (2 + the retried claim's 1): room for one more under a limit of 4.
    const limited = await claim(10);
    expect(limited).toHaveLength(1);
    await harness.pool.query(`UPDATE crawls SET max_in_flight = 100, max_pages = 4 WHERE id = 'crawl-a'`);
    expect(await claim(10)).toEqual([]);
    await harness.pool.query(`UPDATE crawls SET max_pages = 100 WHERE id = 'crawl-a'`);
    expect(await claim(0)).toEqual([]);
    expect(await claim(1)).toHaveLength(1);
    expect(await stateOf('crawl-a')).toEqual([{ state: 'dispatched', n: 5 }]);
  });

  it('grants exactly the in-flight limit to claims racing for it, and takes tiers past the last one', async () => {
    const host = '127.70.0.2';
    const config = resolveCrawlConfig({ allowPrivateNetworks: true, maxPages: 100 });
    await createCrawl(harness.pool, { id: 'crawl-race', config, seedHosts: [host] });
    await harness.pool.query(`UPDATE crawls SET max_in_flight = 5, host_claim_cap = 100 WHERE id = 'crawl-race'`);
    const entries = Array.from({ length: 20 }, (_, i) => {
      const url = `http://${host}/r${i}`;
      // Half of them demoted past the last tier (tier 5 of 4).
      return { fingerprint: urlFingerprint(url), url, host, origin: `http://${host}`, canonicalizationVersion: 1, depth: 1, priority: 1, tier: i % 2 === 0 ? 0 : 5 };
    });
    await registerFrontierEntries(harness.pool, 'crawl-race', entries, { respectDiscoveryBudget: false });
    // The claims all select their candidates while another transaction holds the admission row,
    // then meet at it: each must grant from what the ones before it reserved, not from its snapshot.
    const holder = await harness.pool.connect();
    let racing: Awaited<ReturnType<typeof claimUrls>>[];
    try {
      await holder.query('BEGIN');
      await holder.query(`SELECT admitted FROM crawl_admission WHERE crawl_id = 'crawl-race' FOR UPDATE`);
      const claims = Array.from({ length: 4 }, (_, i) => claimUrls(harness.pool, { host, maxItems: 3, claimToken: `race-${i}`, random: () => 0.999, freshToken: true }));
      await waitForLockWaiters(holder, 'claims waiting for the admission row', 2);
      await holder.query('COMMIT');
      racing = await Promise.all(claims);
    } finally {
      await holder.query('ROLLBACK').catch(() => undefined);
      holder.release();
    }
    expect(racing.flat()).toHaveLength(5);
    expect(new Set(racing.flat().map((item) => item.url)).size).toBe(5);
    expect(await stateOf('crawl-race')).toEqual([
      { state: 'dispatched', n: 5 },
      { state: 'queued', n: 15 },
    ]);
    // Room for all: the demoted ones are claimed too, once tier 0 is empty.
    await harness.pool.query(`UPDATE crawls SET max_in_flight = 100 WHERE id = 'crawl-race'`);
    const rest = await claimUrls(harness.pool, { host, maxItems: 20, claimToken: 'race-rest', random: () => 0.5, freshToken: true });
    expect(rest).toHaveLength(15);
    expect(await stateOf('crawl-race')).toEqual([{ state: 'dispatched', n: 20 }]);
  });

  it('reads the host\'s saved record for a run\'s first claim only, and marks the run begun with it', async () => {
    const activities = activitiesOf(harness, 'a claim');
    await harness.pool.query(`INSERT INTO hosts (host, delay_override_ms, paused) VALUES ($1, 1234, false) ON CONFLICT (host) DO UPDATE SET delay_override_ms = 1234`, [HOST]);
    const runStartedAt = async () => (await harness.pool.query<{ at: Date | null }>('SELECT run_started_at AS at FROM hosts WHERE host = $1', [HOST])).rows[0]!.at;
    await harness.pool.query('UPDATE hosts SET run_started_at = NULL WHERE host = $1', [HOST]);
    const input = { host: HOST, maxItems: 1, releaseIfEmpty: false, politeness: null, paused: false, delayOverrideMs: null, taskQueue: 'claim-test' };
    const env = new MockActivityEnvironment();
    const first: ClaimHostWorkResult = await env.run(activities.claimHostWork, input);
    expect(first.host).toMatchObject({ delayOverrideMs: 1234, paused: false });
    const begun = await runStartedAt();
    expect(begun).toBeInstanceOf(Date);
    const later: ClaimHostWorkResult = await env.run(activities.claimHostWork, { ...input, withHostRecord: false });
    expect(later.host).toBeUndefined();
    expect(await runStartedAt()).toEqual(begun);
    // After a release the run went on (a wake): its next claim marks it begun again, without the record.
    const goneOn: ClaimHostWorkResult = await env.run(activities.claimHostWork, { ...input, withHostRecord: false, markRunStarted: true });
    expect(goneOn.host).toBeUndefined();
    expect((await runStartedAt())!.getTime()).toBeGreaterThan(begun!.getTime());
  });

  it("keeps the host's saved record when a run's first claim finds nothing and releases the host; a later claim's release writes the run's own", async () => {
    const activities = activitiesOf(harness, 'a releasing claim');
    const host = '127.70.0.3';
    const saved = { nextFetchAtMs: 1_900_000_000_000, inFlight: 0 };
    const record = async () =>
      (await harness.pool.query<{ politeness: unknown; paused: boolean; delay_override_ms: number | null; workflow_active: boolean }>('SELECT politeness, paused, delay_override_ms, workflow_active FROM hosts WHERE host = $1', [host])).rows[0];
    const keep = async () => harness.pool.query(`INSERT INTO hosts (host, workflow_active, politeness, paused, delay_override_ms) VALUES ($1, true, $2, true, 750)
       ON CONFLICT (host) DO UPDATE SET workflow_active = true, politeness = $2, paused = true, delay_override_ms = 750`, [host, JSON.stringify(saved)]);
    // A fresh run's values know nothing of the host (HostLoop's first claim; the wake's claim asks the same).
    const input = { host, maxItems: 4, releaseIfEmpty: true, politeness: null, paused: false, delayOverrideMs: null, taskQueue: 'claim-test' };
    await keep();
    const first: ClaimHostWorkResult = await new MockActivityEnvironment().run(activities.claimHostWork, input);
    expect(first).toMatchObject({ items: [], released: true, host: { paused: true, delayOverrideMs: 750, politeness: saved } });
    expect(await record()).toEqual({ politeness: saved, paused: true, delay_override_ms: 750, workflow_active: false });
    // A run that read the record releases with what it holds now (the operator resumed it meanwhile).
    await keep();
    const ownState = { nextFetchAtMs: 1_900_000_001_000, inFlight: 0 };
    await new MockActivityEnvironment().run(activities.claimHostWork, { ...input, withHostRecord: false, politeness: ownState, paused: false, delayOverrideMs: null });
    expect(await record()).toEqual({ politeness: ownState, paused: false, delay_override_ms: null, workflow_active: false });
  });

  it('answers a local claim run again as attempt 1 (its workflow task was lost) with what the first run took', async () => {
    const activities = activitiesOf(harness, 'a local claim');
    // A crawl of its own, so that what the tests before took does not matter.
    await harness.pool.query(`UPDATE crawls SET state = 'paused' WHERE id IN ('crawl-a', 'crawl-b')`);
    await createCrawl(harness.pool, { id: 'crawl-local', config: resolveCrawlConfig({ allowPrivateNetworks: true, maxPages: 100 }), seedHosts: [HOST] });
    await registerFrontierEntries(harness.pool, 'crawl-local', [entry('l0', 0), entry('l1', 0)], { respectDiscoveryBudget: false });
    const input = { host: HOST, maxItems: 1, releaseIfEmpty: false, politeness: null, paused: false, delayOverrideMs: null, taskQueue: 'claim-test', withHostRecord: false };
    // The same workflow run and activity id, attempt 1 both times: how a replay runs a local activity again.
    const asReplayed = () => new MockActivityEnvironment({ isLocal: true, attempt: 1, activityId: '7', workflowExecution: { workflowId: 'host/claim-test', runId: 'run-lost-task' } });
    const first: ClaimHostWorkResult = await asReplayed().run(activities.claimHostWork, input);
    expect(first.items).toHaveLength(1);
    const again: ClaimHostWorkResult = await asReplayed().run(activities.claimHostWork, input);
    expect(again.items).toEqual(first.items);
  });

  it("claims URLs to fetch with each one's preflight from the claim's own statement, as readFetchPreflights reads it", async () => {
    const host = '127.70.0.2';
    const ready = (path: string): NewFrontierEntry => {
      const url = `http://${host}/${path}`;
      return { fingerprint: urlFingerprint(url), url, host, origin: `http://${host}`, canonicalizationVersion: 1, depth: 1, priority: 5, tier: 0 };
    };
    await createCrawl(harness.pool, { id: 'crawl-ready', config: resolveCrawlConfig({ allowPrivateNetworks: true, maxPages: 100 }), seedHosts: [host] });
    await registerFrontierEntries(harness.pool, 'crawl-ready', [ready('r0'), ready('r1'), ready('r2')], { respectDiscoveryBudget: false });
    const entry: RobotsCacheEntry = { policy: { kind: 'allow-all', reason: 'robots.txt answered 404' }, fetchedAtMs: 1_000, expiresAtMs: Date.now() + 3_600_000 };
    await saveRobotsEntry(harness.pool, { origin: `http://${host}`, owner: 'claim-test', entry, sitemaps: [] });
    await harness.pool.query('UPDATE urls SET etag = $2, last_modified = $3 WHERE fingerprint = $1', [fingerprintToBytes(ready('r1').fingerprint), '"v1"', 'Tue, 01 Dec 2026 00:00:00 GMT']);

    const input = { host, maxItems: 3, claimToken: 'ready-claim', random: () => 0.5, freshToken: true };
    const { items, preflights } = await takeHostClaim(harness.pool, input, { withPreflights: true });
    expect(items.map((item) => item.url.split('/').pop()).sort()).toEqual(['r0', 'r1', 'r2']);
    expect(preflights).toEqual(await readFetchPreflights(harness.pool, items));
    expect(preflights?.find((_, i) => items[i]!.url.endsWith('/r1'))).toEqual({ robots: entry, validators: { etag: '"v1"', lastModified: 'Tue, 01 Dec 2026 00:00:00 GMT' } });

    // The same token again (a retried burst): the earlier claim's URLs, whose records readFetchPreflights must read.
    const again = await takeHostClaim(harness.pool, { ...input, freshToken: false }, { withPreflights: true });
    expect(again.items).toEqual(items);
    expect(again.preflights).toBeUndefined();
  });

  it('asks whether its token claimed before in the statement that reads the claimable crawls (a local claim, one round trip fewer)', async () => {
    const host = '127.70.0.3';
    await createCrawl(harness.pool, { id: 'crawl-counted', config: resolveCrawlConfig({ allowPrivateNetworks: true, maxPages: 100 }), seedHosts: [host] });
    await registerFrontierEntries(harness.pool, 'crawl-counted', [entry('c0', 0, host), entry('c1', 0, host)], { respectDiscoveryBudget: false });
    const statements: string[] = [];
    const counted = { query: (text: string, values?: unknown[]) => (statements.push(text), harness.pool.query(text, values)) } as unknown as typeof harness.pool;
    const input = { host, maxItems: 1, claimToken: 'maybe-used', random: () => 0.5, freshToken: false };

    const first = await claimUrls(counted, input);
    expect(first).toHaveLength(1);
    expect(statements).toHaveLength(2); // the read (token and crawls), the claim

    statements.length = 0;
    const again = await claimUrls(counted, input);
    expect(again).toEqual(first); // the earlier claim's URL, not the one still queued
    expect(statements).toHaveLength(2); // the read, the earlier claim's rows

    statements.length = 0;
    const unused = await claimUrls(counted, { ...input, claimToken: 'unused', maxItems: 5 });
    expect(unused.map((item) => item.url)).toEqual([`http://${host}/${first[0]!.url.endsWith('c0') ? 'c1' : 'c0'}`]);
    statements.length = 0;
    expect(await claimUrls(counted, { ...input, claimToken: 'nothing-left' })).toEqual([]);
    expect(statements).toHaveLength(1); // the read finds no crawl with queued URLs
  });

  describe("a run's beginning and its release, in the claim's own statements", () => {
    const host = '127.70.0.4';
    const politeness = { nextFetchAtMs: 123_456, consecutiveFailures: 0 };
    const statements: string[] = [];
    const counted = { query: (text: string, values?: unknown[]) => (statements.push(text), harness.pool.query(text, values)) } as unknown as typeof harness.pool;
    const hostRow = async () =>
      (
        await harness.pool.query<{ workflow_active: boolean; politeness: unknown; paused: boolean; delay_override_ms: number | null; run_started_at: Date | null }>(
          'SELECT workflow_active, politeness, paused, delay_override_ms, run_started_at FROM hosts WHERE host = $1',
          [host],
        )
      ).rows[0];
    const release = { politeness, paused: true, delayOverrideMs: 700 };
    let tokens = 0;
    const take = (options: Parameters<typeof takeHostClaim>[2], maxItems = 5, claimToken = `begin-${++tokens}`) =>
      takeHostClaim(counted, { host, maxItems, claimToken, random: () => 0.5, freshToken: false }, options);

    beforeAll(async () => {
      await createCrawl(harness.pool, { id: 'crawl-begin', config: resolveCrawlConfig({ allowPrivateNetworks: true, maxPages: 100 }), seedHosts: [host] });
      await registerFrontierEntries(harness.pool, 'crawl-begin', [entry('b0', 0, host), entry('b1', 0, host)], { respectDiscoveryBudget: false });
      await harness.pool.query(
        `INSERT INTO hosts (host, workflow_active, woken_at, delay_override_ms, politeness) VALUES ($1, true, now(), 250, '{"nextFetchAtMs": 1}')`,
        [host],
      );
    });

    it('begins the run in the read before the claim: the saved record as it was, the run stamped, two statements', async () => {
      statements.length = 0;
      const claim = await take({ startRun: true, releaseIfEmpty: release }, 1);
      expect(claim.items).toHaveLength(1);
      expect(claim.released).toBe(false);
      expect(claim.hostRecord).toEqual({ politeness: { nextFetchAtMs: 1 }, delayOverrideMs: 250, paused: false, quarantinedReason: null });
      expect(statements).toHaveLength(2); // the read (token, crawls, the run begun), the claim
      const row = await hostRow();
      expect(row).toMatchObject({ workflow_active: true, delay_override_ms: 250 });
      expect(row?.run_started_at).toBeInstanceOf(Date);
    });

    it('leaves the host alone when its token claimed before, even asked to release it', async () => {
      const token = 'begin-retried';
      const first = await take({}, 1, token);
      expect(first.items).toHaveLength(1);
      const again = await take({ releaseIfEmpty: release }, 1, token);
      expect(again.items).toEqual(first.items);
      expect(again.released).toBe(false);
      expect((await hostRow())?.workflow_active).toBe(true);
    });

    it('releases the host in the read when no crawl has room on it: one statement, the run begun and the record read in it', async () => {
      await harness.pool.query('UPDATE hosts SET run_started_at = NULL WHERE host = $1', [host]);
      statements.length = 0;
      const claim = await take({ startRun: true, releaseIfEmpty: release });
      expect(claim).toMatchObject({ items: [], released: true });
      // The record the run found, not the one the release wrote.
      expect(claim.hostRecord).toEqual({ politeness: { nextFetchAtMs: 1 }, delayOverrideMs: 250, paused: false, quarantinedReason: null });
      expect(statements).toHaveLength(1);
      const row = await hostRow();
      expect(row).toMatchObject({ workflow_active: false, politeness, paused: true, delay_override_ms: 700 });
      expect(row?.run_started_at).toBeInstanceOf(Date);
    });

    it('releases a host it was not asked to begin without stamping its run, and releases nothing unasked', async () => {
      await harness.pool.query('UPDATE hosts SET workflow_active = true, run_started_at = NULL WHERE host = $1', [host]);
      expect(await take({})).toMatchObject({ items: [], released: false });
      expect((await hostRow())?.workflow_active).toBe(true);
      expect(await take({ releaseIfEmpty: release })).toMatchObject({ items: [], released: true });
      expect(await hostRow()).toMatchObject({ workflow_active: false, run_started_at: null });
    });

    it('releases with a statement of its own when a crawl had room but the claim got nothing (its rows held by another claim)', async () => {
      await registerFrontierEntries(harness.pool, 'crawl-begin', [entry('b2', 0, host)], { respectDiscoveryBudget: false });
      await harness.pool.query('UPDATE hosts SET workflow_active = true WHERE host = $1', [host]);
      const holder = await harness.pool.connect();
      try {
        await holder.query('BEGIN');
        await holder.query(`SELECT 1 FROM frontier WHERE crawl_id = 'crawl-begin' AND host = $1 AND state = 'queued' FOR UPDATE`, [host]);
        statements.length = 0;
        const claim = await take({ releaseIfEmpty: release });
        expect(claim).toMatchObject({ items: [], released: true });
        expect(statements).toHaveLength(3); // the read, the claim that skipped the held rows, the release
        expect((await hostRow())?.workflow_active).toBe(false);
      } finally {
        await holder.query('ROLLBACK');
        holder.release();
      }
    });
  });
});
