import { describe, expect, it } from 'vitest';
import { buildConfig } from '../../../src/cli/crawl/crawl-flags.js';
import { buildCreateInput } from '../../../src/cli/commands/schedule.js';

describe('--listing-page PREFIX and --signal-budget N', () => {
  it('become the listing prefixes of crawler crawl, canonical, and a bad one names the flag', async () => {
    expect((await buildConfig({ 'listing-page': ['HTTP://Shop.test/category/', 'http://shop.test/search?q='] })).listingPages).toEqual([
      'http://shop.test/category/',
      'http://shop.test/search?q=',
    ]);
    expect((await buildConfig({})).listingPages).toEqual([]);
    await expect(buildConfig({ 'listing-page': ['category/'] })).rejects.toThrow(/^invalid option --listing-page: listingPages\[0\]: "category\/" is not an absolute http\(s\) URL/);
  });

  it('become the config and settings of the cycles of crawler schedule create', () => {
    const input = buildCreateInput({ every: '1h', budget: '100', 'listing-page': ['http://shop.test/category/'], 'signal-budget': '25' });
    expect(input.config.listingPages).toEqual(['http://shop.test/category/']);
    expect(input.settings.signalBudget).toBe(25);
    expect(buildCreateInput({ every: '1h', budget: '100', 'signal-budget': '0' }).settings.signalBudget).toBe(0);
    expect(buildCreateInput({ every: '1h', budget: '100' }).settings.signalBudget).toBeUndefined();
    expect(() => buildCreateInput({ every: '1h', budget: '100', 'signal-budget': '-1' })).toThrow(/signal-budget/);
    expect(() => buildCreateInput({ every: '1h', budget: '100', 'listing-page': ['ftp://shop.test/'] })).toThrow(/^invalid option --listing-page: listingPages\[0\]/);
  });
});
