// A page transaction holds its own pages' frontier rows from its first statement. When it links to
// a page another transaction is recording (holding that row) with a shorter path, and the other
// links to a URL the first has just inserted, waiting for the row would deadlock (Postgres found
// that 15 times a 1,000-host crawl). The row is lowered after COMMIT instead: both transactions
// commit, and the depth still ends lowered. On a fresh database of the real Postgres.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import pg from 'pg';
import { CrawlContextCache } from '../../../src/services/frontier/crawl-context.js';
import type { ActivityDeps } from '../../../src/services/deps.js';
import { analyzePage } from '../../../src/services/documents/page-analysis.js';
import { recordAnalyzedPages } from '../../../src/services/documents/record-pages.js';
import { resolveCrawlConfig } from '../../../src/config/crawl-config.js';
import { urlFingerprint } from '../../../src/domain/url/index.js';
import { createCrawl } from '../../../src/storage/postgres/crawl-repository.js';
import { registerFrontierEntries } from '../../../src/storage/postgres/frontier-registration.js';
import { fingerprintToBytes } from '../../../src/storage/postgres/sql-codec.js';
import { migrate } from '../../../src/storage/postgres/migrate.js';
import { createPool, type Pool } from '../../../src/storage/postgres/pool.js';
import { frontierEntry } from '../../support/frontier-entry.js';
import { freshDatabase } from '../../support/stack-context.js';

const HOST = '127.72.9.1';
const crawlId = 'held-rows';
const GENERATION = 1;
const url = (path: string): string => `http://${HOST}${path}`;

describe('recording pages beside a transaction that holds a page they link to', () => {
  let connectionString: string;
  let pool: Pool;
  let deps: ActivityDeps;

  beforeAll(async () => {
    connectionString = await freshDatabase('record_pages_held_rows');
    pool = createPool({ connectionString, maxConnections: 4 });
    await migrate(pool);
    const config = resolveCrawlConfig({ allowPrivateNetworks: true, maxDepth: 10, scope: { mode: 'same-host', allowPrefixes: [], denyPrefixes: [] } });
    await createCrawl(pool, { id: crawlId, config, seedHosts: [HOST] });
    await registerFrontierEntries(pool, crawlId, [{ ...frontierEntry(HOST, 'home'), depth: 0 }, { ...frontierEntry(HOST, 'far'), depth: 5 }], { respectDiscoveryBudget: false });
    await pool.query(`UPDATE frontier SET state = 'fetched', generation = $2 WHERE crawl_id = $1`, [crawlId, GENERATION]);
    deps = { pool, now: () => Date.UTC(2026, 11, 6, 12) } as unknown as ActivityDeps;
  });

  afterAll(async () => {
    await pool?.end();
  });

  it('commits both, and lowers the held page once the other has committed', async () => {
    const context = await new CrawlContextCache(pool, deps.now).get(crawlId);
    const home = await analyzePage(
      deps,
      context,
      {
        crawlId,
        fingerprint: urlFingerprint(url('/home')),
        generation: GENERATION,
        url: url('/home'),
        finalUrl: url('/home'),
        depth: 0,
        bodyKey: 'unused: the body is held',
        contentType: 'text/html; charset=utf-8',
        fetchedAtMs: Date.UTC(2026, 11, 6, 11),
      },
      { heldBody: Buffer.from('<!doctype html><html><head><title>home</title></head><body><a href="/far">far</a><a href="/new">new</a></body></html>') },
    );

    // The other transaction, recording /far: it holds /far's row, as its opening statement would.
    const other = new pg.Client({ connectionString });
    await other.connect();
    try {
      await other.query('BEGIN');
      await other.query(`UPDATE frontier SET updated_at = now() WHERE crawl_id = $1 AND fingerprint = $2`, [crawlId, fingerprintToBytes(urlFingerprint(url('/far')))]);

      let settled = false;
      const recording = recordAnalyzedPages(deps, [home]).finally(() => {
        settled = true;
      });
      // Until /home's transaction has inserted /new and either waits for /far's row or is past it.
      for (let tries = 0; tries < 100 && !settled; tries += 1) {
        const waiting = await pool.query(`SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'`);
        if (waiting.rows[0].n > 0) break;
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      // The other page links to /new too: its insert meets /home's, committed or not.
      await other.query(`SET LOCAL lock_timeout = '5s'`);
      await other.query(
        `INSERT INTO urls (fingerprint, url, canonicalization_version, host, origin) VALUES ($1, $2, 1, $3, $4) ON CONFLICT (fingerprint) DO NOTHING`,
        [fingerprintToBytes(urlFingerprint(url('/new'))), url('/new'), HOST, `http://${HOST}`],
      );
      await other.query('COMMIT');
      await recording;
    } finally {
      await other.end();
    }

    const depths = await pool.query<{ url: string; depth: number; links_stale: boolean }>(
      `SELECT u.url, f.depth, f.links_stale FROM frontier f JOIN urls u USING (fingerprint) WHERE f.crawl_id = $1 ORDER BY u.url`,
      [crawlId],
    );
    expect(depths.rows).toEqual([
      // Held while /home recorded: lowered after its COMMIT, and marked (it was past queued).
      { url: url('/far'), depth: 1, links_stale: true },
      { url: url('/home'), depth: 0, links_stale: false },
      { url: url('/new'), depth: 1, links_stale: false },
    ]);
  });
});
