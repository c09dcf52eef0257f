// A freshness promise kept on the live freshness web (test/support/live-freshness.ts): after a
// discovery crawl, `crawler sla set` promises one host's pages within 15 s, and recrawl cycles
// from a Schedule every 5 s keep that prefix's p95 staleness within it, by the web's own request
// log, while the rest of the web shares what the budget leaves. Then a budget too small for the
// promise is reported as such: which SLA, how many URLs, how far behind.
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { PlanRecrawlResult, RecrawlCycleSummary } from '../../src/contracts/activities.js';
import { quantile } from '../../src/domain/recrawl/index.js';
import { createHarness, type Harness } from '../support/crawler-harness.js';
import { runLiveFreshness, type LiveFreshnessRun } from '../support/live-freshness.js';
import { freshnessWeb, politenessReport, startTestWeb, type FreshnessWeb, type RequestLogEntry, type TestWeb } from '../support/test-web/index.js';
import { waitFor } from '../support/wait-for.js';

const execFileAsync = promisify(execFile);
const EVERY_SECONDS = 5;
const RUN_MS = 50_000;
const BUDGET = 20;
const SLA_MS = 15_000;
const MIN_HOST_DELAY_MS = 100;
/** Staleness is scored from this long after the Schedule starts: its first cycles catch up with the discovery crawl. */
const WARMUP_MS = 15_000;
const SAMPLE_EVERY_MS = 250;

/** Staleness of `pages` (now - last 200 or 304 fetch), sampled over [fromMs, toMs) from the web's log. */
function stalenessSamples(log: readonly RequestLogEntry[], pages: readonly { host: string; path: string }[], fromMs: number, toMs: number): number[] {
  const samples: number[] = [];
  for (const page of pages) {
    const fetches = log
      .filter((entry) => entry.host === page.host && entry.path === page.path && (entry.status === 200 || entry.status === 304))
      .map((entry) => entry.startedAtMs)
      .sort((a, b) => a - b);
    for (let at = fromMs; at < toMs; at += SAMPLE_EVERY_MS) {
      const last = fetches.filter((startedAtMs) => startedAtMs <= at).at(-1);
      if (last !== undefined) samples.push(at - last);
    }
  }
  return samples;
}

describe('a freshness SLA on the live freshness web', () => {
  let harness: Harness;
  let web: TestWeb;
  let freshness: FreshnessWeb;
  let run: LiveFreshnessRun;
  let slaPrefix: string;
  const scheduleId = `sla-${randomBytes(3).toString('hex')}`;
  const crawler = async (args: string[]): Promise<string> => (await execFileAsync('node', ['bin/crawler.js', ...args, '--data-dir', harness.dataDir], { env: harness.childEnv, maxBuffer: 16 * 1024 * 1024 })).stdout;

  beforeAll(async () => {
    // 5 hosts x (home + 6 pages); the promise is for the 6 pages of the second host.
    freshness = freshnessWeb({ hosts: 5, pagesPerHost: 6, secondsPerDay: 15, base: '127.91.0.1', seed: 49, sitemapEveryNthHost: 3 });
    web = await startTestWeb(freshness.spec);
    harness = await createHarness('e2e-freshness-sla');
    await harness.startWorker();
    slaPrefix = web.url(freshness.homePaths[1]!.host, '/page-');
    run = await runLiveFreshness({
      crawler,
      client: harness.client,
      taskQueue: harness.taskQueue,
      web,
      freshness,
      scheduleId,
      everySeconds: EVERY_SECONDS,
      budget: BUDGET,
      runMs: RUN_MS,
      minHostDelayMs: MIN_HOST_DELAY_MS,
      beforeSchedule: async () => {
        await crawler(['sla', 'set', '--prefix', slaPrefix, '--max-staleness', `${SLA_MS / 1000}s`]);
      },
    });
  });

  afterAll(async () => {
    for (const id of [scheduleId, `${scheduleId}-small`]) await harness?.client.schedule.getHandle(id).delete().catch(() => undefined);
    await harness?.close();
    await web?.close();
  });

  const slaPages = () => freshness.pages.filter((page) => page.host === freshness.homePaths[1]!.host && page.path.startsWith('/page-'));
  const otherPages = () => freshness.pages.filter((page) => !slaPages().includes(page));

  it('keeps the promised prefix’s p95 staleness within the SLA, by the web’s own log, while the rest shares what is left', () => {
    const log = [...web.log()];
    const fromMs = run.fromMs + WARMUP_MS;
    const sla = stalenessSamples(log, slaPages(), fromMs, run.toMs);
    const rest = stalenessSamples(log, otherPages(), fromMs, run.toMs);
    const figures = (samples: number[]) => `p50 ${(quantile(samples, 0.5)! / 1000).toFixed(1)} s, p95 ${(quantile(samples, 0.95)! / 1000).toFixed(1)} s, max ${(Math.max(...samples) / 1000).toFixed(1)} s`;
    const restFetches = run.windowLog.filter((entry) => otherPages().some((page) => page.host === entry.host && page.path === entry.path)).length;
    console.info(`freshness SLA e2e: SLA ${slaPrefix} within ${SLA_MS / 1000} s: ${figures(sla)}; the rest (${otherPages().length} pages, ${restFetches} fetches): ${figures(rest)}; ${run.schedule.actionsTaken} cycles`);
    expect(sla.length).toBeGreaterThan(0);
    expect(quantile(sla, 0.95)!).toBeLessThanOrEqual(SLA_MS);
    // The rest was not starved: it got the budget the promise left.
    expect(restFetches).toBeGreaterThan(otherPages().length);
  });

  it('says so in the cycles’ own figures, `crawler status` and `crawler schedule describe`', async () => {
    const cycles = await harness.pool.query<{ plan: PlanRecrawlResult; summary: RecrawlCycleSummary | null }>(
      'SELECT plan, summary FROM recrawl_cycles WHERE schedule_id = $1 ORDER BY planned_at',
      [scheduleId],
    );
    expect(cycles.rows.length).toBeGreaterThanOrEqual(3);
    for (const { plan } of cycles.rows) expect(plan.sla?.shortfalls ?? []).toEqual([]);
    expect(cycles.rows.some(({ plan }) => (plan.planned.sla ?? 0) > 0)).toBe(true);
    const finished = cycles.rows.filter(({ summary }) => summary?.staleness !== undefined).at(-1)!.summary!;
    const measured = finished.staleness!.bySla.find((row) => row.prefix === slaPrefix)!;
    expect(measured).toMatchObject({ urls: slaPages().length, maxStalenessMs: SLA_MS });
    expect(measured.p95Ms!).toBeLessThanOrEqual(SLA_MS);
    const status = await crawler(['status']);
    expect(status).toContain(`SLA ${measured.slaId} ${slaPrefix} within 15 s:`);
    expect(status).toMatch(/tier 2: p50 /);
    const sla = JSON.parse(await crawler(['sla', 'list', '--json'])) as { prefix: string; staleness: { p95Ms: number } }[];
    expect(sla.map((row) => row.prefix)).toEqual([slaPrefix]);
  });

  it('reports a budget too small for the promise: which SLA, how many URLs, how far behind', async () => {
    // A promise no cycle can keep: every page of the prefix is due at once, and 3 visits a cycle.
    await crawler(['sla', 'set', '--prefix', slaPrefix, '--max-staleness', '1s']);
    const small = `${scheduleId}-small`;
    await crawler(['schedule', 'create', '--id', small, '--every', `${EVERY_SECONDS}s`, '--budget', '3', '--task-queue', harness.taskQueue, '--allow-private-networks', '--scope', 'any', '--min-host-delay-ms', String(MIN_HOST_DELAY_MS), '--tick-interval-ms', '200']);
    const plan = await waitFor(
      async () => (await harness.pool.query<{ plan: PlanRecrawlResult }>('SELECT plan FROM recrawl_cycles WHERE schedule_id = $1 ORDER BY planned_at LIMIT 1', [small])).rows[0]?.plan,
      (found) => found !== undefined,
      { timeoutMs: 60_000, what: 'a cycle of the small schedule to plan' },
    );
    expect(plan!.planned.sla).toBe(3);
    expect(plan!.sla!.shortfalls).toEqual([expect.objectContaining({ prefix: slaPrefix, maxStalenessMs: 1000, dueUrls: slaPages().length, unplannedUrls: slaPages().length - 3 })]);
    expect(plan!.sla!.shortfalls[0]!.behindMs).toBeGreaterThan(0);
    const described = await crawler(['schedule', 'describe', '--id', small]);
    expect(described).toContain(`${slaPrefix} (within 1 s): budget too small, ${slaPages().length - 3} of ${slaPages().length} due URLs not planned`);
    console.info(`freshness SLA e2e, small budget: ${described.split('\n').find((line) => line.includes('budget too small'))?.trim()}`);
    await harness.client.schedule.getHandle(small).delete();
    const report = politenessReport(web.log(), MIN_HOST_DELAY_MS);
    expect(report.overlaps).toEqual([]);
    expect(report.violations).toEqual([]);
  });
});
