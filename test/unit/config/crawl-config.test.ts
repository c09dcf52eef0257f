import { describe, expect, it } from 'vitest';
import { CrawlConfigError, DEFAULT_CRAWL_CONFIG, resolveCrawlConfig } from '../../../src/config/crawl-config.js';

describe('resolveCrawlConfig', () => {
  it('fills every default and derives the discovery budget from maxPages', () => {
    const config = resolveCrawlConfig({ maxPages: 50 });
    // The seen filter is sized from the discovery budget too, at least 10,000 URLs.
    expect(config).toMatchObject({ ...DEFAULT_CRAWL_CONFIG, maxPages: 50, maxDiscoveredUrls: 1000, seenFilterCapacity: 10_000 });
    expect(resolveCrawlConfig({ maxPages: 500 }).maxDiscoveredUrls).toBe(10_000);
  });

  it('keeps scope defaults when only part of the scope is given', () => {
    expect(resolveCrawlConfig({ scope: { mode: 'any' } as never }).scope).toEqual({ mode: 'any', allowPrefixes: [], denyPrefixes: [] });
  });

  it.each([
    [{ maxPages: 0 }, 'maxPages'],
    [{ maxDepth: -1 }, 'maxDepth'],
    [{ minHostDelayMs: 1.5 }, 'minHostDelayMs'],
    [{ maxConcurrentFetchesPerHost: 0 }, 'maxConcurrentFetchesPerHost'],
    [{ maxBodyBytes: 10 }, 'maxBodyBytes'],
    [{ maxBodyBytes: 4096, maxDecompressedBytes: 2048 }, 'maxDecompressedBytes'],
    [{ userAgent: 'Bot\r\nX-Injected: 1' }, 'userAgent'],
    [{ userAgent: '  ' }, 'userAgent'],
    [{ scope: { mode: 'everything', allowPrefixes: [], denyPrefixes: [] } as never }, 'scope.mode'],
  ])('rejects %j naming the field', (partial, field) => {
    expect(() => resolveCrawlConfig(partial as never)).toThrow(CrawlConfigError);
    try {
      resolveCrawlConfig(partial as never);
    } catch (error) {
      expect((error as CrawlConfigError).field).toBe(field);
    }
  });
});
