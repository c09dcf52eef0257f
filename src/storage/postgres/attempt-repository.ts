import { fingerprintFromBytes, fingerprintToBytes, type Queryable } from './sql-codec.js';
import { addCrawlCounters } from './crawl-counters.js';
import { inTransaction, isPool } from './pool.js';

export type Stage = 'fetch' | 'parse' | 'render';

/**
 * One failed attempt; the key makes a redelivered report count once (docs/design.md, "Poison URLs").
 * `transfer`: what its request cost on the wire, when one was sent.
 */
export async function recordAttempt(
  db: Queryable,
  input: { fingerprint: string; stage: Stage; attemptKey: string; crawlId: string; failureType: string; message: string; transfer?: { sentBytes: number; receivedBytes: number } },
): Promise<void> {
  await db.query(
    `INSERT INTO attempts (fingerprint, stage, attempt_key, crawl_id, failure_type, message, sent_bytes, received_bytes) VALUES ($1, $2, $3, $4, $5, $6, $7, $8)
     ON CONFLICT DO NOTHING`,
    [
      fingerprintToBytes(input.fingerprint),
      input.stage,
      input.attemptKey,
      input.crawlId,
      input.failureType,
      input.message.slice(0, 2000),
      input.transfer?.sentBytes ?? null,
      input.transfer?.receivedBytes ?? null,
    ],
  );
}

export interface AttemptRecord {
  attemptKey: string;
  crawlId: string;
  failureType: string;
  message: string | null;
  at: string;
}

/**
 * The URL's failed attempts at one stage since its last success there (fetch: urls.last_success_at;
 * parse: its latest document), across crawls and generations, oldest first. A poison URL is one
 * that keeps coming back and failing (docs/design.md, "Poison URLs"), whichever crawl brings it back; a success proves
 * it is not poison and restarts the count, while older rows stay for the record.
 */
export async function attemptsSinceLastSuccess(db: Queryable, fingerprint: string, stage: Stage): Promise<AttemptRecord[]> {
  const result = await db.query<{ attempt_key: string; crawl_id: string; failure_type: string; message: string | null; at: Date }>(
    `SELECT attempt_key, crawl_id, failure_type, message, at FROM attempts
     WHERE fingerprint = $1 AND stage = $2
       AND at > COALESCE(CASE WHEN $2 = 'fetch' THEN (SELECT last_success_at FROM urls WHERE fingerprint = $1)
                              ELSE (SELECT max(parsed_at) FROM documents WHERE fingerprint = $1) END, '-infinity'::timestamptz)
     ORDER BY at, attempt_key`,
    [fingerprintToBytes(fingerprint), stage],
  );
  return result.rows.map((row) => ({ attemptKey: row.attempt_key, crawlId: row.crawl_id, failureType: row.failure_type, message: row.message, at: row.at.toISOString() }));
}

export async function moveToDeadLetters(
  db: Queryable,
  input: { fingerprint: string; stage: Stage; crawlId: string; url: string; failureType: string; attempts: number; history: unknown },
): Promise<void> {
  await db.query(
    `INSERT INTO dead_letters (fingerprint, stage, crawl_id, url, failure_type, attempts, history) VALUES ($1, $2, $3, $4, $5, $6, $7)
     ON CONFLICT (fingerprint, stage, crawl_id) DO UPDATE SET failure_type = $5, attempts = $6, history = $7, dead_at = now(), requeued_at = NULL`,
    [fingerprintToBytes(input.fingerprint), input.stage, input.crawlId, input.url, input.failureType, input.attempts, JSON.stringify(input.history)],
  );
}

export interface DeadLetter {
  fingerprint: string;
  stage: Stage;
  crawlId: string;
  url: string;
  failureType: string;
  attempts: number;
  history: unknown;
  deadAt: Date;
  requeuedAt: Date | null;
}

export async function listDeadLetters(db: Queryable, input: { crawlId?: string; includeRequeued?: boolean; limit: number }): Promise<DeadLetter[]> {
  const result = await db.query<{
    fingerprint: Buffer; stage: Stage; crawl_id: string; url: string; failure_type: string; attempts: number; history: unknown; dead_at: Date; requeued_at: Date | null;
  }>(
    `SELECT fingerprint, stage, crawl_id, url, failure_type, attempts, history, dead_at, requeued_at FROM dead_letters WHERE ($1::text IS NULL OR crawl_id = $1) AND ($2 OR requeued_at IS NULL) ORDER BY dead_at DESC LIMIT $3`,
    [input.crawlId ?? null, input.includeRequeued ?? false, input.limit],
  );
  return result.rows.map((row) => ({
    fingerprint: fingerprintFromBytes(row.fingerprint),
    stage: row.stage,
    crawlId: row.crawl_id,
    url: row.url,
    failureType: row.failure_type,
    attempts: row.attempts,
    history: row.history,
    deadAt: row.dead_at,
    requeuedAt: row.requeued_at,
  }));
}

/**
 * Puts dead-lettered URLs back in their crawl's queue with a clean attempt count. The crawl must
 * still be running for them to be fetched; returns how many were requeued.
 */
export async function requeueDeadLetters(db: Queryable, input: { crawlId: string; fingerprints?: string[] }): Promise<number> {
  // The moves and their counts commit together, or the crawl's in-flight figure drifts for good.
  if (isPool(db)) return inTransaction(db, (client) => requeueDeadLetters(client, input));
  const filter = input.fingerprints?.map(fingerprintToBytes) ?? null;
  const requeued = await db.query<{ fingerprint: Buffer; stage: Stage }>(
    `UPDATE dead_letters SET requeued_at = now()
     WHERE crawl_id = $1 AND requeued_at IS NULL AND ($2::bytea[] IS NULL OR fingerprint = ANY($2))
     RETURNING fingerprint, stage`,
    [input.crawlId, filter],
  );
  if (requeued.rows.length === 0) return 0;
  const fingerprints = requeued.rows.map((row) => row.fingerprint);
  // A clean count: the poison budget counts across crawls (attemptsSinceLastSuccess), so every crawl's rows go.
  await db.query(
    'DELETE FROM attempts a USING unnest($1::bytea[], $2::text[]) AS r(fingerprint, stage) WHERE a.fingerprint = r.fingerprint AND a.stage = r.stage',
    [fingerprints, requeued.rows.map((row) => row.stage)],
  );
  const result = await db.query(
    `UPDATE frontier SET state = 'queued', outcome = NULL, attempts = 0, generation = NULL, claim_token = NULL, updated_at = now()
     WHERE crawl_id = $1 AND fingerprint = ANY($2::bytea[]) AND state = 'dead'`,
    [input.crawlId, fingerprints],
  );
  // Requeued URLs may be fetched again: they no longer count against the page budget.
  // Settled once, now back in the queue: no longer counted as settled, nor against the page budget.
  const n = result.rowCount ?? 0;
  await addCrawlCounters(db, input.crawlId, 0, { settled: -n, returned: n });
  return result.rowCount ?? 0;
}
