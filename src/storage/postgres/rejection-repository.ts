/**
 * The URLs a crawl refused to register, and why: counts by reason code (all of them), a bounded
 * sample of the URLs themselves, and which refusals still stand at the crawl's end. Both writes go
 * with COMMIT inside a transaction (held-rows.ts).
 */
import { fingerprintToBytes, type Queryable } from './sql-codec.js';
import { FIGURE_ORDER, holdRows, sumCountsAfterKey, type RowStatement } from './held-rows.js';

/** The refusal codes registration decides (a URL beyond maxDepth; a new URL the spent discovery budget left out). */
export { DEPTH_REFUSAL, DISCOVERY_BUDGET_REFUSAL } from '../../domain/registration/index.js';

/** crawl_rejections keeps at most this many URLs per crawl; crawl_rejection_counts counts them all. */
export const MAX_REJECTION_ROWS_PER_CRAWL = 10_000;

export interface Rejection {
  url: string;
  fingerprint: string;
  /** Stable code for counting: `out-of-scope:host`, `depth`, `trap:calendar`, `robots-disallowed`, ... */
  code: string;
  /** For operators: what was measured and what happens next. */
  reason: string;
  detail?: unknown;
}

/**
 * Counts every rejection by code; keeps the URLs themselves up to MAX_REJECTION_ROWS_PER_CRAWL.
 * Both go with COMMIT inside a transaction. `countedBefore`: the refusals counted before these (as
 * readRegistrationFacts read them), else read here; read without a lock, so concurrent parses may
 * keep a few rows over the cap.
 */
export async function recordRejections(
  db: Queryable,
  crawlId: string,
  shard: number,
  rejections: readonly Rejection[],
  options: { countedBefore?: number; maxRowsPerCall?: number } = {},
): Promise<void> {
  if (rejections.length === 0) return;
  const byCode = new Map<string, number>();
  for (const rejection of rejections) byCode.set(rejection.code, (byCode.get(rejection.code) ?? 0) + 1);
  await holdRows(db, REJECTION_COUNT_ROWS, [...byCode].map(([code, n]) => [crawlId, code, shard, n]));
  const countedBefore =
    options.countedBefore ?? Number((await db.query<{ total: string }>('SELECT COALESCE(sum(urls), 0) AS total FROM crawl_rejection_counts WHERE crawl_id = $1', [crawlId])).rows[0]?.total ?? 0);
  const room = Math.min(options.maxRowsPerCall ?? 200, MAX_REJECTION_ROWS_PER_CRAWL - countedBefore);
  if (room <= 0) return;
  await holdRows(
    db,
    REJECTED_URL_ROWS,
    rejections
      .slice(0, room)
      .map((rejection) => [
        crawlId,
        fingerprintToBytes(rejection.fingerprint),
        rejection.url.slice(0, 2048),
        `${rejection.code}: ${rejection.reason}`.slice(0, 1000),
        rejection.detail === undefined ? null : JSON.stringify(rejection.detail),
      ]),
  );
}

/** A sample of the refused URLs, one row per (crawl, URL): the first refusal of a URL is kept. */
const REJECTED_URL_ROWS: RowStatement = {
  order: FIGURE_ORDER.pageRows,
  sql: `INSERT INTO crawl_rejections (crawl_id, fingerprint, url, reason, detail)
     SELECT * FROM unnest($1::text[], $2::bytea[], $3::text[], $4::text[], $5::jsonb[])
     ON CONFLICT (crawl_id, fingerprint) DO NOTHING`,
  keyColumns: 2,
};

/** Refusals per (crawl, reason, shard), summed. */
const REJECTION_COUNT_ROWS: RowStatement = {
  order: FIGURE_ORDER.rejectionCounts,
  sql: `INSERT INTO crawl_rejection_counts (crawl_id, reason, shard, urls)
     SELECT * FROM unnest($1::text[], $2::text[], $3::int[], $4::bigint[])
     ON CONFLICT (crawl_id, reason, shard) DO UPDATE SET urls = crawl_rejection_counts.urls + EXCLUDED.urls`,
  keyColumns: 3,
  fold: sumCountsAfterKey(3),
};

/** URLs the crawl refused to register, by reason (out of scope, a trap, the budget), most first. */
export async function readRejectionCounts(db: Queryable, crawlId: string): Promise<Record<string, number>> {
  const rejections = await db.query<{ reason: string; urls: string }>('SELECT reason, sum(urls) AS urls FROM crawl_rejection_counts WHERE crawl_id = $1 GROUP BY reason ORDER BY 2 DESC, reason', [crawlId]);
  return Object.fromEntries(rejections.rows.map((row) => [row.reason, Number(row.urls)]));
}

/** Refused URLs of one reason code at a crawl's end (standingRefusals). */
export interface StandingRefusals {
  /** Refusals counted (a URL refused twice counts twice). */
  counted: number;
  /** URLs of the kept sample refused for this reason. */
  sampled: number;
  /** Of those, the ones still outside the frontier: never admitted by another path since. */
  standing: number;
}

/**
 * Refusals by reason code that still stand: a URL refused beyond maxDepth that a shorter path
 * admitted later (depth-relaxation.ts) no longer does. Read from the sample crawl_rejections
 * keeps (its first refusal of each URL, bounded per crawl), and the complete counts beside it.
 */
export async function standingRefusals(db: Queryable, crawlId: string, codes: readonly string[]): Promise<Record<string, StandingRefusals>> {
  const result = await db.query<{ code: string; counted: string; sampled: number; standing: number }>(
    `SELECT k.code,
            COALESCE((SELECT sum(urls) FROM crawl_rejection_counts c WHERE c.crawl_id = $1 AND c.reason = k.code), 0) AS counted,
            (SELECT count(*)::int FROM crawl_rejections r WHERE r.crawl_id = $1 AND starts_with(r.reason, k.code || ':')) AS sampled,
            (SELECT count(*)::int FROM crawl_rejections r WHERE r.crawl_id = $1 AND starts_with(r.reason, k.code || ':')
               AND NOT EXISTS (SELECT 1 FROM frontier f WHERE f.crawl_id = r.crawl_id AND f.fingerprint = r.fingerprint)) AS standing
     FROM unnest($2::text[]) AS k(code)`,
    [crawlId, [...codes]],
  );
  return Object.fromEntries(result.rows.map((row) => [row.code, { counted: Number(row.counted), sampled: row.sampled, standing: row.standing }]));
}

/**
 * URLs refused for a reason that still stand at a crawl's end: those of the sample, or when the
 * sample kept none of this reason's (it was full first), every refusal counted.
 */
export function standingRefusalCount(refusals: StandingRefusals | undefined): number {
  if (refusals === undefined || refusals.counted === 0) return 0;
  return refusals.sampled > 0 ? refusals.standing : refusals.counted;
}
