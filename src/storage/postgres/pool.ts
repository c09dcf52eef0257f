import { createHash } from 'node:crypto';
import pg from 'pg';
import { inlineParameters } from './inline-parameters.js';
import { DEFAULT_PLAN_ONCE_AT_ROWS, planOnceWhenDescribedSql } from './planner-statistics.js';
import { dropSharedFigures, holdSharedFigures, sharedFiguresThenCommit } from './held-rows.js';

export type Pool = pg.Pool;
export type PoolClient = pg.PoolClient;

export interface PoolOptions {
  /** postgres:// URL. */
  connectionString: string;
  /** Connections this process may open. Default 10. */
  maxConnections?: number;
  /** Application name shown in pg_stat_activity. Default 'crawler'. */
  applicationName?: string;
  /**
   * Parameterized statements are prepared once per connection and then only bound and run.
   * Default: DATABASE_PREPARED_STATEMENTS (on unless 'off'). Turn off behind a pooler that
   * cannot keep prepared statements (PgBouncer in transaction mode before 1.21, or with
   * max_prepared_statements = 0).
   */
  preparedStatements?: boolean;
  /**
   * With prepared statements: a new connection plans each statement once (plan_cache_mode
   * force_generic_plan) when every table has been analyzed and the statistics of the frontier and
   * URL tables count at least this many rows each; otherwise (a fresh database) Postgres plans for
   * the values, as by default (planner-statistics.ts says why). Default 1,000.
   */
  planOnceAtRows?: number;
}

/** DATABASE_PREPARED_STATEMENTS: 'on' (default) or 'off'. */
export function preparedStatementsFromEnv(env: NodeJS.ProcessEnv = process.env): boolean {
  const value = env['DATABASE_PREPARED_STATEMENTS']?.trim().toLowerCase();
  if (value === undefined || value === '' || value === 'on') return true;
  if (value === 'off') return false;
  throw new Error(`DATABASE_PREPARED_STATEMENTS='${env['DATABASE_PREPARED_STATEMENTS']}' is neither 'on' nor 'off'; set one of them, or unset it for 'on'`);
}

const statementNames = new Map<string, string>();

/** A name per statement text: our SQL is static, so the set of names is bounded by the code. */
function statementNameOf(text: string): string {
  let name = statementNames.get(text);
  if (name === undefined) {
    name = `crawler_${createHash('sha1').update(text).digest('hex').slice(0, 20)}`;
    statementNames.set(text, name);
  }
  return name;
}

/**
 * A client that names every parameterized statement, so Postgres parses and analyses each once
 * per connection instead of on every call (the claim, registration and counter statements run
 * dozens of times per page). node-postgres keeps the per-connection record of what it prepared.
 */
class PreparingClient extends pg.Client {
  override query(...args: unknown[]): never {
    const [config, values] = args;
    if (typeof config === 'string' && Array.isArray(values) && values.length > 0) {
      args[0] = { name: statementNameOf(config), text: config, values };
      args.splice(1, 1);
    } else if (isUnnamedConfig(config) && (config.values?.length ?? 0) > 0) {
      args[0] = { ...config, name: statementNameOf(config.text) };
    }
    return (super.query as (...rest: unknown[]) => never)(...args);
  }
}

function isUnnamedConfig(config: unknown): config is { text: string; values?: unknown[]; name?: undefined } {
  return typeof config === 'object' && config !== null && typeof (config as { text?: unknown }).text === 'string' && (config as { name?: unknown }).name === undefined && !('submit' in config);
}

// bigint columns (counters, simhash) arrive as strings by default; the values we keep there fit
// in a double except simhash, which the document repository converts explicitly.
pg.types.setTypeParser(pg.types.builtins.INT8, (value) => Number(value));

export function createPool(options: PoolOptions): Pool {
  const prepared = options.preparedStatements ?? preparedStatementsFromEnv();
  const planOnce = prepared ? planOnceWhenDescribedSql(options.planOnceAtRows ?? DEFAULT_PLAN_ONCE_AT_ROWS) : undefined;
  const pool = new pg.Pool({
    connectionString: options.connectionString,
    max: options.maxConnections ?? 10,
    application_name: options.applicationName ?? 'crawler',
    idleTimeoutMillis: 30_000,
    ...(prepared ? { Client: PreparingClient } : {}),
    // pg-pool awaits the promise before it lends the new connection (@types/pg says void); a
    // failure only leaves the default mode.
    ...(planOnce !== undefined
      ? {
          // eslint-disable-next-line @typescript-eslint/no-misused-promises
          onConnect: async (client: pg.ClientBase) => {
            await client.query(planOnce).catch(() => undefined);
          },
        }
      : {}),
  });
  // A client losing its server (a restarted postmaster sends 57P01) must not crash the process:
  // idle clients report through the pool, checked-out ones through their own 'error' event, which
  // has no listener of pg-pool's while a client is lent. The query in flight fails on its own and
  // its caller's retry reconnects.
  pool.on('error', () => undefined);
  pool.on('connect', (client) => {
    client.on('error', () => undefined);
  });
  return pool;
}

/** Whether `db` is the pool itself (each query its own transaction) rather than one lent client. */
export function isPool(db: Pool | PoolClient): db is Pool {
  return db instanceof pg.Pool;
}

/**
 * Whether a statement failed for what another transaction did at the same moment (a deadlock, a
 * serialization failure), not for what it was given: run again, it may well commit.
 */
export function isTransactionConflict(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return code === '40P01' || code === '40001';
}

export interface TransactionOptions {
  /**
   * The transaction's first statement, sent with BEGIN in one round trip (its values written in as
   * literals: inlineParameters's types only). For a write the work does not read the result of.
   */
  openWith?: { text: string; values: readonly unknown[] };
}

/**
 * Runs `work` in one transaction; rolls back on any error. Shared figures it bumps
 * (`holdRows`) are written last, in one global order, sent with COMMIT.
 */
export async function inTransaction<T>(pool: Pool, work: (client: PoolClient) => Promise<T>, options: TransactionOptions = {}): Promise<T> {
  const client = await pool.connect();
  let broken: Error | undefined;
  try {
    await client.query(options.openWith ? `BEGIN;\n${inlineParameters(options.openWith.text, options.openWith.values)}` : 'BEGIN');
    holdSharedFigures(client);
    const result = await work(client);
    await client.query(sharedFiguresThenCommit(client));
    return result;
  } catch (error) {
    await client.query('ROLLBACK').catch((rollbackError: unknown) => {
      // A connection that cannot even roll back is dead: destroy it rather than lend it again.
      broken = rollbackError instanceof Error ? rollbackError : new Error(String(rollbackError));
    });
    throw error;
  } finally {
    dropSharedFigures(client);
    client.release(broken);
  }
}
