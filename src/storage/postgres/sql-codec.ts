/**
 * How values cross into and out of our statements, for every repository: a URL fingerprint (hex
 * text in code, bytea in Postgres), what a statement runs on, and the order multi-row writes take
 * their rows in. One module so that no repository imports another's helpers.
 */
import type pg from 'pg';

/** A pool (each statement a transaction of its own) or a client lent inside a caller's transaction. */
export type Queryable = pg.Pool | pg.PoolClient;

/** A fingerprint's hex text as the bytea column stores it. */
export const fingerprintToBytes = (hex: string): Buffer => Buffer.from(hex, 'hex');

/** A bytea fingerprint column's value as hex text. */
export const fingerprintFromBytes = (bytes: Buffer): string => bytes.toString('hex');

/**
 * One item per fingerprint (the last given of each), in fingerprint order: the order every
 * multi-row write takes its rows in, so two concurrent writes never deadlock on each other's rows.
 */
export function oncePerFingerprintInKeyOrder<T extends { fingerprint: string }>(items: readonly T[]): T[] {
  return [...new Map(items.map((item) => [item.fingerprint, item])).values()].sort((a, b) => (a.fingerprint < b.fingerprint ? -1 : 1));
}
