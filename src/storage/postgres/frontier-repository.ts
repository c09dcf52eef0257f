/**
 * The frontier in Postgres: per-crawl queue entries (front queues, by tier and priority), atomic
 * registration (the exact seen test), idempotent claims by host (refilling back queues) and
 * settlement. Every operation here is safe to repeat: activities retry and get redelivered.
 */
import type { HostWorkItem } from '../../contracts/activities.js';
import { chooseTierCounts, TIER_COUNT } from '../../domain/frontier/index.js';
import { addCrawlCounters, counterShardOf, SUMMED_COUNTERS_SQL } from './crawl-counters.js';
import { isPool, type Pool } from './pool.js';
import type { StatementPart } from './statement-composition.js';
import { PREFLIGHT_COLUMNS_SQL, preflightOfColumns, type PreflightColumns, type UrlPreflight } from './fetch-preflight.js';
import { fingerprintFromBytes, fingerprintToBytes, oncePerFingerprintInKeyOrder, type Queryable } from './sql-codec.js';

export interface NewFrontierEntry {
  fingerprint: string;
  url: string;
  host: string;
  origin: string;
  canonicalizationVersion: number;
  depth: number;
  priority: number;
  tier: number;
  purpose?: string;
  /** How the crawl found it (migration 0025); absent for what a crawl did not discover (planned visits). */
  source?: DiscoverySource;
  /** Weighted in-links from the pages that registered it (migration 0029). Default 0. */
  inlinks?: number;
  discoveredFrom?: string;
  anchorText?: string;
  redirectHops?: number;
  redirectChain?: string[];
  demotion?: unknown;
}

/** How a URL entered a crawl's frontier (frontier.source). */
export type DiscoverySource = 'seed' | 'link' | 'redirect' | 'sitemap' | 'feed' | 'canonical' | 'robots';
export const DISCOVERY_SOURCES: readonly DiscoverySource[] = ['seed', 'link', 'redirect', 'sitemap', 'feed', 'canonical', 'robots'];

export type FrontierState = 'queued' | 'dispatched' | 'fetched' | 'done' | 'failed' | 'dead' | 'dropped';

export interface ClaimedCrawlSettings {
  minHostDelayMs: number;
  maxConcurrentFetchesPerHost: number;
}

/** A canonical URL's identity row (`urls`), shared by every crawl. */
export type UrlIdentity = Pick<NewFrontierEntry, 'fingerprint' | 'url' | 'canonicalizationVersion' | 'host' | 'origin'>;

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

interface ClaimRow {
  crawl_id: string;
  fingerprint: Buffer;
  url: string;
  origin: string;
  depth: number;
  generation: number;
  attempts: number;
  purpose: string;
  tier: number;
  priority: number;
  discovered_at: Date;
  config: { minHostDelayMs?: number; maxConcurrentFetchesPerHost?: number; politeness?: HostWorkItem['politeness'] };
}

function toWorkItem(row: ClaimRow): HostWorkItem {
  return {
    crawlId: row.crawl_id,
    fingerprint: fingerprintFromBytes(row.fingerprint),
    url: row.url,
    origin: row.origin,
    depth: row.depth,
    generation: row.generation,
    attempt: 0,
    purpose: row.purpose,
    minHostDelayMs: row.config.minHostDelayMs ?? 1000,
    maxConcurrentFetches: row.config.maxConcurrentFetchesPerHost ?? 1,
    // Only when set, so items of crawls without knobs stay as small as before.
    ...(row.config.politeness && Object.keys(row.config.politeness).length > 0 ? { politeness: row.config.politeness } : {}),
  };
}

const CLAIMED_COLUMNS = 'f.crawl_id, f.fingerprint, f.url, f.origin, f.depth, f.generation, f.attempts, f.purpose, f.tier, f.priority, f.discovered_at, c.config';

/** A claim's rows in front-queue order (best tier, then priority, then first discovered), whichever statement returned them. */
function inClaimOrder(a: ClaimRow, b: ClaimRow): number {
  return a.tier - b.tier || b.priority - a.priority || a.discovered_at.getTime() - b.discovered_at.getTime() || Buffer.compare(a.fingerprint, b.fingerprint);
}

const CLAIMED_ROWS_SQL = `
  SELECT ${CLAIMED_COLUMNS}
  FROM frontier f JOIN crawls c ON c.id = f.crawl_id
  WHERE f.claim_token = $1`;

/**
 * URLs a host claim may take now from crawl `c` (with its admission row `a` and summed counters
 * `s`), at most `wantedSql`: its host share, the in-flight limit scaled by backpressure, and the page budget.
 */
function claimRoomSql(wantedSql: string): string {
  return `GREATEST(0, LEAST(${wantedSql}, c.host_claim_cap,
                   floor(c.max_in_flight * c.admit_factor)::int - (a.admitted - s.settled - s.returned)::int,
                   c.max_pages - (a.admitted - s.returned)::int))`;
}

/**
 * The running crawls with URLs queued on host $1, each with its claim room (at most $2; read
 * without a lock, the grant is exact) and its queued URLs by tier: what a claim needs to choose
 * candidates, in one statement.
 */
const CLAIMABLE_CRAWLS_SQL = `
  SELECT q.crawl_id, q.tiers, q.counts, ${claimRoomSql('$2::int')} AS room
  FROM (SELECT crawl_id, array_agg(tier) AS tiers, array_agg(n) AS counts
          FROM (SELECT crawl_id, tier, count(*)::int AS n FROM frontier WHERE host = $1 AND state = 'queued' GROUP BY crawl_id, tier) AS t
         GROUP BY crawl_id) AS q
  JOIN crawls c ON c.id = q.crawl_id AND c.state = 'running'
  JOIN crawl_admission a ON a.crawl_id = q.crawl_id
  CROSS JOIN LATERAL (SELECT COALESCE(sum(settled), 0)::bigint AS settled, COALESCE(sum(returned), 0)::bigint AS returned
                        FROM crawl_counters WHERE crawl_id = q.crawl_id) AS s
  ORDER BY q.crawl_id`;

/**
 * CLAIMABLE_CRAWLS_SQL unless a claim under token $3 took URLs already (`earlier`: then no crawl
 * row, and CLAIMED_ROWS_SQL returns them): a claim whose token may have been used asks both in one
 * round trip, since it almost never has.
 */
const CLAIMABLE_CRAWLS_UNLESS_CLAIMED_SQL = `
  SELECT t.earlier, q.crawl_id, q.tiers, q.counts, q.room
  FROM (SELECT EXISTS (SELECT 1 FROM frontier WHERE claim_token = $3) AS earlier) AS t
  LEFT JOIN LATERAL (${CLAIMABLE_CRAWLS_SQL}) AS q ON NOT t.earlier
  ORDER BY q.crawl_id`;

/** Above any tier a URL is given (tiers are smallints). */
const MAX_TIER = 32_767;

/**
 * One crawl's part of a host claim, in one statement: the host's queued URLs of crawl $1 and host
 * $2, $5[i] of them from tiers $3[i]..$4[i] (best first, then by priority; rows another claim holds
 * are skipped, never waited for), then, under the admission row's lock (the only wait, held to the
 * statement's end), the exact grant: page budget, in-flight limit, host share, whatever committed
 * meanwhile. The budget is reserved, the granted URLs get a new fetch generation (docs/design.md, "Idempotency";
 * retries of the claim find them by token $6) and are dispatched. A smaller grant drops the lowest
 * tiers' candidates first.
 */
const CLAIM_CTES = `
  WITH candidates AS (
         SELECT pick.fingerprint, t.ord, pick.priority, pick.discovered_at
         FROM unnest($3::int[], $4::int[], $5::int[]) WITH ORDINALITY AS t(lo, hi, want, ord)
         CROSS JOIN LATERAL (
           SELECT fingerprint, priority, discovered_at FROM frontier
           WHERE crawl_id = $1 AND host = $2 AND state = 'queued' AND tier BETWEEN t.lo AND t.hi
           ORDER BY priority DESC, discovered_at
           LIMIT t.want
           FOR UPDATE SKIP LOCKED) AS pick),
       ranked AS (SELECT fingerprint, row_number() OVER (ORDER BY ord, priority DESC, discovered_at) AS i FROM candidates),
       admission AS (SELECT crawl_id, admitted FROM crawl_admission WHERE crawl_id = $1 AND EXISTS (SELECT 1 FROM ranked) FOR UPDATE),
       room AS (SELECT ${claimRoomSql('(SELECT count(*) FROM ranked)::int')} AS n
                FROM crawls c, admission a, ${SUMMED_COUNTERS_SQL} s WHERE c.id = $1 AND c.state = 'running'),
       picked AS (SELECT fingerprint FROM ranked WHERE i <= (SELECT COALESCE(max(n), 0) FROM room)),
       reserved AS (UPDATE crawl_admission SET admitted = admitted + (SELECT count(*) FROM picked) WHERE crawl_id = $1 AND EXISTS (SELECT 1 FROM picked)),
       generations AS (
         UPDATE urls SET fetch_generation = fetch_generation + 1
         WHERE fingerprint IN (SELECT fingerprint FROM picked)
         RETURNING fingerprint, fetch_generation)`;

const CLAIM_UPDATE = `UPDATE frontier f SET state = 'dispatched', generation = g.fetch_generation, claim_token = $6, updated_at = now()
  FROM generations g, crawls c
  WHERE f.crawl_id = $1 AND f.fingerprint = g.fingerprint AND c.id = $1
  RETURNING ${CLAIMED_COLUMNS}`;

const CLAIM_FROM_CRAWL_SQL = `${CLAIM_CTES}
  ${CLAIM_UPDATE}`;

/**
 * CLAIM_FROM_CRAWL_SQL, each claimed row with what a fetch of it reads first: the origin's robots
 * entry and the URL's validators (readFetchPreflights' columns), in the claim's snapshot (the claim
 * changes neither). No earlier fetch record is looked for: none of a generation this statement
 * made can exist.
 */
const CLAIM_READY_TO_FETCH_SQL = `${CLAIM_CTES},
       claimed AS (${CLAIM_UPDATE})
  SELECT claimed.*, ${PREFLIGHT_COLUMNS_SQL}
  FROM claimed LEFT JOIN robots_cache r ON r.origin = claimed.origin LEFT JOIN urls u ON u.fingerprint = claimed.fingerprint`;

/**
 * Claims up to `maxItems` queued URLs of one host, across the crawls that have room. Admission
 * (the crawl's in-flight limit scaled by its backpressure factor, its page budget, and the
 * host's share, `host_claim_cap`) is reserved atomically on the crawl's admission row. Tiers are drawn with a
 * bias that never starves low tiers. The claim token makes a retried claim return what the first
 * attempt took.
 */
export async function claimHostWork(pool: Pool, input: ClaimHostWorkInput): Promise<HostWorkItem[]> {
  return (await claimRows(pool, input, CLAIM_FROM_CRAWL_SQL)).rows.map(toWorkItem);
}

export interface ClaimHostWorkInput {
  host: string;
  maxItems: number;
  claimToken: string;
  random: () => number;
  /** No claim can have used this token yet (a first try under a token of its own): skip looking for one. Default false. */
  freshToken?: boolean;
}

/**
 * claimHostWork for URLs about to be fetched (a burst claiming on): with each URL's preflight from
 * the claim's own statement, one round trip where a claim and readFetchPreflights were two.
 * `preflights` is undefined when the claim returned what an earlier one under its token took:
 * those URLs may have fetch records already, and readFetchPreflights reads them.
 */
export async function claimHostWorkToFetch(pool: Pool, input: ClaimHostWorkInput): Promise<{ items: HostWorkItem[]; preflights: UrlPreflight[] | undefined }> {
  const { rows, earlier } = await claimRows<ClaimRow & PreflightColumns>(pool, input, CLAIM_READY_TO_FETCH_SQL);
  return {
    items: rows.map(toWorkItem),
    preflights: earlier ? undefined : rows.map(preflightOfColumns),
  };
}

interface ClaimableCrawl {
  crawl_id: string;
  room: number;
  tiers: number[];
  counts: number[];
}

/** The crawls a claim may take from, or 'earlier' when a claim under its token took URLs already. */
async function claimableUnlessClaimed(pool: Pool, input: ClaimHostWorkInput): Promise<ClaimableCrawl[] | 'earlier'> {
  const { rows } = await pool.query<ClaimableCrawl & { earlier: boolean }>(CLAIMABLE_CRAWLS_UNLESS_CLAIMED_SQL, [input.host, input.maxItems, input.claimToken]);
  if (rows.some((row) => row.earlier)) return 'earlier';
  // No claimable crawl leaves the token's row alone, its crawl columns null.
  return rows.filter((row) => row.crawl_id !== null);
}

/** The claim's rows in claim order, and whether they are an earlier claim's under the same token. */
async function claimRows<Row extends ClaimRow>(pool: Pool, input: ClaimHostWorkInput, claimSql: string): Promise<{ rows: Row[]; earlier: boolean }> {
  // Read without a lock; each crawl's grant below is exact. Each crawl's claim is one statement (a
  // transaction of its own): a claim that fails part way keeps what it took under its token, and
  // its retry returns that.
  const crawls =
    input.freshToken === true
      ? (await pool.query<ClaimableCrawl>(CLAIMABLE_CRAWLS_SQL, [input.host, input.maxItems])).rows
      : await claimableUnlessClaimed(pool, input);
  if (crawls === 'earlier') {
    const previous = await pool.query<Row>(CLAIMED_ROWS_SQL, [input.claimToken]);
    return { rows: previous.rows.sort(inClaimOrder), earlier: true };
  }
  const claimed: Row[] = [];
  let remaining = input.maxItems;
  for (const { crawl_id: crawlId, room: roomNow, tiers, counts } of crawls) {
    if (remaining <= 0) break;
    // The room read above sizes the selection; the statement's grant is exact.
    const room = Math.min(Number(roomNow), remaining);
    if (room <= 0) continue;

    const availableByTier = Array.from({ length: TIER_COUNT }, () => 0);
    tiers.forEach((tier, index) => {
      availableByTier[Math.min(TIER_COUNT - 1, tier)]! += counts[index] ?? 0;
    });
    const perTier = chooseTierCounts(availableByTier, room, input.random);
    const wanted = perTier.flatMap((want, tier) => (want > 0 ? [{ tier, want }] : []));
    if (wanted.length === 0) continue;
    const dispatched = await pool.query<Row>(claimSql, [
      crawlId,
      input.host,
      wanted.map(({ tier }) => tier),
      // The last tier also takes the tiers past it.
      wanted.map(({ tier }) => (tier === TIER_COUNT - 1 ? MAX_TIER : tier)),
      wanted.map(({ want }) => want),
      input.claimToken,
    ]);
    remaining -= dispatched.rows.length;
    claimed.push(...dispatched.rows);
  }
  return { rows: claimed.sort(inClaimOrder), earlier: false };
}

/** Moves one in-flight URL to $4 (with outcome $5 and attempts $6); settleFrontierParams orders them. */
export const SETTLE_FRONTIER_SQL = `UPDATE frontier SET state = $4, outcome = $5, attempts = GREATEST(attempts, $6), updated_at = now(),
            generation = CASE WHEN $4 = 'queued' THEN NULL ELSE generation END,
            claim_token = CASE WHEN $4 = 'queued' THEN NULL ELSE claim_token END
     WHERE crawl_id = $1 AND fingerprint = $2 AND generation = $3 AND state IN ('dispatched', 'fetched')
       AND NOT (state = $4)`;

function settleFrontierParams(input: { crawlId: string; fingerprint: string; generation: number; state: FrontierState; outcome: string; attempts?: number }): unknown[] {
  return [input.crawlId, fingerprintToBytes(input.fingerprint), input.generation, input.state, input.outcome, input.attempts ?? 0];
}

/**
 * SETTLE_FRONTIER_SQL and its counters in one statement, for a caller outside a transaction: a
 * process or a Postgres server dying between a move and its count would leave the crawl's
 * in-flight figure off for good, since a repeated settlement moves nothing and counts nothing.
 * $7 is the counter shard.
 */
const SETTLE_AND_COUNT_SQL = `WITH moved AS (${SETTLE_FRONTIER_SQL} RETURNING 1),
       counted AS (
         INSERT INTO crawl_counters AS c (crawl_id, shard, settled, returned, discovered)
         SELECT $1, $7, CASE WHEN $4 = 'queued' THEN 0 ELSE 1 END, CASE WHEN $4 = 'queued' THEN 1 ELSE 0 END, 0
         FROM moved WHERE $4 NOT IN ('dispatched', 'fetched')
         ON CONFLICT (crawl_id, shard) DO UPDATE SET settled = c.settled + EXCLUDED.settled, returned = c.returned + EXCLUDED.returned)
  SELECT count(*)::int AS moved FROM moved`;

/**
 * Moves a dispatched URL to its next state. Only a URL still in flight moves, so repeating a
 * settlement changes nothing; the move and its count commit together, so the crawl's in-flight
 * count stays exact whatever dies when.
 */
export async function settleFrontierEntry(db: Queryable, input: FrontierSettlement): Promise<boolean> {
  if (isPool(db)) {
    const result = await db.query<{ moved: number }>(SETTLE_AND_COUNT_SQL, [...settleFrontierParams(input), counterShardOf(input.fingerprint)]);
    return (result.rows[0]?.moved ?? 0) > 0;
  }
  // A lent client is inside its caller's transaction, which sends the counters with COMMIT.
  const result = await db.query(SETTLE_FRONTIER_SQL, settleFrontierParams(input));
  const changed = (result.rowCount ?? 0) > 0;
  await countSettlement(db, input, changed);
  return changed;
}

/** Where a URL in flight moves, and why. */
export interface FrontierSettlement {
  crawlId: string;
  fingerprint: string;
  generation: number;
  state: FrontierState;
  outcome: string;
  attempts?: number;
}

/**
 * Several settlements as a part of a composed statement (composeStatement): each entry still in
 * flight moves as settleFrontierEntry moves it, rows locked in fingerprint order; returns a row
 * (fingerprint, generation) per entry that moved. No two settlements of one entry.
 */
export function settleFrontierEntriesPart(name: string, settlements: readonly FrontierSettlement[]): StatementPart {
  return {
    name,
    sql: `UPDATE frontier f SET state = v.state, outcome = v.outcome, attempts = GREATEST(f.attempts, v.attempts), updated_at = now(),
            generation = CASE WHEN v.state = 'queued' THEN NULL ELSE f.generation END,
            claim_token = CASE WHEN v.state = 'queued' THEN NULL ELSE f.claim_token END
          FROM (SELECT v.* FROM unnest($1::text[], $2::bytea[], $3::int[], $4::text[], $5::text[], $6::int[]) AS v(crawl_id, fingerprint, generation, state, outcome, attempts)
                  JOIN frontier x ON x.crawl_id = v.crawl_id AND x.fingerprint = v.fingerprint AND x.generation = v.generation
                                 AND x.state IN ('dispatched', 'fetched') AND x.state <> v.state
                ORDER BY x.fingerprint FOR UPDATE OF x) AS v
          WHERE f.crawl_id = v.crawl_id AND f.fingerprint = v.fingerprint AND f.generation = v.generation
            AND f.state IN ('dispatched', 'fetched') AND NOT (f.state = v.state)
          RETURNING f.fingerprint, v.generation`,
    params: [
      settlements.map((settlement) => settlement.crawlId),
      settlements.map((settlement) => fingerprintToBytes(settlement.fingerprint)),
      settlements.map((settlement) => settlement.generation),
      settlements.map((settlement) => settlement.state),
      settlements.map((settlement) => settlement.outcome),
      settlements.map((settlement) => settlement.attempts ?? 0),
    ],
  };
}

/** The counters a settlement moves once its entry moved (`changed`): settleFrontierEntry's second half. */
export async function countSettlement(db: Queryable, input: FrontierSettlement, changed: boolean): Promise<void> {
  const leavingFlight = input.state !== 'dispatched' && input.state !== 'fetched';
  if (changed && leavingFlight) {
    // A URL returned to the queue gives its admission back; a settled one keeps counting against the budget.
    await addCrawlCounters(db, input.crawlId, counterShardOf(input.fingerprint), input.state === 'queued' ? { returned: 1 } : { settled: 1 });
  }
}

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

/** Hosts with queued work in this crawl whose workflow is idle, best tier first. */
export async function idleHostsWithWork(db: Queryable, crawlId: string, limit: number): Promise<string[]> {
  if (limit <= 0) return [];
  const result = await db.query<{ host: string }>(
    `SELECT f.host FROM frontier f LEFT JOIN hosts h ON h.host = f.host
     WHERE f.crawl_id = $1 AND f.state = 'queued' AND (h.host IS NULL OR NOT h.workflow_active)
     GROUP BY f.host ORDER BY min(f.tier), max(f.priority) DESC, f.host
     LIMIT $2`,
    [crawlId, limit],
  );
  return result.rows.map((row) => row.host);
}
