/**
 * What a recrawl cycle reads and writes (docs/design.md, "Cost per detected change"): bounded candidate pools from the URL records
 * (never the whole table), host health, and the cycle's own record of plan and outcome.
 */
import type { PageSignals } from '../../domain/recrawl/index.js';
import { pageSignalsOf, SIGNAL_COLUMNS, type SignalColumns } from './cheap-signal-repository.js';
import { fingerprintFromBytes, fingerprintToBytes, type Queryable } from './sql-codec.js';

/** The URL record's facts a cycle plans with. */
export interface RecrawlUrlRow {
  fingerprint: string;
  url: string;
  host: string;
  origin: string;
  canonicalizationVersion: number;
  state: string;
  valueTier: number;
  ratePerDay: number | null;
  /** How the estimate was made (RateEstimateMethod); null before the first. */
  rateMethod: string | null;
  lastObservedAtMs: number | null;
  lastSuccessAtMs: number | null;
  lastBytes: number | null;
  /** Bytes on the wire of the last full (2xx) exchange recorded for the page, heads included; null before transfers were counted. */
  lastTransferBytes: number | null;
  hasValidators: boolean;
  changeStreak: number;
  nearDuplicate: boolean;
  nextFetchAtMs: number | null;
  /** What the sitemaps and listing pages last said about the page (cheap change signals). */
  signals: PageSignals;
}

interface UrlRow extends SignalColumns {
  fingerprint: Buffer;
  url: string;
  host: string;
  origin: string;
  canonicalization_version: number;
  state: string;
  value_tier: number;
  change_rate_per_day: number | null;
  change_rate_method: string | null;
  change_observations: number;
  last_observed_at: Date | null;
  last_success_at: Date | null;
  last_bytes: number | null;
  last_transfer_bytes: string | null;
  etag: string | null;
  last_modified: string | null;
  change_streak: number;
  near_duplicate_of: Buffer | null;
  next_fetch_at: Date | null;
}

const URL_COLUMNS = `fingerprint, url, host, origin, canonicalization_version, state, value_tier, change_rate_per_day, change_rate_method, change_observations,
  last_observed_at, last_success_at, last_bytes, etag, last_modified, change_streak, near_duplicate_of, next_fetch_at, ${SIGNAL_COLUMNS},
  (SELECT f.sent_bytes + f.received_bytes FROM fetches f
   WHERE f.fingerprint = urls.fingerprint AND f.outcome = 'ok' AND f.sent_bytes IS NOT NULL ORDER BY f.generation DESC LIMIT 1) AS last_transfer_bytes`;

const toRow = (row: UrlRow): RecrawlUrlRow => ({
  fingerprint: fingerprintFromBytes(row.fingerprint),
  url: row.url,
  host: row.host,
  origin: row.origin,
  canonicalizationVersion: row.canonicalization_version,
  state: row.state,
  valueTier: row.value_tier,
  // Before its first comparison a page has only the prior: let the planner choose it.
  ratePerDay: row.change_observations > 0 ? row.change_rate_per_day : null,
  rateMethod: row.change_rate_method,
  lastObservedAtMs: row.last_observed_at?.getTime() ?? null,
  lastSuccessAtMs: row.last_success_at?.getTime() ?? null,
  lastBytes: row.last_bytes === null ? null : Number(row.last_bytes),
  lastTransferBytes: row.last_transfer_bytes === null ? null : Number(row.last_transfer_bytes),
  hasValidators: row.etag !== null || row.last_modified !== null,
  changeStreak: row.change_streak,
  nearDuplicate: row.near_duplicate_of !== null && !row.near_duplicate_of.equals(row.fingerprint),
  nextFetchAtMs: row.next_fetch_at?.getTime() ?? null,
  signals: pageSignalsOf(row),
});

/** Sitemaps are read by the cycle's sweep, never revisited as pages. */
const NOT_A_SITEMAP = `NOT EXISTS (SELECT 1 FROM sitemaps s WHERE s.fingerprint = urls.fingerprint)`;

/** Pages a recrawl may revisit: fetched successfully once, not gone, dead or a redirect, not a sitemap. */
const RECRAWLABLE = `last_success_at IS NOT NULL AND state NOT IN ('gone', 'dead', 'redirect') AND ${NOT_A_SITEMAP}`;

export interface CandidatePoolLimits {
  /** The most overdue pages (next_fetch_at first). */
  due: number;
  /** Pages believed static (rate at or below `staticRatePerDay`), longest since observed first: re-estimation's pool. */
  static: number;
  staticRatePerDay: number;
  /** A uniform sample for verification: fingerprints are uniform hashes, so those after a random one are a random sample. */
  sample: number;
  /** 32 hex chars, the sample's random starting point. */
  sampleStart: string;
  /** Pages a sitemap or a listing says changed since the last visit, most recent first: cheap signals reach the plan even when not due. */
  signalled: number;
}

/** The union of the three bounded pools, each read through its own index. */
export async function recrawlCandidatePool(db: Queryable, limits: CandidatePoolLimits): Promise<RecrawlUrlRow[]> {
  const result = await db.query<UrlRow>(
    `WITH due AS (
       SELECT fingerprint FROM urls WHERE ${RECRAWLABLE} ORDER BY next_fetch_at NULLS FIRST LIMIT $1),
     static AS (
       SELECT fingerprint FROM urls WHERE ${RECRAWLABLE} AND change_observations > 0 AND change_rate_per_day <= $2
       ORDER BY last_observed_at LIMIT $3),
     sample AS (
       (SELECT fingerprint FROM urls WHERE ${RECRAWLABLE} AND fingerprint >= $4 ORDER BY fingerprint LIMIT $5)
       UNION ALL
       (SELECT fingerprint FROM urls WHERE ${RECRAWLABLE} AND fingerprint < $4 ORDER BY fingerprint LIMIT $5)),
     signalled AS (
       (SELECT fingerprint FROM urls
        WHERE sitemap_lastmod_from IS NOT NULL AND ${RECRAWLABLE} AND sitemap_lastmod_from > last_observed_at
        ORDER BY sitemap_lastmod_from DESC LIMIT $6)
       UNION ALL
       (SELECT fingerprint FROM urls
        WHERE listing_digest IS NOT NULL AND listing_digest_at_visit IS NOT NULL AND listing_digest <> listing_digest_at_visit AND ${RECRAWLABLE}
        ORDER BY listing_read_at DESC LIMIT $6))
     SELECT ${URL_COLUMNS} FROM urls
     WHERE fingerprint IN (SELECT fingerprint FROM due UNION SELECT fingerprint FROM static UNION SELECT fingerprint FROM sample
                           UNION SELECT fingerprint FROM signalled)`,
    [limits.due, limits.staticRatePerDay, limits.static, fingerprintToBytes(limits.sampleStart), limits.sample, limits.signalled],
  );
  return result.rows.map(toRow);
}

/**
 * Sets when URLs are next due, as a cycle's allocation allots it (epoch ms). A row another
 * transaction holds is skipped, not waited for: its visit is being recorded, which sets the time
 * anyway, and the plan never waits on (or deadlocks with) the pages of running crawls.
 */
export async function setAllottedNextFetches(db: Queryable, entries: readonly { fingerprint: string; nextFetchAtMs: number }[]): Promise<number> {
  if (entries.length === 0) return 0;
  const result = await db.query(
    `WITH v AS (SELECT * FROM unnest($1::bytea[], $2::float8[]) AS v(fingerprint, next_fetch_ms)),
     free AS (SELECT fingerprint FROM urls WHERE fingerprint = ANY($1::bytea[]) ORDER BY fingerprint FOR UPDATE SKIP LOCKED)
     UPDATE urls u SET next_fetch_at = to_timestamp(v.next_fetch_ms / 1000.0)
     FROM v JOIN free ON free.fingerprint = v.fingerprint
     WHERE u.fingerprint = v.fingerprint`,
    [entries.map((entry) => fingerprintToBytes(entry.fingerprint)), entries.map((entry) => entry.nextFetchAtMs)],
  );
  return result.rowCount ?? 0;
}

/** The records of the given URLs, in no particular order (the URLs an SLA needs visited). */
export async function recrawlUrlRows(db: Queryable, fingerprints: readonly string[]): Promise<RecrawlUrlRow[]> {
  if (fingerprints.length === 0) return [];
  const result = await db.query<UrlRow>(`SELECT ${URL_COLUMNS} FROM urls WHERE fingerprint = ANY($1::bytea[])`, [fingerprints.map(fingerprintToBytes)]);
  return result.rows.map(toRow);
}

/** 404/410 tombstones whose long recheck interval has passed, longest overdue first. */
export async function dueTombstones(db: Queryable, nowMs: number, limit: number): Promise<RecrawlUrlRow[]> {
  if (limit <= 0) return [];
  const result = await db.query<UrlRow>(
    `SELECT ${URL_COLUMNS} FROM urls WHERE state = 'gone' AND next_fetch_at <= to_timestamp($1 / 1000.0) AND ${NOT_A_SITEMAP} ORDER BY next_fetch_at LIMIT $2`,
    [nowMs, limit],
  );
  return result.rows.map(toRow);
}

/** Pages a recrawl could revisit: the denominator of the revisit interval the budget affords. */
export async function recrawlableUrlCount(db: Queryable): Promise<number> {
  const result = await db.query<{ n: number }>(`SELECT count(*)::bigint AS n FROM urls WHERE ${RECRAWLABLE}`);
  return Number(result.rows[0]?.n ?? 0);
}

export interface HostHealthRow {
  host: string;
  politeness: Record<string, unknown> | null;
  quarantined: boolean;
}

export async function hostHealthRows(db: Queryable, hosts: readonly string[]): Promise<HostHealthRow[]> {
  if (hosts.length === 0) return [];
  const result = await db.query<{ host: string; politeness: Record<string, unknown> | null; quarantined_reason: string | null }>(
    'SELECT host, politeness, quarantined_reason FROM hosts WHERE host = ANY($1::text[])',
    [hosts],
  );
  return result.rows.map((row) => ({ host: row.host, politeness: row.politeness, quarantined: row.quarantined_reason !== null }));
}

export interface RecrawlCycleRecord {
  crawlId: string;
  workflowId: string;
  scheduleId: string | null;
  plannedAt: Date;
  budget: Record<string, number>;
  plan: Record<string, unknown>;
  summary: Record<string, unknown> | null;
  finishedAt: Date | null;
}

export async function getRecrawlCycle(db: Queryable, crawlId: string): Promise<RecrawlCycleRecord | undefined> {
  const result = await db.query<{
    crawl_id: string;
    workflow_id: string;
    schedule_id: string | null;
    planned_at: Date;
    budget: Record<string, number>;
    plan: Record<string, unknown>;
    summary: Record<string, unknown> | null;
    finished_at: Date | null;
  }>('SELECT crawl_id, workflow_id, schedule_id, planned_at, budget, plan, summary, finished_at FROM recrawl_cycles WHERE crawl_id = $1', [crawlId]);
  const row = result.rows[0];
  if (!row) return undefined;
  return {
    crawlId: row.crawl_id,
    workflowId: row.workflow_id,
    scheduleId: row.schedule_id,
    plannedAt: row.planned_at,
    budget: row.budget,
    plan: row.plan,
    summary: row.summary,
    finishedAt: row.finished_at,
  };
}

/** The latest cycle a Schedule started that has planned, with its summary once it finished. */
export async function latestRecrawlCycleOf(db: Queryable, scheduleId: string): Promise<RecrawlCycleRecord | undefined> {
  const result = await db.query<{ crawl_id: string }>('SELECT crawl_id FROM recrawl_cycles WHERE schedule_id = $1 ORDER BY planned_at DESC LIMIT 1', [scheduleId]);
  const crawlId = result.rows[0]?.crawl_id;
  return crawlId === undefined ? undefined : getRecrawlCycle(db, crawlId);
}

export async function insertRecrawlCycle(
  db: Queryable,
  input: { crawlId: string; workflowId: string; scheduleId: string | null; plannedAt: Date; budget: object; plan: object },
): Promise<void> {
  await db.query(
    `INSERT INTO recrawl_cycles (crawl_id, workflow_id, schedule_id, planned_at, budget, plan) VALUES ($1, $2, $3, $4, $5, $6)
     ON CONFLICT (crawl_id) DO NOTHING`,
    [input.crawlId, input.workflowId, input.scheduleId, input.plannedAt, JSON.stringify(input.budget), JSON.stringify(input.plan)],
  );
}

export async function saveRecrawlCycleSummary(db: Queryable, crawlId: string, summary: object): Promise<void> {
  await db.query('UPDATE recrawl_cycles SET summary = $2, finished_at = COALESCE(finished_at, now()) WHERE crawl_id = $1', [crawlId, JSON.stringify(summary)]);
}

/** The cost per detected change (docs/design.md): what the cycle's requests found, and what they cost. */
export interface CycleFigures {
  requests: number;
  notModified: number;
  fullFetches: number;
  failed: number;
  bytes: number;
  wireBytes: number;
  newBodies: number;
  verdicts: Record<string, number>;
  byPurpose: Record<string, { planned: number; requested: number; changed: number; notModified: number }>;
}

export async function recrawlCycleFigures(db: Queryable, crawlId: string): Promise<CycleFigures> {
  const [fetches, bodies, verdicts, purposes] = await Promise.all([
    db.query<{ requests: number; not_modified: number; full_fetches: number; failed: number; bytes: number; wire_bytes: number }>(
      `SELECT count(*)::int AS requests,
              count(*) FILTER (WHERE outcome = 'not-modified')::int AS not_modified,
              count(*) FILTER (WHERE outcome = 'ok')::int AS full_fetches,
              count(*) FILTER (WHERE outcome NOT IN ('ok', 'not-modified', 'redirect'))::int AS failed,
              COALESCE(sum(bytes) FILTER (WHERE outcome = 'ok'), 0)::bigint AS bytes,
              COALESCE(sum(wire_bytes), 0)::bigint AS wire_bytes
       FROM fetches WHERE crawl_id = $1`,
      [crawlId],
    ),
    // Bodies no other crawl's fetch points at: what this cycle added to the object store.
    db.query<{ n: number }>(
      `SELECT count(DISTINCT f.raw_hash)::int AS n FROM fetches f
       WHERE f.crawl_id = $1 AND f.raw_hash IS NOT NULL
         AND NOT EXISTS (SELECT 1 FROM fetches g WHERE g.raw_hash = f.raw_hash AND g.crawl_id <> $1)`,
      [crawlId],
    ),
    db.query<{ verdict: string; n: number }>('SELECT verdict, count(*)::int AS n FROM url_observations WHERE crawl_id = $1 GROUP BY verdict', [crawlId]),
    db.query<{ purpose: string; planned: number; requested: number; changed: number; not_modified: number }>(
      `SELECT f.purpose, count(*)::int AS planned,
              count(x.fingerprint)::int AS requested,
              count(*) FILTER (WHERE o.verdict = 'changed')::int AS changed,
              count(*) FILTER (WHERE x.outcome = 'not-modified')::int AS not_modified
       FROM frontier f
       LEFT JOIN fetches x ON x.fingerprint = f.fingerprint AND x.generation = f.generation AND x.crawl_id = f.crawl_id
       LEFT JOIN url_observations o ON o.fingerprint = f.fingerprint AND o.generation = f.generation
       WHERE f.crawl_id = $1 GROUP BY f.purpose`,
      [crawlId],
    ),
  ]);
  const row = fetches.rows[0];
  return {
    requests: row?.requests ?? 0,
    notModified: row?.not_modified ?? 0,
    fullFetches: row?.full_fetches ?? 0,
    failed: row?.failed ?? 0,
    bytes: Number(row?.bytes ?? 0),
    wireBytes: Number(row?.wire_bytes ?? 0),
    newBodies: bodies.rows[0]?.n ?? 0,
    verdicts: Object.fromEntries(verdicts.rows.map((r) => [r.verdict, r.n])),
    byPurpose: Object.fromEntries(
      purposes.rows.map((r) => [r.purpose, { planned: r.planned, requested: r.requested, changed: r.changed, notModified: r.not_modified }]),
    ),
  };
}
