/**
 * The near-duplicate indexes and clusters (docs/design.md, "Near-duplicates"): SimHash blocks and MinHash band keys of
 * each URL's latest document, looked up by key (never a scan), and cluster membership.
 */
import type { MinhashBandKey, SimhashBlockKey } from '../../domain/content/index.js';
import { fingerprintFromBytes, fingerprintToBytes, type Queryable } from './sql-codec.js';
import type { PoolClient } from './pool.js';
import { FIGURE_ORDER, holdRows, type RowStatement } from './held-rows.js';

/** Advisory lock classes: one lock per index key, so two near-duplicates indexed at once meet. */
const SIMHASH_LOCK_CLASS = 1_397_000;
const MINHASH_LOCK_CLASS = 1_398_000;

export interface IndexedDocument {
  fingerprint: string;
  generation: number;
  parserVersion: number;
}

/**
 * The index keys a document will be written and looked up under, as advisory lock keys (taken in
 * one global order: no deadlocks). Two documents within distance 3 share a SimHash block (or, when
 * short, likely a band), so when both may lead a cluster their lookups run one after the other and
 * the second sees the first: concurrent parses of two copies still cluster them.
 */
function indexLockKeys(blocks: readonly SimhashBlockKey[], bands: readonly MinhashBandKey[]): { lockClass: number; key: number }[] {
  return [
    ...blocks.map((key) => ({ lockClass: SIMHASH_LOCK_CLASS + key.block, key: key.key })),
    ...bands.map((key) => ({ lockClass: MINHASH_LOCK_CLASS + key.band, key: key.key })),
  ];
}

/** A document to index and look up, with its index keys: SimHash blocks, or MinHash bands for a short text. */
export interface DocumentKeys {
  doc: IndexedDocument;
  /** The document's SimHash, signed decimal as stored; null when its text has no tokens. Kept with its blocks. */
  simhashSigned: string | null;
  blocks: readonly SimhashBlockKey[];
  bands: readonly MinhashBandKey[];
  /**
   * The position (from 1) of an earlier document of the same call whose text is near this one's,
   * as the caller judged it; 0 or absent when none. Such a document joins a cluster whatever the
   * lookups find, so it is indexed as no leader and takes no locks (unless it represents a cluster).
   */
  batchMate?: number;
}

/** How much one lookup reads. */
export interface LookupLimits {
  /** Candidates returned a document at most. */
  maxCandidates: number;
  /** SimHash candidates further than this many bits are not returned (MinHash ones are the caller's to judge). */
  maxSimhashDistanceBits: number;
  /**
   * Leaders read a key at most (in fingerprint order): a key more pages lead under than this is a
   * template's or a vocabulary's, not evidence of nearness, and its other leaders are not read.
   */
  maxRowsPerKey: number;
  /**
   * Leaders the first look, without locks, reads a key at most: enough to find most alike pages
   * their cluster; a page it finds none for looks again under its locks, up to `maxRowsPerKey`.
   */
  maxRowsPerKeyFirstLook: number;
}

/**
 * In one statement, for each of `documents` (no two of one URL): makes each document its URL's
 * indexed one unless a newer one is indexed already (a late replay of an older generation changes
 * nothing), and, for each document that is indexed, reads the leaders sharing its keys (those of
 * its bands for a short text; of its blocks otherwise, only those within
 * `limits.maxSimhashDistanceBits`, the SimHash kept in the block index) with their clusters
 * (near_duplicate_candidates, migration 0024).
 *
 * Only a document that may lead a cluster takes locks. A first look, without locks, finds most of
 * a site's alike pages a near leader: such a page joins that leader's cluster, is no lookup's
 * candidate afterwards, and so need not be seen by anyone parsing at the same moment; so does a
 * page near an earlier document of the call (`batchMate`) that is indexed now, and it joins that
 * one's cluster. A representative stays a leader whatever it is near. A document
 * that finds none (and every short text, whose nearness the caller judges) takes the locks on its
 * index keys (held to the end of the transaction, all in one global order) and looks again: that
 * look takes its own snapshot after the locks are granted, so it sees every document indexed under
 * these keys by transactions that held them before. The caller then needs no other round trip
 * under the locks before COMMIT. Neither look sees the documents this statement indexes (the
 * writes run after the main query): candidates among the documents themselves are the caller's to
 * find.
 *
 * The statement's snapshot predates its lock waits, which is sound for the writes because the
 * parse holds the URLs' row locks (recordVisit) already: no other parse of these URLs can commit
 * in between.
 */
export async function indexAndLookUpMany(client: PoolClient, documents: readonly DocumentKeys[], limits: LookupLimits): Promise<DocumentLookup[]> {
  if (documents.length === 0) return [];
  const result = await client.query<LookupRow>(INDEX_AND_LOOK_UP_SQL, indexAndLookUpParameters(documents, limits));
  return lookupsOf(documents, result.rows);
}

const LOOKUP_ARGUMENTS = `l.index_name, l.parts::smallint[], l.keys::int[], l.fingerprint, l.simhash, $15::int, $12::int, $16::int`;

/** indexAndLookUpMany's statement; its parameters are indexAndLookUpParameters'. */
const INDEX_AND_LOOK_UP_SQL = `WITH docs AS (SELECT * FROM unnest($1::bytea[], $2::int[], $3::int[], $13::bigint[], $18::int[]) WITH ORDINALITY AS d(fingerprint, generation, parser_version, simhash, mate, i)),
     blocks AS (SELECT * FROM unnest($4::int[], $5::smallint[], $6::int[]) AS b(i, part, key)),
     bands AS (SELECT * FROM unnest($7::int[], $8::smallint[], $9::int[]) AS b(i, part, key)),
     newer AS (
       SELECT d.i FROM docs d
       WHERE EXISTS (SELECT 1 FROM simhash_blocks s WHERE s.fingerprint = d.fingerprint AND (s.generation, s.parser_version) > (d.generation, d.parser_version))
          OR EXISTS (SELECT 1 FROM minhash_bands m WHERE m.fingerprint = d.fingerprint AND (m.generation, m.parser_version) > (d.generation, d.parser_version))),
     indexed AS (SELECT d.fingerprint, d.generation, d.parser_version, d.simhash, d.i FROM docs d WHERE d.i NOT IN (SELECT i FROM newer)),
     stale_blocks AS (
       DELETE FROM simhash_blocks s USING indexed d
       WHERE s.fingerprint = d.fingerprint AND NOT EXISTS (SELECT 1 FROM blocks b WHERE b.i = d.i AND b.part = s.block)),
     stale_bands AS (
       DELETE FROM minhash_bands m USING indexed d
       WHERE m.fingerprint = d.fingerprint AND NOT EXISTS (SELECT 1 FROM bands b WHERE b.i = d.i AND b.part = m.band)),
     lookups AS (
       SELECT d.i, d.fingerprint, d.simhash, d.i NOT IN (SELECT i FROM newer) AS current, d.mate,
              CASE WHEN EXISTS (SELECT 1 FROM bands b WHERE b.i = d.i) THEN 'minhash' ELSE 'simhash' END AS index_name,
              COALESCE((SELECT array_agg(part ORDER BY part) FROM bands b WHERE b.i = d.i), (SELECT array_agg(part ORDER BY part) FROM blocks b WHERE b.i = d.i), '{}') AS parts,
              COALESCE((SELECT array_agg(key ORDER BY part) FROM bands b WHERE b.i = d.i), (SELECT array_agg(key ORDER BY part) FROM blocks b WHERE b.i = d.i), '{}') AS keys
       FROM docs d),
     -- The first look, in this statement (no function call, its snapshot): the SimHash leaders
     -- sharing a key, the first $17 of each key in fingerprint order, within $15 bits.
     first_reads AS (
       SELECT b.i, r.f, r.g, r.p, r.h, r.n
       FROM blocks b
       JOIN lookups l ON l.i = b.i AND l.current AND l.index_name = 'simhash'
       CROSS JOIN LATERAL (
         SELECT k.fingerprint AS f, k.generation AS g, k.parser_version AS p, k.simhash AS h, row_number() OVER (ORDER BY k.fingerprint) AS n
         FROM (SELECT s.fingerprint, s.generation, s.parser_version, s.simhash FROM simhash_blocks s
               WHERE s.block = b.part AND s.key = b.key AND s.leader AND s.fingerprint <> l.fingerprint
               ORDER BY s.fingerprint LIMIT $17::int + 1) AS k) AS r),
     first_hits AS (
       SELECT h.*, row_number() OVER (PARTITION BY h.i ORDER BY h.distance, h.f) AS rank
       FROM (SELECT DISTINCT r.i, r.f, r.g, r.p, r.h, bit_count((r.h # l.simhash)::bit(64)) AS distance
             FROM first_reads r JOIN lookups l ON l.i = r.i
             WHERE r.n <= $17::int AND bit_count((r.h # l.simhash)::bit(64)) <= $15::int) AS h),
     first_look AS (
       SELECT h.i, 'candidate' AS kind, h.f AS fingerprint, h.g AS generation, h.p AS parser_version, h.h::text AS simhash, NULL::integer[] AS minhash,
              n.cluster_id, n.method, NULL::integer AS capped_keys
       FROM first_hits h LEFT JOIN near_duplicates n ON n.fingerprint = h.f WHERE h.rank <= $12::int
       UNION ALL
       SELECT l.i, 'own', n.fingerprint, NULL, NULL, NULL, NULL, n.cluster_id, n.method, NULL
       FROM lookups l JOIN near_duplicates n ON n.fingerprint = l.fingerprint
       WHERE l.current AND l.index_name = 'simhash' AND cardinality(l.keys) > 0
       UNION ALL
       SELECT l.i, 'summary', NULL, NULL, NULL, NULL, NULL, NULL, NULL, (SELECT count(*) FROM first_reads r WHERE r.i = l.i AND r.n > $17::int)::integer
       FROM lookups l WHERE l.current AND l.index_name = 'simhash' AND cardinality(l.keys) > 0),
     -- A document joins a cluster without the locks when the first look found it a near leader or
     -- an earlier document of the batch indexed now is near it; a representative stays a leader.
     may_lead AS (
       SELECT l.i, l.fingerprint, l.simhash, l.index_name, l.parts, l.keys FROM lookups l
       WHERE l.current AND cardinality(l.keys) > 0
         AND (l.index_name = 'minhash'
           OR EXISTS (SELECT 1 FROM first_look f WHERE f.i = l.i AND f.kind = 'own' AND f.method = 'representative')
           OR NOT (EXISTS (SELECT 1 FROM first_look f WHERE f.i = l.i AND f.kind = 'candidate')
                   OR (l.mate > 0 AND l.mate NOT IN (SELECT i FROM newer))))),
     -- Written as leaders exactly when they may lead: a page the first look found a near leader
     -- for joins its cluster, and the membership write at COMMIT then finds its rows as they should be.
     new_blocks AS (
       INSERT INTO simhash_blocks (fingerprint, block, key, generation, parser_version, simhash, leader)
       SELECT d.fingerprint, b.part, b.key, d.generation, d.parser_version, d.simhash, d.i IN (SELECT i FROM may_lead)
       FROM blocks b JOIN indexed d ON d.i = b.i ORDER BY d.fingerprint, b.part
       ON CONFLICT (fingerprint, block) DO UPDATE SET key = EXCLUDED.key, generation = EXCLUDED.generation, parser_version = EXCLUDED.parser_version,
         simhash = EXCLUDED.simhash, leader = EXCLUDED.leader),
     new_bands AS (
       INSERT INTO minhash_bands (fingerprint, band, key, generation, parser_version)
       SELECT d.fingerprint, b.part, b.key, d.generation, d.parser_version FROM bands b JOIN indexed d ON d.i = b.i ORDER BY d.fingerprint, b.part
       ON CONFLICT (fingerprint, band) DO UPDATE SET key = EXCLUDED.key, generation = EXCLUDED.generation, parser_version = EXCLUDED.parser_version),
     key_locks AS (
       SELECT pg_advisory_xact_lock(c, k) FROM (
         SELECT DISTINCT c, k FROM unnest($10::int[], $11::int[], $14::int[]) AS l(c, k, i) WHERE l.i IN (SELECT i FROM may_lead) ORDER BY c, k) AS ordered),
     locked AS (SELECT count(*) AS taken FROM key_locks),
     second_look AS (
       SELECT l.i, c.* FROM may_lead l CROSS JOIN locked
       CROSS JOIN LATERAL near_duplicate_candidates(locked.taken >= 0, ${LOOKUP_ARGUMENTS}) AS c)
     SELECT f.i::int AS i, true AS current, f.kind, f.fingerprint, f.generation, f.parser_version, f.simhash, f.minhash, f.cluster_id, f.method, f.capped_keys, false AS locked
       FROM first_look f WHERE f.i NOT IN (SELECT i FROM may_lead)
     UNION ALL
     SELECT s.i::int, true, s.kind, s.fingerprint, s.generation, s.parser_version, s.simhash, s.minhash, s.cluster_id, s.method, s.capped_keys, true
       FROM second_look s
     UNION ALL
     SELECT l.i::int, l.current, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, false FROM lookups l WHERE NOT l.current`;

/** The statement's parameters: the documents, their keys and key locks as parallel arrays (`i` numbers the documents from 1), and the limits. */
function indexAndLookUpParameters(documents: readonly DocumentKeys[], limits: LookupLimits): unknown[] {
  const locks = documents.flatMap((entry, i) => indexLockKeys(entry.blocks, entry.bands).map((lock) => ({ i: i + 1, ...lock })));
  const blocks = documents.flatMap((entry, i) => entry.blocks.map((key) => ({ i: i + 1, part: key.block, key: key.key })));
  const bands = documents.flatMap((entry, i) => entry.bands.map((key) => ({ i: i + 1, part: key.band, key: key.key })));
  return [
    documents.map((entry) => fingerprintToBytes(entry.doc.fingerprint)),
    documents.map((entry) => entry.doc.generation),
    documents.map((entry) => entry.doc.parserVersion),
    blocks.map((key) => key.i),
    blocks.map((key) => key.part),
    blocks.map((key) => key.key),
    bands.map((key) => key.i),
    bands.map((key) => key.part),
    bands.map((key) => key.key),
    locks.map((lock) => lock.lockClass),
    locks.map((lock) => lock.key),
    limits.maxCandidates,
    documents.map((entry) => entry.simhashSigned),
    locks.map((lock) => lock.i),
    limits.maxSimhashDistanceBits,
    limits.maxRowsPerKey,
    limits.maxRowsPerKeyFirstLook,
    documents.map((entry) => entry.batchMate ?? 0),
  ];
}

/** Each document's lookup from the statement's rows. */
function lookupsOf(documents: readonly DocumentKeys[], allRows: readonly LookupRow[]): DocumentLookup[] {
  return documents.map((_, index) => {
    const rows = allRows.filter((row) => row.i === index + 1);
    // A document without keys returns no row; one not indexed (a newer one is) returns one with current false.
    const current = !rows.some((row) => !row.current);
    const ownRow = rows.find((row) => row.kind === 'own');
    const own = ownRow ? membershipOf(ownRow) : undefined;
    const candidates = rows
      .filter((row) => row.kind === 'candidate')
      .map((row) => {
        const membership = membershipOf(row);
        return { ...toCandidate(row as CandidateRow), ...(membership ? { membership } : {}) };
      });
    const cappedKeys = rows.find((row) => row.kind === 'summary')?.capped_keys ?? 0;
    return { current, candidates, cappedKeys, locked: rows.some((row) => row.locked), ...(own ? { own } : {}) };
  });
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

/** What indexAndLookUpMany found for one document. */
export interface DocumentLookup extends CandidateLookup {
  /** False when a newer document of the URL is indexed already: nothing was looked up. */
  current: boolean;
  /** Keys that held more leaders than the look that decided reads (LookupLimits.maxRowsPerKeyFirstLook, or maxRowsPerKey under the locks). */
  cappedKeys: number;
  /** Whether the document took its index key locks (it found no near leader without them). */
  locked: boolean;
}

interface LookupRow {
  i: number;
  current: boolean;
  kind: 'candidate' | 'own' | 'summary' | null;
  fingerprint: Buffer;
  generation: number;
  parser_version: number;
  simhash: string | null;
  minhash: number[] | null;
  cluster_id: Buffer | null;
  method: ClusterMembership['method'] | null;
  capped_keys: number | null;
  locked: boolean;
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
 * Puts a URL in a cluster (or moves it) and mirrors the representative on the URL record. A
 * representative keeps its row whatever happens to its members: clusters only grow or move
 * members, nothing is deleted. Inside a transaction it is sent with COMMIT, one statement for
 * every membership the transaction writes: it is written while the parse holds the index keys,
 * and nothing after it reads it.
 */
export async function upsertMembership(db: Queryable, membership: NewMembership): Promise<void> {
  await holdRows(db, MEMBERSHIP_ROWS, [
    [
      fingerprintToBytes(membership.fingerprint),
      'join',
      fingerprintToBytes(membership.clusterId),
      membership.method,
      membership.distance,
      membership.similarity,
      membership.matched === null ? null : fingerprintToBytes(membership.matched),
      membership.generation,
      membership.parserVersion,
      JSON.stringify(membership.threshold),
      // Only a row that changes is locked: the representative's row is usually held by its own parse.
      membership.method === 'representative' ? null : fingerprintToBytes(membership.clusterId),
    ],
  ]);
}

/** A member whose content no longer resembles anything leaves its cluster (a representative stays one); sent with COMMIT like upsertMembership. */
export async function leaveCluster(db: Queryable, fingerprint: string): Promise<void> {
  await holdRows(db, MEMBERSHIP_ROWS, [[fingerprintToBytes(fingerprint), 'leave', null, null, null, null, null, null, null, null, null]]);
}

/**
 * Joins ('join': upsert, the URL record mirroring its representative) and leaves ('leave': a
 * member's row deleted, the mirror cleared), one row per URL: a later write of a URL in the same
 * transaction replaces its earlier one, as it would have overwritten it.
 */
const MEMBERSHIP_ROWS: RowStatement = {
  order: FIGURE_ORDER.nearDuplicateClusters,
  sql: `WITH v AS (
       SELECT * FROM unnest($1::bytea[], $2::text[], $3::bytea[], $4::text[], $5::smallint[], $6::real[], $7::bytea[], $8::int[], $9::int[], $10::jsonb[], $11::bytea[])
         WITH ORDINALITY AS v(fingerprint, action, cluster_id, method, distance, similarity, matched, generation, parser_version, threshold, mirror, i)),
     written AS (
       INSERT INTO near_duplicates (fingerprint, cluster_id, method, distance, similarity, matched, generation, parser_version, threshold)
       SELECT fingerprint, cluster_id, method, distance, similarity, matched, generation, parser_version, threshold FROM v WHERE action = 'join' ORDER BY i
       ON CONFLICT (fingerprint) DO UPDATE SET cluster_id = EXCLUDED.cluster_id, method = EXCLUDED.method, distance = EXCLUDED.distance,
         similarity = EXCLUDED.similarity, matched = EXCLUDED.matched, generation = EXCLUDED.generation,
         parser_version = EXCLUDED.parser_version, threshold = EXCLUDED.threshold, joined_at = now()
       WHERE near_duplicates.method <> 'representative' OR EXCLUDED.method = 'representative'
       RETURNING fingerprint),
     left_cluster AS (
       DELETE FROM near_duplicates n USING v WHERE v.action = 'leave' AND n.fingerprint = v.fingerprint AND n.method <> 'representative'),
     -- Lookups read leaders only: representatives and pages in no cluster. A member is found through its representative.
     leaders AS (
       SELECT v.fingerprint, v.action = 'leave' OR v.method = 'representative' OR v.fingerprint NOT IN (SELECT fingerprint FROM written) AS leader FROM v),
     led_blocks AS (
       UPDATE simhash_blocks s SET leader = l.leader FROM leaders l WHERE s.fingerprint = l.fingerprint AND s.leader <> l.leader),
     led_bands AS (
       UPDATE minhash_bands m SET leader = l.leader FROM leaders l WHERE m.fingerprint = l.fingerprint AND m.leader <> l.leader)
     UPDATE urls u SET near_duplicate_of = v.mirror
     FROM v
     WHERE u.fingerprint = v.fingerprint
       AND ((v.action = 'join' AND u.near_duplicate_of IS DISTINCT FROM v.mirror AND v.fingerprint IN (SELECT fingerprint FROM written))
         OR (v.action = 'leave' AND u.near_duplicate_of IS NOT NULL))`,
  keyColumns: 1,
  fold: (_held, next) => [...next],
};
