// Unique-content growth per host and depth (what the trap detector reads): a parsed page counts
// once, with new content only when its normalized hash is new to the crawl. On Postgres.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { resolveCrawlConfig } from '../../../src/config/crawl-config.js';
import { urlFingerprint } from '../../../src/domain/url/index.js';
import { createCrawl } from '../../../src/storage/postgres/crawl-repository.js';
import { registerFrontierEntries, type NewFrontierEntry } from '../../../src/storage/postgres/frontier-registration.js';
import { inTransaction } from '../../../src/storage/postgres/pool.js';
import { depthContentKey, readRegistrationFacts, recordContentGrowth } from '../../../src/storage/postgres/url-scope-repository.js';
import { createHarness, type Harness } from '../../support/crawler-harness.js';

const HOST = '127.70.1.1';
const crawlId = 'content-growth';

const entry = (path: string): NewFrontierEntry => {
  const url = `http://${HOST}/${path}`;
  return { fingerprint: urlFingerprint(url), url, host: HOST, origin: `http://${HOST}`, canonicalizationVersion: 1, depth: 2, priority: 1, tier: 0 };
};

describe('recordContentGrowth', () => {
  let harness: Harness;
  const pages = ['first', 'same-text', 'other-text', 'no-text'].map(entry);
  const growth = (page: NewFrontierEntry, normalizedHash: string | null) =>
    inTransaction(harness.pool, (client) => recordContentGrowth(client, { crawlId, fingerprint: page.fingerprint, normalizedHash }));
  // As link registration reads them (what the trap detector decides on).
  const figures = async () =>
    (await readRegistrationFacts(harness.pool, crawlId, { confirm: [], hosts: [], paths: [], depthContent: [{ depth: 2, host: HOST }], present: [], withDiscoveryRoom: false })).depthContent.get(depthContentKey(2, HOST));

  beforeAll(async () => {
    harness = await createHarness('content-growth');
    await createCrawl(harness.pool, { id: crawlId, config: resolveCrawlConfig({ allowPrivateNetworks: true }), seedHosts: [HOST] });
    await registerFrontierEntries(harness.pool, crawlId, pages, { respectDiscoveryBudget: false });
  });

  afterAll(async () => {
    await harness?.close();
  });

  it('counts a page once, with new content only for a hash new to the crawl', async () => {
    const [first, sameText, otherText, noText] = pages as [NewFrontierEntry, NewFrontierEntry, NewFrontierEntry, NewFrontierEntry];
    await growth(first, 'aa'.repeat(32));
    expect(await figures()).toEqual({ pages: 1, newContent: 1 });
    // A replayed parse counts nothing.
    await growth(first, 'aa'.repeat(32));
    expect(await figures()).toEqual({ pages: 1, newContent: 1 });
    await growth(sameText, 'aa'.repeat(32));
    expect(await figures()).toEqual({ pages: 2, newContent: 1 });
    await growth(otherText, 'bb'.repeat(32));
    expect(await figures()).toEqual({ pages: 3, newContent: 2 });
    await growth(noText, null);
    expect(await figures()).toEqual({ pages: 4, newContent: 2 });
  });
});
