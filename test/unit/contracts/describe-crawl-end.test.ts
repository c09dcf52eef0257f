import { describe, expect, it } from 'vitest';
import { crawlEndReport, describeCrawlEnd, describeDiscovery } from '../../../src/contracts/describe-crawl-end.js';
import type { DiscoveryReport } from '../../../src/contracts/status.js';

describe('describeCrawlEnd', () => {
  it('says the page budget ended the crawl, what it left queued and the flag that raises it', () => {
    const end = crawlEndReport({ reason: 'page-budget', queuedLeft: 2962, limit: { field: 'maxPages', value: 1000 } });
    expect(end.flag).toBe('--max-pages');
    expect(describeCrawlEnd(end)).toBe('page budget reached (--max-pages 1000): 2,962 URLs left queued; raise --max-pages to fetch them');
  });

  it('names the discovery budget and the depth limit with their flags', () => {
    expect(describeCrawlEnd(crawlEndReport({ reason: 'discovery-budget', queuedLeft: 0, limit: { field: 'maxDiscoveredUrls', value: 1000 }, refused: 1 }))).toBe(
      'discovery budget spent (--max-discovered-urls 1000): 1 new URL not registered, nothing left queued; raise --max-discovered-urls to find more',
    );
    expect(describeCrawlEnd(crawlEndReport({ reason: 'depth-limit', queuedLeft: 0, limit: { field: 'maxDepth', value: 5 }, refused: 12 }))).toBe(
      'depth limit reached (--max-depth 5): 12 URLs beyond it not followed, nothing left queued; raise --max-depth to follow them',
    );
  });

  it('says a stop and a complete crawl apart', () => {
    expect(describeCrawlEnd(crawlEndReport({ reason: 'stopped', queuedLeft: 1 }))).toBe('stopped by the operator: 1 URL left queued');
    expect(describeCrawlEnd(crawlEndReport({ reason: 'nothing-left', queuedLeft: 0 }))).toMatch(/^nothing left/);
  });
});

describe('describeDiscovery', () => {
  const report = (sitemaps: DiscoveryReport['sitemaps']): DiscoveryReport => ({
    bySource: { seed: { discovered: 3, fetched: 3 }, link: { discovered: 812, fetched: 700 }, sitemap: { discovered: 300, fetched: 300 } },
    sitemaps,
    feeds: { registered: 1, read: 1, failed: 0, disallowed: 0 },
  });

  it('tells the sources, most finding first, then the documents read', () => {
    expect(describeDiscovery(report({ registered: 5, read: 4, failed: 1, disallowed: 0 }))).toBe(
      'links 812 (fetched 700), sitemaps 300 (fetched 300), seeds 3 (fetched 3); sitemaps read 4 of 5, feeds read 1 of 1',
    );
  });

  it('says apart the sitemaps robots.txt disallows: never requested, not failed', () => {
    expect(describeDiscovery(report({ registered: 6, read: 4, failed: 1, disallowed: 1 }))).toContain('sitemaps read 4 of 6 (1 disallowed by robots.txt)');
  });

  it('reads a report made before disallowed documents were counted apart', () => {
    expect(describeDiscovery(report({ registered: 5, read: 4, failed: 1 }))).toContain('sitemaps read 4 of 5,');
  });
});
