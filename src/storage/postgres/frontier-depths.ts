/**
 * Depths in a crawl's frontier: lowering the depth of URLs a shorter path from the seeds found
 * (with the priority a URL discovered at that depth earns), and the parsed pages whose links then
 * wait to be registered again at the shallower depth.
 */
import type { FrontierState } from './frontier-settlement.js';
import { fingerprintFromBytes, fingerprintToBytes, type Queryable } from './sql-codec.js';

/**
 * Lowers the depth of those of `fingerprints` this crawl holds deeper than `depth` (a shorter
 * path from the seeds found them): lowerFrontierDepthsTo with one depth for all.
 */
export async function lowerFrontierDepths(
  db: Queryable,
  crawlId: string,
  fingerprints: readonly string[],
  depth: number,
  atDepth: { priority: number; tier: number },
): Promise<{ fingerprint: string; state: FrontierState }[]> {
  return lowerFrontierDepthsTo(db, crawlId, fingerprints.map((fingerprint) => ({ fingerprint, depth, ...atDepth })));
}

/** lowerFrontierDepthsTo's statement: $1 crawl, $2..$5 fingerprints (in key order), depths, priorities, tiers. */
export const LOWER_FRONTIER_DEPTHS_SQL = lowerFrontierDepthsSql('FOR UPDATE OF x');

/** The same, passing over rows another transaction holds (lowerFrontierDepthsTo's `skipLocked`). */
const LOWER_UNLOCKED_FRONTIER_DEPTHS_SQL = lowerFrontierDepthsSql('FOR UPDATE OF x SKIP LOCKED');

function lowerFrontierDepthsSql(rowLock: string): string {
  return `UPDATE frontier f SET depth = deeper.to_depth, updated_at = now(), links_stale = f.links_stale OR f.state <> 'queued',
          priority = CASE WHEN f.demotion IS NULL AND deeper.to_priority > f.priority THEN deeper.to_priority ELSE f.priority END,
          tier = CASE WHEN f.demotion IS NULL AND deeper.to_priority > f.priority THEN deeper.to_tier ELSE f.tier END
   FROM (SELECT x.fingerprint, l.depth AS to_depth, l.priority AS to_priority, l.tier AS to_tier
           FROM unnest($2::bytea[], $3::int[], $4::real[], $5::smallint[]) AS l(fingerprint, depth, priority, tier)
           JOIN frontier x ON x.crawl_id = $1 AND x.fingerprint = l.fingerprint AND x.depth > l.depth
          -- The keys bound both scans whatever the planner thinks of the crawl's size (migration 0014).
          WHERE x.fingerprint = ANY($2::bytea[])
         ORDER BY x.fingerprint ${rowLock}) deeper
   WHERE f.crawl_id = $1 AND f.fingerprint = deeper.fingerprint AND f.fingerprint = ANY($2::bytea[]) AND f.depth > deeper.to_depth
   RETURNING f.fingerprint, f.state`;
}

/** A URL's depth as a shorter path from the seeds found it, and the priority and tier a URL discovered at that depth takes. */
export interface DepthLowering {
  fingerprint: string;
  depth: number;
  priority: number;
  tier: number;
}

export interface LowerDepthsOptions {
  /**
   * Pass over rows another transaction holds instead of waiting for them (they are left out of
   * the result). For a transaction that holds frontier rows of its own already: waiting there for
   * a row of a transaction that waits for one of ours would deadlock.
   */
  skipLocked?: boolean;
}

/**
 * Lowers each URL's depth to the one given for it where this crawl holds it deeper (a shorter path
 * from the seeds found it), locking rows in key order. A row not demoted as a trap takes the given
 * priority (and tier: a URL discovered at that depth) when it is higher. A URL claimed already (in
 * flight or parsed) is marked `links_stale`: its parse registers, or registered, its links at the
 * depth it was claimed at, so once parsed they wait for the frontier tick (takeStaleLinkPage). A URL
 * given twice takes its shallowest depth. Returns the lowered rows and their state.
 */
export async function lowerFrontierDepthsTo(
  db: Queryable,
  crawlId: string,
  lowerings: readonly DepthLowering[],
  options: LowerDepthsOptions = {},
): Promise<{ fingerprint: string; state: FrontierState }[]> {
  const shallowest = new Map<string, (typeof lowerings)[number]>();
  for (const lowering of lowerings) {
    const held = shallowest.get(lowering.fingerprint);
    if (held === undefined || lowering.depth < held.depth) shallowest.set(lowering.fingerprint, lowering);
  }
  if (shallowest.size === 0) return [];
  const sorted = [...shallowest.values()].sort((a, b) => (a.fingerprint < b.fingerprint ? -1 : 1));
  const result = await db.query<{ fingerprint: Buffer; state: FrontierState }>(
    options.skipLocked === true ? LOWER_UNLOCKED_FRONTIER_DEPTHS_SQL : LOWER_FRONTIER_DEPTHS_SQL,
    [
      crawlId,
      sorted.map((lowering) => fingerprintToBytes(lowering.fingerprint)),
      sorted.map((lowering) => lowering.depth),
      sorted.map((lowering) => lowering.priority),
      sorted.map((lowering) => lowering.tier),
    ],
  );
  return result.rows.map((row) => ({ fingerprint: fingerprintFromBytes(row.fingerprint), state: row.state }));
}

/**
 * Takes one parsed page of this crawl whose links were registered deeper than its depth (the
 * shallowest first), clearing its mark in the caller's transaction. A page lowered again
 * meanwhile is marked again; one still in flight waits for its parse. Undefined when none is waiting.
 */
export async function takeStaleLinkPage(db: Queryable, crawlId: string): Promise<{ fingerprint: string; depth: number } | undefined> {
  const result = await db.query<{ fingerprint: Buffer; depth: number }>(
    `UPDATE frontier f SET links_stale = false
     FROM (SELECT fingerprint FROM frontier WHERE crawl_id = $1 AND links_stale AND state = 'done' ORDER BY depth LIMIT 1 FOR UPDATE SKIP LOCKED) page
     WHERE f.crawl_id = $1 AND f.fingerprint = page.fingerprint
     RETURNING f.fingerprint, f.depth`,
    [crawlId],
  );
  const row = result.rows[0];
  return row ? { fingerprint: fingerprintFromBytes(row.fingerprint), depth: row.depth } : undefined;
}

/** The depth this crawl holds a URL at, undefined when it holds no such URL. */
export async function frontierDepthOf(db: Queryable, crawlId: string, fingerprint: string): Promise<number | undefined> {
  const result = await db.query<{ depth: number }>('SELECT depth FROM frontier WHERE crawl_id = $1 AND fingerprint = $2', [crawlId, fingerprintToBytes(fingerprint)]);
  return result.rows[0]?.depth;
}

/** Parsed pages of this crawl whose links wait to be registered again at a shallower depth. */
export async function countStaleLinkPages(db: Queryable, crawlId: string): Promise<number> {
  const result = await db.query<{ n: number }>(`SELECT count(*)::int AS n FROM frontier WHERE crawl_id = $1 AND links_stale AND state = 'done'`, [crawlId]);
  return result.rows[0]?.n ?? 0;
}
