import type { RobotsCacheEntry } from '../../domain/robots/index.js';
import { SETTLE_FRONTIER_SQL, fingerprintFromBytes, fingerprintToBytes, settleFrontierParams } from './frontier-repository.js';
import { inTransaction, type Pool, type PoolClient } from './pool.js';
import { composeStatement } from './statement-composition.js';

type Queryable = Pool | PoolClient;

export interface FetchRecord {
  fingerprint: string;
  generation: number;
  crawlId: string;
  url: string;
  finalUrl: string;
  fetchedAt: Date;
  status: number | null;
  outcome: string;
  contentType: string | null;
  headers: Record<string, string>;
  rawHash: string | null;
  bodyKey: string | null;
  bytes: number | null;
  wireBytes: number | null;
  timings: Record<string, number>;
  redirectLocation: string | null;
  /** Headers the HTTP layer sent (lower-case names); null when not recorded (fetches before migration 0005, failures). */
  requestHeaders?: Record<string, string> | null;
}

interface FetchRow {
  fingerprint: Buffer;
  generation: number;
  crawl_id: string;
  url: string;
  final_url: string;
  fetched_at: Date;
  status: number | null;
  outcome: string;
  content_type: string | null;
  headers: Record<string, string>;
  raw_hash: Buffer | null;
  body_key: string | null;
  bytes: number | null;
  wire_bytes: number | null;
  timings: Record<string, number>;
  redirect_location: string | null;
  request_headers?: Record<string, string> | null;
}

/** FetchRow's columns, named: a prepared statement's result type must not change when a migration adds a column. */
const FETCH_COLUMNS = `fingerprint, generation, crawl_id, url, final_url, fetched_at, status, outcome, content_type, headers,
  raw_hash, body_key, bytes, wire_bytes, timings, redirect_location, request_headers`;

const toRecord = (row: FetchRow): FetchRecord => ({
  fingerprint: fingerprintFromBytes(row.fingerprint),
  generation: row.generation,
  crawlId: row.crawl_id,
  url: row.url,
  finalUrl: row.final_url,
  fetchedAt: row.fetched_at,
  status: row.status,
  outcome: row.outcome,
  contentType: row.content_type,
  headers: row.headers,
  rawHash: row.raw_hash ? row.raw_hash.toString('hex') : null,
  bodyKey: row.body_key,
  bytes: row.bytes === null ? null : Number(row.bytes),
  wireBytes: row.wire_bytes === null ? null : Number(row.wire_bytes),
  timings: row.timings,
  redirectLocation: row.redirect_location,
  requestHeaders: row.request_headers ?? null,
});

export async function getFetch(db: Queryable, fingerprint: string, generation: number): Promise<FetchRecord | undefined> {
  const result = await db.query<FetchRow>(`SELECT ${FETCH_COLUMNS} FROM fetches WHERE fingerprint = $1 AND generation = $2`, [fingerprintToBytes(fingerprint), generation]);
  return result.rows[0] ? toRecord(result.rows[0]) : undefined;
}

/**
 * Records a fetch once per (fingerprint, generation): a retried or redelivered activity finds
 * the first record and changes nothing. Returns whether this call created it.
 */
export async function recordFetch(db: Queryable, record: NewFetchRecord): Promise<boolean> {
  const result = await db.query(INSERT_FETCH_SQL, insertFetchParams(record));
  return (result.rowCount ?? 0) > 0;
}

type NewFetchRecord = Omit<FetchRecord, 'fetchedAt'> & { fetchedAt: Date };

const INSERT_FETCH_SQL = `INSERT INTO fetches (fingerprint, generation, crawl_id, url, final_url, fetched_at, status, outcome, content_type,
                          headers, raw_hash, body_key, bytes, wire_bytes, timings, redirect_location, request_headers)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17)
     ON CONFLICT (fingerprint, generation) DO NOTHING`;

function insertFetchParams(record: NewFetchRecord): unknown[] {
  return [
    fingerprintToBytes(record.fingerprint),
    record.generation,
    record.crawlId,
    record.url,
    record.finalUrl,
    record.fetchedAt,
    record.status,
    record.outcome,
    record.contentType,
    JSON.stringify(record.headers),
    record.rawHash ? Buffer.from(record.rawHash, 'hex') : null,
    record.bodyKey,
    record.bytes,
    record.wireBytes,
    JSON.stringify(record.timings),
    record.redirectLocation,
    record.requestHeaders ? JSON.stringify(record.requestHeaders) : null,
  ];
}

/**
 * Records a stored body. Call it in the transaction that records the fetch pointing at the body:
 * it takes the body's shared retention lock, so `crawler bodies prune` (which deletes under the
 * exclusive lock and re-checks references first) either finishes before this transaction, and the
 * caller must then make sure the object exists (see BodyStore.putGzipIfAbsent), or sees the
 * committed fetch and keeps the body.
 */
export async function recordBody(db: Queryable, input: StoredBody): Promise<void> {
  await db.query(RETENTION_LOCK_SQL, [bodyRetentionLockKey(input.sha256)]);
  await db.query(INSERT_BODY_SQL, insertBodyParams(input));
}

interface StoredBody {
  sha256: string;
  objectKey: string;
  bytes: number;
  storedBytes: number;
}

const RETENTION_LOCK_SQL = 'SELECT pg_advisory_xact_lock_shared($1)';
const INSERT_BODY_SQL = `INSERT INTO bodies (sha256, object_key, bytes, stored_bytes) VALUES ($1, $2, $3, $4) ON CONFLICT (sha256) DO NOTHING`;

function insertBodyParams(input: StoredBody): unknown[] {
  return [Buffer.from(input.sha256, 'hex'), input.objectKey, input.bytes, input.storedBytes];
}

/**
 * Points the records of a body at a new key (keepBodyStored: its pack was pruned while a fetch
 * recorded it): its row and every fetch that pointed at the old key, under the body's shared
 * retention lock, as recordFetchedBody writes them.
 */
export async function moveBodyRecords(pool: Pool, input: { sha256: string; fromKey: string; toKey: string }): Promise<void> {
  const hash = Buffer.from(input.sha256, 'hex');
  await inTransaction(pool, async (client) => {
    await client.query(RETENTION_LOCK_SQL, [bodyRetentionLockKey(input.sha256)]);
    await client.query('UPDATE bodies SET object_key = $3 WHERE sha256 = $1 AND object_key = $2', [hash, input.fromKey, input.toKey]);
    await client.query('UPDATE fetches SET body_key = $3 WHERE raw_hash = $1 AND body_key = $2', [hash, input.fromKey, input.toKey]);
  });
}

/** The stored keys of those of `sha256s` (hex) that have a body row: bodies stored already (BodyPacker's lookup). */
export async function storedBodyKeys(db: Queryable, sha256s: readonly string[]): Promise<Map<string, string>> {
  if (sha256s.length === 0) return new Map();
  const result = await db.query<{ sha256: Buffer; object_key: string }>('SELECT sha256, object_key FROM bodies WHERE sha256 = ANY($1::bytea[])', [
    sha256s.map((sha256) => Buffer.from(sha256, 'hex')),
  ]);
  return new Map(result.rows.map((row) => [row.sha256.toString('hex'), row.object_key]));
}

/**
 * A fetched body's records in one statement, one round trip instead of seven (a transaction of
 * six statements): the body (under its retention lock, as recordBody), the fetch record, the URL
 * record and the frontier entry moved to 'fetched'. One statement is one transaction. Its parts
 * touch different rows and none reads what another writes, so one snapshot serves them all. The
 * caller makes sure the object exists after it, as after recordBody. Repeating it changes nothing.
 */
/** What recordFetchedBody writes: the body, the fetch, the URL after it, and its frontier entry. */
export interface FetchedBodyRecords {
  body: StoredBody;
  fetch: NewFetchRecord;
  url: UrlAfterFetch;
  frontier: { crawlId: string; fingerprint: string; generation: number };
}

export async function recordFetchedBody(db: Queryable, input: FetchedBodyRecords): Promise<void> {
  const statement = fetchedBodyStatement(input);
  await db.query(statement.text, statement.values);
}

/** recordFetchedBody's one statement, for a transaction that opens with it (inTransaction's `openWith`). */
export function fetchedBodyStatement(input: FetchedBodyRecords): { text: string; values: unknown[] } {
  return composeStatement(
    [
      { name: 'retention_lock', sql: RETENTION_LOCK_SQL, params: [bodyRetentionLockKey(input.body.sha256)] },
      { name: 'new_body', sql: INSERT_BODY_SQL, params: insertBodyParams(input.body) },
      { name: 'new_fetch', sql: INSERT_FETCH_SQL, params: insertFetchParams(input.fetch) },
      { name: 'fetched_url', sql: UPDATE_URL_AFTER_FETCH_SQL, params: updateUrlAfterFetchParams(input.url) },
      { name: 'fetched_entry', sql: SETTLE_FRONTIER_SQL, params: settleFrontierParams({ ...input.frontier, state: 'fetched', outcome: 'ok' }) },
    ],
    // Reading the lock makes Postgres take it first; the writes run when the main query is done.
    'SELECT 1 FROM retention_lock',
  );
}

/**
 * The advisory-lock key that serialises a body's deletion with new references to it: the first
 * 63 bits of its SHA-256 (a collision only makes two bodies wait for each other). The key space is
 * shared with other advisory locks; a random 63-bit key meets one of theirs with odds near zero.
 */
export function bodyRetentionLockKey(sha256Hex: string): string {
  return (BigInt(`0x${sha256Hex.slice(0, 16)}`) & 0x7fff_ffff_ffff_ffffn).toString();
}

export interface UrlValidators {
  etag: string | null;
  lastModified: string | null;
}

/** What a fetch reads before its request. */
export interface FetchPreflight {
  /** This fetch's record when it was already done (a redelivered activity answers from it). */
  recorded?: FetchRecord;
  /** The origin's robots.txt entry, shared by every worker. */
  robots?: RobotsCacheEntry;
  /** The URL's validators, for a conditional request. */
  validators: UrlValidators;
}

/** An earlier record of this fetch, the origin's robots entry and the URL's validators, in one statement. */
export async function readFetchPreflight(db: Queryable, input: { fingerprint: string; generation: number; origin: string }): Promise<FetchPreflight> {
  return (await readFetchPreflights(db, [input]))[0]!;
}

/**
 * The preflights of several fetches in one statement (a fetch burst's URLs), in the order given.
 * Read before the first request: a burst owns its URLs under its claim, so their records can come
 * only from an earlier try of the same burst, which ended before this one started.
 */
export async function readFetchPreflights(db: Queryable, items: readonly { fingerprint: string; generation: number; origin: string }[]): Promise<FetchPreflight[]> {
  if (items.length === 0) return [];
  const result = await db.query<FetchRow & { robots_entry: RobotsCacheEntry | null; url_etag: string | null; url_last_modified: string | null }>(
    `SELECT f.*, r.entry AS robots_entry, u.etag AS url_etag, u.last_modified AS url_last_modified
       FROM unnest($1::bytea[], $2::int[], $3::text[]) WITH ORDINALITY AS i (fp, gen, origin, ord)
       LEFT JOIN LATERAL (SELECT ${FETCH_COLUMNS} FROM fetches WHERE fingerprint = i.fp AND generation = i.gen) AS f ON true
       LEFT JOIN robots_cache r ON r.origin = i.origin
       LEFT JOIN urls u ON u.fingerprint = i.fp
      ORDER BY i.ord`,
    [items.map((item) => fingerprintToBytes(item.fingerprint)), items.map((item) => item.generation), items.map((item) => item.origin)],
  );
  return result.rows.map((row) => ({
    ...(row.fingerprint === null ? {} : { recorded: toRecord(row) }),
    ...(row.robots_entry === null ? {} : { robots: row.robots_entry }),
    validators: { etag: row.url_etag, lastModified: row.url_last_modified },
  }));
}

/** The URL record's latest state after a fetch; validators are kept only from successful responses. */
interface UrlAfterFetch {
  fingerprint: string;
  state: string;
  status: number | null;
  fetchedAt: Date;
  success: boolean;
  etag?: string | null;
  lastModified?: string | null;
  rawHash?: string | null;
  bytes?: number | null;
}

export async function updateUrlAfterFetch(db: Queryable, input: UrlAfterFetch): Promise<void> {
  await db.query(UPDATE_URL_AFTER_FETCH_SQL, updateUrlAfterFetchParams(input));
}

const UPDATE_URL_AFTER_FETCH_SQL = `UPDATE urls SET state = $2, last_status = $3, last_fetch_at = $4,
       last_success_at = CASE WHEN $5 THEN $4 ELSE last_success_at END,
       etag = CASE WHEN $5 AND $6::text IS NOT NULL THEN $6 WHEN $5 AND $9 THEN NULL ELSE etag END,
       last_modified = CASE WHEN $5 AND $7::text IS NOT NULL THEN $7 WHEN $5 AND $9 THEN NULL ELSE last_modified END,
       last_raw_hash = COALESCE($8, last_raw_hash),
       last_bytes = COALESCE($10, last_bytes)
     WHERE fingerprint = $1`;

function updateUrlAfterFetchParams(input: UrlAfterFetch): unknown[] {
  return [
    fingerprintToBytes(input.fingerprint),
    input.state,
    input.status,
    input.fetchedAt,
    input.success,
    input.etag ?? null,
    input.lastModified ?? null,
    input.rawHash ? Buffer.from(input.rawHash, 'hex') : null,
    input.rawHash !== undefined && input.rawHash !== null,
    input.bytes ?? null,
  ];
}

export async function listFetches(db: Queryable, input: { crawlId?: string; afterFetchedAt?: Date; limit: number }): Promise<FetchRecord[]> {
  const result = await db.query<FetchRow>(
    `SELECT ${FETCH_COLUMNS} FROM fetches WHERE ($1::text IS NULL OR crawl_id = $1) ORDER BY fetched_at, fingerprint, generation LIMIT $2`,
    [input.crawlId ?? null, input.limit],
  );
  return result.rows.map(toRecord);
}

/** Streams every fetch record of a crawl (or all) in fetch order, a page at a time. */
export async function* iterateFetches(db: Queryable, crawlId: string | undefined, pageSize = 1000): AsyncGenerator<FetchRecord> {
  let cursor: { fetchedAt: Date; fingerprint: Buffer; generation: number } | undefined;
  for (;;) {
    const result = await db.query<FetchRow>(
      `SELECT ${FETCH_COLUMNS} FROM fetches
       WHERE ($1::text IS NULL OR crawl_id = $1)
         AND ($2::timestamptz IS NULL OR (fetched_at, fingerprint, generation) > ($2, $3, $4))
       ORDER BY fetched_at, fingerprint, generation LIMIT $5`,
      [crawlId ?? null, cursor?.fetchedAt ?? null, cursor?.fingerprint ?? null, cursor?.generation ?? null, pageSize],
    );
    for (const row of result.rows) yield toRecord(row);
    const last = result.rows.at(-1);
    if (!last || result.rows.length < pageSize) return;
    cursor = { fetchedAt: last.fetched_at, fingerprint: last.fingerprint, generation: last.generation };
  }
}
