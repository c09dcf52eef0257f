/**
 * The hosts in the pacing ledger (host_pacing: hosts renders reach as other origins), as every
 * request to one of them must see it: a page fetch, a robots.txt, a render's subresource. Read once
 * every REFRESH_MS per process, so a request to any other host costs nothing; a host joining the
 * ledger is seen by every process within that, and renders wait LEDGER_JOIN_SETTLE_MS after it joins
 * before they reserve (render-service.ts), so no request of a process that has not seen it yet can
 * come between theirs.
 */
import { markHostsPaced, releaseHostPacing, reserveHostPacing } from '../../storage/postgres/subresource-repository.js';
import type { Pool } from '../../storage/postgres/pool.js';
import { sleepUntilMs } from '../fetching/sleep-until.js';

const REFRESH_MS = 2000;
/** A reservation holds the host this long at most before its request's end is known. */
const HOLD_MS = 60_000;
const TIMER_MARGIN_MS = 2;

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
    const startAtMs = await reserveHostPacing(this.pool, { host, nowMs: this.now(), delayMs, holdMs: HOLD_MS });
    if (startAtMs === undefined) return send();
    await sleepUntilMs(startAtMs + TIMER_MARGIN_MS, { nowMs: this.now, sleepMs: (ms) => new Promise((resolve) => setTimeout(resolve, ms)) });
    let result: T | undefined;
    try {
      result = await send();
      return result;
    } finally {
      const endedAtMs = (result === undefined ? undefined : finishedAtMs(result)) ?? this.now();
      await releaseHostPacing(this.pool, { host, reservedStartAtMs: startAtMs, holdMs: HOLD_MS, delayMs, finishedAtMs: Math.max(endedAtMs, this.now()) }).catch(() => undefined);
    }
  }

  private async read(): Promise<void> {
    const result = await this.pool.query<{ host: string }>('SELECT host FROM host_pacing');
    this.hosts = new Set(result.rows.map((row) => row.host));
    this.readAtMs = this.now();
  }
}
