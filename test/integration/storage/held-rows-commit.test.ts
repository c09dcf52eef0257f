// Shared figures go to Postgres with COMMIT in one round trip, their values written into the text:
// on a real database, hostile host names, paths and rejection codes (they come from crawled pages)
// are stored exactly, and a failing write rolls the whole transaction back. A transaction may also
// open with a write sent with BEGIN (openWith), bytes and times written in as literals.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { resolveCrawlConfig } from '../../../src/config/crawl-config.js';
import { addCrawlCounters } from '../../../src/storage/postgres/crawl-counters.js';
import { createCrawl } from '../../../src/storage/postgres/crawl-repository.js';
import { migrate } from '../../../src/storage/postgres/migrate.js';
import { createPool, inTransaction, type Pool } from '../../../src/storage/postgres/pool.js';
import { FIGURE_ORDER, holdRows } from '../../../src/storage/postgres/held-rows.js';
import { recordRejections } from '../../../src/storage/postgres/rejection-repository.js';
import { addGrowthStats, addSeenStats, readSeenStats } from '../../../src/storage/postgres/url-scope-repository.js';
import { freshDatabase } from '../../support/stack-context.js';

const crawlId = "figures'); DROP TABLE crawls; --";
const hostileHosts = ["o'brien.example", 'back\\slash.example', 'quote"d.example', '$1.example', 'über.例え.jp'];

let pool: Pool;
beforeAll(async () => {
  pool = createPool({ connectionString: await freshDatabase('shared_figures_commit'), maxConnections: 2 });
  await migrate(pool);
  await createCrawl(pool, { id: crawlId, config: resolveCrawlConfig({}), seedHosts: ['seed.example'] });
});
afterAll(() => pool.end());

describe('held rows sent with COMMIT', () => {
  it('stores every figure exactly, whatever the text of hosts, paths and codes', async () => {
    await inTransaction(pool, async (client) => {
      await addCrawlCounters(client, crawlId, 3, { settled: 2, discovered: 7 });
      await addCrawlCounters(client, crawlId, 3, { settled: 1, returned: 1 });
      await addGrowthStats(
        client,
        crawlId,
        new Map(hostileHosts.map((host, i) => [host, { urls: i + 1, demoted: i, dropped: 0 }])),
        hostileHosts.map((host) => ({ host, path: `/a'b\\c"d/$2`, variants: 2 })),
      );
      await recordRejections(client, crawlId, 1, [{ url: "http://x/'", fingerprint: '00'.repeat(16), code: "trap:'quoted'\\", reason: 'r' }]);
      await addSeenStats(client, crawlId, 4, { checked: 10, unfiltered: 1, negatives: 6, positives: 3, falsePositives: 1 }, { fillRatio: 0.125, bytes: 4096 });
    });
    const counters = await pool.query('SELECT shard, settled, returned, discovered FROM crawl_counters WHERE crawl_id = $1', [crawlId]);
    expect(counters.rows).toEqual([{ shard: 3, settled: 3, returned: 1, discovered: 7 }]);
    const hosts = await pool.query('SELECT host, urls, demoted FROM crawl_host_stats WHERE crawl_id = $1 ORDER BY urls', [crawlId]);
    expect(hosts.rows).toEqual(hostileHosts.map((host, i) => ({ host, urls: i + 1, demoted: i })));
    const paths = await pool.query('SELECT DISTINCT path, variants FROM crawl_path_stats WHERE crawl_id = $1', [crawlId]);
    expect(paths.rows).toEqual([{ path: `/a'b\\c"d/$2`, variants: 2 }]);
    const rejections = await pool.query('SELECT reason, urls FROM crawl_rejection_counts WHERE crawl_id = $1', [crawlId]);
    expect(rejections.rows).toEqual([{ reason: "trap:'quoted'\\", urls: 1 }]);
    expect(await readSeenStats(pool, crawlId)).toMatchObject({ checked: 10, unfiltered: 1, negatives: 6, positives: 3, falsePositives: 1, filterFillRatio: 0.125, filterBytes: 4096 });
    expect((await pool.query('SELECT count(*)::int AS n FROM crawls')).rows[0]).toEqual({ n: 1 });
  });

  it('a failing figure write rolls back the transaction, its other writes and COMMIT included', async () => {
    await expect(
      inTransaction(pool, async (client) => {
        await client.query(`UPDATE crawls SET state = 'paused' WHERE id = $1`, [crawlId]);
        await addCrawlCounters(client, crawlId, 5, { settled: 100 });
        await holdRows(client, { order: 'z', sql: 'INSERT INTO no_such_table SELECT * FROM unnest($1::int[])', keyColumns: 1 }, [[1]]);
      }),
    ).rejects.toThrow(/no_such_table/);
    const counters = await pool.query('SELECT count(*)::int AS n FROM crawl_counters WHERE crawl_id = $1 AND shard = 5', [crawlId]);
    expect(counters.rows[0]).toEqual({ n: 0 });
    expect((await pool.query('SELECT state FROM crawls WHERE id = $1', [crawlId])).rows[0]).not.toEqual({ state: 'paused' });
    // The connection is usable again.
    expect((await pool.query('SELECT 1 AS one')).rows[0]).toEqual({ one: 1 });
  });

  it('writes bytes, byte arrays and times with COMMIT and with BEGIN exactly as bound parameters would', async () => {
    await pool.query('CREATE TABLE IF NOT EXISTS inline_probe (id text PRIMARY KEY, b bytea, bs bytea[], at timestamptz)');
    // Every byte value, a backslash and a quote among them; an empty one; a time with milliseconds.
    const bytes = Buffer.from(Array.from({ length: 256 }, (_, i) => i));
    const at = new Date(Date.UTC(2026, 11, 1, 10, 59, 58, 123));
    const probe = { order: FIGURE_ORDER.pageRows, sql: 'INSERT INTO inline_probe (id, b, at) SELECT * FROM unnest($1::text[], $2::bytea[], $3::timestamptz[])', keyColumns: 1 };
    await inTransaction(
      pool,
      async (client) => {
        await holdRows(client, probe, [
          ['with-commit', bytes, at.toISOString()],
          ['with-commit-empty', Buffer.alloc(0), null],
        ]);
        // Sent with COMMIT: not there yet inside the transaction.
        expect((await client.query(`SELECT count(*)::int AS n FROM inline_probe WHERE id = 'with-commit'`)).rows[0]).toEqual({ n: 0 });
        expect((await client.query(`SELECT b FROM inline_probe WHERE id = 'with-begin'`)).rows[0]).toEqual({ b: Buffer.from([0, 92, 39]) });
      },
      { openWith: { text: 'INSERT INTO inline_probe (id, b, bs, at) VALUES ($1, $2, $3::bytea[], $4)', values: ['with-begin', Buffer.from([0, 92, 39]), [bytes, Buffer.alloc(0), null], at] } },
    );
    const stored = await pool.query('SELECT id, b, bs, at FROM inline_probe ORDER BY id');
    expect(stored.rows).toEqual([
      { id: 'with-begin', b: Buffer.from([0, 92, 39]), bs: [bytes, Buffer.alloc(0), null], at },
      { id: 'with-commit', b: bytes, bs: null, at },
      { id: 'with-commit-empty', b: Buffer.alloc(0), bs: null, at: null },
    ]);
  });

  it('a failing opening write rolls back, and the work never runs', async () => {
    let ran = false;
    await expect(
      inTransaction(
        pool,
        async () => {
          ran = true;
        },
        { openWith: { text: 'INSERT INTO no_such_table VALUES ($1)', values: [Buffer.from('x')] } },
      ),
    ).rejects.toThrow(/no_such_table/);
    expect(ran).toBe(false);
    expect((await pool.query('SELECT 1 AS one')).rows[0]).toEqual({ one: 1 });
  });
});
