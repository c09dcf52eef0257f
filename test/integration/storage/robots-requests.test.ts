// robots.txt requests charged to a crawl on a real database: one attempt's requests written twice
// count once, a retried attempt's count again, and the crawl's row sums them with 2xx, 3xx and 304
// as successes and a 5xx or a failure below HTTP as failed; the entry's save charges them in its own statement.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { migrate } from '../../../src/storage/postgres/migrate.js';
import { createPool, type Pool } from '../../../src/storage/postgres/pool.js';
import { robotsCostRow, type RobotsRequestsBill } from '../../../src/storage/postgres/cost-repository.js';
import { getRobotsEntry, saveRobotsEntry } from '../../../src/storage/postgres/robots-repository.js';
import type { RobotsCacheEntry } from '../../../src/domain/robots/index.js';
import { freshDatabase } from '../../support/stack-context.js';

let pool: Pool;
beforeAll(async () => {
  pool = createPool({ connectionString: await freshDatabase('robots_requests'), maxConnections: 2 });
  await migrate(pool);
});
afterAll(() => pool.end());

/** A refresh's requests charged as the refresher charges them: with the entry it saves. */
function recordRobotsRequests(db: Pool, bill: RobotsRequestsBill): Promise<void> {
  const entry: RobotsCacheEntry = { policy: { kind: 'allow-all', reason: 'robots.txt unavailable (HTTP 404)' }, fetchedAtMs: Date.now(), expiresAtMs: Date.now() + 60_000 };
  return saveRobotsEntry(db, { origin: bill.origin, owner: 'worker/1', entry, sitemaps: [], billed: bill });
}

describe('robots.txt requests in a crawl’s bill', () => {
  it('counts one attempt’s requests once however often they are written, and a retried attempt’s again', async () => {
    const call = { crawlId: 'crawl-a', callId: 'wf/run/7', origin: 'http://a.example' };
    // A redirect, then a 200.
    const first = [
      { hop: 0, status: 301, sentBytes: 100, receivedBytes: 200 },
      { hop: 1, status: 200, sentBytes: 110, receivedBytes: 900 },
    ];
    await recordRobotsRequests(pool, { ...call, attempt: 1, requests: first });
    await recordRobotsRequests(pool, { ...call, attempt: 1, requests: first });
    // Attempt 2 of the same call: a reset below HTTP, charged what crossed.
    await recordRobotsRequests(pool, { ...call, attempt: 2, requests: [{ hop: 0, sentBytes: 100, receivedBytes: 30 }] });
    // Another crawl's refresh is not this crawl's.
    await recordRobotsRequests(pool, { ...call, crawlId: 'crawl-b', attempt: 1, requests: [{ hop: 0, status: 200, sentBytes: 1, receivedBytes: 1 }] });
    expect(await robotsCostRow(pool, 'crawl-a')).toEqual({ requests: 3, successfulRequests: 2, sentBytes: 310, receivedBytes: 1_130, failedTransferBytes: 130 });
  });

  it('takes a 304 for a success and a 5xx for a failure', async () => {
    await recordRobotsRequests(pool, {
      crawlId: 'crawl-c',
      callId: 'wf/run/9',
      attempt: 1,
      origin: 'http://c.example',
      requests: [{ hop: 0, status: 304, sentBytes: 150, receivedBytes: 120 }],
    });
    await recordRobotsRequests(pool, { crawlId: 'crawl-c', callId: 'wf/run/10', attempt: 1, origin: 'http://c.example', requests: [{ hop: 0, status: 503, sentBytes: 150, receivedBytes: 300 }] });
    expect(await robotsCostRow(pool, 'crawl-c')).toEqual({ requests: 2, successfulRequests: 1, sentBytes: 300, receivedBytes: 420, failedTransferBytes: 450 });
    expect(await robotsCostRow(pool, 'no-such-crawl')).toEqual({ requests: 0, successfulRequests: 0, sentBytes: 0, receivedBytes: 0, failedTransferBytes: 0 });
  });

  it('are charged by the statement that saves the refreshed entry, once however often it is written', async () => {
    const entry: RobotsCacheEntry = { policy: { kind: 'allow-all', reason: 'robots.txt unavailable (HTTP 404)' }, fetchedAtMs: Date.now(), expiresAtMs: Date.now() + 60_000 };
    const billed = { crawlId: 'crawl-d', callId: 'wf/run/11', attempt: 1, origin: 'http://d.example', requests: [{ hop: 0, status: 404, sentBytes: 140, receivedBytes: 160 }] };
    await saveRobotsEntry(pool, { origin: 'http://d.example', owner: 'worker/1', entry, sitemaps: [], billed });
    await saveRobotsEntry(pool, { origin: 'http://d.example', owner: 'worker/1', entry, sitemaps: [], billed });
    expect(await getRobotsEntry(pool, 'http://d.example')).toMatchObject({ policy: { kind: 'allow-all' } });
    expect(await robotsCostRow(pool, 'crawl-d')).toEqual({ requests: 1, successfulRequests: 0, sentBytes: 140, receivedBytes: 160, failedTransferBytes: 300 });
  });
});
