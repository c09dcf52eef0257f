// The frontier tick's backpressure on Postgres (docs/design.md, "Backpressure"): bodies waiting for their parse slow
// admission only when they have waited, not because a starved parse stage parsed little lately.
// A paused host's last burst once read as a 150 s backlog, stopped admission, and made claiming
// hosts end their runs.
import { MockActivityEnvironment } from '@temporalio/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FrontierTickInput, FrontierTickResult } from '../../../src/contracts/activities.js';
import { resolveCrawlConfig } from '../../../src/config/crawl-config.js';
import { urlFingerprint } from '../../../src/domain/url/index.js';
import { createCrawl } from '../../../src/storage/postgres/crawl-repository.js';
import { registerFrontierEntries, type NewFrontierEntry } from '../../../src/storage/postgres/frontier-registration.js';
import { activitiesOf, createHarness, type Harness } from '../../support/crawler-harness.js';

const HOST = '127.71.3.1';
const crawlId = 'tick-backpressure';
const WAITING_BODIES = 10;

const entry = (i: number): NewFrontierEntry => {
  const url = `http://${HOST}/page-${i}`;
  return { fingerprint: urlFingerprint(url), url, host: HOST, origin: `http://${HOST}`, canonicalizationVersion: 1, depth: 1, priority: 1, tier: 0 };
};

describe('frontierTick backpressure', () => {
  let harness: Harness;
  let tick: (input: FrontierTickInput) => Promise<FrontierTickResult>;
  const input: FrontierTickInput = { crawlId, control: { paused: false, stopping: false, maxInFlight: 100 }, maxHostsToWake: 0, taskQueue: 'tick-test' };
  const published = async () =>
    (await harness.pool.query<{ admit_factor: number }>('SELECT admit_factor FROM crawls WHERE id = $1', [crawlId])).rows[0]!.admit_factor;
  /** The waiting bodies were fetched this many seconds ago; no document was parsed lately. */
  const bodiesWaitedFor = (seconds: number) =>
    harness.pool.query(`UPDATE frontier SET updated_at = now() - make_interval(secs => $2) WHERE crawl_id = $1 AND state = 'fetched'`, [crawlId, seconds]);

  beforeAll(async () => {
    harness = await createHarness('tick-backpressure');
    await createCrawl(harness.pool, { id: crawlId, config: resolveCrawlConfig({ allowPrivateNetworks: true, maxPages: 100 }), seedHosts: [HOST] });
    await registerFrontierEntries(harness.pool, crawlId, Array.from({ length: 30 }, (_, i) => entry(i)), { respectDiscoveryBudget: false });
    // One burst's bodies fetched and waiting for their parse; the rest queued.
    await harness.pool.query(
      `UPDATE frontier SET state = 'fetched', generation = 1 WHERE crawl_id = $1 AND fingerprint IN (SELECT fingerprint FROM frontier WHERE crawl_id = $1 ORDER BY url LIMIT $2)`,
      [crawlId, WAITING_BODIES],
    );
    const activities = activitiesOf(harness, 'a frontier tick');
    const env = new MockActivityEnvironment();
    tick = (tickInput) => env.run(activities.frontierTick, tickInput);
  });

  afterAll(async () => {
    await harness?.close();
  });

  it('admits at full speed while the waiting bodies are fresh, though nothing was parsed lately', async () => {
    await bodiesWaitedFor(0.5);
    const result = await tick(input);
    expect(result.admission.backlogSeconds).toBeGreaterThanOrEqual(0.5);
    expect(result.admission.backlogSeconds).toBeLessThan(10);
    expect(result.admission).toMatchObject({ admitFactor: 1, reason: 'ok' });
    expect(await published()).toBe(1);
  });

  it('slows admission as the oldest body waits past the target, and stops it at the maximum', async () => {
    await bodiesWaitedFor(35);
    const slowed = await tick(input);
    expect(slowed.admission.backlogSeconds).toBeGreaterThanOrEqual(35);
    expect(slowed.admission.admitFactor).toBeGreaterThan(0);
    expect(slowed.admission.admitFactor).toBeLessThan(0.5);
    expect(await published()).toBeCloseTo(slowed.admission.admitFactor, 5);

    await bodiesWaitedFor(90);
    const stopped = await tick(input);
    expect(stopped.admission).toMatchObject({ admitFactor: 0, reason: 'backlog' });
    expect(stopped.admission.backlogSeconds).toBeGreaterThanOrEqual(90);
    expect(await published()).toBe(0);
  });
});
