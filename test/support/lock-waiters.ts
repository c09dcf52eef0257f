// Waiting until statements of this database block on a lock: how a test shows that a statement
// took a lock another transaction holds, instead of racing past it.
import type pg from 'pg';
import { waitFor } from './wait-for.js';

type Queryable = Pick<pg.ClientBase, 'query'>;

/**
 * Resolves once at least `atLeast` backends of the current database wait on a lock; fails after
 * 10 s naming `what`. Safe inside a transaction: it clears the transaction's cached view of
 * pg_stat_activity before every look.
 */
export async function waitForLockWaiters(db: Queryable, what: string, atLeast = 1): Promise<void> {
  await waitFor(
    async () => {
      await db.query('SELECT pg_stat_clear_snapshot()');
      const waiting = await db.query<{ n: number }>(`SELECT count(*)::int AS n FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND datname = current_database()`);
      return waiting.rows[0]!.n;
    },
    (n) => n >= atLeast,
    { timeoutMs: 10_000, intervalMs: 20, what },
  );
}
