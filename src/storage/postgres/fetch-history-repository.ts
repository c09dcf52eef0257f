/**
 * Look-ups over a URL's earlier fetches, for the WARC export's revisit records: which earlier
 * capture holds the payload a refetch or a 304 stands for. Both walk the fetches primary key
 * (fingerprint, generation): a handful of rows per URL.
 */
import { fingerprintFromBytes, fingerprintToBytes, type Queryable } from './sql-codec.js';

/** An earlier capture as a revisit record names it. */
export interface CaptureReference {
  fingerprint: string;
  generation: number;
  crawlId: string;
  finalUrl: string;
  fetchedAt: Date;
  /** SHA-256 of the decoded body, hex. */
  rawHash: string;
}

interface ReferenceRow {
  fingerprint: Buffer;
  generation: number;
  crawl_id: string;
  final_url: string;
  fetched_at: Date;
  raw_hash: Buffer;
}

const toReference = (row: ReferenceRow): CaptureReference => ({
  fingerprint: fingerprintFromBytes(row.fingerprint),
  generation: row.generation,
  crawlId: row.crawl_id,
  finalUrl: row.final_url,
  fetchedAt: row.fetched_at,
  rawHash: row.raw_hash.toString('hex'),
});

const COLUMNS = 'fingerprint, generation, crawl_id, final_url, fetched_at, raw_hash';

/**
 * The first successful fetch of this URL whose body had this hash, within one crawl or all:
 * the capture that an export writes in full, and that later identical fetches refer to.
 */
export async function firstCaptureWithBody(db: Queryable, input: { fingerprint: string; rawHash: string; crawlId?: string }): Promise<CaptureReference | undefined> {
  const result = await db.query<ReferenceRow>(
    `SELECT ${COLUMNS} FROM fetches
     WHERE fingerprint = $1 AND raw_hash = $2 AND outcome = 'ok' AND body_key IS NOT NULL AND ($3::text IS NULL OR crawl_id = $3)
     ORDER BY fetched_at, generation LIMIT 1`,
    [fingerprintToBytes(input.fingerprint), Buffer.from(input.rawHash, 'hex'), input.crawlId ?? null],
  );
  return result.rows[0] ? toReference(result.rows[0]) : undefined;
}

/** The last successful fetch of this URL before the given one, in any crawl: what a 304 confirmed. */
export async function lastCaptureBefore(db: Queryable, input: { fingerprint: string; fetchedAt: Date; generation: number }): Promise<CaptureReference | undefined> {
  const result = await db.query<ReferenceRow>(
    `SELECT ${COLUMNS} FROM fetches
     WHERE fingerprint = $1 AND outcome = 'ok' AND raw_hash IS NOT NULL AND (fetched_at, generation) < ($2, $3)
     ORDER BY fetched_at DESC, generation DESC LIMIT 1`,
    [fingerprintToBytes(input.fingerprint), input.fetchedAt, input.generation],
  );
  return result.rows[0] ? toReference(result.rows[0]) : undefined;
}
