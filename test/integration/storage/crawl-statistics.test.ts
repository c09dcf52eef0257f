// How Postgres estimates the rows of a crawl it has not analyzed yet (migration 0014). With the
// default statistics every crawl ANALYZE saw is a most-common value, together all of the table,
// so a new crawl was estimated at 1 row and its statements scanned the whole crawl inside nested
// loops (lowering link depths took seconds a statement by the fifth crawl of a warm stack).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { resolveCrawlConfig } from '../../../src/config/crawl-config.js';
import { createCrawl } from '../../../src/storage/postgres/crawl-repository.js';
import { LOWER_FRONTIER_DEPTHS_SQL } from '../../../src/storage/postgres/frontier-depths.js';
import { registerFrontierEntries } from '../../../src/storage/postgres/frontier-registration.js';
import { fingerprintToBytes } from '../../../src/storage/postgres/sql-codec.js';
import { createHarness, type Harness } from '../../support/crawler-harness.js';
import { frontierEntry } from '../../support/frontier-entry.js';

const PAGES_PER_CRAWL = 300;

describe('per-crawl row estimates', () => {
  let harness: Harness;
  const config = resolveCrawlConfig({ allowPrivateNetworks: true, maxPages: 10_000 });
  const entriesOf = (crawl: number, count = PAGES_PER_CRAWL) =>
    Array.from({ length: count }, (_, i) => ({ ...frontierEntry(`127.74.${crawl}.1`, `p${i}`), depth: 5 }));

  beforeAll(async () => {
    harness = await createHarness('crawl-statistics');
    for (let crawl = 1; crawl <= 3; crawl++) {
      await createCrawl(harness.pool, { id: `analyzed-${crawl}`, config, seedHosts: [`127.74.${crawl}.1`] });
      await registerFrontierEntries(harness.pool, `analyzed-${crawl}`, entriesOf(crawl), { respectDiscoveryBudget: false });
    }
    await harness.pool.query('ANALYZE frontier');
  });

  afterAll(async () => {
    await harness?.close();
  });

  it('keeps at most one most-common crawl in every table keyed by crawl', async () => {
    const { rows } = await harness.pool.query<{ table: string; target: number | null }>(
      `SELECT c.relname AS table, a.attstattarget AS target
         FROM pg_attribute a JOIN pg_class c ON c.oid = a.attrelid JOIN pg_namespace n ON n.oid = c.relnamespace
        WHERE a.attname = 'crawl_id' AND c.relkind = 'r' AND n.nspname = current_schema()`,
    );
    expect(rows.length).toBeGreaterThan(10);
    expect(rows.filter((row) => row.target !== 1)).toEqual([]);
  });

  it('estimates a crawl ANALYZE has not seen at about an average crawl, not at one row', async () => {
    const { rows } = await harness.pool.query<{ 'QUERY PLAN': { Plan: { 'Plan Rows': number } }[] }>(
      `EXPLAIN (FORMAT JSON) SELECT * FROM frontier WHERE crawl_id = 'started-after-analyze'`,
    );
    const estimated = rows[0]!['QUERY PLAN'][0]!.Plan['Plan Rows'];
    expect(estimated).toBeGreaterThan(PAGES_PER_CRAWL / 4);
  });

  it('lowers depths in a crawl started after ANALYZE by key, touching only the rows it was given', async () => {
    await createCrawl(harness.pool, { id: 'started-after-analyze', config, seedHosts: ['127.74.9.1'] });
    const entries = entriesOf(9, 2000);
    await registerFrontierEntries(harness.pool, 'started-after-analyze', entries, { respectDiscoveryBudget: false });
    const given = entries
      .slice(0, 50)
      .map((entry) => entry.fingerprint)
      .sort();
    const client = await harness.pool.connect();
    try {
      await client.query('BEGIN');
      const { rows } = await client.query<{ 'QUERY PLAN': { Plan: { 'Actual Rows': number; 'Shared Hit Blocks': number; 'Shared Read Blocks': number } }[] }>(
        `EXPLAIN (ANALYZE, BUFFERS, FORMAT JSON) ${LOWER_FRONTIER_DEPTHS_SQL}`,
        ['started-after-analyze', given.map(fingerprintToBytes), given.map(() => 1), given.map(() => 10), given.map(() => 0)],
      );
      const plan = rows[0]!['QUERY PLAN'][0]!.Plan;
      expect(plan['Actual Rows']).toBe(50);
      // By key: a few blocks per row given. Scanning the crawl's 2,000 rows for each row given would be tens of thousands.
      expect(plan['Shared Hit Blocks'] + plan['Shared Read Blocks']).toBeLessThan(2000);
    } finally {
      await client.query('ROLLBACK');
      client.release();
    }
  });
});
