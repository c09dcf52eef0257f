/**
 * Entering URLs into a crawl's frontier: URL identities recorded once in `urls`, registration
 * under the discovery budget (the primary key (crawl, fingerprint) is the exact seen test), new
 * in-links that raise a queued URL's priority, and an entry read back. Every operation here is
 * safe to repeat: activities retry and get redelivered.
 */
import type { DiscoverySource, NewEntry, UrlIdentity } from '../../domain/registration/index.js';
import { addCrawlCounters, counterShardOf, SUMMED_COUNTERS_SQL } from './crawl-counters.js';
import type { FrontierState } from './frontier-settlement.js';
import { fingerprintFromBytes, fingerprintToBytes, oncePerFingerprintInKeyOrder, type Queryable } from './sql-codec.js';

/** A URL new to a crawl's frontier: the row registration decided (src/domain/registration). */
export type NewFrontierEntry = NewEntry;

/** How a URL entered a crawl's frontier (frontier.source). */
export type { DiscoverySource };
export const DISCOVERY_SOURCES: readonly DiscoverySource[] = ['seed', 'link', 'redirect', 'sitemap', 'feed', 'canonical', 'robots'];

/** A canonical URL's identity row (`urls`), shared by every crawl. */
export type { UrlIdentity };

/**
 * Records URL identities, once per fingerprint, in key order. Rows already there are skipped
 * before the insert, not by its conflict check, which waits for any transaction that has updated
 * the row (a parse batch recording its page's fetch). Two batches inserting the same new URLs can
 * still deadlock through their other statements; the page recorder tries such a batch again whole.
 */
export async function recordUrlIdentities(db: Queryable, identities: readonly UrlIdentity[]): Promise<void> {
  if (identities.length === 0) return;
  const unique = oncePerFingerprintInKeyOrder(identities);
  await db.query(
    `INSERT INTO urls (fingerprint, url, canonicalization_version, host, origin)
     SELECT v.fingerprint, v.url, v.canonicalization_version, v.host, v.origin
     FROM unnest($1::bytea[], $2::text[], $3::smallint[], $4::text[], $5::text[]) WITH ORDINALITY AS v(fingerprint, url, canonicalization_version, host, origin, ord)
     WHERE NOT EXISTS (SELECT 1 FROM urls u WHERE u.fingerprint = v.fingerprint)
     ORDER BY v.ord
     ON CONFLICT (fingerprint) DO NOTHING`,
    [
      unique.map((identity) => fingerprintToBytes(identity.fingerprint)),
      unique.map((identity) => identity.url),
      unique.map((identity) => identity.canonicalizationVersion),
      unique.map((identity) => identity.host),
      unique.map((identity) => identity.origin),
    ],
  );
}

/**
 * Registers URLs in a crawl's frontier. Call it inside a transaction so that the discovery
 * budget is read and spent under the crawl row's lock. The primary key (crawl, fingerprint) makes the check and
 * the insert one atomic step: two workers registering the same URL at once get one row.
 * Returns the fingerprints that were new to the crawl. The discovery budget caps how many.
 */
export async function registerFrontierEntries(
  db: Queryable,
  crawlId: string,
  entries: readonly NewFrontierEntry[],
  options: {
    respectDiscoveryBudget: boolean;
    /** The fingerprint whose counter shard this transaction writes (the page being parsed). Default: the first entry's. */
    shardKey?: string;
    /**
     * A crawl of kind 'recrawl' or 'signals' registers only URLs never fetched before: a recrawl's
     * discovery share and a sweep's sitemaps are for new URLs, and known ones are revisited by
     * plan. The plan and the sweep's own sitemaps pass true.
     */
    includeFetched?: boolean;
    /**
     * URLs to record in `urls` beside the entries without entering the frontier: links refused
     * beyond the crawl's maxDepth, which a shorter path found later may admit (depth-relaxation.ts).
     */
    alsoIdentify?: readonly UrlIdentity[];
  },
): Promise<string[]> {
  await recordUrlIdentities(db, [...entries, ...(options.alsoIdentify ?? [])]);
  if (entries.length === 0) return [];
  // The discovery budget is soft: read without a lock, so concurrent pages may overshoot it by
  // their own links at most. Locking the crawl row here serialized every parse of the crawl.
  const room = options.respectDiscoveryBudget ? await discoveryRoom(db, crawlId) : entries.length;
  const fresh = await insertFrontierEntries(db, crawlId, entries, { room, includeFetched: options.includeFetched === true });
  await addCrawlCounters(db, crawlId, counterShardOf(options.shardKey ?? entries[0]!.fingerprint), { discovered: fresh.length });
  return fresh;
}

/** URLs the crawl may still discover under its discovery budget (maxDiscoveredUrls), read without a lock. */
export async function discoveryRoom(db: Queryable, crawlId: string): Promise<number> {
  const budget = await db.query<{ room: number }>(DISCOVERY_ROOM_SQL, [crawlId]);
  return Number(budget.rows[0]?.room ?? 0);
}

/** discoveryRoom's query, for a statement that reads it beside other things ($1 the crawl). */
export const DISCOVERY_ROOM_SQL = `SELECT GREATEST(0, (c.config->>'maxDiscoveredUrls')::bigint - s.discovered) AS room FROM crawls c, ${SUMMED_COUNTERS_SQL} s WHERE c.id = $1`;

/** New in-links of URLs a crawl already holds, and the priority they earn (link-registration.ts). */
export interface InlinkBump {
  fingerprint: string;
  /** Weighted in-links to add. */
  inlinks: number;
  /** The priority and tier the URL earns with them; applied only to a queued, undemoted URL it raises. */
  priority: number;
  tier: number;
}

/**
 * Adds in-links to URLs of the crawl, and raises the priority of those still queued, in one
 * statement. Rows another transaction holds are skipped, not waited for (a page being recorded, a
 * claim): waiting could deadlock with a transaction recording the pages this one links to, and an
 * in-link lost now and then only nudges an order.
 */
export async function addInlinks(db: Queryable, crawlId: string, bumps: readonly InlinkBump[]): Promise<void> {
  if (bumps.length === 0) return;
  const unique = oncePerFingerprintInKeyOrder(bumps);
  await db.query(
    `UPDATE frontier f SET inlinks = f.inlinks + v.inlinks,
       priority = CASE WHEN (f.state = 'queued') IS TRUE AND f.demotion IS NULL AND v.priority > f.priority THEN v.priority ELSE f.priority END,
       tier = CASE WHEN (f.state = 'queued') IS TRUE AND f.demotion IS NULL AND v.priority > f.priority THEN v.tier ELSE f.tier END
     FROM (SELECT x.fingerprint, e.inlinks, e.priority, e.tier
           FROM unnest($2::bytea[], $3::real[], $4::real[], $5::smallint[]) AS e(fingerprint, inlinks, priority, tier)
           JOIN frontier x ON x.crawl_id = $1 AND x.fingerprint = e.fingerprint
           ORDER BY x.fingerprint FOR UPDATE OF x SKIP LOCKED) AS v
     WHERE f.crawl_id = $1 AND f.fingerprint = v.fingerprint`,
    [
      crawlId,
      unique.map((bump) => fingerprintToBytes(bump.fingerprint)),
      unique.map((bump) => bump.inlinks),
      unique.map((bump) => bump.priority),
      unique.map((bump) => bump.tier),
    ],
  );
}

/**
 * Inserts frontier entries whose URL identities are recorded, at most `room` of them (the highest
 * priority first), each once: the primary key (crawl, fingerprint) makes the check and the insert one
 * atomic step. Rows are taken in fingerprint order, so concurrent registrations never deadlock.
 * Returns the fingerprints that were new to the crawl; counting them is the caller's.
 */
export async function insertFrontierEntries(
  db: Queryable,
  crawlId: string,
  entries: readonly NewFrontierEntry[],
  options: { room: number; includeFetched: boolean },
): Promise<string[]> {
  const unique = oncePerFingerprintInKeyOrder(entries);
  if (unique.length === 0 || options.room <= 0) return [];
  const inserted = await db.query<{ fingerprint: Buffer }>(
    `INSERT INTO frontier (crawl_id, fingerprint, url, host, origin, depth, priority, tier, purpose,
                           discovered_from, anchor_text, redirect_hops, redirect_chain, demotion, source, inlinks)
     SELECT $1, e.fingerprint, e.url, e.host, e.origin, e.depth, e.priority, e.tier, e.purpose,
            e.discovered_from, e.anchor_text, e.redirect_hops,
            COALESCE((SELECT array_agg(decode(c, 'hex')) FROM unnest(string_to_array(e.chain, ',')) AS c WHERE c <> ''), '{}'),
            e.demotion, e.source, e.inlinks
     FROM (SELECT * FROM unnest($2::bytea[], $3::text[], $4::text[], $5::text[], $6::int[], $7::real[], $8::smallint[], $9::text[],
                                $10::bytea[], $11::text[], $12::int[], $13::text[], $14::jsonb[], $17::text[], $18::real[])
                         AS e(fingerprint, url, host, origin, depth, priority, tier, purpose, discovered_from, anchor_text, redirect_hops, chain, demotion, source, inlinks)
           WHERE NOT EXISTS (SELECT 1 FROM frontier x WHERE x.crawl_id = $1 AND x.fingerprint = e.fingerprint)
             AND ($16::boolean OR COALESCE((SELECT kind FROM crawls WHERE id = $1), 'discovery') NOT IN ('recrawl', 'signals')
                  OR NOT EXISTS (SELECT 1 FROM urls u WHERE u.fingerprint = e.fingerprint AND u.last_fetch_at IS NOT NULL))
           ORDER BY e.priority DESC
           LIMIT $15) AS e
     -- The best within the room are chosen above; they go in in key order, as every writer's do.
     ORDER BY e.fingerprint
     ON CONFLICT (crawl_id, fingerprint) DO NOTHING
     RETURNING fingerprint`,
    [
      crawlId,
      unique.map((entry) => fingerprintToBytes(entry.fingerprint)),
      unique.map((entry) => entry.url),
      unique.map((entry) => entry.host),
      unique.map((entry) => entry.origin),
      unique.map((entry) => entry.depth),
      unique.map((entry) => entry.priority),
      unique.map((entry) => entry.tier),
      unique.map((entry) => entry.purpose ?? 'discovery'),
      unique.map((entry) => (entry.discoveredFrom ? fingerprintToBytes(entry.discoveredFrom) : null)),
      unique.map((entry) => entry.anchorText ?? null),
      unique.map((entry) => entry.redirectHops ?? 0),
      unique.map((entry) => (entry.redirectChain ?? []).join(',')),
      unique.map((entry) => (entry.demotion === undefined ? null : JSON.stringify(entry.demotion))),
      options.room,
      options.includeFetched,
      unique.map((entry) => entry.source ?? null),
      unique.map((entry) => entry.inlinks ?? 0),
    ],
  );
  return inserted.rows.map((row) => fingerprintFromBytes(row.fingerprint));
}

export interface FrontierEntryRecord {
  crawlId: string;
  fingerprint: string;
  url: string;
  depth: number;
  state: FrontierState;
  redirectHops: number;
  redirectChain: string[];
}

export async function getFrontierEntry(db: Queryable, crawlId: string, fingerprint: string): Promise<FrontierEntryRecord | undefined> {
  const result = await db.query<{ url: string; depth: number; state: FrontierState; redirect_hops: number; redirect_chain: Buffer[] }>(
    'SELECT url, depth, state, redirect_hops, redirect_chain FROM frontier WHERE crawl_id = $1 AND fingerprint = $2',
    [crawlId, fingerprintToBytes(fingerprint)],
  );
  const row = result.rows[0];
  if (!row) return undefined;
  return {
    crawlId,
    fingerprint,
    url: row.url,
    depth: row.depth,
    state: row.state,
    redirectHops: row.redirect_hops,
    redirectChain: row.redirect_chain.map(fingerprintFromBytes),
  };
}
