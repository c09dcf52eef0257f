// Sitemap lastmod as a cheap change signal (docs/design.md, "Cost per detected change"), on the real stack: a recrawl cycle first reads the
// sitemaps robots.txt declared (an index, a plain urlset and a gzipped one, through the host
// workflows: polite, robots obeyed), then plans. A lastmod newer than our copy gets the page
// planned; once the origin's dates proved right, one older than our copy keeps it out of the plan.
// Facts come from the test server's request log and Postgres.
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RecrawlCycleResult } from '../../src/workflows/recrawl-cycle-workflow.js';
import { createHarness, type Harness } from '../support/crawler-harness.js';
import { readSignalTrust, runSignalCycle, verdictsByUrl, type SignalTrustRow } from '../support/signal-cycles.js';
import { politenessReport, startTestWeb, type RequestLogEntry, type TestWeb, type WebSpec } from '../support/test-web/index.js';

const A = '127.37.0.1';
const B = '127.37.0.2';
const MIN_DELAY_MS = 100;
const HOUR_MS = 3_600_000;
const PAGES = ['/p1', '/p2', '/p3', '/p4', '/p5', '/p6'];
/** /p1-/p3 are listed by the plain urlset, /p4-/p6 by the gzipped one. */
const PLAIN = PAGES.slice(0, 3);
const GZIPPED = PAGES.slice(3);
const LONG_AGO = '2020-01-01';

const html = (title: string, text: string, links: string[] = []): string =>
  `<!doctype html><html lang="en"><head><title>${title}</title></head><body>` +
  `<nav>${links.map((href) => `<a href="${href}">${href}</a>`).join(' ')}</nav><h1>${title}</h1><p>${text}</p></body></html>`;

describe('sitemap lastmod as a cheap change signal in recrawl cycles', () => {
  let harness: Harness;
  let web: TestWeb;
  /** Content revision per page: a new revision is a real change of the main text. */
  const revision = new Map<string, number>(PAGES.map((path) => [path, 1]));
  /** lastmod per page as the sitemaps state it: epoch ms (a full timestamp) or a date string. */
  const lastmod = new Map<string, number | string>(PAGES.map((path) => [path, LONG_AGO]));
  const url = (path: string, host = A): string => `http://${host}:${web.port}${path}`;
  const w3c = (value: number | string): string => (typeof value === 'number' ? new Date(value).toISOString() : value);
  const urlset = (host: string, paths: readonly string[], port: number): string =>
    `<?xml version="1.0" encoding="UTF-8"?>\n<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">` +
    paths.map((path) => `<url><loc>http://${host}:${port}${path}</loc><lastmod>${w3c(lastmod.get(path) ?? LONG_AGO)}</lastmod></url>`).join('') +
    '</urlset>';

  function webSpec(): WebSpec {
    return {
      hosts: [
        {
          host: A,
          robotsTxt:
            'User-agent: *\nDisallow: /private/\n' +
            `Sitemap: http://${A}:{port}/sitemap-index.xml\nSitemap: http://${A}:{port}/private/sitemap.xml\nSitemap: not a url\n`,
          pages: [
            { path: '/', body: html('Home', 'The harbour town pages.', PAGES) },
            ...PAGES.map((path) => ({
              path,
              body: () => html(`Page ${path}`, `Revision ${revision.get(path)} of the ${path.slice(1)} notice, written for the harbour town.`),
            })),
            {
              path: '/sitemap-index.xml',
              contentType: 'application/xml',
              body: `<?xml version="1.0" encoding="UTF-8"?>\n<sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">` +
                `<sitemap><loc>http://${A}:{port}/sitemaps/plain.xml</loc></sitemap>` +
                `<sitemap><loc>http://${A}:{port}/sitemaps/more.xml.gz</loc></sitemap></sitemapindex>`,
            },
            { path: '/sitemaps/plain.xml', contentType: 'application/xml', body: (ctx) => urlset(A, PLAIN, ctx.port) },
            { path: '/sitemaps/more.xml.gz', contentType: 'application/gzip', body: (ctx) => gzipSync(urlset(A, GZIPPED, ctx.port)) },
            { path: '/private/sitemap.xml', contentType: 'application/xml', body: (ctx) => urlset(A, PAGES, ctx.port) },
          ],
        },
        {
          // Another origin's sitemap makes claims about A's pages: A's robots.txt never declared it.
          host: B,
          robotsTxt: `User-agent: *\nAllow: /\nSitemap: http://${B}:{port}/sitemap.xml\n`,
          pages: [
            { path: '/', body: html('B', 'Another host.') },
            {
              path: '/sitemap.xml',
              contentType: 'application/xml',
              body: (ctx) =>
                `<?xml version="1.0"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">` +
                `<url><loc>http://${B}:${ctx.port}/</loc></url>` +
                PAGES.map((path) => `<url><loc>http://${A}:${ctx.port}${path}</loc><lastmod>${new Date(ctx.nowMs).toISOString()}</lastmod></url>`).join('') +
                '</urlset>',
            },
          ],
        },
      ],
    };
  }

  /**
   * Time passes for everything recorded so far, our records and the site's dates alike: a visit
   * and a change a second apart become an hour apart, as they would be in a real crawl.
   */
  async function timePasses(ms: number): Promise<void> {
    const interval = `${ms / 1000} seconds`;
    await harness.pool.query(
      `UPDATE urls SET last_observed_at = last_observed_at - $1::interval, last_success_at = last_success_at - $1::interval,
         last_fetch_at = last_fetch_at - $1::interval, sitemap_read_at = sitemap_read_at - $1::interval,
         sitemap_lastmod_from = sitemap_lastmod_from - $1::interval, sitemap_lastmod_to = sitemap_lastmod_to - $1::interval`,
      [interval],
    );
    for (const [path, value] of lastmod) if (typeof value === 'number') lastmod.set(path, value - ms);
  }

  function change(path: string): void {
    revision.set(path, (revision.get(path) ?? 1) + 1);
    lastmod.set(path, Date.now());
  }

  const runCycle = (name: string): Promise<RecrawlCycleResult> =>
    runSignalCycle(harness, { name: `sitemaps-e2e-${name}`, minHostDelayMs: MIN_DELAY_MS });

  let first: RecrawlCycleResult;
  let second: RecrawlCycleResult;
  let firstLog: RequestLogEntry[];
  let secondLog: RequestLogEntry[];
  let trustAfterFirst: SignalTrustRow[];
  const readTrust = () => readSignalTrust(harness.pool);

  beforeAll(async () => {
    web = await startTestWeb(webSpec());
    harness = await createHarness('e2e-sitemaps');
    await harness.startWorker();
    const crawl = await harness.runCrawl({ crawlId: 'sitemaps-first', seeds: [url('/'), url('/', B)], config: { minHostDelayMs: MIN_DELAY_MS, maxDepth: 2 } });
    expect(crawl.state).toBe('finished');

    await timePasses(HOUR_MS);
    for (const path of PLAIN) change(path);
    await timePasses(HOUR_MS);
    web.clearLog();
    first = await runCycle('first');
    firstLog = [...web.log()];
    trustAfterFirst = await readTrust();

    await timePasses(HOUR_MS);
    change('/p1');
    web.clearLog();
    second = await runCycle('second');
    secondLog = [...web.log()];
  });

  afterAll(async () => {
    await harness?.close();
    await web?.close();
  });

  const requested = (log: readonly RequestLogEntry[], path: string, host = A) => log.filter((entry) => entry.host === host && entry.path === path).length;
  const sitemapRow = async (path: string, host = A) =>
    (
      await harness.pool.query<{ declared_by: string[]; last_format: string | null; last_urls: number | null; last_known_urls: number | null; last_refused: Record<string, number> | null }>(
        'SELECT declared_by, last_format, last_urls, last_known_urls, last_refused FROM sitemaps WHERE url = $1',
        [url(path, host)],
      )
    ).rows[0];

  it('reads the declared sitemaps through the host workflows before planning: the index, its children, gzip included', async () => {
    for (const path of ['/sitemap-index.xml', '/sitemaps/plain.xml', '/sitemaps/more.xml.gz']) expect(requested(firstLog, path), path).toBe(1);
    expect(requested(firstLog, '/sitemap.xml', B)).toBe(1);
    // Every sitemap request came before the first page request of the cycle.
    const sitemapTimes = firstLog.filter((entry) => entry.path.includes('sitemap')).map((entry) => entry.startedAtMs);
    const pageTimes = firstLog.filter((entry) => PAGES.includes(entry.path)).map((entry) => entry.startedAtMs);
    expect(Math.max(...sitemapTimes)).toBeLessThan(Math.min(...pageTimes));
    expect(await sitemapRow('/sitemap-index.xml')).toMatchObject({ declared_by: [`http://${A}:${web.port}`], last_format: 'sitemapindex' });
    expect(await sitemapRow('/sitemaps/plain.xml')).toMatchObject({ declared_by: [`http://${A}:${web.port}`], last_format: 'urlset', last_urls: 3, last_known_urls: 3 });
    expect(await sitemapRow('/sitemaps/more.xml.gz')).toMatchObject({ last_format: 'urlset', last_urls: 3, last_known_urls: 3 });
    expect(first.signals).toMatchObject({ urls: 7, knownUrls: 7 });
  });

  it('never fetches a sitemap robots.txt disallows, and skips a Sitemap line that is no URL', async () => {
    expect(requested(firstLog, '/private/sitemap.xml')).toBe(0);
    expect(requested(secondLog, '/private/sitemap.xml')).toBe(0);
    const rows = await harness.pool.query<{ url: string }>('SELECT url FROM sitemaps ORDER BY url');
    expect(rows.rows.map((row) => row.url)).not.toContain('not a url');
  });

  it("refuses another origin's claims about A's pages (sitemaps.org scope), and keeps its own", async () => {
    const b = await sitemapRow('/sitemap.xml', B);
    expect(b).toMatchObject({ declared_by: [`http://${B}:${web.port}`], last_urls: 1, last_known_urls: 1 });
    expect(b?.last_refused?.['out-of-scope']).toBe(PAGES.length);
    expect(first.signals?.refused['out-of-scope']).toBe(PAGES.length);
  });

  it('plans pages whose lastmod is newer than our copy, before the origin has earned trust for "unchanged"', async () => {
    expect(first.plan.cheapSignals).toEqual({ changed: 3, unchanged: 0 });
    for (const path of PAGES) expect(requested(firstLog, path), path).toBe(1);
    const verdictOf = await verdictsByUrl(harness.pool, first.crawlId, '%');
    for (const path of PLAIN) expect(verdictOf[url(path)], path).toBe('changed');
    for (const path of GZIPPED) expect(verdictOf[url(path)], path).toBe('unchanged');
  });

  it("learns the origin's sitemap dates are right from its own visits", async () => {
    // First cycle: /p1-/p3 claimed changed and were; /p4-/p6 claimed unchanged and were. B's page had no lastmod.
    expect(trustAfterFirst).toEqual([{ origin: `http://${A}:${web.port}`, source: 'sitemap', confirmed: 6, refuted: 0 }]);
    // Second cycle: /p1's claim checked once more; the pages kept out of the plan were not visited, so not checked.
    expect(await readTrust()).toEqual([{ origin: `http://${A}:${web.port}`, source: 'sitemap', confirmed: 7, refuted: 0 }]);
  });

  it('then plans the page whose lastmod moved and leaves out the pages whose lastmod says unchanged', async () => {
    expect(second.plan.cheapSignals).toEqual({ changed: 1, unchanged: 5 });
    expect(requested(secondLog, '/p1')).toBe(1);
    for (const path of PAGES.slice(1)) expect(requested(secondLog, path), path).toBe(0);
    const planned = await harness.pool.query<{ url: string }>('SELECT url FROM frontier WHERE crawl_id = $1', [second.crawlId]);
    const plannedUrls = planned.rows.map((row) => row.url);
    expect(plannedUrls).toContain(url('/p1'));
    for (const path of PAGES.slice(1)) expect(plannedUrls).not.toContain(url(path));
    expect(await verdictsByUrl(harness.pool, second.crawlId, url('/p1'))).toEqual({ [url('/p1')]: 'changed' });
  });

  it('never revisits a sitemap as a page, and stays polite in both sweeps', async () => {
    for (const cycle of [first, second]) {
      const sitemapsInPlan = await harness.pool.query<{ n: number }>(
        'SELECT count(*)::int AS n FROM frontier f JOIN sitemaps s USING (fingerprint) WHERE f.crawl_id = $1',
        [cycle.crawlId],
      );
      expect(sitemapsInPlan.rows[0]!.n).toBe(0);
    }
    for (const log of [firstLog, secondLog]) {
      const report = politenessReport(log, MIN_DELAY_MS);
      expect(report.overlaps).toEqual([]);
      expect(report.violations).toEqual([]);
    }
  });
});
