import type { CrawlConfig } from '../../config/crawl-config.js';
import type { DiscoveryReport, FrontierCounts } from '../../contracts/status.js';
import { TIER_COUNT } from '../../domain/frontier/index.js';
import { SUMMED_COUNTERS_SQL } from './crawl-counters.js';
import { inTransaction, type Pool } from './pool.js';
import type { Queryable } from './sql-codec.js';

export type CrawlRecordState = 'running' | 'paused' | 'stopping' | 'finished' | 'stopped';

export interface CrawlRecord {
  id: string;
  kind: string;
  state: CrawlRecordState;
  config: CrawlConfig;
  seedHosts: string[];
  createdAt: Date;
  finishedAt: Date | null;
  maxInFlight: number;
  admitFactor: number;
}

interface CrawlRow {
  id: string;
  kind: string;
  state: CrawlRecordState;
  config: CrawlConfig;
  seed_hosts: string[];
  created_at: Date;
  finished_at: Date | null;
  max_in_flight: number;
  admit_factor: number;
}

/** CrawlRow's columns, named: a prepared statement's result type must not change when a migration adds a column. */
const CRAWL_COLUMNS = 'id, kind, state, config, seed_hosts, created_at, finished_at, max_in_flight, admit_factor';

const toRecord = (row: CrawlRow): CrawlRecord => ({
  id: row.id,
  kind: row.kind,
  state: row.state,
  config: row.config,
  seedHosts: row.seed_hosts,
  createdAt: row.created_at,
  finishedAt: row.finished_at,
  maxInFlight: row.max_in_flight,
  admitFactor: row.admit_factor,
});

/** Creates the crawl record once; a repeated call (activity retry) leaves the first one. */
export async function createCrawl(db: Queryable, input: { id: string; kind?: string; config: CrawlConfig; seedHosts: string[] }): Promise<void> {
  // With its admission row (migration 0009), which only claims lock.
  await db.query(
    `WITH crawl AS (INSERT INTO crawls (id, kind, config, seed_hosts, max_pages, max_in_flight)
                   VALUES ($1, $2, $3, $4, $5, $6) ON CONFLICT (id) DO NOTHING)
     INSERT INTO crawl_admission (crawl_id) VALUES ($1) ON CONFLICT (crawl_id) DO NOTHING`,
    [input.id, input.kind ?? 'discovery', JSON.stringify(input.config), input.seedHosts, input.config.maxPages, input.config.maxInFlight],
  );
}

export async function addSeedHosts(db: Queryable, crawlId: string, hosts: string[]): Promise<void> {
  if (hosts.length === 0) return;
  await db.query(
    `UPDATE crawls SET seed_hosts = ARRAY(SELECT DISTINCT unnest(seed_hosts || $2::text[])) WHERE id = $1`,
    [crawlId, hosts],
  );
}

export async function getCrawl(db: Queryable, id: string): Promise<CrawlRecord | undefined> {
  const result = await db.query<CrawlRow>(`SELECT ${CRAWL_COLUMNS} FROM crawls WHERE id = $1`, [id]);
  return result.rows[0] ? toRecord(result.rows[0]) : undefined;
}

export async function listCrawls(db: Queryable, limit = 50): Promise<CrawlRecord[]> {
  const result = await db.query<CrawlRow>(`SELECT ${CRAWL_COLUMNS} FROM crawls ORDER BY created_at DESC LIMIT $1`, [limit]);
  return result.rows.map(toRecord);
}

/** The frontier workflow publishes its control decisions here; host claims enforce them. */
export async function publishCrawlControl(
  db: Queryable,
  input: { id: string; state: CrawlRecordState; maxInFlight: number; admitFactor: number; hostClaimCap: number },
): Promise<void> {
  await db.query(
    `UPDATE crawls SET state = $2, max_in_flight = $3, admit_factor = $4, host_claim_cap = $5
     WHERE id = $1 AND state NOT IN ('finished', 'stopped')`,
    [input.id, input.state, input.maxInFlight, input.admitFactor, input.hostClaimCap],
  );
}

export async function markCrawlFinished(db: Queryable, id: string, state: 'finished' | 'stopped'): Promise<void> {
  await db.query(`UPDATE crawls SET state = $2, finished_at = COALESCE(finished_at, now()) WHERE id = $1`, [id, state]);
}

/**
 * The crawl's figures from one statement, so they come from one snapshot: a claim or a parse
 * committing between two reads could otherwise show "nothing queued, nothing in flight" while a
 * URL moves from one to the other, and end the crawl early.
 */
export async function frontierCounts(db: Queryable, crawlId: string): Promise<FrontierCounts & { maxPages: number; accountedInFlight: number }> {
  const result = await db.query<{
    groups: { state: string; tier: number; outcome: string | null; signal: boolean; n: number }[] | null;
    admitted: number;
    returned: number;
    settled: number;
    discovered: number;
    max_pages: number;
  }>(
    `SELECT (SELECT json_agg(g) FROM (SELECT state, tier, outcome, purpose IN ('sitemap', 'feed') AS signal, count(*)::int AS n FROM frontier
                                      WHERE crawl_id = $1 GROUP BY state, tier, outcome, signal) g) AS groups,
            a.admitted, s.returned, s.settled, s.discovered, c.max_pages
     FROM crawls c JOIN crawl_admission a ON a.crawl_id = c.id, ${SUMMED_COUNTERS_SQL} s WHERE c.id = $1`,
    [crawlId],
  );
  const crawl = result.rows[0];
  const counts: FrontierCounts & { maxPages: number; accountedInFlight: number } = {
    queuedByTier: Array.from({ length: TIER_COUNT }, () => 0),
    queued: 0,
    // Derived from the frontier's rows, which cannot drift; the counters' figure is what claims use.
    inFlight: 0,
    accountedInFlight: Number(crawl?.admitted ?? 0) - Number(crawl?.settled ?? 0) - Number(crawl?.returned ?? 0),
    done: 0,
    failed: 0,
    dead: 0,
    dropped: 0,
    discovered: Number(crawl?.discovered ?? 0),
    admitted: Number(crawl?.admitted ?? 0) - Number(crawl?.returned ?? 0),
    fetched: 0,
    notModified: 0,
    maxPages: crawl?.max_pages ?? 0,
  };
  for (const row of crawl?.groups ?? []) {
    switch (row.state) {
      case 'queued':
        counts.queued += row.n;
        counts.queuedByTier[Math.min(TIER_COUNT - 1, row.tier)]! += row.n;
        break;
      case 'done':
        counts.done += row.n;
        // Sitemaps and feeds read are not pages (discoveryBySource counts them).
        if (row.signal) break;
        if (row.outcome === 'ok') counts.fetched += row.n;
        else if (row.outcome === 'not-modified') counts.notModified += row.n;
        break;
      case 'failed':
        counts.failed += row.n;
        break;
      case 'dead':
        counts.dead += row.n;
        break;
      case 'dropped':
        counts.dropped += row.n;
        break;
      case 'dispatched':
      case 'fetched':
        counts.inFlight += row.n;
        break;
      default:
        break;
    }
  }
  return counts;
}

/**
 * Brings the crawl's counters back to its frontier's real state when they disagree (a write from
 * before settlements and their counts committed together, or a row changed by hand): the gap is
 * booked as settled, so claims have their room back and the page budget stays conservative.
 * Under a per-crawl lock, in a statement of its own, so a repeated or concurrent call books it once.
 * Returns the gap it booked.
 */
export async function reconcileInFlight(pool: Pool, crawlId: string): Promise<number> {
  return inTransaction(pool, async (client) => {
    await client.query(`SELECT pg_advisory_xact_lock(hashtext('crawl-in-flight'), hashtext($1))`, [crawlId]);
    const result = await client.query<{ gap: number }>(
      `WITH actual AS (SELECT count(*)::bigint AS n FROM frontier WHERE crawl_id = $1 AND state IN ('dispatched', 'fetched')),
            accounted AS (SELECT a.admitted - s.settled - s.returned AS n FROM crawl_admission a, ${SUMMED_COUNTERS_SQL} s WHERE a.crawl_id = $1),
            gap AS (SELECT accounted.n - actual.n AS n FROM actual, accounted WHERE accounted.n <> actual.n),
            booked AS (
              INSERT INTO crawl_counters AS c (crawl_id, shard, settled, returned, discovered)
              SELECT $1, 0, n, 0, 0 FROM gap
              ON CONFLICT (crawl_id, shard) DO UPDATE SET settled = c.settled + EXCLUDED.settled)
       SELECT COALESCE((SELECT n FROM gap), 0)::int AS gap`,
      [crawlId],
    );
    return result.rows[0]?.gap ?? 0;
  });
}

/** Frontier outcome of a deferred URL: this prefix, then its DeferralReason. */
export const DEFERRED_OUTCOME_PREFIX = 'deferred:';

/** URLs of the crawl deferred to a later one, by reason. */
export async function deferredByReason(db: Queryable, crawlId: string): Promise<Record<string, number>> {
  const result = await db.query<{ outcome: string; n: number }>(
    `SELECT outcome, count(*)::int AS n FROM frontier WHERE crawl_id = $1 AND state = 'dropped' AND starts_with(outcome, $2) GROUP BY outcome`,
    [crawlId, DEFERRED_OUTCOME_PREFIX],
  );
  return Object.fromEntries(result.rows.map((row) => [row.outcome.slice(DEFERRED_OUTCOME_PREFIX.length), row.n]));
}

/** Pages that failed, by failure type; a sitemap or feed that failed (a seed origin without /sitemap.xml) is no page error (discoveryBySource counts it). */
export async function errorsByType(db: Queryable, crawlId: string): Promise<Record<string, number>> {
  const result = await db.query<{ outcome: string; n: number }>(
    `SELECT outcome, count(*)::int AS n FROM frontier WHERE crawl_id = $1 AND state IN ('failed', 'dead') AND purpose NOT IN ('sitemap', 'feed') GROUP BY outcome`,
    [crawlId],
  );
  return Object.fromEntries(result.rows.map((row) => [row.outcome, row.n]));
}

/**
 * How the crawl found its pages and what came of them, by frontier.source: URLs registered and
 * pages fetched (a 304 included); then the sitemaps and feeds it read, those that failed
 * (missing, refused) and those their robots.txt disallows (never requested). Entries a crawl did not discover (a recrawl's planned visits) are 'planned'.
 */
export async function discoveryBySource(db: Queryable, crawlId: string): Promise<DiscoveryReport> {
  const result = await db.query<{ source: string; purpose: string; discovered: number; fetched: number; failed: number; disallowed: number }>(
    `SELECT COALESCE(source, 'planned') AS source, CASE WHEN purpose IN ('sitemap', 'feed') THEN purpose ELSE 'page' END AS purpose,
            count(*)::int AS discovered,
            count(*) FILTER (WHERE state = 'done' AND outcome IN ('ok', 'not-modified'))::int AS fetched,
            count(*) FILTER (WHERE state IN ('failed', 'dead', 'dropped') AND outcome IS DISTINCT FROM 'robots-disallowed')::int AS failed,
            count(*) FILTER (WHERE outcome = 'robots-disallowed')::int AS disallowed
     FROM frontier WHERE crawl_id = $1 GROUP BY 1, 2 ORDER BY 1, 2`,
    [crawlId],
  );
  const report: DiscoveryReport = { bySource: {}, sitemaps: { registered: 0, read: 0, failed: 0, disallowed: 0 }, feeds: { registered: 0, read: 0, failed: 0, disallowed: 0 } };
  for (const row of result.rows) {
    if (row.purpose === 'page') {
      report.bySource[row.source] = { discovered: row.discovered, fetched: row.fetched };
      continue;
    }
    const documents = row.purpose === 'feed' ? report.feeds : report.sitemaps;
    documents.registered += row.discovered;
    documents.read += row.fetched;
    documents.failed += row.failed;
    documents.disallowed = (documents.disallowed ?? 0) + row.disallowed;
  }
  return report;
}

/**
 * The parse stage's queue for admission (docs/design.md, "Backpressure"): bodies fetched and not yet parsed, how long the
 * oldest of them has waited, and documents parsed in the last `windowSeconds`.
 */
export async function parseBacklog(
  db: Queryable,
  crawlId: string,
  windowSeconds: number,
): Promise<{ backlogItems: number; oldestAgeSeconds: number; parsedInWindow: number }> {
  const result = await db.query<{ backlog: number; oldest_age_s: number; parsed: number }>(
    `SELECT w.backlog, w.oldest_age_s,
            (SELECT count(*)::int FROM documents WHERE crawl_id = $1 AND parsed_at > now() - make_interval(secs => $2)) AS parsed
     FROM (SELECT count(*)::int AS backlog, COALESCE(EXTRACT(EPOCH FROM now() - min(updated_at)), 0)::float8 AS oldest_age_s
             FROM frontier WHERE crawl_id = $1 AND state = 'fetched') AS w`,
    [crawlId, windowSeconds],
  );
  const row = result.rows[0];
  return { backlogItems: row?.backlog ?? 0, oldestAgeSeconds: Math.max(0, row?.oldest_age_s ?? 0), parsedInWindow: row?.parsed ?? 0 };
}

/** A finished or stopped crawl made runnable again (dead letters requeued into it). */
export async function reopenCrawl(db: Queryable, id: string): Promise<void> {
  await db.query(`UPDATE crawls SET state = 'running', finished_at = NULL WHERE id = $1`, [id]);
}
