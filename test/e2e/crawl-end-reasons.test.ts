// A crawl says why it ended: the depth limit, the discovery budget or the page budget, with the
// URLs it left and the flag that raises the limit, in its result and in the CLI's summary. One
// small site, three crawls, each ended by another limit. Real stack.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CrawlSummary } from '../../src/contracts/status.js';
import { createHarness, type Harness } from '../support/crawler-harness.js';
import { runCrawlerCli, type CliResult } from '../support/crawler-process.js';
import { renderHtmlPage, startTestWeb, type PageSpec, type TestWeb } from '../support/test-web/index.js';

const HOST = '127.140.0.1';
const SECTIONS = 4;
const ITEMS = 3;

const page = (path: string, links: string[]): PageSpec => ({
  path,
  body: renderHtmlPage({ title: path, links: links.map((href) => ({ href, text: href })), paragraphs: [`The page ${path}, with its own words ${path.split('').join(' ')}.`] }),
});

/** A home page, SECTIONS sections (depth 1), ITEMS items under each (depth 2). */
const pages: PageSpec[] = [
  page('/', Array.from({ length: SECTIONS }, (_, s) => `/s${s}`)),
  ...Array.from({ length: SECTIONS }, (_, s) => page(`/s${s}`, Array.from({ length: ITEMS }, (_, i) => `/s${s}/i${i}`))),
  ...Array.from({ length: SECTIONS * ITEMS }, (_, n) => page(`/s${Math.floor(n / ITEMS)}/i${n % ITEMS}`, ['/'])),
];

describe('a crawl says why it ended', () => {
  let harness: Harness;
  let web: TestWeb;
  let byDepth: CrawlSummary;
  let byDiscovery: CrawlSummary;
  let byPages: CliResult;

  beforeAll(async () => {
    web = await startTestWeb({ hosts: [{ host: HOST, robotsTxt: 'User-agent: *\nAllow: /\n', pages }] });
    harness = await createHarness('e2e-crawl-end');
    await harness.startWorker();
    const seeds = [web.url(HOST, '/')];
    byDepth = await harness.runCrawl({ crawlId: 'end-depth', seeds, config: { minHostDelayMs: 10, maxDepth: 1 } });
    // The seed and 3 sections are registered; the fourth section, then the items, are not.
    byDiscovery = await harness.runCrawl({ crawlId: 'end-discovery', seeds, config: { minHostDelayMs: 10, maxDiscoveredUrls: 4 } });
    await harness.stopWorker();
    byPages = await runCrawlerCli(harness, ['crawl', seeds[0]!, '--crawl-id', 'end-pages', '--allow-private-networks', '--max-pages', '3', '--min-host-delay-ms', '10', '--task-queue', harness.taskQueue]);
  }, 240_000);

  afterAll(async () => {
    await harness?.close();
    await web?.close();
  });

  it('names the depth limit and the URLs beyond it', () => {
    expect(byDepth.state).toBe('finished');
    expect(byDepth.pagesFetched).toBe(1 + SECTIONS);
    expect(byDepth.end).toEqual({ reason: 'depth-limit', queuedLeft: 0, limit: { field: 'maxDepth', value: 1 }, refused: SECTIONS * ITEMS, flag: '--max-depth' });
  });

  it('names the discovery budget and the URLs it left out', () => {
    expect(byDiscovery.pagesFetched).toBe(4);
    expect(byDiscovery.end).toMatchObject({ reason: 'discovery-budget', queuedLeft: 0, limit: { field: 'maxDiscoveredUrls', value: 4 }, flag: '--max-discovered-urls' });
    expect(byDiscovery.end!.refused).toBe(1 + 3 * ITEMS);
  });

  it('prints the page budget, the URLs left queued and the flag in the summary', () => {
    expect(byPages.code, byPages.stderr).toBe(0);
    expect(byPages.stdout).toMatch(/ended: +page budget reached \(--max-pages 3\): \d+ URLs? left queued; raise --max-pages to fetch them/);
  });
});
