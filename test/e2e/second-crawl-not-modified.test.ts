// A second `crawl` of a site that answers conditional requests: every page is unchanged, so each
// answers 304 and has no body to parse. Its links are the ones the first crawl stored: the second
// crawl must register them and reach every page, not end at its seed.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CrawlSummary } from '../../src/contracts/status.js';
import { createHarness, type Harness } from '../support/crawler-harness.js';
import { requestsByHost, startTestWeb, type RequestLogEntry, type TestWeb } from '../support/test-web/index.js';

const HOST = '127.66.0.1';
const PAGES = 15;
const DELAY_MS = 40;
/** Page i links to 2i+1 and 2i+2: a tree of depth 3, reached from its root alone. */
const pagePath = (i: number): string => (i === 0 ? '/' : `/p${i}`);
const children = (i: number): number[] => [2 * i + 1, 2 * i + 2].filter((child) => child < PAGES);

describe('a second crawl of a site whose pages are all unchanged (304)', () => {
  let harness: Harness;
  let web: TestWeb;
  let first: CrawlSummary;
  let second: CrawlSummary;
  let firstLog: RequestLogEntry[];
  let secondLog: RequestLogEntry[];

  beforeAll(async () => {
    web = await startTestWeb({
      hosts: [
        {
          host: HOST,
          robotsTxt: 'User-agent: *\nAllow: /\n',
          pages: Array.from({ length: PAGES }, (_, i) => ({
            path: pagePath(i),
            body: `<!doctype html><html><head><title>${i}</title></head><body><p>Page ${i}</p>${children(i)
              .map((child) => `<a href="${pagePath(child)}">page ${child}</a>`)
              .join(' ')}</body></html>`,
            // Answers If-None-Match / If-Modified-Since with 304: it never changes while the test runs.
            behavior: { kind: 'changing' as const, ratePerDay: 1e-9, seed: i },
          })),
        },
      ],
    });
    harness = await createHarness('second-crawl-not-modified');
    await harness.startWorker();
    const seeds = [`http://${HOST}:${web.port}/`];
    const config = { minHostDelayMs: DELAY_MS, maxDepth: 5, politeness: { adaptiveFactor: 1 } };
    first = await harness.runCrawl({ crawlId: 'not-modified-first', seeds, config });
    const pagesOf = (log: RequestLogEntry[]) => log.filter((entry) => entry.path !== '/robots.txt');
    firstLog = pagesOf(requestsByHost(web.log()).get(HOST) ?? []);
    second = await harness.runCrawl({ crawlId: 'not-modified-second', seeds, config });
    secondLog = pagesOf(requestsByHost(web.log()).get(HOST) ?? []).slice(firstLog.length);
  });
  afterAll(async () => {
    await harness?.close();
    await web?.close();
  });

  it('fetches every page in the first crawl', () => {
    expect(first.state).toBe('finished');
    expect(first.pagesFetched).toBe(PAGES);
    expect(firstLog.map((entry) => entry.status)).toEqual(Array.from({ length: PAGES }, () => 200));
  });

  it('asks for every page once in the second, each answered 304, and counts them as not modified', () => {
    expect(second.state).toBe('finished');
    expect(new Set(secondLog.map((entry) => entry.path))).toEqual(new Set(Array.from({ length: PAGES }, (_, i) => pagePath(i))));
    expect(secondLog).toHaveLength(PAGES);
    expect(secondLog.every((entry) => entry.status === 304 && entry.ifNoneMatch !== undefined)).toBe(true);
    expect(second).toMatchObject({ pagesFetched: 0, pagesNotModified: PAGES, urlsDiscovered: PAGES });
  });

  it('registers each unchanged page\'s links at the depth its parse gave them', async () => {
    const rows = await harness.pool.query<{ url: string; depth: number; state: string; outcome: string }>(
      `SELECT url, depth, state, outcome FROM frontier WHERE crawl_id = $1 ORDER BY depth, url`,
      ['not-modified-second'],
    );
    const depthOf = (i: number): number => Math.floor(Math.log2(i + 1));
    expect(rows.rows.map((row) => [new URL(row.url).pathname, row.depth, row.state, row.outcome]).sort()).toEqual(
      Array.from({ length: PAGES }, (_, i) => [pagePath(i), depthOf(i), 'done', 'not-modified']).sort(),
    );
  });
});
