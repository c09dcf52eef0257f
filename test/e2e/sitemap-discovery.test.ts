// A one-shot crawl finds pages that nothing links to: those a site's sitemaps list (its default
// /sitemap.xml here, an index with a plain and a gzipped child) and those its RSS feed lists, and
// those of a sitemap its robots.txt declares; a declared sitemap robots.txt disallows is never
// asked for. Every page once, politely. Real stack, facts from the server's log and Postgres.
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CrawlSummary } from '../../src/contracts/status.js';
import { createHarness, type Harness } from '../support/crawler-harness.js';
import { politenessReport, renderHtmlPage, startTestWeb, type PageSpec, type TestWeb } from '../support/test-web/index.js';

const S = '127.142.0.1';
const T = '127.142.0.2';
const DELAY_MS = 50;
const SITEMAP_PAGES = ['/p1', '/p2', '/p3', '/p4', '/p5', '/p6'];
const FEED_PAGES = ['/f1', '/f2'];

const page = (path: string, extraHead = ''): PageSpec => ({
  path,
  body: renderHtmlPage({ title: path, links: [], paragraphs: [`Only a sitemap or a feed leads to ${path}: ${path.split('').join(' ')}.`] }).replace('</head>', `${extraHead}</head>`),
});
const urlset = (host: string, paths: readonly string[], port: number): string =>
  `<?xml version="1.0"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">${paths.map((p) => `<url><loc>http://${host}:${port}${p}</loc></url>`).join('')}</urlset>`;

describe('a one-shot crawl discovers pages from sitemaps and feeds', () => {
  let harness: Harness;
  let web: TestWeb;
  let summary: CrawlSummary;

  beforeAll(async () => {
    web = await startTestWeb({
      hosts: [
        {
          host: S,
          // No Sitemap line: the seed origin's /sitemap.xml is read.
          robotsTxt: 'User-agent: *\nAllow: /\n',
          pages: [
            page('/', '<link rel="alternate" type="application/rss+xml" href="/feed.xml">'),
            ...[...SITEMAP_PAGES, ...FEED_PAGES].map((path) => page(path)),
            {
              path: '/sitemap.xml',
              contentType: 'application/xml',
              body: `<?xml version="1.0"?><sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"><sitemap><loc>http://${S}:{port}/sm/a.xml</loc></sitemap><sitemap><loc>http://${S}:{port}/sm/b.xml.gz</loc></sitemap></sitemapindex>`,
            },
            { path: '/sm/a.xml', contentType: 'application/xml', body: (ctx) => urlset(S, SITEMAP_PAGES.slice(0, 3), ctx.port) },
            { path: '/sm/b.xml.gz', contentType: 'application/gzip', body: (ctx) => gzipSync(urlset(S, SITEMAP_PAGES.slice(3), ctx.port)) },
            {
              path: '/feed.xml',
              contentType: 'application/rss+xml',
              body: (ctx) => `<?xml version="1.0"?><rss version="2.0"><channel><title>News</title>${FEED_PAGES.map((p) => `<item><link>http://${S}:${ctx.port}${p}</link></item>`).join('')}</channel></rss>`,
            },
          ],
        },
        {
          host: T,
          robotsTxt: `User-agent: *\nDisallow: /private/\nSitemap: http://${T}:{port}/maps/site.xml\nSitemap: http://${T}:{port}/private/site.xml\n`,
          pages: [
            page('/'),
            page('/q1'),
            { path: '/maps/site.xml', contentType: 'application/xml', body: (ctx) => urlset(T, ['/q1'], ctx.port) },
            { path: '/private/site.xml', contentType: 'application/xml', body: (ctx) => urlset(T, ['/q1'], ctx.port) },
          ],
        },
      ],
    });
    harness = await createHarness('e2e-sitemap-discovery');
    await harness.startWorker();
    summary = await harness.runCrawl({ crawlId: 'sitemap-discovery', seeds: [web.url(S, '/'), web.url(T, '/')], config: { minHostDelayMs: DELAY_MS, sitemaps: 'declared-and-default' } });
  }, 180_000);

  afterAll(async () => {
    await harness?.close();
    await web?.close();
  });

  const requests = (host: string, path: string): number => web.log().filter((entry) => entry.host === host && entry.path === path).length;

  it('fetches every page a sitemap or the feed lists, each once: full coverage', () => {
    expect(summary.state).toBe('finished');
    for (const path of ['/', ...SITEMAP_PAGES, ...FEED_PAGES]) expect(requests(S, path), path).toBe(1);
    for (const path of ['/', '/q1']) expect(requests(T, path), path).toBe(1);
    for (const path of ['/sitemap.xml', '/sm/a.xml', '/sm/b.xml.gz', '/feed.xml']) expect(requests(S, path), path).toBe(1);
    expect(requests(T, '/maps/site.xml')).toBe(1);
    expect(summary.end).toEqual({ reason: 'nothing-left', queuedLeft: 0 });
  });

  it('never asks for a declared sitemap robots.txt disallows, and keeps politeness', () => {
    expect(requests(T, '/private/site.xml')).toBe(0);
    expect(politenessReport(web.log(), DELAY_MS).violations).toEqual([]);
  });

  it('counts what each source found and fetched, and the sitemaps and feeds it read', () => {
    expect(summary.pagesFetched).toBe(2 + SITEMAP_PAGES.length + FEED_PAGES.length + 1);
    expect(summary.discovery?.bySource).toEqual({
      seed: { discovered: 2, fetched: 2 },
      sitemap: { discovered: SITEMAP_PAGES.length + 1, fetched: SITEMAP_PAGES.length + 1 },
      feed: { discovered: FEED_PAGES.length, fetched: FEED_PAGES.length },
    });
    // /sitemap.xml, its two children, T's declared one and its disallowed one (never requested: not a failure).
    expect(summary.discovery?.sitemaps).toEqual({ registered: 5, read: 4, failed: 0, disallowed: 1 });
    expect(summary.discovery?.feeds).toEqual({ registered: 1, read: 1, failed: 0, disallowed: 0 });
  });

  it('records the source and the sitemap each page came from', async () => {
    const rows = await harness.pool.query<{ url: string; source: string; from_url: string | null }>(
      `SELECT f.url, f.source, s.url AS from_url FROM frontier f LEFT JOIN frontier s ON s.crawl_id = f.crawl_id AND s.fingerprint = f.discovered_from
       WHERE f.crawl_id = 'sitemap-discovery' AND f.purpose = 'discovery' ORDER BY f.url`,
    );
    const byPath = Object.fromEntries(rows.rows.map((row) => [new URL(row.url).pathname + '@' + new URL(row.url).hostname, row]));
    expect(byPath[`/p4@${S}`]).toMatchObject({ source: 'sitemap', from_url: web.url(S, '/sm/b.xml.gz') });
    expect(byPath[`/f1@${S}`]).toMatchObject({ source: 'feed', from_url: web.url(S, '/feed.xml') });
  });
});
