import pg from 'pg';
import { dropSharedFigures, flushSharedFigures, holdSharedFigures } from './shared-figures.js';

export type Pool = pg.Pool;
export type PoolClient = pg.PoolClient;

export interface PoolOptions {
  /** postgres:// URL. */
  connectionString: string;
  /** Connections this process may open. Default 10. */
  maxConnections?: number;
  /** Application name shown in pg_stat_activity. Default 'crawler'. */
  applicationName?: string;
}

// bigint columns (counters, simhash) arrive as strings by default; the values we keep there fit
// in a double except simhash, which the document repository converts explicitly.
pg.types.setTypeParser(pg.types.builtins.INT8, (value) => Number(value));

export function createPool(options: PoolOptions): Pool {
  const pool = new pg.Pool({
    connectionString: options.connectionString,
    max: options.maxConnections ?? 10,
    application_name: options.applicationName ?? 'crawler',
    idleTimeoutMillis: 30_000,
  });
  // An idle client losing its server must not crash the worker; the next query reconnects.
  pool.on('error', () => undefined);
  return pool;
}

/**
 * Runs `work` in one transaction; rolls back on any error. Shared figures it bumps
 * (`bumpSharedFigure`) are written last, in one global order, just before COMMIT.
 */
export async function inTransaction<T>(pool: Pool, work: (client: PoolClient) => Promise<T>): Promise<T> {
  const client = await pool.connect();
  try {
    await client.query('BEGIN');
    holdSharedFigures(client);
    const result = await work(client);
    await flushSharedFigures(client);
    await client.query('COMMIT');
    return result;
  } catch (error) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw error;
  } finally {
    dropSharedFigures(client);
    client.release();
  }
}
