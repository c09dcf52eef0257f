/**
 * Fetch records (`fetches`, one per URL and fetch generation) and what a fetch writes beside them:
 * the URL's latest state and, for a fetched body, its body record and frontier entry in one
 * statement. A fetch's records are keyed by its generation, so a retried fetch finds them.
 */
import { retentionLockKeysOf, type StoredBody } from './body-repository.js';
import { PREFLIGHT_COLUMNS_SQL, preflightOfColumns, type PreflightColumns, type UrlPreflight } from './fetch-preflight.js';
import { fingerprintFromBytes, fingerprintToBytes, type Queryable } from './sql-codec.js';

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
  /** Bytes the request put on the wire and took off it, heads included (HttpClient's transfer); absent in records from before they were counted. */
  sentBytes?: number | null;
  receivedBytes?: number | null;
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
                          headers, raw_hash, body_key, bytes, wire_bytes, timings, redirect_location, request_headers, sent_bytes, received_bytes)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18, $19)
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
    record.sentBytes ?? null,
    record.receivedBytes ?? null,
  ];
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
  const statement = fetchedBodiesStatement([input]);
  await db.query(statement.text, statement.values);
}

/**
 * recordFetchedBody's one statement for several fetched bodies (a batch of parses opening with
 * their fetches' records: inTransaction's `openWith`): the bodies under their retention locks
 * (their packs' too),
 * taken in key order, then the fetch records, the URL records and the frontier entries, the rows
 * of each table locked in fingerprint order.
 */
export function fetchedBodiesStatement(inputs: readonly FetchedBodyRecords[]): { text: string; values: unknown[] } {
  const sorted = [...inputs].sort((a, b) => (a.fetch.fingerprint < b.fetch.fingerprint ? -1 : a.fetch.fingerprint > b.fetch.fingerprint ? 1 : 0));
  const column = <T>(pick: (input: FetchedBodyRecords) => T): T[] => sorted.map(pick);
  const iso = (date: Date): string => date.toISOString();
  return {
    text: FETCHED_BODIES_SQL,
    values: [
      [...new Set(sorted.flatMap((input) => retentionLockKeysOf(input.body)))],
      column((input) => Buffer.from(input.body.sha256, 'hex')),
      column((input) => input.body.objectKey),
      column((input) => input.body.bytes),
      column((input) => input.body.storedBytes),
      column((input) => fingerprintToBytes(input.fetch.fingerprint)),
      column((input) => input.fetch.generation),
      column((input) => input.fetch.crawlId),
      column((input) => input.fetch.url),
      column((input) => input.fetch.finalUrl),
      column((input) => iso(input.fetch.fetchedAt)),
      column((input) => input.fetch.status),
      column((input) => input.fetch.outcome),
      column((input) => input.fetch.contentType),
      column((input) => JSON.stringify(input.fetch.headers)),
      column((input) => (input.fetch.rawHash ? Buffer.from(input.fetch.rawHash, 'hex') : null)),
      column((input) => input.fetch.bodyKey),
      column((input) => input.fetch.bytes),
      column((input) => input.fetch.wireBytes),
      column((input) => JSON.stringify(input.fetch.timings)),
      column((input) => input.fetch.redirectLocation),
      column((input) => (input.fetch.requestHeaders ? JSON.stringify(input.fetch.requestHeaders) : null)),
      column((input) => fingerprintToBytes(input.url.fingerprint)),
      column((input) => input.url.state),
      column((input) => input.url.status),
      column((input) => iso(input.url.fetchedAt)),
      column((input) => input.url.success),
      column((input) => input.url.etag ?? null),
      column((input) => input.url.lastModified ?? null),
      column((input) => (input.url.rawHash ? Buffer.from(input.url.rawHash, 'hex') : null)),
      column((input) => input.url.rawHash !== undefined && input.url.rawHash !== null),
      column((input) => input.url.bytes ?? null),
      column((input) => input.frontier.crawlId),
      column((input) => fingerprintToBytes(input.frontier.fingerprint)),
      column((input) => input.frontier.generation),
      column((input) => input.fetch.sentBytes ?? null),
      column((input) => input.fetch.receivedBytes ?? null),
    ],
  };
}

// One snapshot serves every part: they touch different rows and none reads what another writes.
// Reading the locks makes Postgres take them first; the writes run when the main query is done.
// The URL and frontier rows are updated as UPDATE_URL_AFTER_FETCH_SQL and SETTLE_FRONTIER_SQL
// (to 'fetched') would, one row per input, locked in fingerprint order (the inputs' order).
// Their state is tested as `(…) IS TRUE`, which is no index condition, so the plan looks the rows
// up by key: a plan made from a crawl's end, when nothing was dispatched, took the state index
// and read every dispatched row of the crawl for each page (as auto_explain shows).
const FETCHED_BODIES_SQL = `WITH retention_locks AS (
       SELECT pg_advisory_xact_lock_shared(k) FROM (SELECT k FROM unnest($1::bigint[]) AS l(k) ORDER BY k) AS ordered),
     new_bodies AS (
       INSERT INTO bodies (sha256, object_key, bytes, stored_bytes)
       SELECT * FROM unnest($2::bytea[], $3::text[], $4::bigint[], $5::bigint[]) ON CONFLICT (sha256) DO NOTHING),
     new_fetches AS (
       INSERT INTO fetches (fingerprint, generation, crawl_id, url, final_url, fetched_at, status, outcome, content_type,
                            headers, raw_hash, body_key, bytes, wire_bytes, timings, redirect_location, request_headers, sent_bytes, received_bytes)
       SELECT * FROM unnest($6::bytea[], $7::int[], $8::text[], $9::text[], $10::text[], $11::timestamptz[], $12::int[], $13::text[], $14::text[],
                            $15::jsonb[], $16::bytea[], $17::text[], $18::bigint[], $19::bigint[], $20::jsonb[], $21::text[], $22::jsonb[],
                            $36::bigint[], $37::bigint[])
       ON CONFLICT (fingerprint, generation) DO NOTHING),
     fetched_urls AS (
       UPDATE urls u SET state = v.state, last_status = v.status, last_fetch_at = v.fetched_at,
              last_success_at = CASE WHEN v.success THEN v.fetched_at ELSE u.last_success_at END,
              etag = CASE WHEN v.success AND v.etag IS NOT NULL THEN v.etag WHEN v.success AND v.has_hash THEN NULL ELSE u.etag END,
              last_modified = CASE WHEN v.success AND v.last_modified IS NOT NULL THEN v.last_modified WHEN v.success AND v.has_hash THEN NULL ELSE u.last_modified END,
              last_raw_hash = COALESCE(v.raw_hash, u.last_raw_hash),
              last_bytes = COALESCE(v.bytes, u.last_bytes)
       FROM (SELECT v.* FROM unnest($23::bytea[], $24::text[], $25::int[], $26::timestamptz[], $27::boolean[], $28::text[], $29::text[], $30::bytea[], $31::boolean[], $32::bigint[])
                 WITH ORDINALITY AS v(fingerprint, state, status, fetched_at, success, etag, last_modified, raw_hash, has_hash, bytes, i)
             JOIN urls x ON x.fingerprint = v.fingerprint ORDER BY v.i FOR UPDATE OF x) AS v
       WHERE u.fingerprint = v.fingerprint),
     fetched_entries AS (
       UPDATE frontier f SET state = 'fetched', outcome = 'ok', updated_at = now()
       FROM (SELECT v.* FROM unnest($33::text[], $34::bytea[], $35::int[]) WITH ORDINALITY AS v(crawl_id, fingerprint, generation, i)
             JOIN frontier x ON x.crawl_id = v.crawl_id AND x.fingerprint = v.fingerprint AND x.generation = v.generation AND (x.state = 'dispatched') IS TRUE
             ORDER BY v.i FOR UPDATE OF x) AS v
       WHERE f.crawl_id = v.crawl_id AND f.fingerprint = v.fingerprint AND f.generation = v.generation AND (f.state = 'dispatched') IS TRUE)
     SELECT 1 FROM retention_locks`;

/** What a fetch reads before its request: the URL's preflight and, when it was already done, its record. */
export interface FetchPreflight extends UrlPreflight {
  /** This fetch's record when it was already done (a redelivered activity answers from it). */
  recorded?: FetchRecord;
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
  const result = await db.query<FetchRow & PreflightColumns>(
    `SELECT f.*, ${PREFLIGHT_COLUMNS_SQL}
       FROM unnest($1::bytea[], $2::int[], $3::text[]) WITH ORDINALITY AS i (fp, gen, origin, ord)
       LEFT JOIN LATERAL (SELECT ${FETCH_COLUMNS} FROM fetches WHERE fingerprint = i.fp AND generation = i.gen) AS f ON true
       LEFT JOIN robots_cache r ON r.origin = i.origin
       LEFT JOIN urls u ON u.fingerprint = i.fp
      ORDER BY i.ord`,
    [items.map((item) => fingerprintToBytes(item.fingerprint)), items.map((item) => item.generation), items.map((item) => item.origin)],
  );
  return result.rows.map((row) => ({
    ...(row.fingerprint === null ? {} : { recorded: toRecord(row) }),
    ...preflightOfColumns(row),
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
