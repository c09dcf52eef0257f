import type { LinkEdge } from '../../domain/registration/index.js';
import { countSettlement, settleFrontierEntriesPart, type FrontierSettlement } from './frontier-settlement.js';
import { fingerprintToBytes, type Queryable } from './sql-codec.js';
import { type PoolClient } from './pool.js';
import { lockedEvidenceOf, lockUrlEvidencesPart, type EvidenceRow, type LockedUrlEvidence } from './observation-repository.js';
import { FIGURE_ORDER, holdRows, type RowStatement } from './held-rows.js';
import { composeStatement, type StatementPart } from './statement-composition.js';

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
  /** Hex SHA-256 of the normalized text; null when the text is empty. */
  normalizedHash: string | null;
  /** Signed 64-bit, as Postgres bigint stores it. */
  simhashSigned: string | null;
  /** Present exactly when the normalized text is short. Unsigned 32-bit values; stored in an integer[] column as their signed reading of the same bits. */
  minhash: number[] | null;
  linksFound: number;
  linksRegistered: number;
  extracted: Record<string, unknown>;
}

/** Once per (fingerprint, generation, parser version): a replayed parse changes nothing. */
export async function recordDocument(db: Queryable, doc: DocumentRecord): Promise<boolean> {
  const statement = composeStatement([documentsPart('document', [doc])], 'SELECT count(*)::int AS n FROM document');
  const result = await db.query<{ n: number }>(statement.text, statement.values);
  return (result.rows[0]?.n ?? 0) > 0;
}

/** Documents inserted once each, as a part of a composed statement: returns (fingerprint, generation) of those new. */
function documentsPart(name: string, documents: readonly DocumentRecord[]): StatementPart {
  const column = <T>(pick: (doc: DocumentRecord) => T): T[] => documents.map(pick);
  return {
    name,
    sql: `INSERT INTO documents (fingerprint, generation, parser_version, crawl_id, title, language, canonical_hint, meta_robots,
                          x_robots_tag, noindex, nofollow, charset, text_length, normalized_hash, simhash, minhash,
                          links_found, links_registered, extracted)
          SELECT d.fingerprint, d.generation, d.parser_version, d.crawl_id, d.title, d.language, d.canonical_hint, d.meta_robots,
                 d.x_robots_tag, d.noindex, d.nofollow, d.charset, d.text_length, d.normalized_hash, d.simhash::bigint, d.minhash::int[],
                 d.links_found, d.links_registered, d.extracted::jsonb
          FROM unnest($1::bytea[], $2::int[], $3::int[], $4::text[], $5::text[], $6::text[], $7::text[], $8::text[], $9::text[], $10::boolean[],
                      $11::boolean[], $12::text[], $13::int[], $14::bytea[], $15::text[], $16::text[], $17::int[], $18::int[], $19::text[])
            AS d(fingerprint, generation, parser_version, crawl_id, title, language, canonical_hint, meta_robots, x_robots_tag, noindex,
                 nofollow, charset, text_length, normalized_hash, simhash, minhash, links_found, links_registered, extracted)
          ORDER BY d.fingerprint
          ON CONFLICT (fingerprint, generation, parser_version) DO NOTHING
          RETURNING fingerprint, generation`,
    params: [
      column((doc) => fingerprintToBytes(doc.fingerprint)),
      column((doc) => doc.generation),
      column((doc) => doc.parserVersion),
      column((doc) => doc.crawlId),
      column((doc) => doc.title),
      column((doc) => doc.language),
      column((doc) => doc.canonicalHint),
      column((doc) => doc.metaRobots),
      column((doc) => doc.xRobotsTag),
      column((doc) => doc.noindex),
      column((doc) => doc.nofollow),
      column((doc) => doc.charset),
      column((doc) => doc.textLength),
      column((doc) => (doc.normalizedHash ? Buffer.from(doc.normalizedHash, 'hex') : null)),
      column((doc) => doc.simhashSigned),
      // An array literal per row. Postgres integer is signed: a value at or above 2^31 would be out
      // of range (short texts hit it), so each is stored as the signed reading of its bits.
      column((doc) => (doc.minhash === null ? null : `{${doc.minhash.map((value) => value | 0).join(',')}}`)),
      column((doc) => doc.linksFound),
      column((doc) => doc.linksRegistered),
      column((doc) => JSON.stringify(doc.extracted)),
    ],
  };
}

/** What recordParsedPages found for a page: whether its document is new, and its URL's evidence, locked. */
export interface ParsedPageRecord {
  recorded: boolean;
  /** lockUrlEvidence's answer for the page's URL (undefined for an unknown URL), its row locked to COMMIT. */
  evidence: LockedUrlEvidence | undefined;
}

/**
 * Parsed pages' documents, their settlements and the locks on their URLs' change evidence (for
 * their visits, recordVisit) in one round trip: one statement whose parts touch different tables
 * and read nothing another writes, the rows of each locked in fingerprint order. `recorded` says
 * whether a document is new, as recordDocument does; each settlement's counters follow as
 * settleFrontierEntry's would. One result per page, in the order given; no two pages of one URL.
 */
export async function recordParsedPages(db: PoolClient, pages: readonly { document: DocumentRecord; settlement: FrontierSettlement }[]): Promise<ParsedPageRecord[]> {
  if (pages.length === 0) return [];
  const parts = [
    documentsPart(
      'document',
      pages.map((page) => page.document),
    ),
    settleFrontierEntriesPart(
      'settled',
      pages.map((page) => page.settlement),
    ),
    lockUrlEvidencesPart(
      'evidence',
      pages.map(({ document }) => ({ fingerprint: document.fingerprint, generation: document.generation })),
    ),
  ];
  // The main query reads the pages in order from the evidence part's own parameters (fingerprints, generations).
  const pagesParameter = parts[0]!.params.length + parts[1]!.params.length + 1;
  const statement = composeStatement(
    parts,
    `SELECT EXISTS (SELECT 1 FROM document d WHERE d.fingerprint = p.fingerprint AND d.generation = p.generation) AS recorded,
            EXISTS (SELECT 1 FROM settled s WHERE s.fingerprint = p.fingerprint AND s.generation = p.generation) AS settled,
            e.*
     FROM unnest($${pagesParameter}::bytea[], $${pagesParameter + 1}::int[]) WITH ORDINALITY AS p(fingerprint, generation, i)
     LEFT JOIN evidence e ON e.fingerprint = p.fingerprint
     ORDER BY p.i`,
  );
  const result = await db.query<EvidenceRow & { recorded: boolean; settled: boolean }>(statement.text, statement.values);
  const records: ParsedPageRecord[] = [];
  for (const [index, row] of result.rows.entries()) {
    await countSettlement(db, pages[index]!.settlement, row.settled);
    // The outer join's row is all nulls for an unknown URL.
    const known = (row as { host: string | null }).host !== null;
    records.push({ recorded: row.recorded, evidence: lockedEvidenceOf(known ? row : undefined) });
  }
  return records;
}

export type { LinkEdge };

/**
 * The URLs a page's followed links point to, from the link graph (`links` joined to `urls`), with
 * their anchor text and rel. Targets without an identity row (refused before identities were kept) are absent.
 */
export async function followedLinkTargets(db: Queryable, source: string): Promise<{ url: string; anchorText: string | undefined; rel: string | undefined; feed: boolean }[]> {
  const result = await db.query<{ url: string; anchor_text: string | null; rel: string | null; kind: string }>(
    `SELECT u.url, l.anchor_text, l.rel, l.kind FROM links l JOIN urls u ON u.fingerprint = l.target
     WHERE l.source = $1 AND l.kind IN ('link', 'feed') ORDER BY l.target, l.kind`,
    [fingerprintToBytes(source)],
  );
  return result.rows.map((row) => ({ url: row.url, anchorText: row.anchor_text ?? undefined, rel: row.rel ?? undefined, feed: row.kind === 'feed' }));
}

/** The page's link edges, once each. Inside a transaction they are sent with its COMMIT (nothing in it reads them back). */
export async function recordLinks(db: Queryable, crawlId: string, edges: readonly LinkEdge[]): Promise<void> {
  await holdRows(
    db,
    LINK_ROWS,
    edges.map((edge) => [fingerprintToBytes(edge.source), fingerprintToBytes(edge.target), edge.kind, crawlId, edge.anchorText?.slice(0, 500) ?? null, edge.rel ?? null]),
  );
}

/** Edges by (source, target, kind); an edge written twice keeps its first anchor text. */
const LINK_ROWS: RowStatement = {
  order: FIGURE_ORDER.pageRows,
  sql: `INSERT INTO links (source, target, kind, crawl_id, anchor_text, rel)
     SELECT * FROM unnest($1::bytea[], $2::bytea[], $3::text[], $4::text[], $5::text[], $6::text[])
     ON CONFLICT (source, target, kind) DO NOTHING`,
  keyColumns: 3,
};
