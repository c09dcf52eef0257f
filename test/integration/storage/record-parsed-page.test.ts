// A parsed page's document record, its settlement and the lock on its URL's evidence in one
// statement: the document once per (fingerprint, generation, parser version), the frontier entry
// moved once and counted once, a replayed parse changing nothing, the URL row locked to COMMIT and
// its evidence read. On Postgres.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { resolveCrawlConfig } from '../../../src/config/crawl-config.js';
import { urlFingerprint } from '../../../src/domain/url/index.js';
import { createCrawl } from '../../../src/storage/postgres/crawl-repository.js';
import { recordParsedPages, type DocumentRecord } from '../../../src/storage/postgres/document-repository.js';
import { registerFrontierEntries, type NewFrontierEntry } from '../../../src/storage/postgres/frontier-registration.js';
import type { FrontierSettlement } from '../../../src/storage/postgres/frontier-settlement.js';
import { fingerprintToBytes } from '../../../src/storage/postgres/sql-codec.js';
import { inTransaction, type PoolClient } from '../../../src/storage/postgres/pool.js';
import { createHarness, type Harness } from '../../support/crawler-harness.js';

const HOST = '127.71.1.1';
const crawlId = 'record-parsed-page';
const GENERATION = 1;

const entry = (path: string): NewFrontierEntry => {
  const url = `http://${HOST}/${path}`;
  return { fingerprint: urlFingerprint(url), url, host: HOST, origin: `http://${HOST}`, canonicalizationVersion: 1, depth: 1, priority: 1, tier: 0 };
};

const documentOf = (page: NewFrontierEntry, title: string): DocumentRecord => ({
  fingerprint: page.fingerprint,
  generation: GENERATION,
  parserVersion: 1,
  crawlId,
  title,
  language: 'en',
  canonicalHint: null,
  metaRobots: null,
  xRobotsTag: null,
  noindex: false,
  nofollow: false,
  charset: 'utf-8',
  textLength: 42,
  normalizedHash: 'ab'.repeat(32),
  simhashSigned: '-12345',
  minhash: [1, 2 ** 31 + 5],
  linksFound: 3,
  linksRegistered: 2,
  extracted: { charsetSource: 'header' },
});

/** One page through the batch statement. */
const recordParsedPage = async (client: PoolClient, document: DocumentRecord, settlement: FrontierSettlement) => (await recordParsedPages(client, [{ document, settlement }]))[0]!;

describe('recordParsedPages', () => {
  let harness: Harness;
  const [page, gone] = ['page', 'gone'].map(entry) as [NewFrontierEntry, NewFrontierEntry];
  const settlementOf = (p: NewFrontierEntry) => ({ crawlId, fingerprint: p.fingerprint, generation: GENERATION, state: 'done', outcome: 'ok' }) as const;

  const stateOf = async (p: NewFrontierEntry) => {
    const fp = fingerprintToBytes(p.fingerprint);
    const [documents, frontier, counters] = await Promise.all([
      harness.pool.query<{ title: string }>('SELECT title FROM documents WHERE fingerprint = $1', [fp]),
      harness.pool.query<{ state: string; outcome: string | null }>('SELECT state, outcome FROM frontier WHERE crawl_id = $1 AND fingerprint = $2', [crawlId, fp]),
      harness.pool.query<{ settled: number }>('SELECT COALESCE(sum(settled), 0)::int AS settled FROM crawl_counters WHERE crawl_id = $1', [crawlId]),
    ]);
    return { titles: documents.rows.map((row) => row.title), frontier: frontier.rows[0], settled: counters.rows[0]!.settled };
  };

  beforeAll(async () => {
    harness = await createHarness('record-parsed-page');
    await createCrawl(harness.pool, { id: crawlId, config: resolveCrawlConfig({ allowPrivateNetworks: true }), seedHosts: [HOST] });
    await registerFrontierEntries(harness.pool, crawlId, [page, gone], { respectDiscoveryBudget: false });
    await harness.pool.query(`UPDATE frontier SET state = 'fetched', generation = $2 WHERE crawl_id = $1`, [crawlId, GENERATION]);
  });

  afterAll(async () => {
    await harness?.close();
  });

  it('records the document, settles the entry and counts it once; a replay records and counts nothing', async () => {
    const first = await inTransaction(harness.pool, async (client) => {
      const recorded = await recordParsedPage(client, documentOf(page, 'first'), settlementOf(page));
      // The URL row stays locked until COMMIT: another transaction cannot take it meanwhile.
      await expect(harness.pool.query('SELECT 1 FROM urls WHERE fingerprint = $1 FOR UPDATE NOWAIT', [fingerprintToBytes(page.fingerprint)])).rejects.toThrow(/could not obtain lock/);
      return recorded;
    });
    expect(first).toMatchObject({ recorded: true, evidence: { host: HOST, origin: `http://${HOST}`, observed: false, ratePerDay: null } });
    expect(await stateOf(page)).toEqual({ titles: ['first'], frontier: { state: 'done', outcome: 'ok' }, settled: 1 });

    const replay = await inTransaction(harness.pool, (client) => recordParsedPage(client, documentOf(page, 'replayed'), settlementOf(page)));
    expect(replay).toMatchObject({ recorded: false, evidence: { host: HOST } });
    expect(await stateOf(page)).toEqual({ titles: ['first'], frontier: { state: 'done', outcome: 'ok' }, settled: 1 });
  });

  it('records the document of an entry no longer in flight without moving or counting it', async () => {
    await harness.pool.query(`UPDATE frontier SET state = 'failed', outcome = 'http-error' WHERE crawl_id = $1 AND fingerprint = $2`, [crawlId, fingerprintToBytes(gone.fingerprint)]);
    const recorded = await inTransaction(harness.pool, (client) => recordParsedPage(client, documentOf(gone, 'late'), settlementOf(gone)));
    expect(recorded.recorded).toBe(true);
    expect(await stateOf(gone)).toEqual({ titles: ['late'], frontier: { state: 'failed', outcome: 'http-error' }, settled: 1 });
  });

  it('answers no evidence for a URL without an identity row', async () => {
    const stranger = entry('never-registered');
    const recorded = await inTransaction(harness.pool, (client) => recordParsedPage(client, documentOf(stranger, 'stranger'), settlementOf(stranger)));
    expect(recorded).toEqual({ recorded: true, evidence: undefined });
  });

  it('records several pages in one statement, answering each in the order given', async () => {
    const [late, early] = ['z-late', 'a-early'].map(entry) as [NewFrontierEntry, NewFrontierEntry];
    await registerFrontierEntries(harness.pool, crawlId, [late, early], { respectDiscoveryBudget: false });
    await harness.pool.query(`UPDATE frontier SET state = 'fetched', generation = $2 WHERE crawl_id = $1 AND fingerprint = ANY($3)`, [
      crawlId,
      GENERATION,
      [late, early].map((p) => fingerprintToBytes(p.fingerprint)),
    ]);
    const before = (await stateOf(late)).settled;
    const stranger = entry('never-registered-either');
    const records = await inTransaction(harness.pool, (client) =>
      recordParsedPages(
        client,
        [late, page, stranger, early].map((p) => ({ document: documentOf(p, `batch ${p.url}`), settlement: settlementOf(p) })),
      ),
    );
    expect(records.map((record) => [record.recorded, record.evidence?.host])).toEqual([
      [true, HOST],
      // Recorded by the first test: a replay.
      [false, HOST],
      [true, undefined],
      [true, HOST],
    ]);
    expect(await stateOf(late)).toMatchObject({ titles: [`batch ${late.url}`], frontier: { state: 'done', outcome: 'ok' }, settled: before + 2 });
    expect((await stateOf(early)).frontier).toEqual({ state: 'done', outcome: 'ok' });
  });
});
