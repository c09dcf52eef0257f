import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPool, inTransaction, preparedStatementsFromEnv, type Pool, type PoolOptions } from '../../../src/storage/postgres/pool.js';
import { migrate } from '../../../src/storage/postgres/migrate.js';
import { refreshPlannerStatistics } from '../../../src/storage/postgres/planner-statistics.js';
import { freshDatabase } from '../../support/stack-context.js';

const lookup = 'SELECT $1::int + 1 AS n';

/** What the one connection of `pool` has prepared, by statement text. */
async function preparedOn(pool: Pool): Promise<string[]> {
  const result = await pool.query<{ statement: string }>('SELECT statement FROM pg_prepared_statements ORDER BY statement');
  return result.rows.map((row) => row.statement);
}

/** Runs `work` on a pool of one connection, ended afterwards. */
async function withPool<T>(options: PoolOptions, work: (pool: Pool) => Promise<T>): Promise<T> {
  const pool = createPool({ maxConnections: 1, ...options });
  try {
    return await work(pool);
  } finally {
    await pool.end();
  }
}

describe('the Postgres pool', () => {
  let databaseUrl: string;
  beforeAll(async () => {
    databaseUrl = await freshDatabase('postgres_pool');
  });

  describe('with prepared statements (the default)', () => {
    let pool: Pool;
    beforeAll(() => {
      pool = createPool({ connectionString: databaseUrl, maxConnections: 1 });
    });
    afterAll(() => pool.end());

    it('prepares a parameterized statement once per connection and answers every call', async () => {
      for (let i = 0; i < 3; i++) expect((await pool.query<{ n: number }>(lookup, [i])).rows[0]?.n).toBe(i + 1);
      expect(await preparedOn(pool)).toEqual([lookup]);
    });

    it('prepares statements given as config objects, and inside transactions, under one name per text', async () => {
      const other = 'SELECT $1::text AS t';
      const t = await inTransaction(pool, async (client) => {
        await client.query(lookup, [5]);
        return (await client.query<{ t: string }>({ text: other, values: ['x'] })).rows[0]?.t;
      });
      expect(t).toBe('x');
      expect(await preparedOn(pool)).toEqual([other, lookup].sort());
    });

    it('leaves statements without parameters and explicitly named ones alone', async () => {
      await pool.query('SELECT 1');
      await pool.query({ name: 'chosen_by_caller', text: 'SELECT $1::int AS n', values: [1] });
      const prepared = await pool.query<{ name: string }>('SELECT name FROM pg_prepared_statements');
      const names = prepared.rows.map((row) => row.name);
      expect(names).toContain('chosen_by_caller');
      expect(names.filter((name) => name.startsWith('crawler_'))).toHaveLength(2);
    });
  });

  describe('plans each prepared statement once when the tables have statistics to plan by', () => {
    let migratedUrl: string;
    /** The plan_cache_mode of a new connection of a pool with `options`. */
    const modeOf = (options: { connectionString?: string; planOnceAtRows?: number } = {}) =>
      withPool({ connectionString: migratedUrl, ...options }, async (pool) => (await pool.query<{ mode: string }>("SELECT current_setting('plan_cache_mode') AS mode")).rows[0]?.mode);
    beforeAll(async () => {
      migratedUrl = await freshDatabase('postgres_pool_plans');
      await withPool({ connectionString: migratedUrl }, (pool) => migrate(pool));
    });

    it('not on a fresh database: a plan made while the frontier is empty would scan it whole as it grows', async () => {
      expect(await modeOf()).toBe('auto');
    });

    it('not before every table has been analyzed, whatever the row counts', async () => {
      expect(await modeOf({ planOnceAtRows: 0 })).toBe('auto');
    });

    it('once every table is analyzed and the frontier and URL statistics count planOnceAtRows rows: later calls reuse the plan the first made', async () => {
      await withPool({ connectionString: migratedUrl, preparedStatements: false }, (admin) => refreshPlannerStatistics(admin));
      expect(await modeOf({ planOnceAtRows: 1 })).toBe('auto');
      await withPool({ connectionString: migratedUrl, planOnceAtRows: 0 }, async (pool) => {
        const batch = 'SELECT count(*)::int AS n FROM unnest($1::int[]) AS v(x) WHERE x > $2';
        for (let i = 0; i < 3; i++) expect((await pool.query<{ n: number }>(batch, [[1, 2, 3], i])).rows[0]?.n).toBe(3 - i);
        const plans = await pool.query<{ generic_plans: number; custom_plans: number }>('SELECT generic_plans::int, custom_plans::int FROM pg_prepared_statements WHERE statement = $1', [batch]);
        expect(plans.rows).toEqual([{ generic_plans: 3, custom_plans: 0 }]);
      });
    });

    it('leaves a plan_cache_mode the connection string chose', async () => {
      const chosen = new URL(migratedUrl);
      chosen.searchParams.set('options', '-c plan_cache_mode=force_custom_plan');
      expect(await modeOf({ connectionString: chosen.toString(), planOnceAtRows: 0 })).toBe('force_custom_plan');
    });
  });

  it('a prepared statement that names its columns survives a migration adding one; one reading * does not', async () => {
    const pool = createPool({ connectionString: databaseUrl, maxConnections: 1 });
    try {
      await pool.query('CREATE TABLE evolving (id int PRIMARY KEY, name text)');
      await pool.query("INSERT INTO evolving VALUES (1, 'one')");
      const named = 'SELECT id, name FROM evolving WHERE id = $1';
      const star = 'SELECT * FROM evolving WHERE id = $1';
      await pool.query(named, [1]);
      await pool.query(star, [1]);
      await pool.query('ALTER TABLE evolving ADD COLUMN added int');
      expect((await pool.query(named, [1])).rows).toEqual([{ id: 1, name: 'one' }]);
      // Why repositories never read a table with *: workers still running when a migration lands.
      await expect(pool.query(star, [1])).rejects.toThrow(/cached plan must not change result type/);
    } finally {
      await pool.end();
    }
  });

  it('prepares nothing with preparedStatements: false (a pooler that cannot keep them)', async () => {
    const pool = createPool({ connectionString: databaseUrl, maxConnections: 1, preparedStatements: false });
    try {
      expect((await pool.query<{ n: number }>(lookup, [1])).rows[0]?.n).toBe(2);
      expect(await preparedOn(pool)).toEqual([]);
      // Unnamed statements are planned for their values, as Postgres does by default.
      expect((await pool.query<{ mode: string }>("SELECT current_setting('plan_cache_mode') AS mode")).rows[0]?.mode).toBe('auto');
    } finally {
      await pool.end();
    }
  });
});

describe('the Postgres pool when its server goes away', () => {
  it('survives a lent client losing its connection (57P01 from a restarted postmaster), and the next query reconnects', async () => {
    const databaseUrl = await freshDatabase('postgres_pool_lost');
    const pool = createPool({ connectionString: databaseUrl, maxConnections: 2 });
    const admin = createPool({ connectionString: databaseUrl, maxConnections: 1 });
    const uncaught: unknown[] = [];
    const onUncaught = (error: unknown) => uncaught.push(error);
    process.on('uncaughtException', onUncaught);
    try {
      const lent = await pool.connect();
      const pid = (await lent.query<{ pid: number }>('SELECT pg_backend_pid() AS pid')).rows[0]!.pid;
      const lost = new Promise((resolve) => lent.once('end', resolve));
      // The server ends the lent connection between two queries: its 'error' arrives with nobody waiting.
      await admin.query('SELECT pg_terminate_backend($1)', [pid]);
      await lost;
      await new Promise((resolve) => setTimeout(resolve, 50));
      lent.release(true);
      expect(uncaught).toEqual([]);
      expect((await pool.query<{ n: number }>(lookup, [41])).rows[0]?.n).toBe(42);
      // A transaction on a connection that dies under it fails, and its client is not lent again.
      await expect(
        inTransaction(pool, async (client) => {
          const own = (await client.query<{ pid: number }>('SELECT pg_backend_pid() AS pid')).rows[0]!.pid;
          await admin.query('SELECT pg_terminate_backend($1)', [own]);
          await client.query('SELECT pg_sleep(0.2)');
        }),
      ).rejects.toThrow();
      expect((await pool.query<{ n: number }>(lookup, [1])).rows[0]?.n).toBe(2);
      expect(uncaught).toEqual([]);
    } finally {
      process.off('uncaughtException', onUncaught);
      await pool.end();
      await admin.end();
    }
  });
});

describe('DATABASE_PREPARED_STATEMENTS', () => {
  it('is on unless set to off, and a value that is neither names itself', () => {
    expect(preparedStatementsFromEnv({})).toBe(true);
    expect(preparedStatementsFromEnv({ DATABASE_PREPARED_STATEMENTS: 'on' })).toBe(true);
    expect(preparedStatementsFromEnv({ DATABASE_PREPARED_STATEMENTS: ' OFF ' })).toBe(false);
    expect(() => preparedStatementsFromEnv({ DATABASE_PREPARED_STATEMENTS: 'no' })).toThrow(/DATABASE_PREPARED_STATEMENTS='no' is neither 'on' nor 'off'/);
  });
});
