/**
 * What link registration keeps per crawl besides the frontier itself: growth statistics for
 * crawler-trap detection (URLs per host, variants per path, new content per depth), the seen
 * test's counters, and the URLs it refused with the reason. Multi-row upserts lock rows in key
 * order, so concurrent registrations of one crawl never deadlock on each other.
 */
import { fingerprintFromBytes, fingerprintToBytes } from './frontier-repository.js';
import type { Pool, PoolClient } from './pool.js';
import { bumpSharedFigure, FIGURE_ORDER } from './shared-figures.js';

type Queryable = Pool | PoolClient;

/** crawl_rejections keeps at most this many URLs per crawl; crawl_rejection_counts counts them all. */
export const MAX_REJECTION_ROWS_PER_CRAWL = 10_000;

/** Those of `crawlIds` that have finished or stopped (or no longer exist). */
export async function endedCrawls(db: Queryable, crawlIds: readonly string[]): Promise<string[]> {
  if (crawlIds.length === 0) return [];
  const result = await db.query<{ id: string }>(`SELECT id FROM crawls WHERE id = ANY($1) AND state NOT IN ('finished', 'stopped')`, [[...crawlIds]]);
  const running = new Set(result.rows.map((row) => row.id));
  return crawlIds.filter((id) => !running.has(id));
}

/** The fingerprints among `fingerprints` that this crawl's frontier holds: the exact seen store. */
export async function fingerprintsInFrontier(db: Queryable, crawlId: string, fingerprints: readonly string[]): Promise<Set<string>> {
  return new Set((await frontierDepths(db, crawlId, fingerprints)).keys());
}

/** Those of `fingerprints` that this crawl's frontier holds, with their depth. */
export async function frontierDepths(db: Queryable, crawlId: string, fingerprints: readonly string[]): Promise<Map<string, number>> {
  if (fingerprints.length === 0) return new Map();
  const result = await db.query<{ fingerprint: Buffer; depth: number }>(
    'SELECT fingerprint, depth FROM frontier WHERE crawl_id = $1 AND fingerprint = ANY($2::bytea[])',
    [crawlId, fingerprints.map(fingerprintToBytes)],
  );
  return new Map(result.rows.map((row) => [fingerprintFromBytes(row.fingerprint), row.depth]));
}

export interface GrowthStats {
  /** URLs registered per host. */
  hostUrls: Map<string, number>;
  /** Variants registered per `host path` (path without parameters). */
  pathVariants: Map<string, number>;
}

export const pathStatKey = (host: string, path: string): string => `${host} ${path}`;

export async function readGrowthStats(db: Queryable, crawlId: string, hosts: readonly string[], paths: readonly { host: string; path: string }[]): Promise<GrowthStats> {
  // One after another: called inside a transaction, whose client runs one query at a time.
  const hostRows =
    hosts.length === 0
      ? { rows: [] }
      : await db.query<{ host: string; urls: number }>('SELECT host, urls FROM crawl_host_stats WHERE crawl_id = $1 AND host = ANY($2)', [crawlId, [...hosts]]);
  const pathRows =
    paths.length === 0
      ? { rows: [] }
      : await db.query<{ host: string; path: string; variants: number }>(
          `SELECT s.host, s.path, s.variants FROM crawl_path_stats s
           JOIN unnest($2::text[], $3::text[]) AS k(host, path) ON k.host = s.host AND k.path = s.path
           WHERE s.crawl_id = $1`,
          [crawlId, paths.map((p) => p.host), paths.map((p) => p.path)],
        );
  return {
    hostUrls: new Map(hostRows.rows.map((row) => [row.host, row.urls])),
    pathVariants: new Map(pathRows.rows.map((row) => [pathStatKey(row.host, row.path), row.variants])),
  };
}

export interface HostGrowth {
  urls: number;
  demoted: number;
  dropped: number;
}

export async function addGrowthStats(
  db: Queryable,
  crawlId: string,
  hosts: ReadonlyMap<string, HostGrowth>,
  paths: readonly { host: string; path: string; variants: number }[],
): Promise<void> {
  if (hosts.size > 0) {
    const sorted = [...hosts.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    await bumpSharedFigure(
      db,
      `${FIGURE_ORDER.hostStats}|${crawlId}`,
      `INSERT INTO crawl_host_stats (crawl_id, host, urls, demoted, dropped)
       SELECT $1, h, u, d, x FROM unnest($2::text[], $3::int[], $4::int[], $5::int[]) WITH ORDINALITY AS s(h, u, d, x, i) ORDER BY i
       ON CONFLICT (crawl_id, host) DO UPDATE SET urls = crawl_host_stats.urls + EXCLUDED.urls,
         demoted = crawl_host_stats.demoted + EXCLUDED.demoted, dropped = crawl_host_stats.dropped + EXCLUDED.dropped`,
      [crawlId, sorted.map(([host]) => host), sorted.map(([, s]) => s.urls), sorted.map(([, s]) => s.demoted), sorted.map(([, s]) => s.dropped)],
    );
  }
  if (paths.length > 0) {
    const sorted = [...paths].sort((a, b) => pathStatKey(a.host, a.path).localeCompare(pathStatKey(b.host, b.path)));
    await bumpSharedFigure(
      db,
      `${FIGURE_ORDER.pathStats}|${crawlId}`,
      `INSERT INTO crawl_path_stats (crawl_id, host, path, variants)
       SELECT $1, h, p, n FROM unnest($2::text[], $3::text[], $4::int[]) WITH ORDINALITY AS s(h, p, n, i) ORDER BY i
       ON CONFLICT (crawl_id, host, path) DO UPDATE SET variants = crawl_path_stats.variants + EXCLUDED.variants`,
      [crawlId, sorted.map((p) => p.host), sorted.map((p) => p.path), sorted.map((p) => p.variants)],
    );
  }
}

/**
 * Counts one parsed page toward its host's unique-content growth at its depth (both read from
 * its frontier entry): `new_content` when its normalized hash is new to the crawl. A page counts
 * once (a replayed parse counts nothing); a page with no text counts without new content.
 */
export async function recordContentGrowth(db: Queryable, input: { crawlId: string; fingerprint: string; normalizedHash: string | null }): Promise<void> {
  // One statement: the page is counted once, and only then is its hash offered to the crawl's set
  // and its host's row at its depth bumped. Nothing in the transaction reads these rows back, so
  // inside one it goes with COMMIT, at the depth figures' place: a transaction bumps one such row.
  await bumpSharedFigure(
    db,
    `${FIGURE_ORDER.depthStats}|${input.crawlId}|${input.fingerprint}`,
    `WITH page AS (
       UPDATE frontier SET content_counted = true WHERE crawl_id = $1 AND fingerprint = $2::bytea AND NOT content_counted RETURNING host, depth),
     fresh AS (
       INSERT INTO crawl_content_hashes (crawl_id, normalized_hash)
       SELECT $1, $3::bytea FROM page WHERE $3::bytea IS NOT NULL
       ON CONFLICT DO NOTHING RETURNING 1)
     INSERT INTO crawl_depth_stats (crawl_id, host, depth, pages, new_content)
     SELECT $1, host, depth, 1, CASE WHEN EXISTS (SELECT 1 FROM fresh) THEN 1 ELSE 0 END FROM page
     ON CONFLICT (crawl_id, host, depth) DO UPDATE SET pages = crawl_depth_stats.pages + 1,
       new_content = crawl_depth_stats.new_content + EXCLUDED.new_content`,
    [input.crawlId, fingerprintToBytes(input.fingerprint), input.normalizedHash === null ? null : Buffer.from(input.normalizedHash, 'hex')],
  );
}

/** Pages and pages with new content per host at one depth. */
export async function readDepthContent(db: Queryable, crawlId: string, depth: number, hosts: readonly string[]): Promise<Map<string, { pages: number; newContent: number }>> {
  if (hosts.length === 0 || depth < 0) return new Map();
  const result = await db.query<{ host: string; pages: number; new_content: number }>(
    'SELECT host, pages, new_content FROM crawl_depth_stats WHERE crawl_id = $1 AND depth = $2 AND host = ANY($3)',
    [crawlId, depth, [...hosts]],
  );
  return new Map(result.rows.map((row) => [row.host, { pages: row.pages, newContent: row.new_content }]));
}

export interface Rejection {
  url: string;
  fingerprint: string;
  /** Stable code for counting: `out-of-scope:host`, `depth`, `trap:calendar`, `robots-disallowed`, ... */
  code: string;
  /** For operators: what was measured and what happens next. */
  reason: string;
  detail?: unknown;
}

/** Counts every rejection by code; keeps the URLs themselves up to MAX_REJECTION_ROWS_PER_CRAWL. */
export async function recordRejections(db: Queryable, crawlId: string, shard: number, rejections: readonly Rejection[], maxRowsPerCall = 200): Promise<void> {
  if (rejections.length === 0) return;
  const byCode = new Map<string, number>();
  for (const rejection of rejections) byCode.set(rejection.code, (byCode.get(rejection.code) ?? 0) + 1);
  const codes = [...byCode.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  await bumpSharedFigure(
    db,
    `${FIGURE_ORDER.rejectionCounts}|${crawlId}|${String(shard).padStart(5, '0')}`,
    `INSERT INTO crawl_rejection_counts (crawl_id, reason, shard, urls)
     SELECT $1, r, $4, n FROM unnest($2::text[], $3::bigint[]) WITH ORDINALITY AS s(r, n, i) ORDER BY i
     ON CONFLICT (crawl_id, reason, shard) DO UPDATE SET urls = crawl_rejection_counts.urls + EXCLUDED.urls`,
    [crawlId, codes.map(([code]) => code), codes.map(([, n]) => n), shard],
  );
  // Refusals counted so far bound the rows already kept (conflicts only lower it); read without
  // a lock, so concurrent parses may keep a few rows over the cap.
  const counted = await db.query<{ total: string }>('SELECT COALESCE(sum(urls), 0) AS total FROM crawl_rejection_counts WHERE crawl_id = $1', [crawlId]);
  const keptBefore = Number(counted.rows[0]?.total ?? 0);
  const room = Math.min(maxRowsPerCall, MAX_REJECTION_ROWS_PER_CRAWL - keptBefore);
  if (room <= 0) return;
  const limited = rejections.slice(0, room);
  await db.query(
    `INSERT INTO crawl_rejections (crawl_id, fingerprint, url, reason, detail)
     SELECT $1, f, u, r, d FROM unnest($2::bytea[], $3::text[], $4::text[], $5::jsonb[]) AS s(f, u, r, d)
     ON CONFLICT (crawl_id, fingerprint) DO NOTHING`,
    [
      crawlId,
      limited.map((rejection) => fingerprintToBytes(rejection.fingerprint)),
      limited.map((rejection) => rejection.url.slice(0, 2048)),
      limited.map((rejection) => `${rejection.code}: ${rejection.reason}`.slice(0, 1000)),
      limited.map((rejection) => (rejection.detail === undefined ? null : JSON.stringify(rejection.detail))),
    ],
  );
}

export interface SeenTestCounts {
  checked: number;
  unfiltered: number;
  negatives: number;
  positives: number;
  falsePositives: number;
}

export async function addSeenStats(db: Queryable, crawlId: string, shard: number, counts: SeenTestCounts, filter: { fillRatio: number; bytes: number } | undefined): Promise<void> {
  if (counts.checked === 0) return;
  await bumpSharedFigure(
    db,
    `${FIGURE_ORDER.seenStats}|${crawlId}|${String(shard).padStart(5, '0')}`,
    `INSERT INTO crawl_seen_stats AS s (crawl_id, checked, unfiltered, bloom_negatives, bloom_positives, bloom_false_positives, filter_fill_ratio, filter_bytes, shard)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)
     ON CONFLICT (crawl_id, shard) DO UPDATE SET checked = s.checked + EXCLUDED.checked, unfiltered = s.unfiltered + EXCLUDED.unfiltered,
       bloom_negatives = s.bloom_negatives + EXCLUDED.bloom_negatives, bloom_positives = s.bloom_positives + EXCLUDED.bloom_positives,
       bloom_false_positives = s.bloom_false_positives + EXCLUDED.bloom_false_positives,
       filter_fill_ratio = COALESCE(EXCLUDED.filter_fill_ratio, s.filter_fill_ratio),
       filter_bytes = COALESCE(EXCLUDED.filter_bytes, s.filter_bytes), updated_at = now()`,
    [crawlId, counts.checked, counts.unfiltered, counts.negatives, counts.positives, counts.falsePositives, filter?.fillRatio ?? null, filter?.bytes ?? null, shard],
  );
}

export interface SeenStats extends SeenTestCounts {
  /** Share of bits set in the filter a worker last reported; null before any filter was used. */
  filterFillRatio: number | null;
  filterBytes: number | null;
}

export async function readSeenStats(db: Queryable, crawlId: string): Promise<SeenStats> {
  const result = await db.query<{
    checked: string;
    unfiltered: string;
    bloom_negatives: string;
    bloom_positives: string;
    bloom_false_positives: string;
    filter_fill_ratio: number | null;
    filter_bytes: string | null;
  }>(
    `SELECT sum(checked) AS checked, sum(unfiltered) AS unfiltered, sum(bloom_negatives) AS bloom_negatives,
            sum(bloom_positives) AS bloom_positives, sum(bloom_false_positives) AS bloom_false_positives,
            (array_agg(filter_fill_ratio ORDER BY updated_at DESC) FILTER (WHERE filter_fill_ratio IS NOT NULL))[1] AS filter_fill_ratio,
            max(filter_bytes) AS filter_bytes
     FROM crawl_seen_stats WHERE crawl_id = $1 HAVING count(*) > 0`,
    [crawlId],
  );
  const row = result.rows[0];
  return {
    checked: Number(row?.checked ?? 0),
    unfiltered: Number(row?.unfiltered ?? 0),
    negatives: Number(row?.bloom_negatives ?? 0),
    positives: Number(row?.bloom_positives ?? 0),
    falsePositives: Number(row?.bloom_false_positives ?? 0),
    filterFillRatio: row?.filter_fill_ratio ?? null,
    filterBytes: row?.filter_bytes === null || row?.filter_bytes === undefined ? null : Number(row.filter_bytes),
  };
}

export interface TrapReport {
  /** Hosts with demoted or dropped URLs, most affected first. */
  hosts: { host: string; urls: number; demoted: number; dropped: number }[];
  /** Every refusal by reason code. */
  rejections: Record<string, number>;
}

export async function readTrapReport(db: Queryable, crawlId: string, maxHosts = 10): Promise<TrapReport> {
  const [hosts, rejections] = await Promise.all([
    db.query<{ host: string; urls: number; demoted: number; dropped: number }>(
      `SELECT host, urls, demoted, dropped FROM crawl_host_stats WHERE crawl_id = $1 AND demoted + dropped > 0
       ORDER BY demoted + dropped DESC, host LIMIT $2`,
      [crawlId, maxHosts],
    ),
    db.query<{ reason: string; urls: string }>('SELECT reason, sum(urls) AS urls FROM crawl_rejection_counts WHERE crawl_id = $1 GROUP BY reason ORDER BY 2 DESC, reason', [crawlId]),
  ]);
  return { hosts: hosts.rows, rejections: Object.fromEntries(rejections.rows.map((row) => [row.reason, Number(row.urls)])) };
}
