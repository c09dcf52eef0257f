// The ordering contract that keeps hot per-crawl rows deadlock-free: inside a transaction, held
// rows wait until the end and go with COMMIT in one round trip, one statement per statement kind
// (its rows folded and sorted by key), the kinds in figure order; outside one they run at once.
import { describe, expect, it } from 'vitest';
import { inTransaction, type Pool } from '../../../src/storage/postgres/pool.js';
import { FIGURE_ORDER, holdRows, type RowStatement } from '../../../src/storage/postgres/held-rows.js';

function recordingPool(): { pool: Pool; statements: string[]; params: unknown[] } {
  const statements: string[] = [];
  const params: unknown[] = [];
  const client = {
    query: async (sql: string, values?: unknown) => {
      statements.push(sql);
      if (values !== undefined) params.push(values);
      return { rows: [], rowCount: 0 };
    },
    release: () => undefined,
  };
  const pool = { connect: async () => client, query: client.query } as unknown as Pool;
  return { pool, statements, params };
}

const counters: RowStatement = {
  order: FIGURE_ORDER.crawlCounters,
  sql: 'counters($1::text[], $2::int[], $3::int[])',
  keyColumns: 2,
  fold: (held, next) => [held[0], held[1], (held[2] as number) + (next[2] as number)],
};
const seen: RowStatement = { order: FIGURE_ORDER.seenStats, sql: 'seen($1::int[])', keyColumns: 1 };
const depths: RowStatement = { order: FIGURE_ORDER.depthStats, sql: 'depths($1::int[])', keyColumns: 1 };
const links: RowStatement = { order: FIGURE_ORDER.pageRows, sql: 'links($1::bytea[], $2::text[])', keyColumns: 1 };

describe('held rows', () => {
  it('inside a transaction, run last, in figure order, sent with COMMIT as one text', async () => {
    const { pool, statements } = recordingPool();
    await inTransaction(pool, async (client) => {
      await holdRows(client, seen, [[3]]);
      await client.query('entity write');
      await holdRows(client, depths, [[1]]);
      await holdRows(client, counters, [['c', 7, 1]]);
      await client.query('another entity write');
    });
    expect(statements).toEqual([
      'BEGIN',
      'entity write',
      'another entity write',
      `counters('{"c"}'::text[], '{"7"}'::int[], '{"1"}'::int[]);\nseen('{"3"}'::int[]);\ndepths('{"1"}'::int[]);\nCOMMIT`,
    ]);
  });

  it('every call of one statement goes as one statement: its rows folded by key and sorted', async () => {
    const { pool, statements } = recordingPool();
    await inTransaction(pool, async (client) => {
      await holdRows(client, counters, [['c', 7, 1]]);
      await holdRows(client, links, [[Buffer.from('0b', 'hex'), 'second'], [Buffer.from('0a', 'hex'), 'first']]);
      await holdRows(client, counters, [['c', 10, 2], ['c', 7, 3]]);
      // A key seen before keeps its first row when the statement does not say how to fold.
      await holdRows(client, links, [[Buffer.from('0a', 'hex'), 'again']]);
    });
    expect(statements).toEqual([
      'BEGIN',
      [
        // Bytes as bytea hex text in an escaped literal (inline-parameters.ts).
        String.raw`links( E'{"\\\\x0a","\\\\x0b"}'::bytea[], '{"first","second"}'::text[])`,
        // Numbers sort as numbers (shard 7 before 10), however many digits.
        `counters('{"c","c"}'::text[], '{"7","10"}'::int[], '{"4","2"}'::int[])`,
        'COMMIT',
      ].join(';\n'),
    ]);
  });

  it('a failed transaction writes none of them', async () => {
    const { pool, statements } = recordingPool();
    await expect(
      inTransaction(pool, async (client) => {
        await holdRows(client, counters, [['c', 1, 1]]);
        throw new Error('boom');
      }),
    ).rejects.toThrow('boom');
    expect(statements).toEqual(['BEGIN', 'ROLLBACK']);
  });

  it('outside a transaction, run at once with their columns bound, folded and sorted', async () => {
    const { pool, statements, params } = recordingPool();
    await holdRows(pool, counters, [['c', 2, 1], ['c', 1, 5], ['c', 2, 1]]);
    expect(statements).toEqual([counters.sql]);
    expect(params).toEqual([[['c', 'c'], [1, 2], [5, 2]]]);
  });

  it('writes nothing for no rows', async () => {
    const { pool, statements } = recordingPool();
    await holdRows(pool, counters, []);
    expect(statements).toEqual([]);
  });

  it('a client reused after a transaction no longer holds writes back', async () => {
    const { pool, statements } = recordingPool();
    let used: unknown;
    await inTransaction(pool, async (client) => {
      used = client;
    });
    await holdRows(used as Pool, seen, [[1]]);
    expect(statements).toEqual(['BEGIN', 'COMMIT', seen.sql]);
  });
});
