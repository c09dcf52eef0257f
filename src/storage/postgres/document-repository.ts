import { countSettlement, fingerprintToBytes, settleFrontierPart, type FrontierSettlement } from './frontier-repository.js';
import { type Pool, type PoolClient } from './pool.js';
import { lockedEvidenceOf, lockUrlEvidencePart, type EvidenceRow, type LockedUrlEvidence } from './observation-repository.js';
import { FIGURE_ORDER, writeWithCommit } from './shared-figures.js';
import { composeStatement } from './statement-composition.js';

type Queryable = Pool | PoolClient;

export interface DocumentRecord {
  fingerprint: string;
  generation: number;
  parserVersion: number;
  crawlId: string;
  title: string | null;
  language: string | null;
  canonicalHint: string | null;
  metaRobots: string | null;
  xRobotsTag: string | null;
  noindex: boolean;
  nofollow: boolean;
  charset: string | null;
  textLength: number;
  normalizedHash: string | null;
  /** Signed 64-bit, as Postgres bigint stores it. */
  simhashSigned: string | null;
  /** Unsigned 32-bit values; stored in an integer[] column as their signed reading of the same bits. */
  minhash: number[] | null;
  linksFound: number;
  linksRegistered: number;
  extracted: Record<string, unknown>;
}

/** Once per (fingerprint, generation, parser version): a replayed parse changes nothing. */
export async function recordDocument(db: Queryable, doc: DocumentRecord): Promise<boolean> {
  const result = await db.query(RECORD_DOCUMENT_SQL, recordDocumentParams(doc));
  return (result.rowCount ?? 0) > 0;
}

/** What recordParsedPage found: whether the document is new, and the page's URL evidence, locked. */
export interface ParsedPageRecord {
  recorded: boolean;
  /** lockUrlEvidence's answer for the page's URL (undefined for an unknown URL), its row locked to COMMIT. */
  evidence: LockedUrlEvidence | undefined;
}

/**
 * A parsed page's document, its settlement and the lock on its URL's change evidence (for its
 * visit, recordVisit) in one round trip: one statement whose parts touch different tables and
 * read nothing another writes. `recorded` says whether the document is new, as recordDocument
 * does; the settlement's counters follow as settleFrontierEntry's would.
 */
export async function recordParsedPage(db: PoolClient, doc: DocumentRecord, settlement: FrontierSettlement): Promise<ParsedPageRecord> {
  const statement = composeStatement(
    [
      { name: 'document', sql: `${RECORD_DOCUMENT_SQL} RETURNING 1`, params: recordDocumentParams(doc) },
      settleFrontierPart('settled', settlement),
      lockUrlEvidencePart('evidence', doc.fingerprint, doc.generation),
    ],
    `SELECT EXISTS (SELECT 1 FROM document) AS recorded, EXISTS (SELECT 1 FROM settled) AS settled, evidence.*
     FROM (SELECT 1) AS one LEFT JOIN evidence ON true`,
  );
  const result = await db.query<EvidenceRow & { recorded: boolean; settled: boolean }>(statement.text, statement.values);
  const row = result.rows[0]!;
  await countSettlement(db, settlement, row.settled);
  // The outer join's row is all nulls for an unknown URL.
  const known = (row as { host: string | null }).host !== null;
  return { recorded: row.recorded, evidence: lockedEvidenceOf(known ? row : undefined) };
}

const RECORD_DOCUMENT_SQL = `INSERT INTO documents (fingerprint, generation, parser_version, crawl_id, title, language, canonical_hint, meta_robots,
                            x_robots_tag, noindex, nofollow, charset, text_length, normalized_hash, simhash, minhash,
                            links_found, links_registered, extracted)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15::bigint, $16, $17, $18, $19)
     ON CONFLICT (fingerprint, generation, parser_version) DO NOTHING`;

function recordDocumentParams(doc: DocumentRecord): unknown[] {
  return [
    fingerprintToBytes(doc.fingerprint),
    doc.generation,
    doc.parserVersion,
    doc.crawlId,
    doc.title,
    doc.language,
    doc.canonicalHint,
    doc.metaRobots,
    doc.xRobotsTag,
    doc.noindex,
    doc.nofollow,
    doc.charset,
    doc.textLength,
    doc.normalizedHash ? Buffer.from(doc.normalizedHash, 'hex') : null,
    doc.simhashSigned,
    // Postgres integer is signed: a value at or above 2^31 would be out of range (short texts hit it).
    doc.minhash?.map((value) => value | 0) ?? null,
    doc.linksFound,
    doc.linksRegistered,
    JSON.stringify(doc.extracted),
  ];
}

export interface LinkEdge {
  source: string;
  target: string;
  anchorText?: string;
  rel?: string;
  kind: 'link' | 'redirect' | 'canonical';
}

/**
 * The URLs a page's followed links point to, from the link graph (`links` joined to `urls`), with
 * their anchor text and rel. Targets without an identity row (refused before identities were kept) are absent.
 */
export async function followedLinkTargets(db: Queryable, source: string): Promise<{ url: string; anchorText: string | undefined; rel: string | undefined }[]> {
  const result = await db.query<{ url: string; anchor_text: string | null; rel: string | null }>(
    `SELECT u.url, l.anchor_text, l.rel FROM links l JOIN urls u ON u.fingerprint = l.target
     WHERE l.source = $1 AND l.kind = 'link' ORDER BY l.target`,
    [fingerprintToBytes(source)],
  );
  return result.rows.map((row) => ({ url: row.url, anchorText: row.anchor_text ?? undefined, rel: row.rel ?? undefined }));
}

/** The page's link edges, once each. Inside a transaction they are sent with its COMMIT (nothing in it reads them back). */
export async function recordLinks(db: Queryable, crawlId: string, edges: readonly LinkEdge[]): Promise<void> {
  if (edges.length === 0) return;
  const unique = [...new Map(edges.map((edge) => [`${edge.source}/${edge.target}/${edge.kind}`, edge])).values()];
  await writeWithCommit(
    db,
    FIGURE_ORDER.pageRows,
    `INSERT INTO links (source, target, crawl_id, anchor_text, rel, kind)
     SELECT s, t, $1, a, r, k FROM unnest($2::bytea[], $3::bytea[], $4::text[], $5::text[], $6::text[]) AS e(s, t, a, r, k)
     ON CONFLICT (source, target, kind) DO NOTHING`,
    [
      crawlId,
      unique.map((edge) => fingerprintToBytes(edge.source)),
      unique.map((edge) => fingerprintToBytes(edge.target)),
      unique.map((edge) => edge.anchorText?.slice(0, 500) ?? null),
      unique.map((edge) => edge.rel ?? null),
      unique.map((edge) => edge.kind),
    ],
  );
}
