import type pg from 'pg';

/**
 * When a connection may plan each prepared statement once, and the statistics that make it safe.
 *
 * Under the default plan_cache_mode Postgres plans our prepared statements anew on every call
 * (their unnest($n::bytea[]) batches make the generic plan look dearer than a custom one), and the
 * custom plans read more: planning takes a large share of Postgres's CPU, and the host claim
 * reads ten times the buffers the generic plan does (bench/README.md, "Figures behind the defaults"). But a generic plan is made once, from the statistics of that moment: on a fresh
 * database they say the frontier is empty, the plan scans it whole and keeps scanning as it grows
 * until autovacuum's ANALYZE replans it (a minute or more), and a first crawl runs slower.
 */

/**
 * A statement for a new connection: plan once (force_generic_plan) when every table of ours has
 * been analyzed and the frontier's and URL table's statistics count `atRows` rows each; and only
 * when nobody chose a plan_cache_mode (DATABASE_URL's `options`, PGOPTIONS, ALTER ROLE or
 * DATABASE): theirs stands. Otherwise Postgres plans for the values, as by default.
 */
export function planOnceWhenDescribedSql(atRows: number): string {
  return `SELECT set_config('plan_cache_mode', 'force_generic_plan', false)
    WHERE current_setting('plan_cache_mode') = 'auto'
      AND (SELECT count(*) = 2 AND min(reltuples) >= ${Math.max(0, Math.floor(atRows))}
             FROM pg_class WHERE oid IN (to_regclass('frontier'), to_regclass('urls')))
      AND NOT EXISTS (SELECT 1 FROM pg_stat_user_tables
                       WHERE schemaname = current_schema() AND last_analyze IS NULL AND last_autoanalyze IS NULL)`;
}

/** Rows the frontier's and URL table's statistics must count before connections plan once. */
export const DEFAULT_PLAN_ONCE_AT_ROWS = 1_000;

/**
 * Analyzes every table of ours in the current schema. Run when a crawl ends: its rows are most of
 * what the next crawl plans by, and autovacuum may take minutes to look (tables it was never
 * asked about, like a first crawl's, keep the statistics of their empty start). ANALYZE samples
 * a bounded number of rows a table, so it costs about the same on a large database.
 */
export async function refreshPlannerStatistics(pool: pg.Pool): Promise<void> {
  const tables = await pool.query<{ name: string }>(
    'SELECT quote_ident(relname) AS name FROM pg_stat_user_tables WHERE schemaname = current_schema() ORDER BY relname',
  );
  if (tables.rows.length === 0) return;
  await pool.query(`ANALYZE ${tables.rows.map((row) => row.name).join(', ')}`);
}
