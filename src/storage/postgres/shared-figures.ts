import { inlineParameters } from './inline-parameters.js';
import type { Pool, PoolClient } from './pool.js';

type Queryable = Pool | PoolClient;

/**
 * The hot rows many transactions bump (per-crawl counters and figures), in the one order every
 * transaction takes them. Within a table a key orders its rows; a multi-row statement sorts its
 * own rows.
 */
export const FIGURE_ORDER = {
  /**
   * Rows of the transaction's own page (its links, its visit, its URL record), which no other
   * transaction writes: sent with COMMIT only to save their round trips, and taken before any hot row.
   */
  pageRows: '!',
  /** Taken first of the hot rows: written while the parse holds the near-duplicate index keys others wait on. */
  nearDuplicateClusters: '0',
  crawlCounters: 'a',
  rejectionCounts: 'b',
  seenStats: 'c',
  hostStats: 'd',
  pathStats: 'e',
  depthStats: 'f',
} as const;

interface FigureWrite {
  order: string;
  sql: string;
  params: unknown[];
  combine?: (held: unknown[], next: unknown[]) => unknown[];
}

const pendingByClient = new WeakMap<object, FigureWrite[]>();

/**
 * Bumps a shared figure. Inside `inTransaction` the write is held back and sent with COMMIT, with
 * the transaction's other figure writes, sorted by `order`: every transaction then
 * takes these hot rows last and in one global order, so no two transactions can deadlock through
 * them, and each holds them only for the moment before it commits. Elsewhere it runs at once.
 *
 * @param order `FIGURE_ORDER` of the table, then the row's key (fixed width where it is a number).
 * @param combine folds a second bump of the same row (same order and statement) in this
 *   transaction into the held one's parameters, so the row is written once (a parse registers
 *   links and settles its page on one counter row).
 */
export async function bumpSharedFigure(
  db: Queryable,
  order: string,
  sql: string,
  params: unknown[],
  combine?: (held: unknown[], next: unknown[]) => unknown[],
): Promise<void> {
  const pending = pendingByClient.get(db);
  if (!pending) {
    await db.query(sql, params);
    return;
  }
  const held = combine ? pending.find((write) => write.order === order && write.sql === sql && write.combine === combine) : undefined;
  if (held) held.params = combine!(held.params, params);
  else pending.push({ order, sql, params, ...(combine ? { combine } : {}) });
}

/**
 * A write that nothing later in its transaction reads. Inside `inTransaction` it is held and sent
 * with COMMIT, in `order` among the figure writes; elsewhere it runs at once. For writes made
 * while the transaction holds locks that others wait for: each round trip it saves is one wait on
 * the worker's event loop less for them. Parameters must be inlinable (no Buffers: pass hex and
 * decode it in SQL).
 */
export function writeWithCommit(db: Queryable, order: string, sql: string, params: unknown[]): Promise<void> {
  return bumpSharedFigure(db, order, sql, params);
}

/** `inTransaction` calls this after BEGIN. */
export function holdSharedFigures(client: PoolClient): void {
  pendingByClient.set(client, []);
}

/**
 * `inTransaction` sends this to commit: the held writes, in order, then COMMIT, as one text in one
 * round trip (their values written in as literals). Each round trip inside the transaction waited
 * for the worker's event loop while the transaction held the hot rows; now they are held for one.
 * A failing write skips the rest, COMMIT included, and the caller rolls back.
 */
export function sharedFiguresThenCommit(client: PoolClient): string {
  const pending = pendingByClient.get(client) ?? [];
  pendingByClient.delete(client);
  pending.sort((a, b) => (a.order < b.order ? -1 : a.order > b.order ? 1 : 0));
  return [...pending.map((write) => inlineParameters(write.sql, write.params)), 'COMMIT'].join(';\n');
}

/** `inTransaction` calls this when the transaction ends any other way. */
export function dropSharedFigures(client: PoolClient): void {
  pendingByClient.delete(client);
}
