// A fetched body's records in one statement: body, fetch, URL and frontier entry together, under
// the body's retention lock, and repeatable. On Postgres.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { resolveCrawlConfig } from '../../../src/config/crawl-config.js';
import { urlFingerprint } from '../../../src/domain/url/index.js';
import { createCrawl } from '../../../src/storage/postgres/crawl-repository.js';
import { bodyRetentionLockKey } from '../../../src/storage/postgres/body-repository.js';
import { getFetch, recordFetchedBody } from '../../../src/storage/postgres/fetch-repository.js';
import { registerFrontierEntries, type NewFrontierEntry } from '../../../src/storage/postgres/frontier-registration.js';
import { fingerprintToBytes } from '../../../src/storage/postgres/sql-codec.js';
import { createHarness, type Harness } from '../../support/crawler-harness.js';
import { waitForLockWaiters } from '../../support/lock-waiters.js';

const HOST = '127.71.0.1';
const crawlId = 'record-fetched-body';
const GENERATION = 1;

const entry = (path: string): NewFrontierEntry => {
  const url = `http://${HOST}/${path}`;
  return { fingerprint: urlFingerprint(url), url, host: HOST, origin: `http://${HOST}`, canonicalizationVersion: 1, depth: 1, priority: 1, tier: 0 };
};

function recordsOf(page: NewFrontierEntry, sha256: string, fetchedAt: Date) {
  return {
    body: { sha256, objectKey: `bodies/${sha256}.gz`, bytes: 1200, storedBytes: 400 },
    fetch: {
      fingerprint: page.fingerprint,
      generation: GENERATION,
      crawlId,
      url: page.url,
      finalUrl: page.url,
      fetchedAt,
      status: 200,
      outcome: 'ok',
      contentType: 'text/html',
      headers: { etag: '"v1"' },
      rawHash: sha256,
      bodyKey: `bodies/${sha256}.gz`,
      bytes: 1200,
      wireBytes: 400,
      timings: { totalMs: 12 },
      redirectLocation: null,
    },
    url: { fingerprint: page.fingerprint, state: 'ok', status: 200, fetchedAt, success: true, etag: '"v1"', lastModified: null, rawHash: sha256, bytes: 1200 },
    frontier: { crawlId, fingerprint: page.fingerprint, generation: GENERATION },
  };
}

describe('recordFetchedBody', () => {
  let harness: Harness;
  const pages = ['one', 'two', 'settled'].map(entry);

  const rowsOf = async (page: NewFrontierEntry, sha256: string) => {
    const fp = fingerprintToBytes(page.fingerprint);
    const [body, url, frontier, fetches] = await Promise.all([
      harness.pool.query<{ object_key: string }>('SELECT object_key FROM bodies WHERE sha256 = $1', [Buffer.from(sha256, 'hex')]),
      harness.pool.query<{ state: string; etag: string | null; last_bytes: number | null }>('SELECT state, etag, last_bytes FROM urls WHERE fingerprint = $1', [fp]),
      harness.pool.query<{ state: string; outcome: string | null }>('SELECT state, outcome FROM frontier WHERE crawl_id = $1 AND fingerprint = $2', [crawlId, fp]),
      harness.pool.query<{ n: number }>('SELECT count(*)::int AS n FROM fetches WHERE fingerprint = $1', [fp]),
    ]);
    return { body: body.rows[0], url: url.rows[0], frontier: frontier.rows[0], fetches: fetches.rows[0]!.n };
  };

  beforeAll(async () => {
    harness = await createHarness('record-fetched-body');
    await createCrawl(harness.pool, { id: crawlId, config: resolveCrawlConfig({ allowPrivateNetworks: true }), seedHosts: [HOST] });
    await registerFrontierEntries(harness.pool, crawlId, pages, { respectDiscoveryBudget: false });
    await harness.pool.query(`UPDATE frontier SET state = 'dispatched', generation = $2 WHERE crawl_id = $1`, [crawlId, GENERATION]);
  });

  afterAll(async () => {
    await harness?.close();
  });

  it('writes the body, the fetch, the URL and moves the entry to fetched; a repeat changes nothing', async () => {
    const [page] = pages as [NewFrontierEntry];
    const sha = 'a1'.repeat(32);
    const fetchedAt = new Date('2026-11-30T12:00:00Z');
    await recordFetchedBody(harness.pool, recordsOf(page, sha, fetchedAt));
    expect(await rowsOf(page, sha)).toEqual({
      body: { object_key: `bodies/${sha}.gz` },
      url: { state: 'ok', etag: '"v1"', last_bytes: 1200 },
      frontier: { state: 'fetched', outcome: 'ok' },
      fetches: 1,
    });
    expect(await getFetch(harness.pool, page.fingerprint, GENERATION)).toMatchObject({ rawHash: sha, status: 200, fetchedAt, headers: { etag: '"v1"' } });

    // A redelivered activity: the first fetch record stays, the entry stays fetched.
    await recordFetchedBody(harness.pool, recordsOf(page, sha, new Date('2026-11-30T12:05:00Z')));
    expect((await getFetch(harness.pool, page.fingerprint, GENERATION))?.fetchedAt).toEqual(fetchedAt);
    expect((await rowsOf(page, sha)).fetches).toBe(1);
    expect((await rowsOf(page, sha)).frontier).toEqual({ state: 'fetched', outcome: 'ok' });
  });

  it('leaves an entry that is no longer in flight where it is', async () => {
    const settled = pages[2]!;
    await harness.pool.query(`UPDATE frontier SET state = 'done', outcome = 'ok' WHERE crawl_id = $1 AND fingerprint = $2`, [crawlId, fingerprintToBytes(settled.fingerprint)]);
    const sha = 'c3'.repeat(32);
    await recordFetchedBody(harness.pool, recordsOf(settled, sha, new Date()));
    expect((await rowsOf(settled, sha)).frontier).toEqual({ state: 'done', outcome: 'ok' });
  });

  it('waits for a prune holding the body’s retention lock, and writes nothing before it', async () => {
    const page = pages[1]!;
    const sha = 'b2'.repeat(32);
    const prune = await harness.pool.connect();
    try {
      await prune.query('BEGIN');
      await prune.query('SELECT pg_advisory_xact_lock($1)', [bodyRetentionLockKey(sha)]);
      const recording = recordFetchedBody(harness.pool, recordsOf(page, sha, new Date()));
      // The statement waits (on the advisory lock: no other transaction holds its rows): it took the lock before writing.
      await waitForLockWaiters(harness.pool, 'the statement waiting for the retention lock');
      expect(await rowsOf(page, sha)).toMatchObject({ body: undefined, fetches: 0, frontier: { state: 'dispatched' } });
      await prune.query('COMMIT');
      await recording;
      expect(await rowsOf(page, sha)).toMatchObject({ body: { object_key: `bodies/${sha}.gz` }, fetches: 1, frontier: { state: 'fetched' } });
    } finally {
      prune.release();
    }
  });
});
