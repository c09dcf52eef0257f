// The hot rows many transactions write (counters, figures) and the writes nothing later in a
// transaction reads: held back to its COMMIT and sent there in one global order, so hot rows are
// locked last and briefly (docs/glossary.md, "held rows").
import { inlineParameters } from './inline-parameters.js';
import type pg from 'pg';
import type { Queryable } from './sql-codec.js';

type PoolClient = pg.PoolClient;

/**
 * The hot rows many transactions bump (per-crawl counters and figures), in the one order every
 * transaction takes them. Within a table a key orders its rows; a multi-row statement sorts its
 * own rows.
 */
export const FIGURE_ORDER = {
  /**
   * Rows of the transaction's own pages (their links, their visits, their URL records), which no
   * other transaction writes: sent with COMMIT only to save their round trips, and taken before any hot row.
   */
  pageRows: '!',
  /** Taken first of the hot rows: written while the parse holds the near-duplicate index keys others wait on. */
  nearDuplicateClusters: '0',
  /** Right after them: a canonical hint obeyed regroups memberships those writes may have just made. */
  canonicalClusters: '01',
  crawlCounters: 'a',
  rejectionCounts: 'b',
  seenStats: 'c',
  hostStats: 'd',
  pathStats: 'e',
  depthStats: 'f',
} as const;

/**
 * A multi-row write nothing later in its transaction reads (holdRows): inside `inTransaction` the
 * rows of every call with the same statement go to COMMIT as one statement, however many pages of
 * a batch wrote them.
 */
export interface RowStatement {
  /** Where the statement goes among the transaction's held writes: FIGURE_ORDER of its table. */
  order: string;
  /**
   * Takes its rows as one array per column, $1 the first column's values (one per row), each
   * placeholder cast to its array type (`$1::text[]`), and writes them in the order given.
   */
  sql: string;
  /** How many leading columns identify a row. Rows are written sorted by them: every transaction locks them in one order. */
  keyColumns: number;
  /** Two rows with one key in a transaction: the row to write. Default: the first is kept. */
  fold?: (held: readonly unknown[], next: readonly unknown[]) => unknown[];
}

/** RowStatement.fold for rows whose columns after the key are counts: two rows of one key sum them. */
export function sumCountsAfterKey(keyColumns: number): NonNullable<RowStatement['fold']> {
  return (held, next) => held.map((value, index) => (index < keyColumns ? value : (value as number) + (next[index] as number)));
}

interface HeldRows {
  statement: RowStatement;
  rows: Map<string, unknown[]>;
}

const pendingByClient = new WeakMap<object, HeldRows[]>();

/**
 * Writes rows with `statement`. Inside `inTransaction` they are held back and sent with COMMIT:
 * with the transaction's other rows of that statement (folded by key, sorted by key), and after
 * its other held writes in FIGURE_ORDER, so every transaction takes these hot rows last and in one
 * global order (no two can deadlock through them) and holds them only for the moment before it
 * commits. Elsewhere they are written at once. Values must be inlinable (inline-parameters.ts):
 * Buffers, strings, numbers, booleans and nulls (times as ISO text, JSON as text).
 */
export async function holdRows(db: Queryable, statement: RowStatement, rows: readonly unknown[][]): Promise<void> {
  if (rows.length === 0) return;
  const pending = pendingByClient.get(db);
  if (!pending) {
    const keyed = new Map<string, unknown[]>();
    addRows(keyed, statement, rows);
    await db.query(statement.sql, columnsOf(keyed));
    return;
  }
  let held = pending.find((write) => write.statement === statement);
  if (!held) pending.push((held = { statement, rows: new Map() }));
  addRows(held.rows, statement, rows);
}

function addRows(keyed: Map<string, unknown[]>, statement: RowStatement, rows: readonly unknown[][]): void {
  for (const row of rows) {
    const key = rowKey(row, statement.keyColumns);
    const held = keyed.get(key);
    if (held === undefined) keyed.set(key, [...row]);
    else if (statement.fold) keyed.set(key, statement.fold(held, row));
  }
}

/** A row's key as text that sorts as its key columns do: bytes as hex, whole numbers fixed width. */
function rowKey(row: readonly unknown[], keyColumns: number): string {
  return row
    .slice(0, keyColumns)
    .map((value) => (Buffer.isBuffer(value) ? value.toString('hex') : typeof value === 'number' ? String(value).padStart(20, '0') : String(value)))
    .join('\u0001');
}

/** The rows sorted by key, as one array per column. */
function columnsOf(keyed: Map<string, unknown[]>): unknown[][] {
  const rows = [...keyed.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([, row]) => row);
  const width = rows[0]?.length ?? 0;
  return Array.from({ length: width }, (_, column) => rows.map((row) => row[column]));
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
  const orderOf = ({ statement }: HeldRows): string => `${statement.order}\u0001${statement.sql}`;
  pending.sort((a, b) => (orderOf(a) < orderOf(b) ? -1 : orderOf(a) > orderOf(b) ? 1 : 0));
  return [...pending.map((write) => inlineParameters(write.statement.sql, columnsOf(write.rows))), 'COMMIT'].join(';\n');
}

/** `inTransaction` calls this when the transaction ends any other way. */
export function dropSharedFigures(client: PoolClient): void {
  pendingByClient.delete(client);
}
