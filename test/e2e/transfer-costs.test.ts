// What a crawl's requests cost on the wire, recorded per request (fetch records and failed
// attempts) and checked against the test web's own count of the bytes it took and sent, heads
// included, a connection reset 30 KB into a body too; what each host's validators are worth
// (one honours them with 304s, one sends an ETag and ignores it); and the crawl's bill, cost per
// change and wasted fetches by host and page type; the robots.txt requests billed to the crawl
// that sent them, at the bytes the web counted for /robots.txt.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CrawlSummary } from '../../src/contracts/status.js';
import { crawlCostReport } from '../../src/services/costs/crawl-cost-report.js';
import { hostValidatorRecords } from '../../src/storage/postgres/cost-repository.js';
import { recrawlCandidatePool } from '../../src/storage/postgres/recrawl-repository.js';
import { createHarness, type Harness } from '../support/crawler-harness.js';
import { startTestWeb, type RequestLogEntry, type TestWeb } from '../support/test-web/index.js';

const HONOURS = '127.88.0.1';
const IGNORES = '127.88.0.2';
const RESET_AFTER_BYTES = 30_000;
const filler = (n: number): string => '<p>lorem ipsum dolor sit amet, consectetur adipiscing elit</p>'.repeat(n);

describe('what a crawl costs on the wire', () => {
  let harness: Harness;
  let web: TestWeb;
  const first: { summary?: CrawlSummary; log: RequestLogEntry[]; robots: RequestLogEntry[] } = { log: [], robots: [] };
  const second: { summary?: CrawlSummary; log: RequestLogEntry[]; robots: RequestLogEntry[] } = { log: [], robots: [] };
  const seeds = (): string[] => [web.url(HONOURS, '/'), web.url(IGNORES, '/')];

  beforeAll(async () => {
    web = await startTestWeb({
      hosts: [
        {
          host: HONOURS,
          robotsTxt: 'User-agent: *\nAllow: /\n',
          pages: [
            { path: '/', behavior: { kind: 'changing', ratePerDay: 0, seed: 1 }, body: `<html><body><a href="/item/1">1</a> <a href="/item/2">2</a>${filler(20)}</body></html>` },
            { path: '/item/1', behavior: { kind: 'changing', ratePerDay: 0, seed: 2 }, body: `<html><body>${filler(300)}</body></html>` },
            // Changes many times a second: every revisit finds a change.
            { path: '/item/2', behavior: { kind: 'changing', ratePerDay: 86_400 * 20, seed: 3 }, body: `<html><body>${filler(40)}</body></html>` },
          ],
        },
        {
          host: IGNORES,
          robotsTxt: 'User-agent: *\nAllow: /\n',
          pages: [
            { path: '/', headers: { etag: '"home-v1"' }, body: `<html><body><a href="/page-1">1</a> <a href="/page-2">2</a> <a href="/reset">r</a> <a href="/gone">g</a>${filler(10)}</body></html>` },
            // An ETag it never checks: a full 200 with the same bytes every time.
            { path: '/page-1', headers: { etag: '"p1-v1"' }, body: `<html><body>${filler(200)}</body></html>` },
            { path: '/page-2', headers: { etag: '"p2-v1"' }, body: `<html><body>${filler(50)}</body></html>` },
            { path: '/reset', behavior: { kind: 'reset', bytes: 500_000, afterBytes: RESET_AFTER_BYTES } },
          ],
        },
      ],
    });
    harness = await createHarness('e2e-transfer-costs');
    await harness.startWorker();
    const config = { maxDepth: 2, minHostDelayMs: 100, politeness: { retryDelayScale: 0.1 } };
    first.summary = await harness.runCrawl({ crawlId: 'costs-1', seeds: seeds(), config });
    first.log = web.log().filter((entry) => entry.path !== '/robots.txt');
    first.robots = web.log().filter((entry) => entry.path === '/robots.txt');
    web.clearLog();
    second.summary = await harness.runCrawl({ crawlId: 'costs-2', seeds: seeds(), config });
    second.log = web.log().filter((entry) => entry.path !== '/robots.txt');
    second.robots = web.log().filter((entry) => entry.path === '/robots.txt');
  });

  afterAll(async () => {
    await harness?.close();
    await web?.close();
  });

  /** What the crawl recorded on the wire: responses from its fetch records, failures from its attempts. */
  async function recorded(crawlId: string): Promise<{ fetches: number; attempts: number; bytes: number; resetAttempts: { sent: number; received: number }[] }> {
    const fetches = await harness.pool.query<{ n: string; bytes: string }>(
      `SELECT count(*) AS n, sum(sent_bytes + received_bytes) AS bytes FROM fetches WHERE crawl_id = $1 AND sent_bytes IS NOT NULL`,
      [crawlId],
    );
    const attempts = await harness.pool.query<{ n: string; bytes: string }>(
      `SELECT count(*) AS n, COALESCE(sum(sent_bytes + received_bytes), 0) AS bytes FROM attempts WHERE crawl_id = $1 AND sent_bytes IS NOT NULL`,
      [crawlId],
    );
    const reset = await harness.pool.query<{ sent: string; received: string }>(
      `SELECT a.sent_bytes AS sent, a.received_bytes AS received FROM attempts a JOIN urls u ON u.fingerprint = a.fingerprint
       WHERE a.crawl_id = $1 AND u.url LIKE '%/reset' ORDER BY a.at`,
      [crawlId],
    );
    return {
      fetches: Number(fetches.rows[0]!.n),
      attempts: Number(attempts.rows[0]!.n),
      bytes: Number(fetches.rows[0]!.bytes) + Number(attempts.rows[0]!.bytes),
      resetAttempts: reset.rows.map((row) => ({ sent: Number(row.sent), received: Number(row.received) })),
    };
  }

  const webBytes = (log: readonly RequestLogEntry[]): number => log.reduce((sum, entry) => sum + entry.wireBytesReceived! + entry.wireBytesSent!, 0);

  it.each([
    ['the first crawl', 'costs-1', first],
    ['the second crawl, conditional', 'costs-2', second],
  ])('records every request of %s at the bytes the web counted, heads included', async (_name, crawlId, run) => {
    const ours = await recorded(crawlId);
    expect(ours.fetches + ours.attempts).toBe(run.log.length);
    const theirs = webBytes(run.log);
    const error = Math.abs(ours.bytes - theirs) / theirs;
    console.info(`transfer costs e2e, ${crawlId}: ${run.log.length} requests, recorded ${ours.bytes} bytes on the wire, the web counted ${theirs} (error ${(error * 100).toFixed(3)}%)`);
    expect(ours.bytes).toBe(theirs);
  });

  it('charges each request the connection reset 30 KB into its body for the bytes before the reset', async () => {
    const ours = await recorded('costs-1');
    const resets = first.log.filter((entry) => entry.path === '/reset');
    expect(resets.length).toBeGreaterThan(0);
    expect(ours.resetAttempts).toHaveLength(resets.length);
    for (const [i, entry] of resets.entries()) {
      expect(entry.bytesSent).toBe(RESET_AFTER_BYTES);
      expect(ours.resetAttempts[i]).toEqual({ sent: entry.wireBytesReceived, received: entry.wireBytesSent });
      expect(ours.resetAttempts[i]!.received).toBeGreaterThan(RESET_AFTER_BYTES);
    }
  });

  it('learns which host honours its validators and what its 304s cost', async () => {
    const records = await hostValidatorRecords(harness.pool, [HONOURS, IGNORES]);
    const honours = records.get(HONOURS)!;
    const ignores = records.get(IGNORES)!;
    // The second crawl asked both conditionally for pages that had not changed.
    expect(honours.conditionalUnchanged).toBe(2);
    expect(honours.conditionalNotModified).toBe(2);
    expect(ignores.conditionalUnchanged).toBe(3);
    expect(ignores.conditionalNotModified).toBe(0);
    const notModified = second.log.filter((entry) => entry.status === 304);
    expect(honours.notModifiedRequests).toBe(notModified.length);
    expect(honours.notModifiedTransferBytes).toBe(webBytes(notModified));
    // Folded once: a crawl finished again changes nothing.
    const again = await harness.pool.query('SELECT count(*)::int AS n FROM host_cost_folds WHERE crawl_id = ANY($1::text[])', [['costs-1', 'costs-2']]);
    expect(again.rows[0]).toEqual({ n: 2 });
  });

  it('gives the planner each page’s last full exchange on the wire', async () => {
    const pool = await recrawlCandidatePool(harness.pool, { due: 100, static: 0, staticRatePerDay: 0, sample: 0, sampleStart: '00'.repeat(16), signalled: 0 });
    const page = pool.find((row) => row.url.endsWith('/page-1'))!;
    const lastFull = second.log.filter((entry) => entry.path === '/page-1' && entry.status === 200).at(-1)!;
    expect(page.lastTransferBytes).toBe(lastFull.wireBytesReceived! + lastFull.wireBytesSent!);
    expect(page.lastTransferBytes).toBeGreaterThan(page.lastBytes!);
  });

  it.each([
    ['the first crawl', 'costs-1', first],
    ['the second crawl', 'costs-2', second],
  ])('bills the robots.txt requests %s sent at the bytes the web counted for them, in its total', async (_name, crawlId, run) => {
    const report = await crawlCostReport(harness.pool, crawlId, { costModel: { kind: 'gateway-bytes', price: 8 }, listingPages: [] });
    const theirs = webBytes(run.robots);
    console.info(`transfer costs e2e, ${crawlId}: robots.txt billed ${report.robots?.requests} requests, ${report.robots?.transferBytes} bytes; the web counted ${run.robots.length}, ${theirs} bytes`);
    expect(report.robots).toEqual({
      requests: run.robots.length,
      successfulRequests: run.robots.length,
      failedRequests: 0,
      transferBytes: theirs,
      failedTransferBytes: 0,
      amount: (theirs * 8) / 1e9,
    });
    expect(report.totals.transferBytes).toBe(webBytes(run.log) + theirs);
    expect(report.totals.requests).toBe(run.log.length + run.robots.length);
  });

  it('asked both hosts for their robots.txt in the first crawl', () => {
    expect(first.robots.map((entry) => entry.host).sort()).toEqual([HONOURS, IGNORES]);
  });

  it('reports the bill, cost per change and wasted fetches by host and page type', async () => {
    const report = await crawlCostReport(harness.pool, 'costs-2', { costModel: { kind: 'gateway-bytes', price: 8 }, listingPages: [] });
    // Pages, and the robots.txt requests of this crawl (none when the shared cache held both files fresh).
    const theirs = webBytes(second.log) + webBytes(second.robots);
    expect(report.totals.transferBytes).toBe(theirs);
    expect(report.totals.requests).toBe(second.log.length + second.robots.length);
    expect(report.totals.amount).toBeCloseTo((theirs * 8) / 1e9, 12);
    expect(report.totals.changes).toBe(1);
    expect(report.totals.perChange?.transferBytes).toBe(theirs);
    // Every request but the one that found /item/2 changed found nothing.
    expect(report.totals.wasted).toBe(second.log.length - 1);
    const hosts = new Map(report.byHost.map((row) => [row.key, row]));
    expect(hosts.get(HONOURS)?.validatorsHonoured).toBe(1);
    expect(hosts.get(IGNORES)?.validatorsHonoured).toBe(0);
    // The host that ignores its validators costs more for nothing: its unchanged pages came whole.
    expect(hosts.get(IGNORES)!.transferBytes).toBeGreaterThan(hosts.get(HONOURS)!.transferBytes);
    expect(hosts.get(IGNORES)!.changes).toBe(0);
    expect(report.byPageType.map((row) => row.key).sort()).toEqual(['/', '/gone', '/item/*', '/page-#', '/reset'].sort());
    const credits = await crawlCostReport(harness.pool, 'costs-2', { costModel: { kind: 'successful-requests', price: 0.001 }, listingPages: [] });
    expect(credits.totals.amount).toBeCloseTo(credits.totals.successfulRequests * 0.001, 12);
    // API credits: failed requests and target errors (the reset, the 404) are free.
    expect(credits.totals.successfulRequests).toBe(second.log.filter((entry) => entry.status < 400 && !entry.aborted).length + second.robots.length);
    expect(credits.totals.successfulRequests).toBe(6 + second.robots.length);
  });
});
