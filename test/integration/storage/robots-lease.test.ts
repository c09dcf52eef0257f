// An origin's robots.txt refresh lease on a real database: the cached entry and the lease come from
// one statement, a live lease of another worker is never taken, an expired one is, and saving the
// entry gives the saver's lease back.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RobotsCacheEntry } from '../../../src/domain/robots/index.js';
import { migrate } from '../../../src/storage/postgres/migrate.js';
import { createPool, type Pool } from '../../../src/storage/postgres/pool.js';
import { readRobotsTakingLease, releaseRobotsLease, saveRobotsEntry } from '../../../src/storage/postgres/robots-repository.js';
import { freshDatabase } from '../../support/stack-context.js';

const LEASE_MS = 60_000;
const entry: RobotsCacheEntry = { policy: { kind: 'allow-all', reason: 'robots.txt answered 404' }, fetchedAtMs: 1_000, expiresAtMs: 2_000 };

let pool: Pool;
beforeAll(async () => {
  pool = createPool({ connectionString: await freshDatabase('robots_lease'), maxConnections: 2 });
  await migrate(pool);
});
afterAll(() => pool.end());

describe('readRobotsTakingLease', () => {
  it('leases an origin never seen, in one statement, and no other worker gets it meanwhile', async () => {
    const statements: string[] = [];
    const counted = { query: (text: string, values?: unknown[]) => (statements.push(text), pool.query(text, values)) } as unknown as Pool;
    expect(await readRobotsTakingLease(counted, { origin: 'http://new.example', owner: 'worker-a/1', leaseMs: LEASE_MS })).toEqual({ entry: undefined, leased: true });
    expect(statements).toHaveLength(1);
    expect(await readRobotsTakingLease(pool, { origin: 'http://new.example', owner: 'worker-b/1', leaseMs: LEASE_MS })).toEqual({ entry: undefined, leased: false });
    // Its own retry (same owner) holds it still.
    expect(await readRobotsTakingLease(pool, { origin: 'http://new.example', owner: 'worker-a/1', leaseMs: LEASE_MS })).toEqual({ entry: undefined, leased: true });
  });

  it('returns the cached entry beside the lease, and the saved entry frees the lease for the next refresh', async () => {
    const origin = 'http://cached.example';
    expect((await readRobotsTakingLease(pool, { origin, owner: 'worker-a/2', leaseMs: LEASE_MS })).leased).toBe(true);
    await saveRobotsEntry(pool, { origin, owner: 'worker-a/2', entry, sitemaps: [] });
    expect(await readRobotsTakingLease(pool, { origin, owner: 'worker-b/2', leaseMs: LEASE_MS })).toEqual({ entry, leased: true });
    // A live lease: the entry still comes back, the lease does not.
    expect(await readRobotsTakingLease(pool, { origin, owner: 'worker-c/2', leaseMs: LEASE_MS })).toEqual({ entry, leased: false });
    await releaseRobotsLease(pool, origin, 'worker-b/2');
    expect(await readRobotsTakingLease(pool, { origin, owner: 'worker-c/2', leaseMs: LEASE_MS })).toEqual({ entry, leased: true });
  });

  it('takes over a lease whose holder died (expired)', async () => {
    const origin = 'http://expired.example';
    expect((await readRobotsTakingLease(pool, { origin, owner: 'dead-worker/1', leaseMs: LEASE_MS })).leased).toBe(true);
    await pool.query(`UPDATE robots_cache SET lease_until = now() - interval '1 second' WHERE origin = $1`, [origin]);
    expect(await readRobotsTakingLease(pool, { origin, owner: 'worker-d/1', leaseMs: LEASE_MS })).toEqual({ entry: undefined, leased: true });
    const { rows } = await pool.query<{ lease_owner: string }>('SELECT lease_owner FROM robots_cache WHERE origin = $1', [origin]);
    expect(rows[0]!.lease_owner).toBe('worker-d/1');
  });
});
