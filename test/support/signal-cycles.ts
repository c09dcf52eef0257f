// Recrawl cycles for the cheap-signal tests (sitemaps, listing pages): every visit by priority,
// so no random verification sample blurs what the signals decide, and the origins' trust as
// Postgres holds it.
import type { Pool } from '../../src/storage/postgres/pool.js';
import { resolveCrawlConfig, type CrawlConfig } from '../../src/config/crawl-config.js';
import type { RecrawlCycleResult } from '../../src/workflows/recrawl-cycle-workflow.js';
import type { Harness } from './crawler-harness.js';

/**
 * Runs one cycle of `budget` visits (default 20) over loopback hosts and waits for its result. The
 * cycles are planned as if they came every 5 s: the tests' visits are seconds apart, and an hourly
 * cycle's allocation gives nothing to pages seen to change seconds apart.
 */
export async function runSignalCycle(
  harness: Harness,
  input: { name: string; minHostDelayMs: number; config?: Partial<CrawlConfig>; budget?: number },
): Promise<RecrawlCycleResult> {
  const config = resolveCrawlConfig({
    allowPrivateNetworks: true,
    minHostDelayMs: input.minHostDelayMs,
    scope: { mode: 'any', allowPrefixes: [], denyPrefixes: [] },
    ...input.config,
  });
  return (await harness.client.workflow.execute('recrawlCycleWorkflow', {
    workflowId: `recrawl/${input.name}-${Date.now()}`,
    taskQueue: harness.taskQueue,
    args: [
      {
        settings: { budget: input.budget ?? 20, everyMs: 5_000, shares: { discovery: 0, recrawl: 1, reestimation: 0, verification: 0 } },
        config,
        taskQueue: harness.taskQueue,
        crawlOptions: { tickIntervalMs: 500 },
      },
    ],
  })) as RecrawlCycleResult;
}

export interface SignalTrustRow {
  origin: string;
  source: string;
  confirmed: number;
  refuted: number;
}

export async function readSignalTrust(pool: Pool): Promise<SignalTrustRow[]> {
  return (await pool.query<SignalTrustRow>('SELECT origin, source, confirmed, refuted FROM cheap_signal_trust ORDER BY origin, source')).rows;
}

/** Each URL's verdict in one crawl, for URLs matching a LIKE pattern. */
export async function verdictsByUrl(pool: Pool, crawlId: string, urlPattern: string): Promise<Record<string, string>> {
  const result = await pool.query<{ url: string; verdict: string }>(
    'SELECT u.url, o.verdict FROM url_observations o JOIN urls u USING (fingerprint) WHERE o.crawl_id = $1 AND u.url LIKE $2',
    [crawlId, urlPattern],
  );
  return Object.fromEntries(result.rows.map((row) => [row.url, row.verdict]));
}
