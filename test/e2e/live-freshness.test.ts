// Freshness measured by the web (issue 25), small: a web of tens of pages changing at known
// Poisson rates in compressed time, a discovery crawl, then recrawl cycles that a Temporal
// Schedule created with `crawler schedule create` starts every few seconds. The web scores the
// crawler from its own request log against the uniform policy under the same fetch budget.
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHarness, type Harness } from '../support/crawler-harness.js';
import { runLiveFreshness, type LiveFreshnessRun } from '../support/live-freshness.js';
import { freshnessWeb, politenessReport, startTestWeb, type FreshnessWeb, type TestWeb } from '../support/test-web/index.js';

const execFileAsync = promisify(execFile);
const EVERY_SECONDS = 5;
const RUN_MS = 55_000;
const BUDGET = 20;
const MIN_HOST_DELAY_MS = 100;

describe('live freshness: recrawl cycles from a Schedule, scored by the web', () => {
  let harness: Harness;
  let web: TestWeb;
  let freshness: FreshnessWeb;
  let run: LiveFreshnessRun;
  const scheduleId = `live-freshness-${randomBytes(3).toString('hex')}`;

  beforeAll(async () => {
    // 6 hosts x (home + 6 pages); a table day of 15 s is about the revisit interval BUDGET affords.
    freshness = freshnessWeb({ hosts: 6, pagesPerHost: 6, secondsPerDay: 15, base: '127.90.0.1', seed: 25, sitemapEveryNthHost: 3 });
    web = await startTestWeb(freshness.spec);
    harness = await createHarness('e2e-live-freshness');
    await harness.startWorker();
    run = await runLiveFreshness({
      crawler: async (args) => (await execFileAsync('node', ['bin/crawler.js', ...args], { env: harness.childEnv, maxBuffer: 16 * 1024 * 1024 })).stdout,
      client: harness.client,
      taskQueue: harness.taskQueue,
      web,
      freshness,
      scheduleId,
      everySeconds: EVERY_SECONDS,
      budget: BUDGET,
      runMs: RUN_MS,
      minHostDelayMs: MIN_HOST_DELAY_MS,
    });
  });

  afterAll(async () => {
    await harness?.client.schedule.getHandle(scheduleId).delete().catch(() => undefined);
    await harness?.close();
    await web?.close();
  });

  it('runs its cycles from the Schedule', async () => {
    expect(run.discovery.pagesFetched).toBe(freshness.pages.length);
    // A cycle every 5 s for 55 s, a few skipped while one still runs.
    expect(run.schedule.actionsTaken).toBeGreaterThanOrEqual(4);
    expect(run.schedule.cycleWorkflowIds.length).toBe(run.schedule.actionsTaken);
    // Each cycle's record names the Schedule and the workflow it started; the last may have been
    // stopped with the run before it planned.
    const cycles = await harness.pool.query<{ workflow_id: string }>('SELECT workflow_id FROM recrawl_cycles WHERE schedule_id = $1', [scheduleId]);
    expect(cycles.rows.length).toBeGreaterThanOrEqual(run.schedule.actionsTaken - 1);
    for (const row of cycles.rows) expect(run.schedule.cycleWorkflowIds).toContain(row.workflow_id);
  });

  it('revisits with conditional requests, and unchanged pages cost a 304 without a body', () => {
    const pageFetches = run.windowLog.filter((entry) => entry.path !== '/robots.txt' && entry.path !== '/sitemap.xml');
    expect(pageFetches.length).toBeGreaterThan(0);
    for (const entry of pageFetches) expect(entry.ifNoneMatch, `${entry.host}${entry.path} revisited with If-None-Match`).toBeDefined();
    const notModified = pageFetches.filter((entry) => entry.status === 304);
    expect(notModified.length).toBeGreaterThan(0);
    for (const entry of notModified) expect(entry.bytesSent).toBe(0);
  });

  it('fetches pages that change about as often as it can revisit more often than pages that never change', () => {
    const meanFetches = (pages: typeof run.score.pages) => pages.reduce((sum, page) => sum + page.fetches, 0) / pages.length;
    const tableDay = (page: (typeof run.score.pages)[number]) => freshness.pages.find((p) => p.host === page.host && p.path === page.path)!.changesPerTableDay;
    // docs/design.md, "Cost per detected change": the best buys change about as fast as the revisits the budget affords (every 6 hours to daily in the table).
    const bestBuys = run.score.pages.filter((page) => tableDay(page) >= 0.5 && tableDay(page) <= 8);
    // Pages that do not change within the run (under one change expected in 20 table days; the run
    // is about 4), home pages aside: no sitemap lists them, so no cheap signal spares their checks
    // as it spares the sitemapped hosts' pages, and as 6 of the 8 rate-0 pages they alone decided
    // the mean (CI once: 4.31 for the best buys against 4.375).
    const never = run.score.pages.filter((page) => page.path !== '/' && tableDay(page) < 0.05);
    expect(bestBuys.length).toBeGreaterThan(3);
    expect(never.length).toBeGreaterThan(3);
    expect(meanFetches(bestBuys)).toBeGreaterThan(meanFetches(never));
  });

  it('keeps the copy fresher than the uniform policy on the same budget, by the web’s own score', () => {
    const { crawler, uniform, optimum } = run.score.policies;
    expect(crawler.fetches).toBeGreaterThan(freshness.pages.length);
    const figures = `crawler ${crawler.freshness.toFixed(3)}, uniform ${uniform.freshness.toFixed(3)}, optimum ${optimum.freshness.toFixed(3)}, ${crawler.fetches} fetches`;
    // One line in the run's output: the margin over uniform is what this test guards.
    console.info(`live freshness e2e: ${figures}; crawler / uniform ${(crawler.freshness / uniform.freshness).toFixed(3)}`);
    expect(crawler.freshness, figures).toBeGreaterThan(uniform.freshness);
    expect(crawler.freshness).toBeLessThanOrEqual(1);
    // The optimum is an upper bound the crawler approaches, not a figure it can beat by much on its own web.
    expect(crawler.freshness / optimum.freshness).toBeLessThan(1.1);
  });

  it('stays polite while the Schedule runs', () => {
    const report = politenessReport(run.windowLog, MIN_HOST_DELAY_MS);
    expect(report.overlaps).toEqual([]);
    expect(report.violations).toEqual([]);
  });
});
