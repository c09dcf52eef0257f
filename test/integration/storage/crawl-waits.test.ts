// What a running crawl waits for, on Postgres: its hosts' long waits as their workflows report
// them, and its object store failures as its fetches meet them (migration 0013). The frontier
// tick carries them to the progress line and the Temporal UI; `crawler status` reads them too.
import { MockActivityEnvironment } from '@temporalio/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FrontierTickInput, FrontierTickResult } from '../../../src/contracts/activities.js';
import { describeCrawlWaits } from '../../../src/contracts/describe-waits.js';
import { resolveCrawlConfig } from '../../../src/config/crawl-config.js';
import { createCrawl } from '../../../src/storage/postgres/crawl-repository.js';
import { crawlWaits, recordHostWait, recordStorageFailure, recordStorageRecovered } from '../../../src/storage/postgres/crawl-waits-repository.js';
import { registerFrontierEntries } from '../../../src/storage/postgres/frontier-registration.js';
import { markHostsActive, markHostsInactive, startHostRun } from '../../../src/storage/postgres/host-repository.js';
import { activitiesOf, createHarness, type Harness } from '../../support/crawler-harness.js';
import { frontierEntry } from '../../support/frontier-entry.js';


describe('crawl waits', () => {
  let harness: Harness;
  let tick: (input: FrontierTickInput) => Promise<FrontierTickResult>;
  const crawlId = `waits-${Date.now()}`;
  const otherCrawlId = `${crawlId}-other`;
  const hosts = ['127.73.0.1', '127.73.0.2', '127.73.0.3', '127.73.0.4'];

  beforeAll(async () => {
    harness = await createHarness('crawl-waits');
    const activities = activitiesOf(harness, 'frontier ticks');
    const env = new MockActivityEnvironment();
    tick = (input) => env.run(activities.frontierTick, input);
    const config = resolveCrawlConfig({ allowPrivateNetworks: true, maxPages: 100 });
    await createCrawl(harness.pool, { id: crawlId, config, seedHosts: hosts.slice(0, 3) });
    await createCrawl(harness.pool, { id: otherCrawlId, config, seedHosts: [hosts[3]!] });
    await registerFrontierEntries(harness.pool, crawlId, hosts.slice(0, 3).map((host) => frontierEntry(host, 'a')), { respectDiscoveryBudget: false });
    await registerFrontierEntries(harness.pool, otherCrawlId, [frontierEntry(hosts[3]!, 'a')], { respectDiscoveryBudget: false });
  });

  afterAll(async () => {
    await harness?.close();
  });

  it('groups the long waits of hosts with work of the crawl by reason, with the first and last end', async () => {
    const nowMs = Date.now();
    await recordHostWait(harness.pool, { host: hosts[0]!, reason: 'robots-unreachable', sinceMs: nowMs - 60_000, untilMs: nowMs + 30_000 });
    await recordHostWait(harness.pool, { host: hosts[1]!, reason: 'robots-unreachable', sinceMs: nowMs - 10_000, untilMs: nowMs + 90_000 });
    // Over already: means nothing.
    await recordHostWait(harness.pool, { host: hosts[2]!, reason: 'circuit-open', sinceMs: nowMs - 60_000, untilMs: nowMs - 1_000 });
    // Another crawl's host.
    await recordHostWait(harness.pool, { host: hosts[3]!, reason: 'retry-after', sinceMs: nowMs, untilMs: nowMs + 60_000 });
    const waits = await crawlWaits(harness.pool, crawlId);
    expect(waits.hosts).toEqual([{ reason: 'robots-unreachable', hosts: 2, sinceMs: nowMs - 60_000, nextEndsAtMs: nowMs + 30_000, lastEndsAtMs: nowMs + 90_000 }]);
    expect(describeCrawlWaits(waits)).toEqual([expect.stringMatching(/^2 hosts held by an unreachable robots\.txt until \d\d:\d\d:\d\dZ to \d\d:\d\d:\d\dZ$/)]);
    // A host's next report replaces its last.
    await recordHostWait(harness.pool, { host: hosts[1]!, reason: 'circuit-open', sinceMs: nowMs, untilMs: nowMs + 45_000 });
    expect((await crawlWaits(harness.pool, crawlId)).hosts.map(({ reason, hosts: n }) => [reason, n])).toEqual([
      ['circuit-open', 1],
      ['robots-unreachable', 1],
    ]);
  });

  it('counts failed stores, says since when the store fails, and clears that once a body is stored', async () => {
    expect((await crawlWaits(harness.pool, crawlId)).storage).toEqual({ failures: 0, failingSinceMs: null, lastError: null, lastFailureAtMs: null });
    const sinceMs = Date.now() - 5_000;
    await recordStorageFailure(harness.pool, { crawlId, error: 'connect ECONNREFUSED 127.0.0.1:9000', failingSinceMs: sinceMs });
    await recordStorageFailure(harness.pool, { crawlId, error: 'connect ECONNREFUSED 127.0.0.1:9000', failingSinceMs: sinceMs + 2_000 });
    const failing = (await crawlWaits(harness.pool, crawlId)).storage;
    expect(failing).toMatchObject({ failures: 2, failingSinceMs: sinceMs, lastError: 'connect ECONNREFUSED 127.0.0.1:9000' });
    expect(describeCrawlWaits({ hosts: [], storage: failing })).toEqual([expect.stringContaining('object store failing since')]);
    await recordStorageRecovered(harness.pool, crawlId);
    const recovered = (await crawlWaits(harness.pool, crawlId)).storage;
    expect(recovered).toMatchObject({ failures: 2, failingSinceMs: null });
    expect(describeCrawlWaits({ hosts: [], storage: recovered })).toEqual([]);
    expect((await crawlWaits(harness.pool, otherCrawlId)).storage.failures).toBe(0);
  });

  it('says which woken hosts wait for a worker to begin their runs, and since when', async () => {
    expect((await crawlWaits(harness.pool, crawlId)).waitingForWorker).toBeUndefined();
    const wokenAtMs = Date.now() - 30_000;
    await markHostsActive(harness.pool, hosts.slice(0, 3));
    const setHost = (host: string, wokenAgoMs: number, runStartedAgoMs: number | null) =>
      harness.pool.query('UPDATE hosts SET woken_at = $2, run_started_at = $3 WHERE host = $1', [
        host,
        new Date(Date.now() - wokenAgoMs),
        runStartedAgoMs === null ? null : new Date(Date.now() - runStartedAgoMs),
      ]);
    // Woken 30 s ago, never begun: waits. Woken 2 s ago: too soon to say. Woken 30 s ago, begun since: runs.
    await harness.pool.query('UPDATE hosts SET woken_at = $2, run_started_at = NULL WHERE host = $1', [hosts[0], new Date(wokenAtMs)]);
    await setHost(hosts[1]!, 2_000, null);
    await setHost(hosts[2]!, 30_000, 20_000);
    const waits = await crawlWaits(harness.pool, crawlId);
    expect(waits.waitingForWorker).toEqual({ hosts: 1, sinceMs: wokenAtMs });
    expect(describeCrawlWaits(waits)).toContainEqual(expect.stringMatching(/^1 host woken since \d\d:\d\d:\d\dZ waiting for a worker to start its run \(worker slots busy, or no worker on the task queue\)$/));
    // A run that began before its host was woken again has not begun since.
    await setHost(hosts[2]!, 30_000, 40_000);
    expect((await crawlWaits(harness.pool, crawlId)).waitingForWorker?.hosts).toBe(2);
    // Another crawl's woken host is not this crawl's wait.
    await markHostsActive(harness.pool, [hosts[3]!]);
    await setHost(hosts[3]!, 30_000, null);
    expect((await crawlWaits(harness.pool, crawlId)).waitingForWorker?.hosts).toBe(2);
    expect((await crawlWaits(harness.pool, otherCrawlId)).waitingForWorker?.hosts).toBe(1);
    // The runs begin (their first claims read the host record): nothing waits.
    for (const host of hosts) await startHostRun(harness.pool, host);
    expect((await crawlWaits(harness.pool, crawlId)).waitingForWorker).toBeUndefined();
    await markHostsInactive(harness.pool, hosts);
  });

  it('reaches the frontier tick, and so the progress line', async () => {
    const result = await tick({ crawlId, control: { paused: false, stopping: false, maxInFlight: 10 }, maxHostsToWake: 0, taskQueue: harness.taskQueue });
    expect(result.waits.hosts.length).toBeGreaterThan(0);
    expect(result.waits.storage.failures).toBe(2);
  });
});
