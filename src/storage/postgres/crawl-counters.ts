import { FIGURE_ORDER, holdRows, sumCountsAfterKey, type RowStatement } from './held-rows.js';
import type { Queryable } from './sql-codec.js';

/** Shards per crawl for counters that every parse and settlement bumps. */
export const COUNTER_SHARDS = 16;

/**
 * The shard a transaction writes: derived from the URL it works on, so concurrent transactions
 * spread over the shards and one transaction touches one row.
 */
export function counterShardOf(fingerprintHex: string): number {
  return parseInt(fingerprintHex.slice(0, 2), 16) % COUNTER_SHARDS;
}

export interface CounterDelta {
  settled?: number;
  returned?: number;
  discovered?: number;
}

export async function addCrawlCounters(db: Queryable, crawlId: string, shard: number, delta: CounterDelta): Promise<void> {
  const settled = delta.settled ?? 0;
  const returned = delta.returned ?? 0;
  const discovered = delta.discovered ?? 0;
  if (settled === 0 && returned === 0 && discovered === 0) return;
  await holdRows(db, CRAWL_COUNTERS_ROWS, [[crawlId, shard, settled, returned, discovered]]);
}

/** Counter bumps, one row per (crawl, shard): bumps of one row in a transaction are summed and written once. */
const CRAWL_COUNTERS_ROWS: RowStatement = {
  order: FIGURE_ORDER.crawlCounters,
  sql: `INSERT INTO crawl_counters AS c (crawl_id, shard, settled, returned, discovered)
     SELECT * FROM unnest($1::text[], $2::int[], $3::bigint[], $4::bigint[], $5::bigint[])
     ON CONFLICT (crawl_id, shard) DO UPDATE SET settled = c.settled + EXCLUDED.settled,
       returned = c.returned + EXCLUDED.returned, discovered = c.discovered + EXCLUDED.discovered`,
  keyColumns: 2,
  fold: sumCountsAfterKey(2),
};

/** SQL for a crawl's summed counters, for use inside a larger statement (one snapshot). */
export const SUMMED_COUNTERS_SQL = `(SELECT COALESCE(sum(settled), 0)::bigint AS settled, COALESCE(sum(returned), 0)::bigint AS returned,
                                            COALESCE(sum(discovered), 0)::bigint AS discovered
                                     FROM crawl_counters WHERE crawl_id = $1)`;
