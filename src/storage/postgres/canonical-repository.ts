/**
 * Canonical hints in Postgres (migration 0025): the facts a verdict needs about both ends, the
 * verdicts, and the cluster an obeyed hint makes (near_duplicates, as the near-duplicate
 * clustering keeps them: membership, never deletion).
 */
import { fingerprintFromBytes, fingerprintToBytes, type Queryable } from './sql-codec.js';
import { FIGURE_ORDER, holdRows, type RowStatement } from './held-rows.js';

/** One URL's side of a hint, from its latest document and fetch. */
export interface CanonicalEndFacts {
  fingerprint: string;
  url: string;
  host: string;
  /** Its latest document, absent until it is parsed. */
  document?: {
    generation: number;
    parserVersion: number;
    normalizedHash: string | null;
    simhashSigned: string | null;
    minhash: number[] | null;
    textLength: number;
    canonicalHint: string | null;
  };
  /** Its latest fetch was answered with a redirect. */
  redirected: boolean;
}

/** The facts of each URL in `fingerprints` that has an identity row. */
export async function canonicalEndFacts(db: Queryable, fingerprints: readonly string[]): Promise<Map<string, CanonicalEndFacts>> {
  if (fingerprints.length === 0) return new Map();
  const result = await db.query<{
    fingerprint: Buffer;
    url: string;
    host: string;
    generation: number | null;
    parser_version: number | null;
    normalized_hash: Buffer | null;
    simhash: string | null;
    minhash: number[] | null;
    text_length: number | null;
    canonical_hint: string | null;
    last_outcome: string | null;
  }>(
    `SELECT u.fingerprint, u.url, u.host, d.generation, d.parser_version, d.normalized_hash, d.simhash::text AS simhash, d.minhash, d.text_length, d.canonical_hint,
            (SELECT f.outcome FROM fetches f WHERE f.fingerprint = u.fingerprint ORDER BY f.generation DESC LIMIT 1) AS last_outcome
     FROM urls u
     LEFT JOIN LATERAL (SELECT generation, parser_version, normalized_hash, simhash, minhash, text_length, canonical_hint FROM documents
                        WHERE fingerprint = u.fingerprint ORDER BY generation DESC, parser_version DESC LIMIT 1) d ON true
     WHERE u.fingerprint = ANY($1::bytea[])`,
    [fingerprints.map(fingerprintToBytes)],
  );
  return new Map(
    result.rows.map((row) => {
      const fingerprint = fingerprintFromBytes(row.fingerprint);
      const facts: CanonicalEndFacts = {
        fingerprint,
        url: row.url,
        host: row.host,
        redirected: row.last_outcome === 'redirect',
        ...(row.generation === null
          ? {}
          : {
              document: {
                generation: row.generation,
                parserVersion: row.parser_version ?? 0,
                normalizedHash: row.normalized_hash === null ? null : row.normalized_hash.toString('hex'),
                simhashSigned: row.simhash,
                minhash: row.minhash,
                textLength: row.text_length ?? 0,
                canonicalHint: row.canonical_hint,
              },
            }),
      };
      return [fingerprint, facts];
    }),
  );
}

/** Hints waiting for one of `targets` to be parsed. */
/** A hint: the page that gives it and the page it names (fingerprints). */
export interface HintPair {
  source: string;
  target: string;
}

export async function pendingHintsTo(db: Queryable, targets: readonly string[]): Promise<HintPair[]> {
  if (targets.length === 0) return [];
  const result = await db.query<{ source: Buffer; target: Buffer }>(
    `SELECT source, target FROM canonical_hints WHERE target = ANY($1::bytea[]) AND verdict = 'pending' ORDER BY source, target`,
    [targets.map(fingerprintToBytes)],
  );
  return result.rows.map((row) => ({ source: fingerprintFromBytes(row.source), target: fingerprintFromBytes(row.target) }));
}

export interface CanonicalHintRow {
  source: string;
  target: string;
  crawlId: string;
  verdict: 'pending' | 'obeyed' | 'evidence';
  reason: string | null;
}

/** Records verdicts, one statement, in key order; a decided hint is never put back to pending. */
export async function recordCanonicalHints(db: Queryable, rows: readonly CanonicalHintRow[]): Promise<void> {
  if (rows.length === 0) return;
  const unique = [...new Map(rows.map((row) => [`${row.source}${row.target}`, row])).entries()].sort(([a], [b]) => (a < b ? -1 : 1)).map(([, row]) => row);
  await db.query(
    `INSERT INTO canonical_hints (source, target, crawl_id, verdict, reason)
     SELECT * FROM unnest($1::bytea[], $2::bytea[], $3::text[], $4::text[], $5::text[])
     ON CONFLICT (source, target) DO UPDATE SET verdict = EXCLUDED.verdict, reason = EXCLUDED.reason, crawl_id = EXCLUDED.crawl_id, decided_at = now()
       WHERE EXCLUDED.verdict <> 'pending' OR canonical_hints.verdict = 'pending'`,
    [
      unique.map((row) => fingerprintToBytes(row.source)),
      unique.map((row) => fingerprintToBytes(row.target)),
      unique.map((row) => row.crawlId),
      unique.map((row) => row.verdict),
      unique.map((row) => row.reason),
    ],
  );
}

/** An obeyed hint: `member` joins the cluster of `representative`, which represents it. */
export interface CanonicalClusterMove {
  member: string;
  memberGeneration: number;
  memberParserVersion: number;
  representative: string;
  representativeGeneration: number;
  representativeParserVersion: number;
}

/**
 * Makes each hinted URL the representative of its cluster, the hinting page a member of it, and
 * moves the members the hinting page represented along (their value stays with the hinted URL,
 * theirs is demoted through urls.near_duplicate_of; nothing is deleted). Sent with COMMIT after
 * the near-duplicate memberships of the same transaction, which it may regroup.
 */
export async function clusterUnderCanonical(db: Queryable, moves: readonly CanonicalClusterMove[]): Promise<void> {
  await holdRows(
    db,
    CANONICAL_CLUSTER_ROWS,
    moves.map((move) => [
      fingerprintToBytes(move.member),
      fingerprintToBytes(move.representative),
      move.memberGeneration,
      move.memberParserVersion,
      move.representativeGeneration,
      move.representativeParserVersion,
    ]),
  );
}

const CANONICAL_CLUSTER_ROWS: RowStatement = {
  order: FIGURE_ORDER.canonicalClusters,
  sql: `WITH v AS (SELECT * FROM unnest($1::bytea[], $2::bytea[], $3::int[], $4::int[], $5::int[], $6::int[]) AS v(member, rep, mgen, mpv, rgen, rpv)),
     reps AS (
       INSERT INTO near_duplicates (fingerprint, cluster_id, method, distance, generation, parser_version, threshold)
       SELECT DISTINCT ON (rep) rep, rep, 'representative', 0, rgen, rpv, '{"canonical": true}'::jsonb FROM v ORDER BY rep
       ON CONFLICT (fingerprint) DO UPDATE SET cluster_id = EXCLUDED.cluster_id, method = 'representative', distance = 0, similarity = NULL, matched = NULL, joined_at = now()
       RETURNING fingerprint),
     moved AS (
       UPDATE near_duplicates n SET cluster_id = v.rep, joined_at = now() FROM v
       WHERE n.cluster_id = v.member AND n.fingerprint <> v.member AND n.fingerprint <> v.rep
       RETURNING n.fingerprint, v.rep),
     members AS (
       INSERT INTO near_duplicates (fingerprint, cluster_id, method, matched, generation, parser_version, threshold)
       SELECT member, rep, 'canonical', rep, mgen, mpv, '{"canonical": true}'::jsonb FROM v ORDER BY member
       ON CONFLICT (fingerprint) DO UPDATE SET cluster_id = EXCLUDED.cluster_id, method = 'canonical', matched = EXCLUDED.matched, distance = NULL, similarity = NULL,
         generation = EXCLUDED.generation, parser_version = EXCLUDED.parser_version, joined_at = now()
       RETURNING fingerprint),
     -- Lookups read leaders only (migration 0024): the representative leads, the members do not.
     leaders AS (
       SELECT DISTINCT rep AS fingerprint, true AS leader FROM v WHERE rep NOT IN (SELECT member FROM v)
       UNION ALL SELECT member, false FROM v UNION ALL SELECT fingerprint, false FROM moved),
     simhash_leaders AS (
       UPDATE simhash_blocks s SET leader = l.leader FROM leaders l WHERE s.fingerprint = l.fingerprint AND s.leader <> l.leader),
     minhash_leaders AS (
       UPDATE minhash_bands m SET leader = l.leader FROM leaders l WHERE m.fingerprint = l.fingerprint AND m.leader <> l.leader)
     UPDATE urls u SET near_duplicate_of = m.rep
     FROM (SELECT member AS fingerprint, rep FROM v UNION ALL SELECT fingerprint, rep FROM moved
           UNION ALL SELECT DISTINCT rep, NULL::bytea FROM v WHERE rep NOT IN (SELECT member FROM v)) m
     WHERE u.fingerprint = m.fingerprint AND u.near_duplicate_of IS DISTINCT FROM m.rep`,
  keyColumns: 1,
  fold: (_held, next) => [...next],
};

/** A page's canonical edge as exported: the hinted URL and what the crawler made of it. */
export interface CanonicalEdge {
  url: string;
  verdict: string;
  reason: string | null;
}

/** The canonical edge of each page in `fingerprints` that gave one (its first, by target). */
export async function canonicalEdgesOf(db: Queryable, fingerprints: readonly string[]): Promise<Map<string, CanonicalEdge>> {
  if (fingerprints.length === 0) return new Map();
  const result = await db.query<{ source: Buffer; url: string; verdict: string | null; reason: string | null }>(
    `SELECT DISTINCT ON (l.source) l.source, u.url, h.verdict, h.reason
     FROM links l JOIN urls u ON u.fingerprint = l.target
     LEFT JOIN canonical_hints h ON h.source = l.source AND h.target = l.target
     WHERE l.source = ANY($1::bytea[]) AND l.kind = 'canonical'
     ORDER BY l.source, l.target`,
    [fingerprints.map(fingerprintToBytes)],
  );
  return new Map(result.rows.map((row) => [fingerprintFromBytes(row.source), { url: row.url, verdict: row.verdict ?? 'pending', reason: row.reason }]));
}
