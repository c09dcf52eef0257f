// The frontier workflow `crawl/<id>` operated as a user would, on the real dev server: pause
// stops admission and returns URLs held at hosts to the frontier, resume continues, addSeeds
// registers and rejects with reasons, stop ends the crawl gracefully; the crawlStatus query,
// search attributes and memo show the crawl; the `crawler` CLI does the same from outside.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WorkflowUpdateFailedError, type Client } from '@temporalio/client';
import { createHarness, type Harness } from '../../support/crawler-harness.js';
import { runCrawlerCli, type CliResult } from '../../support/crawler-process.js';
import { flatWeb } from '../../support/flat-web.js';
import { generateWeb, politenessReport, startTestWeb, type RequestLogEntry, type TestWeb } from '../../support/test-web/index.js';
import { sleepMs, waitFor } from '../../support/wait-for.js';
import { frontierCounts } from '../../../src/storage/postgres/crawl-repository.js';
import { DEFAULT_CRAWL_CONFIG } from '../../../src/config/crawl-config.js';
import { addSeedsUpdate, type AddSeedsResult, crawlStatusQuery, crawlWorkflowId, pauseCrawlSignal, resumeCrawlSignal } from '../../../src/contracts/messages.js';
import type { CrawlStatus, CrawlSummary } from '../../../src/contracts/status.js';

/**
 * Slow enough that a host always holds URLs for seconds ahead (a burst of ten spans 3.6 s, and it
 * claims the next ten), so the pause, which fetches notice within a tick and a second, finds URLs
 * held at hosts to return. At 150 ms the hosts once fetched all they held first (CI, stop 15).
 */
const DELAY_MS = 400;
// 50 pages a host is 20 s of fetching: the pause comes after the visibility searches, which on a
// loaded machine took long enough that 25 pages a host (10 s) were all fetched before it.
const generated = generateWeb({ hosts: 4, pagesPerHost: 50, linksPerPage: 3, crossHostLinkRatio: 0.2, seed: 23, base: '127.62.0.1', robots: 'none', seedHosts: 4 });
/** A host only addSeeds brings into the crawl. */
const added = flatWeb({ base: '127.62.1.1', hosts: 1, pagesPerHost: 2 });
/** The CLI crawl's hosts. */
// More URLs than the default in-flight limit (200): hosts that fetch in bursts claim ahead, and
// work must still be queued, never claimed, when the crawl is stopped. 300 pages a host is a
// minute of fetching at 200 ms: the stop arrives 25-35 s in (each CLI process takes seconds to
// start), and at 100 pages a host the crawl had sometimes fetched everything by then.
const cliWeb = flatWeb({ base: '127.62.2.1', hosts: 3, pagesPerHost: 300 });

const pageRequests = (log: readonly RequestLogEntry[], hosts: readonly string[]): RequestLogEntry[] =>
  log.filter((entry) => entry.path !== '/robots.txt' && hosts.includes(entry.host));

/** Workflow ids the visibility store lists for `query`, each once (a workflow that continued as new lists every run). */
async function workflowIdsMatching(client: Client, query: string): Promise<string[]> {
  const ids = new Set<string>();
  for await (const execution of client.workflow.list({ query })) ids.add(execution.workflowId);
  return [...ids].sort();
}

describe('a crawl operated through its workflow: pause, resume, addSeeds, status, search attributes, memo', () => {
  let harness: Harness;
  let web: TestWeb;
  const crawlId = 'wf-crawl-ops';
  const handle = () => harness.client.workflow.getHandle(crawlWorkflowId(crawlId));
  let summary: CrawlSummary;
  let running: CrawlStatus;
  let paused: CrawlStatus;
  let pausedFromMs = 0;
  let resumedAtMs = 0;
  let returnedToFrontier = 0;
  let tiersWhilePaused: { reported: number[]; stored: number[] };
  let seedsResult: AddSeedsResult | undefined;
  let emptyUpdateError: unknown;
  const memoFetched: number[] = [];
  let finalMemo: Record<string, unknown> | undefined;
  const searches: Record<string, string[]> = {};
  let addedUrl = '';

  const crawlHosts = [...generated.hosts, ...added.hosts];

  beforeAll(async () => {
    web = await startTestWeb({ hosts: [...generated.spec.hosts, ...added.specs] });
    harness = await createHarness('wf-crawl');
    await harness.startWorker();
    addedUrl = added.pageUrls(web.port, added.hosts[0]!)[0]!;
    const crawl = await harness.startCrawl({ crawlId, seeds: generated.seeds(web.port), config: { minHostDelayMs: DELAY_MS, maxDepth: 50 } });
    const pages = () => pageRequests(web.log(), crawlHosts).length;

    // Past each host's first burst (LOCAL_BURST, 5 URLs): a pause that comes as those end finds
    // nothing held at hosts, and the check of what is returned would mean nothing.
    await waitFor(pages, (n) => n >= 30, { what: 'the first pages' });
    running = await handle().query(crawlStatusQuery);
    // The memo follows the crawl's ticks: on a busy machine the first pages can come before one.
    memoFetched.push(
      await waitFor(async () => Number((await handle().describe()).memo?.['fetched']), (n) => n > 0, { timeoutMs: 20_000, what: 'the memo counting fetched pages' }).catch(() => 0),
    );
    searches['CrawlId'] = await waitFor(() => workflowIdsMatching(harness.client, `CrawlId = '${crawlId}'`), (ids) => ids.length > 0);
    searches['running'] = await waitFor(() => workflowIdsMatching(harness.client, `CrawlId = '${crawlId}' AND CrawlState = 'running'`), (ids) => ids.length > 0);
    searches['CrawlHost'] = await waitFor(() => workflowIdsMatching(harness.client, `CrawlHost = '${generated.hosts[0]}'`), (ids) => ids.length > 0);

    await handle().signal(pauseCrawlSignal);
    paused = await waitFor(() => handle().query(crawlStatusQuery), (s) => s.state === 'paused' && s.counts.inFlight === 0, { what: 'paused with nothing in flight' });
    pausedFromMs = Date.now();
    searches['paused'] = await waitFor(() => workflowIdsMatching(harness.client, `CrawlId = '${crawlId}' AND CrawlState = 'paused'`), (ids) => ids.length > 0);
    const returned = await harness.pool.query<{ n: number }>(`SELECT count(*)::int AS n FROM frontier WHERE crawl_id = $1 AND state = 'queued' AND outcome = 'crawl-paused'`, [crawlId]);
    returnedToFrontier = returned.rows[0]?.n ?? 0;
    console.log(`[crawl pause] ${returnedToFrontier} URLs held at hosts went back to the frontier`);
    // Nothing moves while paused, so the query's tiers must come to equal Postgres's.
    tiersWhilePaused = await waitFor(
      async () => ({ reported: (await handle().query(crawlStatusQuery)).counts.queuedByTier, stored: (await frontierCounts(harness.pool, crawlId)).queuedByTier }),
      ({ reported, stored }) => JSON.stringify(reported) === JSON.stringify(stored),
      { timeoutMs: 20_000, what: 'queued by tier as Postgres has it' },
    ).catch(async () => ({ reported: (await handle().query(crawlStatusQuery)).counts.queuedByTier, stored: (await frontierCounts(harness.pool, crawlId)).queuedByTier }));

    seedsResult = await handle().executeUpdate(addSeedsUpdate, { args: [{ urls: [addedUrl, generated.seeds(web.port)[0]!, 'not a url', 'ftp://127.62.1.1/file.txt'] }] });
    emptyUpdateError = await handle()
      .executeUpdate(addSeedsUpdate, { args: [{ urls: [] }] })
      .then(() => undefined, (error: unknown) => error);
    // Some time paused, for any request that would slip through to show.
    await sleepMs(2000);
    memoFetched.push(Number((await handle().describe()).memo?.['fetched']));

    resumedAtMs = Date.now();
    await handle().signal(resumeCrawlSignal);
    summary = await crawl.result();
    finalMemo = (await handle().describe()).memo;
    searches['finished'] = await waitFor(() => workflowIdsMatching(harness.client, `CrawlId = '${crawlId}' AND CrawlState = 'finished'`), (ids) => ids.length > 0);
  });

  afterAll(async () => {
    await harness?.close();
    await web?.close();
  });

  it('finishes after the resume, every URL (the added seed too) fetched exactly once', () => {
    expect(summary.state).toBe('finished');
    expect(summary.end).toEqual({ reason: 'nothing-left', queuedLeft: 0 });
    const fetched = pageRequests(web.log(), crawlHosts).map((entry) => `http://${entry.host}:${web.port}${entry.path}`);
    expect(new Set(fetched).size).toBe(fetched.length);
    expect(new Set(fetched)).toEqual(new Set([...generated.expectedReachable(web.port), addedUrl]));
    expect(summary.pagesFetched).toBe(fetched.length);
  });

  it('sends no page request while paused, and returns URLs held at hosts to the frontier', () => {
    const during = pageRequests(web.log(), crawlHosts).filter((entry) => entry.startedAtMs >= pausedFromMs && entry.startedAtMs < resumedAtMs);
    expect(during).toEqual([]);
    expect(paused.admission.reason).toBe('paused');
    expect(returnedToFrontier).toBeGreaterThan(0);
    // Work was left for after the resume.
    expect(paused.counts.queued).toBeGreaterThan(0);
  });

  it('keeps politeness through pause and resume', () => {
    const report = politenessReport(web.log().filter((entry) => crawlHosts.includes(entry.host)), DELAY_MS);
    expect(report.overlaps).toEqual([]);
    expect(report.violations).toEqual([]);
  });

  it('registers seeds through the addSeeds update and rejects bad ones with reasons', () => {
    expect(seedsResult?.registered).toBe(1);
    const rejected = seedsResult?.rejected ?? [];
    expect(rejected.map((r) => r.url).sort()).toEqual(['ftp://127.62.1.1/file.txt', 'not a url']);
    for (const r of rejected) expect(r.reason).toMatch(/\w+: .+/);
    expect(emptyUpdateError).toBeInstanceOf(WorkflowUpdateFailedError);
  });

  it('answers crawlStatus with the frontier by tier, in flight and admission', async () => {
    expect(running.crawlId).toBe(crawlId);
    expect(running.state).toBe('running');
    expect(running.counts.queuedByTier).toHaveLength(4);
    expect(running.counts.queuedByTier.reduce((a, b) => a + b, 0)).toBe(running.counts.queued);
    expect(running.admission.maxInFlight).toBe(DEFAULT_CRAWL_CONFIG.maxInFlight);
    expect(running.admission.reason).not.toBe('paused');
    expect(paused.state).toBe('paused');
    expect(paused.counts.inFlight).toBe(0);
    expect(tiersWhilePaused.reported).toEqual(tiersWhilePaused.stored);
    expect(tiersWhilePaused.stored.reduce((a, b) => a + b, 0)).toBe(paused.counts.queued);
    // Discovery by depth spread the crawl over more than one tier, so the figures are per tier.
    const tiers = await harness.pool.query(`SELECT DISTINCT tier FROM frontier WHERE crawl_id = $1`, [crawlId]);
    expect(tiers.rowCount).toBeGreaterThan(1);
  });

  it('sets the CrawlId, CrawlState and CrawlHost search attributes', () => {
    const id = crawlWorkflowId(crawlId);
    expect(searches['CrawlId']).toEqual([id]);
    expect(searches['running']).toEqual([id]);
    expect(searches['paused']).toEqual([id]);
    expect(searches['finished']).toEqual([id]);
    expect(searches['CrawlHost']).toContain(`host/${generated.hosts[0]}`);
  });

  it('keeps live counters in the memo', () => {
    expect(memoFetched[0]).toBeGreaterThan(0);
    expect(memoFetched[1]).toBeGreaterThanOrEqual(memoFetched[0]!);
    expect(finalMemo?.['fetched']).toBe(summary.pagesFetched);
    expect(finalMemo?.['queued']).toBe(0);
    expect(finalMemo?.['inFlight']).toBe(0);
    expect(finalMemo?.['discovered']).toBe(summary.urlsDiscovered);
  });
});

describe('a crawl operated from the `crawler` CLI: status, pause, resume, stop', () => {
  let harness: Harness;
  let web: TestWeb;
  const crawlId = 'wf-crawl-cli';
  const handle = () => harness.client.workflow.getHandle(crawlWorkflowId(crawlId));
  const exits: Record<string, number> = {};
  let statusRunning: Record<string, unknown>;
  let statusPaused: Record<string, unknown>;
  let statusStopped: Record<string, unknown>;
  let pausedFromMs = 0;
  let resumedAtMs = 0;
  let stopSentAtMs = 0;
  let summary: CrawlSummary;
  let stoppedSearch: string[] = [];
  let requestsAfterEnd: RequestLogEntry[] = [];
  let attached: CliResult | undefined;
  let sameIdAgain: CliResult | undefined;
  let unknownCrawl: CliResult | undefined;

  const cli = async (name: string, args: string[]): Promise<string> => {
    const result = await runCrawlerCli(harness, args);
    exits[name] = result.code;
    if (result.code !== 0) console.error(`crawler ${args.join(' ')} exited ${result.code}: ${result.stderr}`);
    return result.stdout;
  };

  beforeAll(async () => {
    web = await startTestWeb({ hosts: cliWeb.specs });
    harness = await createHarness('wf-crawl-cli');
    await harness.startWorker();
    const crawl = await harness.startCrawl({ crawlId, seeds: cliWeb.allPageUrls(web.port), config: { minHostDelayMs: 200 } });
    const pages = () => pageRequests(web.log(), cliWeb.hosts).length;
    await waitFor(pages, (n) => n >= 6, { what: 'the first pages' });

    statusRunning = JSON.parse(await cli('status', ['status', '--crawl', crawlId, '--json'])) as Record<string, unknown>;

    await cli('pause', ['pause', '--crawl', crawlId]);
    await waitFor(() => handle().query(crawlStatusQuery), (s) => s.state === 'paused' && s.counts.inFlight === 0, { what: 'paused with nothing in flight' });
    pausedFromMs = Date.now();
    statusPaused = JSON.parse(await cli('status-paused', ['status', '--crawl', crawlId, '--json'])) as Record<string, unknown>;
    resumedAtMs = Date.now();
    await cli('resume', ['resume', '--crawl', crawlId]);

    const pagesAtResume = pages();
    await waitFor(pages, (n) => n >= pagesAtResume + 6, { what: 'pages after the resume' });
    // Two more processes watch the running crawl: one by --resume, one re-running it with its id.
    const attaching = runCrawlerCli(harness, ['crawl', '--resume', crawlId, '--no-worker', '--json']);
    const rerunning = runCrawlerCli(harness, ['crawl', cliWeb.allPageUrls(web.port)[0]!, '--crawl-id', crawlId, '--no-worker', '--json', '--task-queue', harness.taskQueue]);
    await sleepMs(3000);
    stopSentAtMs = Date.now();
    await cli('stop', ['stop', '--crawl', crawlId, '--reason', 'test']);
    summary = await crawl.result();
    [attached, sameIdAgain, unknownCrawl] = await Promise.all([attaching, rerunning, runCrawlerCli(harness, ['crawl', '--resume', 'no-such-crawl', '--no-worker'])]);
    // Anything still to come would arrive now: host workflows wind down after the crawl ends.
    await sleepMs(2000);
    requestsAfterEnd = web.log().filter((entry) => entry.startedAtMs >= summary.finishedAtMs);
    statusStopped = JSON.parse(await cli('status-stopped', ['status', '--crawl', crawlId, '--json'])) as Record<string, unknown>;
    stoppedSearch = await waitFor(() => workflowIdsMatching(harness.client, `CrawlId = '${crawlId}' AND CrawlState = 'stopped'`), (ids) => ids.length > 0);
  });

  afterAll(async () => {
    await harness?.close();
    await web?.close();
  });

  it('every command exits 0', () => {
    expect(exits).toEqual({ status: 0, pause: 0, 'status-paused': 0, resume: 0, stop: 0, 'status-stopped': 0 });
  });

  it('`crawler crawl --resume ID` and a re-run with the same --crawl-id attach to the running crawl, print its one summary on stdout, and exit 0', () => {
    for (const watcher of [attached!, sameIdAgain!]) {
      expect(watcher.code, watcher.stderr).toBe(0);
      const printed = JSON.parse(watcher.stdout) as CrawlSummary;
      expect(printed).toMatchObject({ crawlId, state: 'stopped', pagesFetched: summary.pagesFetched });
    }
    expect(sameIdAgain!.stderr).toMatch(/already running: attached to it/);
    expect(sameIdAgain!.stderr).not.toMatch(/WorkflowExecutionAlreadyStartedError/);
  });

  it('`crawler crawl --resume` of an unknown crawl exits 2 and says where to look', () => {
    expect(unknownCrawl!.code).toBe(2);
    expect(unknownCrawl!.stderr).toMatch(/no crawl no-such-crawl .*crawler status/);
  });

  it('`crawler status --crawl ID --json` shows the frontier by tier, in flight and admission', () => {
    expect(statusRunning).toMatchObject({ crawlId, state: 'running', admission: { maxInFlight: DEFAULT_CRAWL_CONFIG.maxInFlight } });
    const counts = statusRunning['counts'] as CrawlStatus['counts'];
    expect(counts.queuedByTier).toHaveLength(4);
    expect(counts.queuedByTier.reduce((a, b) => a + b, 0)).toBe(counts.queued);
    expect(counts.inFlight).toBeGreaterThanOrEqual(0);
    expect(statusPaused).toMatchObject({ state: 'paused', counts: { inFlight: 0 }, admission: { reason: 'paused' } });
    expect(statusStopped).toMatchObject({ state: 'stopped' });
  });

  it('`crawler pause` holds every page request until `crawler resume`', () => {
    const during = pageRequests(web.log(), cliWeb.hosts).filter((entry) => entry.startedAtMs >= pausedFromMs && entry.startedAtMs < resumedAtMs);
    expect(during).toEqual([]);
  });

  it('`crawler stop` ends the crawl gracefully: stopped, work left unfetched, no request after it ended', async () => {
    expect(summary.state).toBe('stopped');
    expect(summary.finishedAtMs).toBeGreaterThan(stopSentAtMs);
    expect(requestsAfterEnd).toEqual([]);
    const left = await harness.pool.query<{ state: string; n: number }>(`SELECT state, count(*)::int AS n FROM frontier WHERE crawl_id = $1 GROUP BY state`, [crawlId]);
    const byState = Object.fromEntries(left.rows.map((row) => [row.state, row.n]));
    expect(byState['queued']).toBeGreaterThan(0);
    expect(summary.end).toEqual({ reason: 'stopped', queuedLeft: byState['queued'] });
    expect(byState['dispatched'] ?? 0).toBe(0);
    expect(byState['fetched'] ?? 0).toBe(0);
    const crawlRow = await harness.pool.query<{ state: string }>(`SELECT state FROM crawls WHERE id = $1`, [crawlId]);
    expect(crawlRow.rows[0]).toEqual({ state: 'stopped' });
    expect((await frontierCounts(harness.pool, crawlId)).inFlight).toBe(0);
    expect(stoppedSearch).toEqual([crawlWorkflowId(crawlId)]);
    const fetched = pageRequests(web.log(), cliWeb.hosts);
    expect(summary.pagesFetched).toBe(fetched.length);
    expect(politenessReport(web.log(), 200).violations).toEqual([]);
  });
});
