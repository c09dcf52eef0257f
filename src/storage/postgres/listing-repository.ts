/**
 * Listing pages in Postgres (migrations 0008, 0020): on each listed item's URL record, the digest
 * of its entry at the latest listing reading and at the one before, and when those were (the
 * digest current at the item's own visit is kept by the visit, saveUrlEvidence). Writes are in
 * key order and safe to repeat: a reading already kept, or older than both, changes nothing.
 */
import { fingerprintFromBytes, fingerprintToBytes, type Queryable } from './sql-codec.js';

export interface ListingEntryDigest {
  /** Fingerprint of the item's canonical URL. */
  target: string;
  /** listingEntryDigest of its entry, hex. */
  digest: string;
}

/**
 * Keeps one listing reading on the items' records (items without a record are left alone: the
 * crawl has not met them), as the latest reading or, when a newer one committed first, as the
 * one before it: each record keeps its two latest readings. Returns how many entries belong to
 * known items and how many of those differ from the entry the previous reading showed (counted
 * for readings that became the latest).
 */
export async function saveListingReading(db: Queryable, readAtMs: number, entries: readonly ListingEntryDigest[]): Promise<{ known: number; changed: number }> {
  if (entries.length === 0) return { known: 0, changed: 0 };
  const unique = [...new Map(entries.map((entry) => [entry.target, entry])).values()].sort((a, b) => (a.target < b.target ? -1 : 1));
  const result = await db.query<{ latest: boolean; changed: boolean }>(
    `WITH e AS (SELECT * FROM unnest($2::bytea[], $3::bytea[]) AS e(target, digest)),
     r AS (SELECT to_timestamp($1 / 1000.0) AS read_at),
     -- latest: newer than the kept latest; earlier: between the kept previous and the kept latest.
     before AS (SELECT u.fingerprint, u.listing_digest,
                       (u.listing_read_at IS NULL OR u.listing_read_at < r.read_at) AS latest,
                       (u.listing_read_at > r.read_at AND (u.listing_previous_read_at IS NULL OR u.listing_previous_read_at < r.read_at)) AS earlier
                FROM urls u JOIN e ON u.fingerprint = e.target, r)
     UPDATE urls u SET
       listing_previous_digest = CASE WHEN b.latest THEN u.listing_digest ELSE e.digest END,
       listing_previous_read_at = CASE WHEN b.latest THEN u.listing_read_at ELSE r.read_at END,
       listing_digest = CASE WHEN b.latest THEN e.digest ELSE u.listing_digest END,
       listing_read_at = CASE WHEN b.latest THEN r.read_at ELSE u.listing_read_at END
     FROM e JOIN before b ON b.fingerprint = e.target, r
     WHERE u.fingerprint = e.target AND (b.latest OR b.earlier)
     RETURNING b.latest, (b.listing_digest IS NOT NULL AND b.listing_digest <> e.digest) AS changed`,
    [readAtMs, unique.map((entry) => fingerprintToBytes(entry.target)), unique.map((entry) => Buffer.from(entry.digest, 'hex'))],
  );
  const latest = result.rows.filter((row) => row.latest);
  return { known: latest.length, changed: latest.filter((row) => row.changed).length };
}

/**
 * Known pages under the listing prefixes a signal sweep re-reads, least recently fetched first.
 * Read by host (the prefixes name them), so the URL table is reached through its host index.
 */
export async function listingPagesToReread(
  db: Queryable,
  prefixes: readonly { prefix: string; host: string }[],
  limit: number,
): Promise<{ fingerprint: string; url: string; host: string; origin: string; canonicalizationVersion: number }[]> {
  if (prefixes.length === 0 || limit <= 0) return [];
  const hosts = [...new Set(prefixes.map((entry) => entry.host))];
  const patterns = prefixes.map((entry) => `${entry.prefix.replace(/[\\%_]/g, (c) => `\\${c}`)}%`);
  const result = await db.query<{ fingerprint: Buffer; url: string; host: string; origin: string; canonicalization_version: number }>(
    `SELECT fingerprint, url, host, origin, canonicalization_version FROM urls
     WHERE host = ANY($1::text[]) AND url LIKE ANY($2::text[]) AND last_success_at IS NOT NULL AND state NOT IN ('gone', 'dead', 'redirect')
     ORDER BY last_fetch_at NULLS FIRST, fingerprint LIMIT $3`,
    [hosts, patterns, limit],
  );
  return result.rows.map((row) => ({
    fingerprint: fingerprintFromBytes(row.fingerprint),
    url: row.url,
    host: row.host,
    origin: row.origin,
    canonicalizationVersion: row.canonicalization_version,
  }));
}

/** What a sweep's listing readings found (documents of listing pages record their entry counts). */
export async function listingSweepFigures(db: Queryable, crawlId: string): Promise<{ listingPages: number; itemSummaries: number; changedSummaries: number }> {
  const result = await db.query<{ pages: number; entries: number; changed: number }>(
    `SELECT count(*)::int AS pages, COALESCE(sum((extracted->'listing'->>'entries')::int), 0)::int AS entries,
            COALESCE(sum((extracted->'listing'->>'changed')::int), 0)::int AS changed
     FROM documents WHERE crawl_id = $1 AND extracted ? 'listing'`,
    [crawlId],
  );
  const row = result.rows[0];
  return { listingPages: row?.pages ?? 0, itemSummaries: row?.entries ?? 0, changedSummaries: row?.changed ?? 0 };
}
