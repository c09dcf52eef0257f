/**
 * Stored bodies' records (`bodies`, one row per content hash) and the advisory locks that keep a
 * body, or the pack it sits in, from being pruned while a new fetch records a reference to it.
 */
import { createHash } from 'node:crypto';
import { packKeyOf } from '../object-store/body-key.js';
import { inTransaction, type Pool } from './pool.js';
import type { Queryable } from './sql-codec.js';

/**
 * Records a stored body. Call it in the transaction that records the fetch pointing at the body:
 * it takes the body's shared retention locks (retentionLockKeysOf), so `crawler bodies prune`
 * (which deletes under the exclusive lock and re-checks references first) either finishes before
 * this transaction, and the caller must then make sure the object exists (keepBodyStored), or
 * sees the committed fetch and keeps the body.
 */
export async function recordBody(db: Queryable, input: StoredBody): Promise<void> {
  for (const key of retentionLockKeysOf(input)) await db.query(RETENTION_LOCK_SQL, [key]);
  await db.query(INSERT_BODY_SQL, insertBodyParams(input));
}

/** The retention locks a reference to a stored body takes: the body's, and its pack's when it is packed. */
export function retentionLockKeysOf(body: { sha256: string; objectKey: string }): string[] {
  const pack = packKeyOf(body.objectKey);
  return pack === undefined ? [bodyRetentionLockKey(body.sha256)] : [bodyRetentionLockKey(body.sha256), packRetentionLockKey(pack)];
}

export interface StoredBody {
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
 * The advisory-lock key that serialises a body's deletion with new references to it: the first
 * 63 bits of its SHA-256 (a collision only makes two bodies wait for each other). The key space is
 * shared with other advisory locks; a random 63-bit key meets one of theirs with odds near zero.
 */
export function bodyRetentionLockKey(sha256Hex: string): string {
  return (BigInt(`0x${sha256Hex.slice(0, 16)}`) & 0x7fff_ffff_ffff_ffffn).toString();
}

/**
 * The advisory lock of a pack of bodies (body-key.ts): the prune removes a pack under it, exclusive,
 * and every transaction that records a reference into the pack takes it, shared.
 */
export function packRetentionLockKey(packKey: string): string {
  return bodyRetentionLockKey(createHash('sha256').update(`pack:${packKey}`).digest('hex'));
}
