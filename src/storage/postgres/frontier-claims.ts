/**
 * Claims of a host's queued URLs (refilling its back queue) across the crawls that have room:
 * tiers drawn with a bias that never starves the low ones, admission reserved exactly on each
 * crawl's admission row, and a claim token that makes a retried claim return what the first
 * attempt took. Also which hosts have queued work and no workflow running to claim it.
 */
import type { HostRecord, HostWorkItem } from '../../contracts/activities.js';
import { chooseTierCounts, TIER_COUNT } from '../../domain/frontier/index.js';
import { SUMMED_COUNTERS_SQL } from './crawl-counters.js';
import { PREFLIGHT_COLUMNS_SQL, preflightOfColumns, type PreflightColumns, type UrlPreflight } from './fetch-preflight.js';
import { HOST_RECORD_COLUMNS, hostRecordOf, releaseHost, releaseHostParams, releaseHostSql, type HostRecordRow, type HostRelease } from './host-repository.js';
import type { Pool } from './pool.js';
import { fingerprintFromBytes, type Queryable } from './sql-codec.js';

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

/** What a claim's read asks beside the claimable crawls (claimReadSql). */
interface ClaimReadShape {
  /** Whether a claim under the token took URLs already. */
  checkToken: boolean;
  startRun: boolean;
  release: boolean;
  /** The release keeps the host's saved record where the run knows nothing (HostClaimOptions.releaseKeepsRecord). */
  keepsRecord: boolean;
}

/**
 * What a claim reads before it claims, in one statement: whether a claim under token $3 took URLs
 * already (`earlier`; then no crawl row, and CLAIMED_ROWS_SQL returns them), else the claimable
 * crawls (CLAIMABLE_CRAWLS_SQL with host $1 and at most $2 URLs, one row each). Beside them, what
 * the host's run does with a claim that needs it: the run begins (`run_started_at` stamped, the
 * saved record returned as it was before this statement); the host is released (politeness,
 * paused, delay override: the parameters after the others) when no crawl has room on it, as the
 * claim would then take nothing, writing the row once when the run begins too. Without a crawl
 * row the statement still returns one row (crawl columns null). Only what the shape asks is in
 * the text: Postgres plans each call, and the unused CTEs cost planning time.
 */
function claimReadSql({ checkToken, startRun, release, keepsRecord }: ClaimReadShape): string {
  const firstReleaseParam = checkToken ? 4 : 3;
  const releaseValues: [string, string, string] = [`$${firstReleaseParam}`, `$${firstReleaseParam + 1}`, `$${firstReleaseParam + 2}`];
  const ctes = [
    `token AS (SELECT ${checkToken ? 'EXISTS (SELECT 1 FROM frontier WHERE claim_token = $3)' : 'false'} AS earlier)`,
    `claimable AS (SELECT q.crawl_id, q.tiers, q.counts, q.room FROM token CROSS JOIN LATERAL (${CLAIMABLE_CRAWLS_SQL}) AS q WHERE NOT token.earlier)`,
  ];
  if (startRun) ctes.push(`saved AS (SELECT ${HOST_RECORD_COLUMNS} FROM hosts WHERE host = $1)`);
  if (release) {
    ctes.push(
      'releasing AS (SELECT 1 FROM token WHERE NOT token.earlier AND NOT EXISTS (SELECT 1 FROM claimable WHERE room > 0))',
      `released AS (${releaseHostSql('$1::text', releaseValues, { whenSql: 'EXISTS (SELECT 1 FROM releasing)', startRunSql: String(startRun), keepsRecord })} RETURNING 1)`,
    );
  }
  if (startRun) ctes.push(`started AS (UPDATE hosts SET run_started_at = now() WHERE host = $1${release ? ' AND NOT EXISTS (SELECT 1 FROM releasing)' : ''} RETURNING 1)`);
  return `
  WITH ${ctes.join(',\n       ')}
  SELECT token.earlier, ${release ? 'EXISTS (SELECT 1 FROM released)' : 'false'} AS released, ${startRun ? '(SELECT to_jsonb(saved) FROM saved)' : 'NULL::jsonb'} AS saved,
         c.crawl_id, c.tiers, c.counts, c.room
  FROM token LEFT JOIN claimable c ON true
  ORDER BY c.crawl_id`;
}

/** claimReadSql of every shape, made once. */
const CLAIM_READ_SQL = new Map<string, string>();

function claimReadSqlOf(shape: ClaimReadShape): string {
  const key = `${shape.checkToken}/${shape.startRun}/${shape.release}/${shape.keepsRecord}`;
  let sql = CLAIM_READ_SQL.get(key);
  if (sql === undefined) CLAIM_READ_SQL.set(key, (sql = claimReadSql(shape)));
  return sql;
}

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

export interface ClaimHostWorkInput {
  host: string;
  maxItems: number;
  claimToken: string;
  random: () => number;
  /** No claim can have used this token yet (a first try under a token of its own): skip looking for one. Default false. */
  freshToken?: boolean;
}

/** What a host's run asks of a claim beside its URLs, in the claim's own statements. */
export interface HostClaimOptions {
  /** Each claimed URL's preflight from the claim's statement, one round trip where a claim and readFetchPreflights would be two. Default false. */
  withPreflights?: boolean;
  /** The run begins: stamp `run_started_at` and return the host's saved record (startHostRun). Default false. */
  startRun?: boolean;
  /** Release the host with these values when the claim takes nothing (releaseHost). Default: no release. */
  releaseIfEmpty?: HostRelease;
  /**
   * The run has not read the host's record (its first claim, which reads it): a release keeps the
   * saved record where the run's values know nothing (releaseHostSql's `keepsRecord`), so a host
   * whose new run found no room keeps its politeness state and the operator's settings. Default false.
   */
  releaseKeepsRecord?: boolean;
}

/** A claim's URLs, and what it did beside them (HostClaimOptions). */
export interface HostClaim {
  items: HostWorkItem[];
  /**
   * With withPreflights, each URL's preflight; undefined when the claim returned what an earlier
   * one under its token took: those URLs may have fetch records already, and readFetchPreflights reads them.
   */
  preflights: UrlPreflight[] | undefined;
  /** With startRun: the host's record as the run found it. */
  hostRecord?: HostRecord;
  /** With releaseIfEmpty: the claim took nothing and released the host. */
  released: boolean;
}

/**
 * A host claim with what its run does beside it: the read before the claim also begins the run
 * and, when no crawl has room, releases the host; a claim that had room and got nothing releases
 * it with a statement of its own. A host's claims thus cost the read and one statement a crawl
 * that has room.
 */
export async function takeHostClaim(pool: Pool, input: ClaimHostWorkInput, options: HostClaimOptions = {}): Promise<HostClaim> {
  const read = await readBeforeClaim(pool, input, options);
  const hostRecord = options.startRun === true ? { hostRecord: hostRecordOf(read.saved) } : {};
  if (read.crawls === 'earlier') {
    const previous = await pool.query<ClaimRow>(CLAIMED_ROWS_SQL, [input.claimToken]);
    return { items: previous.rows.sort(inClaimOrder).map(toWorkItem), preflights: undefined, released: false, ...hostRecord };
  }
  const claimSql = options.withPreflights === true ? CLAIM_READY_TO_FETCH_SQL : CLAIM_FROM_CRAWL_SQL;
  const rows = await claimFromCrawls<ClaimRow & Partial<PreflightColumns>>(pool, input, read.crawls, claimSql);
  let released = read.released;
  if (!released && rows.length === 0 && options.releaseIfEmpty !== undefined) {
    await releaseHost(pool, { host: input.host, ...options.releaseIfEmpty }, { keepsRecord: options.releaseKeepsRecord === true });
    released = true;
  }
  return {
    items: rows.map(toWorkItem),
    preflights: options.withPreflights === true ? rows.map((row) => preflightOfColumns(row as PreflightColumns)) : undefined,
    released,
    ...hostRecord,
  };
}

interface ClaimableCrawl {
  crawl_id: string;
  room: number;
  tiers: number[];
  counts: number[];
}

interface ClaimRead {
  /** The crawls a claim may take from, or 'earlier' when a claim under its token took URLs already. */
  crawls: ClaimableCrawl[] | 'earlier';
  saved: HostRecordRow | undefined;
  released: boolean;
}

/** claimReadSql. Read without a lock; each crawl's grant is exact. */
async function readBeforeClaim(pool: Pool, input: ClaimHostWorkInput, options: HostClaimOptions): Promise<ClaimRead> {
  const release = options.releaseIfEmpty;
  const shape: ClaimReadShape = { checkToken: input.freshToken !== true, startRun: options.startRun === true, release: release !== undefined, keepsRecord: options.releaseKeepsRecord === true };
  const { rows } = await pool.query<{ earlier: boolean; released: boolean; saved: HostRecordRow | null; crawl_id: string | null; tiers: number[]; counts: number[]; room: number }>(
    claimReadSqlOf(shape),
    [input.host, input.maxItems, ...(shape.checkToken ? [input.claimToken] : []), ...(release === undefined ? [] : releaseHostParams(release))],
  );
  const first = rows[0];
  const saved = first?.saved ?? undefined;
  const released = first?.released === true;
  if (first?.earlier === true) return { crawls: 'earlier', saved, released };
  // No claimable crawl leaves the one row, its crawl columns null.
  return { crawls: rows.flatMap((row) => (row.crawl_id === null ? [] : [{ crawl_id: row.crawl_id, room: row.room, tiers: row.tiers, counts: row.counts }])), saved, released };
}

/** Each crawl's part of the claim (a statement, a transaction of its own), the rows in claim order. */
async function claimFromCrawls<Row extends ClaimRow>(pool: Pool, input: ClaimHostWorkInput, crawls: ClaimableCrawl[], claimSql: string): Promise<Row[]> {
  // A claim that fails part way keeps what it took under its token, and its retry returns that.
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
  return claimed.sort(inClaimOrder);
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
