// The ordering contract that keeps hot per-crawl rows deadlock-free: inside a transaction, shared
// figure writes wait until the end and run sorted, right before COMMIT; outside one they run at once.
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
  it('inside a transaction, run last, in figure order, just before COMMIT', async () => {
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
    expect(statements).toEqual(['BEGIN', 'entity write', 'another entity write', 'counters 2', 'counters 7', 'rejections 2', 'seen 3', 'depth', 'COMMIT']);
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
