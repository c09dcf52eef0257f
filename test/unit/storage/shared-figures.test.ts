// The ordering contract that keeps hot per-crawl rows deadlock-free: inside a transaction, shared
// figure writes wait until the end and go sorted, with COMMIT, in one round trip; outside one they run at once.
import { describe, expect, it } from 'vitest';
import { inTransaction, type Pool } from '../../../src/storage/postgres/pool.js';
import { bumpSharedFigure, FIGURE_ORDER } from '../../../src/storage/postgres/shared-figures.js';

function recordingPool(): { pool: Pool; statements: string[] } {
  const statements: string[] = [];
  const client = {
    query: async (sql: string) => {
      statements.push(sql);
      return { rows: [], rowCount: 0 };
    },
    release: () => undefined,
  };
  const pool = { connect: async () => client, query: client.query } as unknown as Pool;
  return { pool, statements };
}

describe('shared figures', () => {
  it('inside a transaction, run last, in figure order, sent with COMMIT as one text', async () => {
    const { pool, statements } = recordingPool();
    await inTransaction(pool, async (client) => {
      await bumpSharedFigure(client, `${FIGURE_ORDER.seenStats}|c|00003`, 'seen 3', []);
      await client.query('entity write');
      await bumpSharedFigure(client, `${FIGURE_ORDER.crawlCounters}|c|00007`, 'counters 7', []);
      await bumpSharedFigure(client, `${FIGURE_ORDER.crawlCounters}|c|00002`, 'counters 2', []);
      await bumpSharedFigure(client, `${FIGURE_ORDER.depthStats}|c|h|0000000001`, 'depth', []);
      await bumpSharedFigure(client, `${FIGURE_ORDER.rejectionCounts}|c|00002`, 'rejections 2', []);
      await client.query('another entity write');
    });
    expect(statements).toEqual(['BEGIN', 'entity write', 'another entity write', 'counters 2;\ncounters 7;\nrejections 2;\nseen 3;\ndepth;\nCOMMIT']);
  });

  it('writes a row bumped twice in a transaction once, combined, when the caller says how', async () => {
    const writes: { sql: string; params: unknown[] }[] = [];
    const client = {
      query: async (sql: string, params: unknown[] = []) => {
        writes.push({ sql, params });
        return { rows: [], rowCount: 0 };
      },
      release: () => undefined,
    };
    const pool = { connect: async () => client, query: client.query } as unknown as Pool;
    const sum = (held: unknown[], next: unknown[]) => [(held[0] as number) + (next[0] as number)];
    await inTransaction(pool, async (tx) => {
      await bumpSharedFigure(tx, `${FIGURE_ORDER.crawlCounters}|c|00001`, 'counters $1', [1], sum);
      await bumpSharedFigure(tx, `${FIGURE_ORDER.crawlCounters}|c|00002`, 'counters $1', [10], sum);
      await bumpSharedFigure(tx, `${FIGURE_ORDER.crawlCounters}|c|00001`, 'counters $1', [2], sum);
      // Without a combine, two bumps stay two writes.
      await bumpSharedFigure(tx, `${FIGURE_ORDER.seenStats}|c|00001`, 'seen $1', [1]);
      await bumpSharedFigure(tx, `${FIGURE_ORDER.seenStats}|c|00001`, 'seen $1', [1]);
    });
    // Their values written into the text: one round trip takes them all and COMMIT.
    expect(writes).toEqual([
      { sql: 'BEGIN', params: [] },
      { sql: 'counters 3;\ncounters 10;\nseen 1;\nseen 1;\nCOMMIT', params: [] },
    ]);
  });

  it('a failed transaction writes none of them', async () => {
    const { pool, statements } = recordingPool();
    await expect(
      inTransaction(pool, async (client) => {
        await bumpSharedFigure(client, `${FIGURE_ORDER.crawlCounters}|c|00001`, 'counters 1', []);
        throw new Error('boom');
      }),
    ).rejects.toThrow('boom');
    expect(statements).toEqual(['BEGIN', 'ROLLBACK']);
  });

  it('outside a transaction, run at once', async () => {
    const { pool, statements } = recordingPool();
    await bumpSharedFigure(pool, `${FIGURE_ORDER.crawlCounters}|c|00001`, 'counters 1', []);
    expect(statements).toEqual(['counters 1']);
  });

  it('a client reused after a transaction no longer holds writes back', async () => {
    const { pool, statements } = recordingPool();
    let used: unknown;
    await inTransaction(pool, async (client) => {
      used = client;
    });
    await bumpSharedFigure(used as Pool, `${FIGURE_ORDER.crawlCounters}|c|00001`, 'later', []);
    expect(statements).toEqual(['BEGIN', 'COMMIT', 'later']);
  });
});
