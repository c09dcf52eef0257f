/**
 * The near-duplicate indexes and clusters (000 §7.2): SimHash blocks and MinHash band keys of
 * each URL's latest document, looked up by key (never a scan), and cluster membership.
 */
import type { MinhashBandKey, SimhashBlockKey } from '../../domain/content/index.js';
import { fingerprintFromBytes, fingerprintToBytes } from './frontier-repository.js';
import type { Pool, PoolClient } from './pool.js';
import { FIGURE_ORDER, writeWithCommit } from './shared-figures.js';

type Queryable = Pool | PoolClient;

/** Advisory lock classes: one lock per index key, so two near-duplicates indexed at once meet. */
const SIMHASH_LOCK_CLASS = 1_397_000;
const MINHASH_LOCK_CLASS = 1_398_000;

export interface IndexedDocument {
  fingerprint: string;
  generation: number;
  parserVersion: number;
}

/**
 * The index keys a document will be written and looked up under, as advisory lock keys in one
 * global order (no deadlocks). Two documents within distance 3 share a SimHash block (or, when
 * short, likely a band), so their lookups run one after the other and the second sees the first:
 * concurrent parses of two copies still cluster them.
 */
function indexLockKeys(blocks: readonly SimhashBlockKey[], bands: readonly MinhashBandKey[]): { classes: number[]; keys: number[] } {
  const keys = [
    ...blocks.map((key) => [SIMHASH_LOCK_CLASS + key.block, key.key] as const),
    ...bands.map((key) => [MINHASH_LOCK_CLASS + key.band, key.key] as const),
  ].sort((a, b) => a[0] - b[0] || a[1] - b[1]);
  return { classes: keys.map((key) => key[0]), keys: keys.map((key) => key[1]) };
}

/**
 * In one statement: takes the locks on the document's index keys (held to the end of the
 * transaction), makes `doc` the URL's indexed document unless a newer one is indexed already (a
 * late replay of an older generation changes nothing), and, when `doc` is the indexed one, reads
 * the candidates sharing its keys with their clusters (near_duplicate_candidates, migration 0011).
 * That function's queries take their own snapshot after the locks are granted, so they see every
 * document indexed under these keys by transactions that held them before; the caller then needs
 * no other round trip under the locks before COMMIT.
 *
 * The main query reads the locks first, the writes run after it. The statement's snapshot
 * predates its lock waits, which is sound for the writes because the parse holds the URL's row
 * lock (recordVisit) already: no other parse of this URL can commit in between.
 */
export async function indexAndLookUp(
  client: PoolClient,
  doc: IndexedDocument,
  blocks: readonly SimhashBlockKey[],
  bands: readonly MinhashBandKey[],
  maxCandidates: number,
): Promise<{ current: boolean } & CandidateLookup> {
  // Keys of the new document are upserted, the URL's other keys deleted. The two never touch the
  // same row, which one statement must not do.
  const locks = indexLockKeys(blocks, bands);
  const lookup = bands.length > 0 ? { index: 'minhash', parts: bands.map((key) => key.band), keys: bands.map((key) => key.key) } : { index: 'simhash', parts: blocks.map((key) => key.block), keys: blocks.map((key) => key.key) };
  const result = await client.query<{ current: boolean } & (LookupRow | { [column in keyof LookupRow]: null })>(
    `WITH key_locks AS (
       SELECT pg_advisory_xact_lock(c, k) FROM (SELECT * FROM unnest($8::int[], $9::int[]) AS l(c, k) ORDER BY c, k) AS ordered),
     newer AS (
       SELECT 1 FROM simhash_blocks WHERE fingerprint = $1 AND (generation, parser_version) > ($2, $3)
       UNION ALL SELECT 1 FROM minhash_bands WHERE fingerprint = $1 AND (generation, parser_version) > ($2, $3) LIMIT 1),
     stale_blocks AS (
       DELETE FROM simhash_blocks WHERE fingerprint = $1 AND NOT (block = ANY($4::smallint[])) AND NOT EXISTS (SELECT 1 FROM newer)),
     stale_bands AS (
       DELETE FROM minhash_bands WHERE fingerprint = $1 AND NOT (band = ANY($6::smallint[])) AND NOT EXISTS (SELECT 1 FROM newer)),
     new_blocks AS (
       INSERT INTO simhash_blocks (fingerprint, block, key, generation, parser_version)
       SELECT $1, b, k, $2, $3 FROM unnest($4::smallint[], $5::int[]) AS e(b, k) WHERE NOT EXISTS (SELECT 1 FROM newer)
       ON CONFLICT (fingerprint, block) DO UPDATE SET key = EXCLUDED.key, generation = EXCLUDED.generation, parser_version = EXCLUDED.parser_version),
     new_bands AS (
       INSERT INTO minhash_bands (fingerprint, band, key, generation, parser_version)
       SELECT $1, b, k, $2, $3 FROM unnest($6::smallint[], $7::int[]) AS e(b, k) WHERE NOT EXISTS (SELECT 1 FROM newer)
       ON CONFLICT (fingerprint, band) DO UPDATE SET key = EXCLUDED.key, generation = EXCLUDED.generation, parser_version = EXCLUDED.parser_version),
     locked AS (
       SELECT NOT EXISTS (SELECT 1 FROM newer) AS current FROM (SELECT count(*) FROM key_locks) AS taken)
     SELECT locked.current, c.fingerprint, c.generation, c.parser_version, c.simhash, c.minhash, c.cluster_id, c.method, c.own
     FROM locked
     LEFT JOIN LATERAL near_duplicate_candidates(locked.current AND cardinality($11::int[]) > 0, $10, $11::smallint[], $12::int[], $1, $13) AS c ON true`,
    [
      fingerprintToBytes(doc.fingerprint),
      doc.generation,
      doc.parserVersion,
      blocks.map((key) => key.block),
      blocks.map((key) => key.key),
      bands.map((key) => key.band),
      bands.map((key) => key.key),
      locks.classes,
      locks.keys,
      lookup.index,
      lookup.parts,
      lookup.keys,
      maxCandidates,
    ],
  );
  const current = result.rows[0]?.current === true;
  // One row with no candidate columns when nothing was found (LEFT JOIN).
  const rows = result.rows.filter((row): row is { current: boolean } & LookupRow => row.fingerprint !== null);
  const ownRow = rows.find((row) => row.own);
  const own = ownRow ? membershipOf(ownRow) : undefined;
  const candidates = rows
    .filter((row) => !row.own)
    .map((row) => {
      const membership = membershipOf(row);
      return { ...toCandidate(row), ...(membership ? { membership } : {}) };
    });
  return { current, candidates, ...(own ? { own } : {}) };
}

/** A stored document that shares an index key with the one looked up. */
export interface IndexCandidate {
  fingerprint: string;
  generation: number;
  parserVersion: number;
  /** Signed decimal, as Postgres returns a bigint SimHash. */
  simhashSigned: string | null;
  minhash: number[] | null;
}

interface CandidateRow {
  fingerprint: Buffer;
  generation: number;
  parser_version: number;
  simhash: string | null;
  minhash: number[] | null;
}

const toCandidate = (row: CandidateRow): IndexCandidate => ({
  fingerprint: fingerprintFromBytes(row.fingerprint),
  generation: row.generation,
  parserVersion: row.parser_version,
  simhashSigned: row.simhash,
  // Stored signed (document-repository): back to the unsigned values minhashSignature computes.
  minhash: row.minhash?.map((value) => value >>> 0) ?? null,
});

export interface ClusterMembership {
  fingerprint: string;
  clusterId: string;
  method: 'representative' | 'simhash' | 'minhash';
}

/** A candidate and the cluster it is in, if any. */
export interface ClusteredCandidate extends IndexCandidate {
  membership?: ClusterMembership;
}

/** What one lookup returns: the candidates, and the cluster the looked-up URL is in already, if any. */
export interface CandidateLookup {
  candidates: ClusteredCandidate[];
  own?: ClusterMembership;
}

interface LookupRow extends CandidateRow {
  cluster_id: Buffer | null;
  method: ClusterMembership['method'] | null;
  own: boolean;
}

const membershipOf = (row: LookupRow): ClusterMembership | undefined =>
  row.cluster_id === null || row.method === null ? undefined : { fingerprint: fingerprintFromBytes(row.fingerprint), clusterId: fingerprintFromBytes(row.cluster_id), method: row.method };

export interface NewMembership {
  fingerprint: string;
  clusterId: string;
  method: 'representative' | 'simhash' | 'minhash';
  distance: number | null;
  similarity: number | null;
  matched: string | null;
  generation: number;
  parserVersion: number;
  threshold: Record<string, number>;
}

/**
 * Puts a URL in a cluster (or moves it) and mirrors the representative on the URL record, in one
 * statement. A representative keeps its row whatever happens to its members: clusters only grow
 * or move members, nothing is deleted. Inside a transaction it is sent with COMMIT (writeWithCommit):
 * it is written while the parse holds the index keys, and nothing after it reads it.
 */
export async function upsertMembership(db: Queryable, membership: NewMembership): Promise<void> {
  await writeWithCommit(
    db,
    FIGURE_ORDER.nearDuplicateClusters,
    `WITH written AS (
       INSERT INTO near_duplicates (fingerprint, cluster_id, method, distance, similarity, matched, generation, parser_version, threshold)
       VALUES (decode($1, 'hex'), decode($2, 'hex'), $3, $4, $5, decode($6, 'hex'), $7, $8, $9::jsonb)
       ON CONFLICT (fingerprint) DO UPDATE SET cluster_id = EXCLUDED.cluster_id, method = EXCLUDED.method, distance = EXCLUDED.distance,
         similarity = EXCLUDED.similarity, matched = EXCLUDED.matched, generation = EXCLUDED.generation,
         parser_version = EXCLUDED.parser_version, threshold = EXCLUDED.threshold, joined_at = now()
       WHERE near_duplicates.method <> 'representative' OR EXCLUDED.method = 'representative'
       RETURNING fingerprint)
     UPDATE urls SET near_duplicate_of = decode($10, 'hex')
     WHERE fingerprint = decode($1, 'hex') AND near_duplicate_of IS DISTINCT FROM decode($10, 'hex') AND EXISTS (SELECT 1 FROM written)`,
    [
      membership.fingerprint,
      membership.clusterId,
      membership.method,
      membership.distance,
      membership.similarity,
      membership.matched,
      membership.generation,
      membership.parserVersion,
      JSON.stringify(membership.threshold),
      // Only a row that changes is locked: the representative's row is usually held by its own parse.
      membership.method === 'representative' ? null : membership.clusterId,
    ],
  );
}

/** A member whose content no longer resembles anything leaves its cluster (a representative stays one); sent with COMMIT like upsertMembership. */
export async function leaveCluster(db: Queryable, fingerprint: string): Promise<void> {
  await writeWithCommit(
    db,
    FIGURE_ORDER.nearDuplicateClusters,
    `WITH membership AS (DELETE FROM near_duplicates WHERE fingerprint = decode($1, 'hex') AND method <> 'representative')
     UPDATE urls SET near_duplicate_of = NULL WHERE fingerprint = decode($1, 'hex') AND near_duplicate_of IS NOT NULL`,
    [fingerprint],
  );
}
