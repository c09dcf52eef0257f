import { describe, expect, it } from 'vitest';
import { CrawlConfigError, isListingPage, resolveCrawlConfig } from '../../../src/config/crawl-config.js';

describe('crawl config: listing pages', () => {
  it('has none by default', () => {
    const config = resolveCrawlConfig();
    expect(config.listingPages).toEqual([]);
    expect(isListingPage(config, 'https://shop.test/category/kettles')).toBe(false);
  });

  it('keeps prefixes in canonical form, so they match canonical page URLs', () => {
    const config = resolveCrawlConfig({ listingPages: ['HTTPS://Shop.TEST:443/category/', 'http://shop.test/search?q='] });
    expect(config.listingPages).toEqual(['https://shop.test/category/', 'http://shop.test/search?q=']);
    expect(isListingPage(config, 'https://shop.test/category/kettles?page=2')).toBe(true);
    expect(isListingPage(config, 'http://shop.test/search?q=kettle')).toBe(true);
    expect(isListingPage(config, 'https://shop.test/product/1')).toBe(false);
    expect(isListingPage(config, 'http://shop.test/category/kettles')).toBe(false);
  });

  it('treats a stored config from before the option as having none', () => {
    expect(isListingPage({} as { listingPages: string[] }, 'https://shop.test/category/')).toBe(false);
  });

  it.each([
    [['not a url'], 'listingPages[0]'],
    [['ftp://shop.test/'], 'listingPages[0]'],
    [['https://shop.test/', 42], 'listingPages[1]'],
    ['https://shop.test/', 'listingPages'],
    [Array.from({ length: 101 }, (_, i) => `https://shop.test/c${i}/`), 'listingPages'],
  ])('rejects %j naming %s', (listingPages, field) => {
    let error: unknown;
    try {
      resolveCrawlConfig({ listingPages: listingPages as string[] });
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(CrawlConfigError);
    expect((error as CrawlConfigError).field).toBe(field);
    expect((error as CrawlConfigError).message).toMatch(/shop\.example|prefixes/);
  });
});
