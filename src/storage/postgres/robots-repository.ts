import type { RobotsCacheEntry } from '../../domain/robots/index.js';
import { robotsRequestsInsert, type RobotsRequestsBill } from './cost-repository.js';
import type { Queryable } from './sql-codec.js';

/** robots.txt per origin, shared by every worker (docs/design.md, "robots.txt"). */
export async function getRobotsEntry(db: Queryable, origin: string): Promise<RobotsCacheEntry | undefined> {
  const result = await db.query<{ entry: RobotsCacheEntry | null }>('SELECT entry FROM robots_cache WHERE origin = $1', [origin]);
  return result.rows[0]?.entry ?? undefined;
}

/**
 * The origin's cached entry, and its refresh lease taken unless another worker holds a live one (so
 * that two workers never fetch the same robots.txt at once; the lease expires by itself if its
 * holder dies). One statement: a refresh almost always finds the entry stale and needs both.
 */
export async function readRobotsTakingLease(
  db: Queryable,
  input: { origin: string; owner: string; leaseMs: number },
): Promise<{ entry: RobotsCacheEntry | undefined; leased: boolean }> {
  const result = await db.query<{ entry: RobotsCacheEntry | null; leased: boolean }>(
    `WITH cached AS (SELECT entry FROM robots_cache WHERE origin = $1),
          leased AS (
            INSERT INTO robots_cache (origin, lease_owner, lease_until) VALUES ($1, $2, now() + make_interval(secs => $3))
            ON CONFLICT (origin) DO UPDATE SET lease_owner = $2, lease_until = now() + make_interval(secs => $3)
            WHERE robots_cache.lease_until IS NULL OR robots_cache.lease_until < now() OR robots_cache.lease_owner = $2
            RETURNING 1)
     SELECT (SELECT entry FROM cached) AS entry, EXISTS (SELECT 1 FROM leased) AS leased`,
    [input.origin, input.owner, input.leaseMs / 1000],
  );
  const row = result.rows[0]!;
  return { entry: row.entry ?? undefined, leased: row.leased };
}

/**
 * Saves a refreshed entry and gives its lease back; with `billed`, the refresh's requests are
 * charged to their crawl in the same statement (one round trip a refresh, as most hosts of a wide
 * crawl make once).
 */
export async function saveRobotsEntry(
  db: Queryable,
  input: { origin: string; owner: string; entry: RobotsCacheEntry; sitemaps: string[]; billed?: RobotsRequestsBill },
): Promise<void> {
  const params: unknown[] = [input.origin, JSON.stringify(input.entry), input.entry.fetchedAtMs, input.entry.expiresAtMs, input.sitemaps, input.owner];
  let billing = '';
  if (input.billed !== undefined && input.billed.requests.length > 0) {
    const insert = robotsRequestsInsert(input.billed, params.length + 1);
    billing = `WITH billed AS (${insert.sql})\n     `;
    params.push(...insert.params);
  }
  await db.query(
    `${billing}INSERT INTO robots_cache (origin, entry, fetched_at, expires_at, sitemaps)
     VALUES ($1, $2, to_timestamp($3 / 1000.0), to_timestamp($4 / 1000.0), $5)
     ON CONFLICT (origin) DO UPDATE SET entry = $2, fetched_at = to_timestamp($3 / 1000.0), expires_at = to_timestamp($4 / 1000.0),
       sitemaps = $5,
       lease_owner = CASE WHEN robots_cache.lease_owner = $6 THEN NULL ELSE robots_cache.lease_owner END,
       lease_until = CASE WHEN robots_cache.lease_owner = $6 THEN NULL ELSE robots_cache.lease_until END`,
    params,
  );
}

export async function releaseRobotsLease(db: Queryable, origin: string, owner: string): Promise<void> {
  await db.query('UPDATE robots_cache SET lease_owner = NULL, lease_until = NULL WHERE origin = $1 AND lease_owner = $2', [origin, owner]);
}
