// The pacing ledger of hosts renders reach as other origins, on a real database and a real local
// server: requests from two processes (a render's subresource and the host's own fetch) reserve
// their starts there and never come closer than the host's delay, by the server's log; a
// reservation given back leaves the ledger where it stood, never earlier; a host outside the
// ledger costs no reservation.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { migrate } from '../../../src/storage/postgres/migrate.js';
import { createPool, type Pool } from '../../../src/storage/postgres/pool.js';
import { acquireHostPacing, markHostsPaced, releaseHostPacing } from '../../../src/storage/postgres/subresource-repository.js';
import { PacedHosts } from '../../../src/services/rendering/paced-hosts.js';
import { LedgerPacer } from '../../../src/services/rendering/request-pacers.js';
import { resolveHostPolitenessPolicy } from '../../../src/domain/politeness/index.js';
import { freshDatabase } from '../../support/stack-context.js';

const HOST = '127.72.0.1';
let pool: Pool;
let server: Server;
let url: string;
const arrivals: { atMs: number; endedAtMs?: number; path: string }[] = [];

beforeAll(async () => {
  pool = createPool({ connectionString: await freshDatabase('host_pacing'), maxConnections: 6 });
  await migrate(pool);
  server = createServer((request, response) => {
    const entry: (typeof arrivals)[number] = { atMs: performance.timeOrigin + performance.now(), path: request.url ?? '' };
    arrivals.push(entry);
    setTimeout(() => response.end('ok', () => (entry.endedAtMs = performance.timeOrigin + performance.now())), 20);
  });
  await new Promise<void>((resolve) => server.listen(0, HOST, resolve));
  url = `http://${HOST}:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  await new Promise<void>((resolve) => server.close(() => resolve()));
  await pool.end();
});

const get = async (path: string): Promise<{ finishedAtMs: number }> => {
  const response = await fetch(url + path);
  await response.text();
  return { finishedAtMs: Date.now() };
};

describe('the pacing ledger', () => {
  it('has no reservation for a host outside it, and PacedHosts sends to such a host at once', async () => {
    expect(await acquireHostPacing(pool, { host: 'elsewhere.example', nowMs: Date.now(), holdMs: 30_000, holder: 'x' })).toBeUndefined();
    const paced = new PacedHosts(pool, Date.now);
    const before = Date.now();
    await paced.run('elsewhere.example', 60_000, async () => 'sent', () => undefined);
    expect(Date.now() - before).toBeLessThan(1000);
  });

  it("keeps a host's delay between requests of two processes that reserve there, by the server's log", async () => {
    await markHostsPaced(pool, [HOST]);
    // Two processes: the host's own fetches (PacedHosts, as fetchUrl and bursts use it) and a render's (LedgerPacer).
    const fetches = new PacedHosts(pool, Date.now);
    const render = new LedgerPacer(pool, HOST, resolveHostPolitenessPolicy({ minDelayMs: 300 }), { now: Date.now, sleepMs: (ms) => new Promise((resolve) => setTimeout(resolve, ms)) });
    arrivals.length = 0;
    await Promise.all([
      (async () => {
        for (let i = 0; i < 3; i++) await fetches.run(HOST, 300, () => get(`/page/${i}`), (sent) => sent.finishedAtMs);
      })(),
      (async () => {
        for (let i = 0; i < 3; i++) {
          const answer = await render.run(async () => {
            const startedAtMs = Date.now();
            const sent = await get(`/script/${i}.js`);
            return { result: sent, outcome: { kind: 'response' as const, startedAtMs, finishedAtMs: sent.finishedAtMs, status: 200 } };
          });
          expect(answer).not.toHaveProperty('refused');
        }
      })(),
    ]);
    expect(arrivals).toHaveLength(6);
    const sorted = [...arrivals].sort((a, b) => a.atMs - b.atMs);
    for (let i = 1; i < sorted.length; i++) {
      expect(sorted[i]!.atMs - sorted[i - 1]!.endedAtMs!, `${sorted[i - 1]!.path} then ${sorted[i]!.path}`).toBeGreaterThanOrEqual(300);
    }
    // Both processes got turns in between each other's.
    expect(new Set(sorted.map((entry) => entry.path.split('/')[1]))).toEqual(new Set(['page', 'script']));
  });

  it('refuses a render a turn too far off, and leaves the ledger where it stood', async () => {
    await markHostsPaced(pool, ['busy.example']);
    const nowMs = Date.now();
    await pool.query('UPDATE host_pacing SET next_at_ms = $2 WHERE host = $1', ['busy.example', nowMs + 60_000]);
    const render = new LedgerPacer(pool, 'busy.example', resolveHostPolitenessPolicy({ minDelayMs: 1000 }), { now: Date.now, sleepMs: (ms) => new Promise((resolve) => setTimeout(resolve, ms)) });
    expect(await render.run(async () => ({ result: 'sent', outcome: { kind: 'not-sent' as const, atMs: Date.now() } }))).toMatchObject({ refused: 'politeness-refused' });
    const row = await pool.query<{ next_at_ms: string }>('SELECT next_at_ms FROM host_pacing WHERE host = $1', ['busy.example']);
    expect(Number(row.rows[0]!.next_at_ms)).toBeGreaterThanOrEqual(nowMs + 60_000);
  });

  it('lends the turn to one holder at a time; only its holder gives it back', async () => {
    await markHostsPaced(pool, ['two.example']);
    const nowMs = Date.now();
    expect(await acquireHostPacing(pool, { host: 'two.example', nowMs, holdMs: 10_000, holder: 'a' })).toEqual({ acquired: true });
    expect(await acquireHostPacing(pool, { host: 'two.example', nowMs: nowMs + 5, holdMs: 10_000, holder: 'b' })).toMatchObject({ acquired: false, busyUntilMs: nowMs + 10_000 });
    // Not b's to give back.
    await releaseHostPacing(pool, { host: 'two.example', holder: 'b', delayMs: 100, finishedAtMs: nowMs + 10 });
    expect((await acquireHostPacing(pool, { host: 'two.example', nowMs: nowMs + 20, holdMs: 10_000, holder: 'b' }))?.acquired).toBe(false);
    await releaseHostPacing(pool, { host: 'two.example', holder: 'a', delayMs: 100, finishedAtMs: nowMs + 30 });
    expect(await acquireHostPacing(pool, { host: 'two.example', nowMs: nowMs + 40, holdMs: 10_000, holder: 'b' })).toMatchObject({ acquired: false, nextAtMs: nowMs + 130, busyUntilMs: 0 });
    expect(await acquireHostPacing(pool, { host: 'two.example', nowMs: nowMs + 130, holdMs: 10_000, holder: 'b' })).toEqual({ acquired: true });
  });
});
