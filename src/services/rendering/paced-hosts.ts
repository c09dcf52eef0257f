/**
 * The hosts in the pacing ledger (host_pacing: hosts renders reach as other origins), as every
 * request to one of them must see it: a page fetch, a robots.txt, a render's subresource takes the
 * host's turn there (one request at a time, a delay after the last one's end). Read once
 * every REFRESH_MS per process, so a request to any other host costs nothing; a host joining the
 * ledger is seen by every process within that, and renders wait LEDGER_JOIN_SETTLE_MS after it joins
 * before they reserve (render-service.ts), so no request of a process that has not seen it yet can
 * come between theirs.
 */
import { randomUUID } from 'node:crypto';
import { LEDGER_POLL_MS } from '../../domain/render/index.js';
import { acquireHostPacing, markHostsPaced, releaseHostPacing } from '../../storage/postgres/subresource-repository.js';
import type { Pool } from '../../storage/postgres/pool.js';
import { sleepUntilMs } from '../fetching/sleep-until.js';

const REFRESH_MS = 2000;
/** A turn is held this long at most before its request's end is known (a page fetch's deadlines sum to more; it then runs past its hold, a rare overlap). */
const HOLD_MS = 120_000;
const TIMER_MARGIN_MS = 2;

/** What taking a host's turn in the ledger came to. */
export type LedgerTurn = { taken: true; release: (finishedAtMs: number, delayMs?: number) => Promise<void> } | { taken: false; reason: 'not-in-ledger' | 'too-far'; waitedMs: number };

/**
 * Waits for `host`'s turn in the ledger (one request at a time, none before its next start time)
 * and takes it, or gives up once it would have waited more than maxWaitMs.
 */
export async function takeLedgerTurn(
  pool: Pool,
  input: { host: string; delayMs: number; holdMs: number; maxWaitMs: number; now: () => number; sleepMs: (ms: number) => Promise<void>; until?: AbortSignal },
): Promise<LedgerTurn> {
  const holder = randomUUID();
  const startedAtMs = input.now();
  for (;;) {
    const turn = await acquireHostPacing(pool, { host: input.host, nowMs: input.now(), holdMs: input.holdMs, holder });
    if (turn === undefined) return { taken: false, reason: 'not-in-ledger', waitedMs: input.now() - startedAtMs };
    if (turn.acquired) {
      return { taken: true, release: (finishedAtMs, delayMs = input.delayMs) => releaseHostPacing(pool, { host: input.host, holder, delayMs, finishedAtMs }) };
    }
    const nowMs = input.now();
    const busy = turn.busyUntilMs > nowMs;
    const retryAtMs = busy ? Math.max(turn.nextAtMs, nowMs + LEDGER_POLL_MS) : turn.nextAtMs;
    if (retryAtMs - startedAtMs > input.maxWaitMs || input.until?.aborted) return { taken: false, reason: 'too-far', waitedMs: nowMs - startedAtMs };
    await sleepUntilMs(retryAtMs + TIMER_MARGIN_MS, { nowMs: input.now, sleepMs: input.sleepMs, ...(input.until ? { until: input.until } : {}) });
  }
}

export class PacedHosts {
  private hosts = new Set<string>();
  private readAtMs = -Infinity;
  private reading: Promise<void> | undefined;

  constructor(
    private readonly pool: Pool,
    private readonly now: () => number,
  ) {}

  async has(host: string): Promise<boolean> {
    if (this.now() - this.readAtMs >= REFRESH_MS) {
      this.reading ??= this.read().finally(() => (this.reading = undefined));
      await this.reading;
    }
    return this.hosts.has(host);
  }

  /** Adds hosts to the ledger (a crawl allowing them as render origins starts). */
  async add(hosts: readonly string[]): Promise<void> {
    await markHostsPaced(this.pool, hosts);
    for (const host of hosts) this.hosts.add(host);
  }

  /**
   * Runs one request to `host` in the ledger's turn when the host is in it: it starts no sooner
   * than the ledger allows (a render's reservation), and the ledger learns its end. Any other host:
   * `send` at once.
   */
  async run<T>(host: string, delayMs: number, send: () => Promise<T>, finishedAtMs: (result: T) => number | undefined): Promise<T> {
    if (!(await this.has(host))) return send();
    // The host's own fetch waits as long as it takes: renders hold a turn for one subresource at a time.
    const turn = await takeLedgerTurn(this.pool, { host, delayMs, holdMs: HOLD_MS, maxWaitMs: Number.MAX_SAFE_INTEGER, now: this.now, sleepMs: (ms) => new Promise((resolve) => setTimeout(resolve, ms)) });
    if (!turn.taken) return send();
    let result: T | undefined;
    try {
      result = await send();
      return result;
    } finally {
      const endedAtMs = (result === undefined ? undefined : finishedAtMs(result)) ?? this.now();
      await turn.release(Math.max(endedAtMs, this.now())).catch(() => undefined);
    }
  }

  private async read(): Promise<void> {
    const result = await this.pool.query<{ host: string }>('SELECT host FROM host_pacing');
    this.hosts = new Set(result.rows.map((row) => row.host));
    this.readAtMs = this.now();
  }
}
