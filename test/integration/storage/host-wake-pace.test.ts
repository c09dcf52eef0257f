// Backpressure from the workers to the frontier, on Postgres: the tick wakes no more hosts than
// the workers begin in a few seconds (src/domain/frontier/host-wake-room.ts). Before it, a crawl
// of 10,000 hosts had 7,459 woken runs queued in Temporal while 11-40 ran.
import { MockActivityEnvironment } from '@temporalio/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FrontierTickInput, FrontierTickResult } from '../../../src/contracts/activities.js';
import { resolveCrawlConfig } from '../../../src/config/crawl-config.js';
import { hostWorkflowId } from '../../../src/contracts/messages.js';
import { DEFAULT_HOST_WAKE_ROOM_OPTIONS } from '../../../src/domain/frontier/index.js';
import { createCrawl } from '../../../src/storage/postgres/crawl-repository.js';
import { registerFrontierEntries } from '../../../src/storage/postgres/frontier-registration.js';
import { hostStartQueue, markHostsActive, markHostsInactive, startHostRun } from '../../../src/storage/postgres/host-repository.js';
import { activitiesOf, createHarness, type Harness } from '../../support/crawler-harness.js';
import { frontierEntry } from '../../support/frontier-entry.js';

const QUEUE_LIMIT = DEFAULT_HOST_WAKE_ROOM_OPTIONS.minHostsAwaitingWorker;
const windows = { awaitingWindowSeconds: 300, startWindowSeconds: 10 };

describe('waking hosts at the pace workers begin them', () => {
  let harness: Harness;
  let tick: (input: FrontierTickInput) => Promise<FrontierTickResult>;
  const crawlId = `wake-pace-${Date.now()}`;
  // Hosts of this crawl, with work: their workflows are started for real (no worker runs them).
  const crawlHosts = ['127.74.9.1', '127.74.9.2', '127.74.9.3'];
  // Hosts of other crawls, woken and waiting for a worker: a full queue.
  const queuedHosts = Array.from({ length: QUEUE_LIMIT }, (_, i) => `127.74.10.${i + 1}`);
  const tickInput = (): FrontierTickInput => ({ crawlId, control: { paused: false, stopping: false, maxInFlight: 100 }, maxHostsToWake: 500, taskQueue: harness.taskQueue });
  const setWokenAgo = (hosts: string[], seconds: number) =>
    harness.pool.query(`UPDATE hosts SET woken_at = now() - make_interval(secs => $2) WHERE host = ANY($1::text[])`, [hosts, seconds]);

  beforeAll(async () => {
    harness = await createHarness('wake-pace');
    const activities = activitiesOf(harness, 'frontier ticks');
    const env = new MockActivityEnvironment();
    tick = (input) => env.run(activities.frontierTick, input);
    await createCrawl(harness.pool, { id: crawlId, config: resolveCrawlConfig({ allowPrivateNetworks: true, maxPages: 100 }), seedHosts: crawlHosts });
    await registerFrontierEntries(harness.pool, crawlId, crawlHosts.map((host) => frontierEntry(host, 'a')), { respectDiscoveryBudget: false });
  });

  afterAll(async () => {
    for (const host of crawlHosts) await harness?.client.workflow.getHandle(hostWorkflowId(host)).terminate('test over').catch(() => undefined);
    await harness?.close();
  });

  it('counts the hosts woken and not begun, and the runs begun lately', async () => {
    await markHostsActive(harness.pool, queuedHosts);
    expect(await hostStartQueue(harness.pool, windows)).toEqual({ hostsAwaitingWorker: QUEUE_LIMIT, hostsBegunInWindow: 0 });
    // Woken long ago and never begun: a lost run for its reaper, not a queue to wait behind.
    await setWokenAgo(queuedHosts.slice(0, 10), 301);
    expect((await hostStartQueue(harness.pool, windows)).hostsAwaitingWorker).toBe(QUEUE_LIMIT - 10);
    await setWokenAgo(queuedHosts.slice(0, 10), 0);
  });

  it('wakes none of the crawl\'s idle hosts while the queue in front of the workers is full', async () => {
    const result = await tick(tickInput());
    expect(result.hostsWoken).toBe(0);
    const active = await harness.pool.query('SELECT host FROM hosts WHERE host = ANY($1::text[]) AND workflow_active', [crawlHosts]);
    expect(active.rowCount).toBe(0);
  });

  it('wakes them once the workers begin the queued runs', async () => {
    for (const host of queuedHosts) await startHostRun(harness.pool, host);
    expect(await hostStartQueue(harness.pool, windows)).toEqual({ hostsAwaitingWorker: 0, hostsBegunInWindow: QUEUE_LIMIT });
    const result = await tick(tickInput());
    expect(result.hostsWoken).toBe(crawlHosts.length);
    const started = await Promise.all(crawlHosts.map((host) => harness.client.workflow.getHandle(hostWorkflowId(host)).describe()));
    expect(started.map((description) => description.status.name)).toEqual(['RUNNING', 'RUNNING', 'RUNNING']);
    // Woken, not begun (no worker polls this queue): they wait in the queue now.
    expect((await hostStartQueue(harness.pool, windows)).hostsAwaitingWorker).toBe(crawlHosts.length);
    await markHostsInactive(harness.pool, queuedHosts);
  });
});
