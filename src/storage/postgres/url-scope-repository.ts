/**
 * What link registration keeps per crawl besides the frontier itself: growth statistics for
 * crawler-trap detection (URLs per host, variants per path, new content per depth), the seen
 * test's counters, and the trap report (with the refusals rejection-repository.ts keeps).
 * Multi-row upserts lock rows in key order, so concurrent registrations of one crawl never
 * deadlock on each other.
 */
import { DISCOVERY_ROOM_SQL } from './frontier-registration.js';
import { fingerprintFromBytes, fingerprintToBytes, type Queryable } from './sql-codec.js';
import { readRejectionCounts } from './rejection-repository.js';
import { FIGURE_ORDER, holdRows, sumCountsAfterKey, type RowStatement } from './held-rows.js';
import { depthContentKey, pathStatKey } from '../../domain/registration/index.js';
import type { RegistrationFactsQuery } from '../../domain/registration/index.js';

/** The keys registration decides by: the ones this module's reads are keyed by. */
export { depthContentKey, pathStatKey };

/** Those of `crawlIds` that have finished or stopped (or no longer exist). */
export async function endedCrawls(db: Queryable, crawlIds: readonly string[]): Promise<string[]> {
  if (crawlIds.length === 0) return [];
  const result = await db.query<{ id: string }>(`SELECT id FROM crawls WHERE id = ANY($1) AND state NOT IN ('finished', 'stopped')`, [[...crawlIds]]);
  const running = new Set(result.rows.map((row) => row.id));
  return crawlIds.filter((id) => !running.has(id));
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

/** What a batch of link registrations reads before it decides (readRegistrationFacts). */
export type { RegistrationFactsQuery };

export interface RegistrationFacts extends GrowthStats {
  /** Those of `confirm` the crawl's frontier holds, with their depth. */
  depths: Map<string, number>;
  /** Their weighted in-links so far (frontier.inlinks). */
  inlinks: Map<string, number>;
  /** Host importance of the hosts asked for: the operator's setting, else from their in-links in this crawl (absent: neutral). */
  hostImportance: Map<string, { set: number | null; inlinks: number }>;
  /** Pages and pages with new content, by depthContentKey(depth, host). */
  depthContent: Map<string, { pages: number; newContent: number }>;
  /** Those of `present` the crawl's frontier holds. */
  present: Set<string>;
  /** The discovery budget's room, when asked. */
  discoveryRoom?: number;
  /** Refusals counted so far: how many rejected URLs may still be kept (MAX_REJECTION_ROWS_PER_CRAWL). */
  rejectionsCounted: number;
}


/**
 * Everything a batch of registrations reads before deciding, in one statement (one snapshot, one
 * round trip): the seen test's confirmations, growth per host and path, new content per depth,
 * session-free twins, the discovery budget's room and the refusals counted so far.
 */
export async function readRegistrationFacts(db: Queryable, crawlId: string, query: RegistrationFactsQuery): Promise<RegistrationFacts> {
  const result = await db.query<{
    depths: { f: string; d: number; i: number }[] | null;
    hosts: { h: string; u: number; i: number }[] | null;
    importance: { h: string; v: number }[] | null;
    paths: { h: string; p: string; v: number }[] | null;
    depth_content: { d: number; h: string; p: number; n: number }[] | null;
    present: string[] | null;
    room: number | null;
    rejections: number | null;
  }>(
    `SELECT
       (SELECT json_agg(json_build_object('f', encode(fingerprint, 'hex'), 'd', depth, 'i', inlinks)) FROM frontier WHERE crawl_id = $1 AND fingerprint = ANY($2::bytea[])) AS depths,
       (SELECT json_agg(json_build_object('h', host, 'u', urls, 'i', inlinks)) FROM crawl_host_stats WHERE crawl_id = $1 AND host = ANY($3::text[])) AS hosts,
       (SELECT json_agg(json_build_object('h', host, 'v', importance)) FROM hosts WHERE host = ANY($3::text[]) AND importance IS NOT NULL) AS importance,
       (SELECT json_agg(json_build_object('h', s.host, 'p', s.path, 'v', s.variants)) FROM crawl_path_stats s
          JOIN unnest($4::text[], $5::text[]) AS k(host, path) ON k.host = s.host AND k.path = s.path WHERE s.crawl_id = $1) AS paths,
       (SELECT json_agg(json_build_object('d', s.depth, 'h', s.host, 'p', s.pages, 'n', s.new_content)) FROM crawl_depth_stats s
          JOIN unnest($6::int[], $7::text[]) AS k(depth, host) ON k.depth = s.depth AND k.host = s.host WHERE s.crawl_id = $1) AS depth_content,
       (SELECT json_agg(encode(fingerprint, 'hex')) FROM frontier WHERE crawl_id = $1 AND fingerprint = ANY($8::bytea[])) AS present,
       CASE WHEN $9::boolean THEN (${DISCOVERY_ROOM_SQL}) END AS room,
       (SELECT COALESCE(sum(urls), 0) FROM crawl_rejection_counts WHERE crawl_id = $1) AS rejections`,
    [
      crawlId,
      query.confirm.map(fingerprintToBytes),
      [...query.hosts],
      query.paths.map((path) => path.host),
      query.paths.map((path) => path.path),
      query.depthContent.map((entry) => entry.depth),
      query.depthContent.map((entry) => entry.host),
      query.present.map(fingerprintToBytes),
      query.withDiscoveryRoom,
    ],
  );
  const row = result.rows[0]!;
  return {
    depths: new Map((row.depths ?? []).map(({ f, d }) => [f, d])),
    inlinks: new Map((row.depths ?? []).map(({ f, i }) => [f, Number(i ?? 0)])),
    hostImportance: hostImportanceRows(row.hosts ?? [], row.importance ?? []),
    hostUrls: new Map((row.hosts ?? []).map(({ h, u }) => [h, u])),
    pathVariants: new Map((row.paths ?? []).map(({ h, p, v }) => [pathStatKey(h, p), v])),
    depthContent: new Map((row.depth_content ?? []).map(({ d, h, p, n }) => [depthContentKey(d, h), { pages: p, newContent: n }])),
    present: new Set(row.present ?? []),
    ...(row.room === null ? {} : { discoveryRoom: Number(row.room) }),
    rejectionsCounted: Number(row.rejections ?? 0),
  };
}

function hostImportanceRows(hosts: readonly { h: string; i: number }[], set: readonly { h: string; v: number }[]): Map<string, { set: number | null; inlinks: number }> {
  const rows = new Map<string, { set: number | null; inlinks: number }>();
  for (const { h, i } of hosts) rows.set(h, { set: null, inlinks: Number(i ?? 0) });
  for (const { h, v } of set) rows.set(h, { set: Number(v), inlinks: rows.get(h)?.inlinks ?? 0 });
  return rows;
}

export interface GrowthStats {
  /** URLs registered per host. */
  hostUrls: Map<string, number>;
  /** Variants registered per `host path` (path without parameters). */
  pathVariants: Map<string, number>;
}


export interface HostGrowth {
  urls: number;
  demoted: number;
  dropped: number;
  /** Weighted in-links its pages got from other hosts. Default 0. */
  inlinks?: number;
}

export async function addGrowthStats(
  db: Queryable,
  crawlId: string,
  hosts: ReadonlyMap<string, HostGrowth>,
  paths: readonly { host: string; path: string; variants: number }[],
): Promise<void> {
  await holdRows(db, HOST_STATS_ROWS, [...hosts].map(([host, stat]) => [crawlId, host, stat.urls, stat.demoted, stat.dropped, stat.inlinks ?? 0]));
  await holdRows(db, PATH_STATS_ROWS, paths.map((stat) => [crawlId, stat.host, stat.path, stat.variants]));
}

/** Growth per (crawl, host), summed. */
const HOST_STATS_ROWS: RowStatement = {
  order: FIGURE_ORDER.hostStats,
  sql: `INSERT INTO crawl_host_stats (crawl_id, host, urls, demoted, dropped, inlinks)
       SELECT * FROM unnest($1::text[], $2::text[], $3::int[], $4::int[], $5::int[], $6::real[])
       ON CONFLICT (crawl_id, host) DO UPDATE SET urls = crawl_host_stats.urls + EXCLUDED.urls,
         demoted = crawl_host_stats.demoted + EXCLUDED.demoted, dropped = crawl_host_stats.dropped + EXCLUDED.dropped,
         inlinks = crawl_host_stats.inlinks + EXCLUDED.inlinks`,
  keyColumns: 2,
  fold: sumCountsAfterKey(2),
};

/** Variants per (crawl, host, path), summed. */
const PATH_STATS_ROWS: RowStatement = {
  order: FIGURE_ORDER.pathStats,
  sql: `INSERT INTO crawl_path_stats (crawl_id, host, path, variants)
       SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::int[])
       ON CONFLICT (crawl_id, host, path) DO UPDATE SET variants = crawl_path_stats.variants + EXCLUDED.variants`,
  keyColumns: 3,
  fold: sumCountsAfterKey(3),
};

/**
 * Counts parsed pages toward their hosts' unique-content growth at their depths (both read from
 * each page's frontier entry): `new_content` when a page's normalized hash is new to the crawl. A
 * page counts once (a replayed parse counts nothing); a page with no text counts without new
 * content; two pages of one transaction with the same new hash count it once, for the first page.
 */
export async function recordContentGrowth(db: Queryable, input: { crawlId: string; fingerprint: string; normalizedHash: string | null }): Promise<void> {
  // Nothing in a transaction reads these rows back, so inside one they go with COMMIT, at the
  // depth figures' place: the pages are the transaction's own, the depth rows hot.
  await holdRows(db, CONTENT_GROWTH_ROWS, [[input.crawlId, fingerprintToBytes(input.fingerprint), input.normalizedHash === null ? null : Buffer.from(input.normalizedHash, 'hex')]]);
}

const CONTENT_GROWTH_ROWS: RowStatement = {
  order: FIGURE_ORDER.depthStats,
  sql: `WITH page AS (
       UPDATE frontier f SET content_counted = true
       FROM unnest($1::text[], $2::bytea[], $3::bytea[]) AS p(crawl_id, fingerprint, hash)
       WHERE f.crawl_id = p.crawl_id AND f.fingerprint = p.fingerprint AND NOT f.content_counted
       RETURNING f.crawl_id, f.fingerprint, f.host, f.depth, p.hash),
     first_of_hash AS (
       SELECT DISTINCT ON (crawl_id, hash) crawl_id, hash, fingerprint FROM page WHERE hash IS NOT NULL ORDER BY crawl_id, hash, fingerprint),
     fresh AS (
       INSERT INTO crawl_content_hashes (crawl_id, normalized_hash)
       SELECT crawl_id, hash FROM first_of_hash ORDER BY crawl_id, hash
       ON CONFLICT DO NOTHING RETURNING crawl_id, normalized_hash)
     INSERT INTO crawl_depth_stats (crawl_id, host, depth, pages, new_content)
     SELECT p.crawl_id, p.host, p.depth, count(*),
            count(*) FILTER (WHERE EXISTS (SELECT 1 FROM fresh x JOIN first_of_hash h ON h.crawl_id = x.crawl_id AND h.hash = x.normalized_hash
                                           WHERE h.fingerprint = p.fingerprint AND h.crawl_id = p.crawl_id))
     FROM page p GROUP BY p.crawl_id, p.host, p.depth ORDER BY p.crawl_id, p.host, p.depth
     ON CONFLICT (crawl_id, host, depth) DO UPDATE SET pages = crawl_depth_stats.pages + EXCLUDED.pages,
       new_content = crawl_depth_stats.new_content + EXCLUDED.new_content`,
  keyColumns: 2,
};

export interface SeenTestCounts {
  checked: number;
  unfiltered: number;
  negatives: number;
  positives: number;
  falsePositives: number;
}

export async function addSeenStats(db: Queryable, crawlId: string, shard: number, counts: SeenTestCounts, filter: { fillRatio: number; bytes: number } | undefined): Promise<void> {
  if (counts.checked === 0) return;
  await holdRows(db, SEEN_STATS_ROWS, [
    [crawlId, shard, counts.checked, counts.unfiltered, counts.negatives, counts.positives, counts.falsePositives, filter?.fillRatio ?? null, filter?.bytes ?? null],
  ]);
}

/** The seen test's counts per (crawl, shard), summed; the filter's last reported fill. */
const SEEN_STATS_ROWS: RowStatement = {
  order: FIGURE_ORDER.seenStats,
  sql: `INSERT INTO crawl_seen_stats AS s (crawl_id, shard, checked, unfiltered, bloom_negatives, bloom_positives, bloom_false_positives, filter_fill_ratio, filter_bytes)
     SELECT * FROM unnest($1::text[], $2::int[], $3::bigint[], $4::bigint[], $5::bigint[], $6::bigint[], $7::bigint[], $8::real[], $9::bigint[])
     ON CONFLICT (crawl_id, shard) DO UPDATE SET checked = s.checked + EXCLUDED.checked, unfiltered = s.unfiltered + EXCLUDED.unfiltered,
       bloom_negatives = s.bloom_negatives + EXCLUDED.bloom_negatives, bloom_positives = s.bloom_positives + EXCLUDED.bloom_positives,
       bloom_false_positives = s.bloom_false_positives + EXCLUDED.bloom_false_positives,
       filter_fill_ratio = COALESCE(EXCLUDED.filter_fill_ratio, s.filter_fill_ratio),
       filter_bytes = COALESCE(EXCLUDED.filter_bytes, s.filter_bytes), updated_at = now()`,
  keyColumns: 2,
  fold: (held, next) => [held[0], held[1], ...[2, 3, 4, 5, 6].map((index) => (held[index] as number) + (next[index] as number)), next[7] ?? held[7], next[8] ?? held[8]],
};

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
    readRejectionCounts(db, crawlId),
  ]);
  return { hosts: hosts.rows, rejections };
}
