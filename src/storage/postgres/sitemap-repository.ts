/**
 * Sitemaps in Postgres (migration 0008): the sitemaps known and who declared them, what each
 * reading found, and the lastmod windows they give URL records. Every write is safe to repeat.
 */
import { fingerprintFromBytes, fingerprintToBytes, oncePerFingerprintInKeyOrder, type Queryable } from './sql-codec.js';

export interface DeclaredSitemap {
  url: string;
  /** The origin whose robots.txt declared it. */
  declaredBy: string;
}

/**
 * Sitemaps robots.txt declared for origins that have pages a recrawl may revisit, at most `limit`,
 * the least recently read first (never read: first), so a budget smaller than the sitemaps rotates
 * through them cycle after cycle. An origin's pages are found through the URL table's host index.
 */
export async function declaredSitemapsOfRecrawlableOrigins(db: Queryable, limit: number): Promise<DeclaredSitemap[]> {
  if (limit <= 0) return [];
  const result = await db.query<{ url: string; origin: string; last_read_at: Date | null }>(
    `SELECT s.url, r.origin, m.last_read_at
     FROM robots_cache r
     CROSS JOIN LATERAL unnest(r.sitemaps) AS s(url)
     LEFT JOIN sitemaps m ON m.url = s.url
     WHERE cardinality(r.sitemaps) > 0
       AND EXISTS (SELECT 1 FROM urls u
                   WHERE u.host = substring(r.origin FROM '^[a-z]+://(\\[[^]]*\\]|[^:/]+)') AND u.origin = r.origin AND u.last_success_at IS NOT NULL)
     ORDER BY m.last_read_at NULLS FIRST, r.origin, s.url
     LIMIT $1`,
    [limit],
  );
  return result.rows.map((row) => ({ url: row.url, declaredBy: row.origin }));
}

export interface SitemapRecordInput {
  fingerprint: string;
  url: string;
  /** Origins that may be spoken for; merged with those already recorded. */
  declaredBy: readonly string[];
  /** The index that listed it. */
  parent?: string;
}

/** Records sitemaps, merging who declared them; sorted so concurrent writers lock in one order. */
export async function upsertSitemaps(db: Queryable, sitemaps: readonly SitemapRecordInput[]): Promise<void> {
  if (sitemaps.length === 0) return;
  const unique = oncePerFingerprintInKeyOrder(sitemaps);
  await db.query(
    `INSERT INTO sitemaps (fingerprint, url, declared_by, parent)
     SELECT e.fingerprint, e.url, string_to_array(e.declared_by, ' '), e.parent
     FROM unnest($1::bytea[], $2::text[], $3::text[], $4::bytea[]) AS e(fingerprint, url, declared_by, parent)
     ON CONFLICT (fingerprint) DO UPDATE SET
       declared_by = ARRAY(SELECT DISTINCT o FROM unnest(sitemaps.declared_by || EXCLUDED.declared_by) AS o WHERE o <> '' ORDER BY o),
       parent = COALESCE(sitemaps.parent, EXCLUDED.parent)`,
    [
      unique.map((s) => fingerprintToBytes(s.fingerprint)),
      unique.map((s) => s.url),
      // Origins hold no spaces: a space-joined string avoids a ragged array parameter.
      unique.map((s) => s.declaredBy.join(' ')),
      unique.map((s) => (s.parent ? fingerprintToBytes(s.parent) : null)),
    ],
  );
}

export interface SitemapRecord {
  fingerprint: string;
  url: string;
  declaredBy: string[];
  parent: string | null;
  lastReadAtMs: number | null;
}

export async function getSitemap(db: Queryable, fingerprint: string): Promise<SitemapRecord | undefined> {
  const result = await db.query<{ fingerprint: Buffer; url: string; declared_by: string[]; parent: Buffer | null; last_read_at: Date | null }>(
    'SELECT fingerprint, url, declared_by, parent, last_read_at FROM sitemaps WHERE fingerprint = $1',
    [fingerprintToBytes(fingerprint)],
  );
  const row = result.rows[0];
  if (!row) return undefined;
  return {
    fingerprint: fingerprintFromBytes(row.fingerprint),
    url: row.url,
    declaredBy: row.declared_by,
    parent: row.parent ? fingerprintFromBytes(row.parent) : null,
    lastReadAtMs: row.last_read_at?.getTime() ?? null,
  };
}

export interface SitemapReadingFigures {
  fingerprint: string;
  readAtMs: number;
  format: string;
  urls: number;
  knownUrls: number;
  refused: Record<string, number>;
}

/** The figures of a reading; an older reading (a replayed parse) never overwrites a newer one. */
export async function recordSitemapReading(db: Queryable, figures: SitemapReadingFigures): Promise<void> {
  await db.query(
    `UPDATE sitemaps SET last_read_at = to_timestamp($2 / 1000.0), last_format = $3, last_urls = $4, last_known_urls = $5, last_refused = $6
     WHERE fingerprint = $1 AND (last_read_at IS NULL OR last_read_at <= to_timestamp($2 / 1000.0))`,
    [fingerprintToBytes(figures.fingerprint), figures.readAtMs, figures.format, figures.urls, figures.knownUrls, JSON.stringify(figures.refused)],
  );
}

export interface ListedUrl {
  fingerprint: string;
  /** Absent: listed without a (valid) lastmod, which withdraws any earlier claim. */
  lastmodFromMs?: number;
  lastmodToMs?: number;
}

/**
 * Gives the URL records the sitemap knows of their lastmod windows, as read at `readAtMs`; URLs
 * without a record are left alone (the reading counts them). A reading older than the one a
 * record holds changes nothing. `onOurClock`: the windows were moved onto our clock
 * (windowOnOurClock). Returns how many listed URLs have a record.
 */
export async function applySitemapLastmods(db: Queryable, readAtMs: number, listed: readonly ListedUrl[], onOurClock = false): Promise<number> {
  if (listed.length === 0) return 0;
  const unique = oncePerFingerprintInKeyOrder(listed);
  const result = await db.query<{ known: number }>(
    `WITH listed AS (
       SELECT * FROM unnest($2::bytea[], $3::float8[], $4::float8[]) AS e(fingerprint, from_ms, to_ms)),
     updated AS (
       UPDATE urls u SET
         sitemap_lastmod_from = CASE WHEN e.from_ms IS NULL THEN NULL ELSE to_timestamp(e.from_ms / 1000.0) END,
         sitemap_lastmod_to = CASE WHEN e.to_ms IS NULL THEN NULL ELSE to_timestamp(e.to_ms / 1000.0) END,
         sitemap_read_at = to_timestamp($1 / 1000.0),
         sitemap_lastmod_on_our_clock = $5
       FROM listed e
       WHERE u.fingerprint = e.fingerprint AND (u.sitemap_read_at IS NULL OR u.sitemap_read_at <= to_timestamp($1 / 1000.0))
       RETURNING 1)
     SELECT count(*)::int AS known FROM urls WHERE fingerprint IN (SELECT fingerprint FROM listed)`,
    [
      readAtMs,
      unique.map((entry) => fingerprintToBytes(entry.fingerprint)),
      unique.map((entry) => entry.lastmodFromMs ?? null),
      unique.map((entry) => entry.lastmodToMs ?? null),
      onOurClock,
    ],
  );
  return result.rows[0]?.known ?? 0;
}

/** What a sweep started from: the robots.txt declarations and the listing pages it registered. */
export async function sweepRootCount(db: Queryable, crawlId: string): Promise<{ sitemaps: number; listingPages: number }> {
  const result = await db.query<{ sitemaps: number; listing_pages: number }>(
    `SELECT count(*) FILTER (WHERE purpose = 'sitemap')::int AS sitemaps, count(*) FILTER (WHERE purpose = 'listing')::int AS listing_pages
     FROM frontier WHERE crawl_id = $1 AND depth = 0`,
    [crawlId],
  );
  return { sitemaps: result.rows[0]?.sitemaps ?? 0, listingPages: result.rows[0]?.listing_pages ?? 0 };
}

/** What a sweep's sitemap readings found (entries accepted and known, refusals by reason), and the sweep's requests. */
export async function sitemapSweepFigures(db: Queryable, crawlId: string): Promise<{ requests: number; urls: number; knownUrls: number; refused: Record<string, number> }> {
  const [requests, readings] = await Promise.all([
    db.query<{ n: number }>('SELECT count(*)::int AS n FROM fetches WHERE crawl_id = $1', [crawlId]),
    db.query<{ sitemap: { urls: number; knownUrls: number; refused: Record<string, number> } }>(
      `SELECT extracted->'sitemap' AS sitemap FROM documents WHERE crawl_id = $1 AND extracted ? 'sitemap'`,
      [crawlId],
    ),
  ]);
  const refused: Record<string, number> = {};
  let urls = 0;
  let knownUrls = 0;
  for (const { sitemap } of readings.rows) {
    urls += sitemap.urls;
    knownUrls += sitemap.knownUrls;
    for (const [reason, count] of Object.entries(sitemap.refused ?? {})) refused[reason] = (refused[reason] ?? 0) + count;
  }
  return { requests: requests.rows[0]?.n ?? 0, urls, knownUrls, refused };
}
