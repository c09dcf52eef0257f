import { describe, expect, it } from 'vitest';
import { CrawlConfigError, DEFAULT_CRAWL_CONFIG, resolveCrawlConfig, type CrawlConfig } from '../../../src/config/crawl-config.js';

const fieldOf = (partial: Partial<CrawlConfig>): string => {
  try {
    resolveCrawlConfig(partial);
  } catch (error) {
    expect(error).toBeInstanceOf(CrawlConfigError);
    return (error as CrawlConfigError).field;
  }
  throw new Error('expected a CrawlConfigError');
};

describe('crawl config: scope, query policies, traps and the seen filter', () => {
  it('has documented defaults: no prefixes, no policies, default traps, a filter sized to the discovery budget', () => {
    const config = resolveCrawlConfig();
    expect(config.scope).toEqual({ mode: 'same-registrable-domain', allowPrefixes: [], denyPrefixes: [] });
    expect(config.queryPolicies).toEqual([]);
    expect(config.traps).toEqual({});
    expect(config.followNofollowLinks).toBe(false);
    expect(config.seenFilterCapacity).toBe(config.maxDiscoveredUrls);
    expect(config.seenFilterFalsePositiveRate).toBe(0.01);
    expect(resolveCrawlConfig({ maxPages: 10 }).seenFilterCapacity).toBe(10_000);
    expect(resolveCrawlConfig({ seenFilterCapacity: 0 }).seenFilterCapacity).toBe(0);
    expect(DEFAULT_CRAWL_CONFIG.traps).toEqual({});
  });

  it('keeps valid scope prefixes, policies and trap options as given', () => {
    const config = resolveCrawlConfig({
      scope: { mode: 'any', allowPrefixes: ['https://docs.example/guide/'], denyPrefixes: ['docs.example/guide/old/'] },
      queryPolicies: [{ origin: 'https://shop.example', stripParamPrefixes: ['utm_'] }],
      traps: { maxVariantsPerPath: 20, sessionParamNames: ['tok'] },
    });
    expect(config.scope.allowPrefixes).toEqual(['https://docs.example/guide/']);
    expect(config.queryPolicies).toHaveLength(1);
    expect(config.traps).toEqual({ maxVariantsPerPath: 20, sessionParamNames: ['tok'] });
  });

  it.each<[string, Partial<CrawlConfig>, string]>([
    ['a prefix that is not a URL', { scope: { mode: 'any', allowPrefixes: ['ftp://x/'], denyPrefixes: [] } }, 'scope.allowPrefixes'],
    ['a prefix both allowed and denied', { scope: { mode: 'any', allowPrefixes: ['a.example/x'], denyPrefixes: ['a.example/x'] } }, 'scope.denyPrefixes'],
    ['an unknown scope mode', { scope: { mode: 'world' as 'any', allowPrefixes: [], denyPrefixes: [] } }, 'scope.mode'],
    ['a policy with a path in its origin', { queryPolicies: [{ origin: 'https://a.example/x' }] }, 'queryPolicies[0].origin'],
    ['a policy field typo in entry 1', { queryPolicies: [{ origin: 'https://a.example' }, { origin: 'https://b.example', stripParam: [] } as never] }, 'queryPolicies[1].stripParam'],
    ['policies that are not an array', { queryPolicies: {} as never }, 'queryPolicies'],
    ['an unknown trap option', { traps: { maxDepth: 3 } as never }, 'traps.maxDepth'],
    ['a negative trap threshold', { traps: { maxVariantsPerPath: -1 } }, 'traps.maxVariantsPerPath'],
    ['a sample rate above 1', { traps: { overflowSampleRate: 2 } }, 'traps.overflowSampleRate'],
    ['empty session parameter names', { traps: { sessionParamNames: [''] } }, 'traps.sessionParamNames'],
    ['a fractional filter capacity', { seenFilterCapacity: 1.5 }, 'seenFilterCapacity'],
    ['a filter beyond the memory cap', { seenFilterCapacity: 1e9 }, 'seenFilterCapacity'],
    ['a false-positive rate of 0', { seenFilterFalsePositiveRate: 0 }, 'seenFilterFalsePositiveRate'],
    ['a false-positive rate above one half', { seenFilterFalsePositiveRate: 0.9 }, 'seenFilterFalsePositiveRate'],
  ])('refuses %s, naming %s', (_name, partial, field) => {
    expect(fieldOf(partial)).toBe(field);
  });
});
