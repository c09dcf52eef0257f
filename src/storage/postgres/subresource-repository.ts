/**
 * The subresource cache renders share (subresource_cache, migration 0024) and the pacing ledger of
 * hosts renders reach as other origins (host_pacing). Bodies live in the object store; rows here.
 */
import type { Queryable } from './sql-codec.js';

export interface CachedSubresource {
  url: string;
  status: number;
  contentType: string | null;
  /** The response headers a browser needs (content-type, and the like), lower-case names. */
  headers: Record<string, string>;
  bodyKey: string;
  bytes: number;
  etag: string | null;
  lastModified: string | null;
  freshUntilMs: number;
}

export async function readCachedSubresource(db: Queryable, url: string): Promise<CachedSubresource | undefined> {
  const result = await db.query<{ url: string; status: number; content_type: string | null; headers: Record<string, string>; body_key: string; bytes: number; etag: string | null; last_modified: string | null; fresh_until: Date }>(
    'SELECT url, status, content_type, headers, body_key, bytes, etag, last_modified, fresh_until FROM subresource_cache WHERE url = $1',
    [url],
  );
  const row = result.rows[0];
  if (!row) return undefined;
  return { url: row.url, status: row.status, contentType: row.content_type, headers: row.headers, bodyKey: row.body_key, bytes: row.bytes, etag: row.etag, lastModified: row.last_modified, freshUntilMs: row.fresh_until.getTime() };
}

/** Stores (or replaces) a cached response. */
export async function saveCachedSubresource(db: Queryable, entry: CachedSubresource): Promise<void> {
  await db.query(
    `INSERT INTO subresource_cache (url, status, content_type, headers, body_key, bytes, etag, last_modified, fresh_until)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, to_timestamp($9::float8 / 1000))
     ON CONFLICT (url) DO UPDATE SET status = $2, content_type = $3, headers = $4, body_key = $5, bytes = $6, etag = $7, last_modified = $8,
       fresh_until = to_timestamp($9::float8 / 1000), stored_at = now()`,
    [entry.url, entry.status, entry.contentType, JSON.stringify(entry.headers), entry.bodyKey, entry.bytes, entry.etag, entry.lastModified, entry.freshUntilMs],
  );
}

/** A cached response reused (hit) or revalidated (a 304 made it fresh until `freshUntilMs`). */
export async function touchCachedSubresource(db: Queryable, url: string, freshUntilMs?: number): Promise<void> {
  await db.query(
    `UPDATE subresource_cache SET hits = hits + 1, fresh_until = COALESCE(to_timestamp($2::float8 / 1000), fresh_until) WHERE url = $1`,
    [url, freshUntilMs ?? null],
  );
}

/**
 * Marks hosts as shared with renders (a crawl allows them as other origins): from now on every
 * request to them reserves its start in the ledger, the host's own fetches included. A host
 * already marked keeps its ledger.
 */
export async function markHostsPaced(db: Queryable, hosts: readonly string[]): Promise<void> {
  if (hosts.length === 0) return;
  await db.query('INSERT INTO host_pacing (host) SELECT unnest($1::text[]) ON CONFLICT DO NOTHING', [[...new Set(hosts)]]);
}

/** Since when a host is in the ledger (ms since epoch), and whether its own workflow is fetching it now; undefined: not in the ledger. */
export async function ledgerJoin(db: Queryable, host: string): Promise<{ sinceMs: number; fetchedNow: boolean } | undefined> {
  const result = await db.query<{ shared_since: Date; active: boolean | null }>(
    'SELECT p.shared_since, h.workflow_active AS active FROM host_pacing p LEFT JOIN hosts h ON h.host = p.host WHERE p.host = $1',
    [host],
  );
  const row = result.rows[0];
  return row === undefined ? undefined : { sinceMs: row.shared_since.getTime(), fetchedNow: row.active === true };
}

/**
 * Takes `host`'s turn in the ledger for one request (acquireLedgerTurn in src/domain/render, in one
 * statement under the row's lock): acquired when no request holds it and its next start time has
 * come; else when to ask again. Undefined: the host is not in the ledger.
 */
export async function acquireHostPacing(db: Queryable, input: { host: string; nowMs: number; holdMs: number; holder: string }): Promise<{ acquired: true } | { acquired: false; nextAtMs: number; busyUntilMs: number } | undefined> {
  const nowMs = Math.ceil(input.nowMs);
  const taken = await db.query(
    `UPDATE host_pacing SET busy_until_ms = $2::bigint + $3::bigint, holder = $4
     WHERE host = $1 AND busy_until_ms <= $2::bigint AND next_at_ms <= $2::bigint`,
    [input.host, nowMs, Math.ceil(input.holdMs), input.holder],
  );
  if ((taken.rowCount ?? 0) > 0) return { acquired: true };
  const row = await db.query<{ next_at_ms: string; busy_until_ms: string }>('SELECT next_at_ms, busy_until_ms FROM host_pacing WHERE host = $1', [input.host]);
  const current = row.rows[0];
  return current === undefined ? undefined : { acquired: false, nextAtMs: Number(current.next_at_ms), busyUntilMs: Number(current.busy_until_ms) };
}

/** Gives `holder`'s turn back (releaseLedgerTurn): the next request may start `delayMs` after `finishedAtMs`, never earlier than the ledger said. */
export async function releaseHostPacing(db: Queryable, input: { host: string; holder: string; delayMs: number; finishedAtMs: number }): Promise<void> {
  await db.query(
    `UPDATE host_pacing SET busy_until_ms = 0, holder = NULL, next_at_ms = GREATEST(next_at_ms, $3::bigint + $4::bigint)
     WHERE host = $1 AND holder = $2`,
    [input.host, input.holder, Math.ceil(input.finishedAtMs), Math.ceil(input.delayMs)],
  );
}
