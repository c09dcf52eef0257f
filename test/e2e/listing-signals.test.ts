// Listing pages as change detectors (docs/design.md, "Cost per detected change": fetch the list, compare, fetch only the items whose entry
// changed), on the real stack: a crawl keeps the entries of a catalog page; a recrawl cycle re-reads
// the catalog first (through the host workflows), then plans. An item whose entry changed is
// planned; once the origin's listings proved right, items whose entry did not change are not.
// Facts come from the test server's request log and Postgres.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RecrawlCycleResult } from '../../src/workflows/recrawl-cycle-workflow.js';
import { createHarness, type Harness } from '../support/crawler-harness.js';
import { readSignalTrust, runSignalCycle, verdictsByUrl, type SignalTrustRow } from '../support/signal-cycles.js';
import { politenessReport, startTestWeb, type RequestLogEntry, type TestWeb, type WebSpec } from '../support/test-web/index.js';

const C = '127.38.0.1';
const MIN_DELAY_MS = 100;
const ITEMS = [1, 2, 3, 4];

describe('listing page entries as a cheap change signal in recrawl cycles', () => {
  let harness: Harness;
  let web: TestWeb;
  const price = new Map<number, string>(ITEMS.map((n) => [n, `${10 + n}.90`]));
  /** Items the catalog shows; a new one appears before the second cycle. */
  const listed = [...ITEMS];
  const url = (path: string): string => `http://${C}:${web.port}${path}`;
  const page = (title: string, body: string): string =>
    `<!doctype html><html lang="en"><head><title>${title}</title></head><body><nav><a href="/">Home</a> <a href="/catalog">Catalog</a></nav>${body}</body></html>`;

  function webSpec(): WebSpec {
    return {
      hosts: [
        {
          host: C,
          robotsTxt: 'User-agent: *\nAllow: /\n',
          pages: [
            { path: '/', body: page('Shop', '<p>Kettles for every kitchen.</p>') },
            {
              path: '/catalog',
              body: () =>
                page(
                  'Kettles',
                  `<ul class="products">${listed.map((n) => `<li><a href="/item/${n}">Kettle ${n}</a> <span class="price">${price.get(n) ?? '9.90'} EUR</span></li>`).join('')}</ul>`,
                ),
            },
            ...[...ITEMS, 5].map((n) => ({
              path: `/item/${n}`,
              body: () => page(`Kettle ${n}`, `<h1>Kettle ${n}</h1><p>A steel kettle, model ${n}, for gas and induction.</p><p class="price">${price.get(n) ?? '9.90'} EUR</p>`),
            })),
          ],
        },
      ],
    };
  }

  const runCycle = (name: string): Promise<RecrawlCycleResult> =>
    runSignalCycle(harness, { name: `listing-e2e-${name}`, minHostDelayMs: MIN_DELAY_MS, config: { listingPages: [`http://${C}:${web.port}/catalog`] } });

  let first: RecrawlCycleResult;
  let second: RecrawlCycleResult;
  let firstLog: RequestLogEntry[];
  let secondLog: RequestLogEntry[];
  let trustAfterFirst: SignalTrustRow[];
  const readTrust = () => readSignalTrust(harness.pool);

  beforeAll(async () => {
    web = await startTestWeb(webSpec());
    harness = await createHarness('e2e-listings');
    await harness.startWorker();
    const crawl = await harness.runCrawl({
      crawlId: 'listings-first',
      seeds: [url('/')],
      config: { minHostDelayMs: MIN_DELAY_MS, maxDepth: 3, listingPages: [`http://${C}:${web.port}/catalog`] },
    });
    expect(crawl.state).toBe('finished');

    price.set(1, '8.90');
    web.clearLog();
    first = await runCycle('first');
    firstLog = [...web.log()];
    trustAfterFirst = await readTrust();

    price.set(3, '12.50');
    listed.push(5);
    web.clearLog();
    second = await runCycle('second');
    secondLog = [...web.log()];
  });

  afterAll(async () => {
    await harness?.close();
    await web?.close();
  });

  const requested = (log: readonly RequestLogEntry[], path: string) => log.filter((entry) => entry.path === path).length;

  it('keeps the entries of the listing page on the items, as of each visit', async () => {
    const rows = await harness.pool.query<{ url: string; listing_digest: Buffer | null; listing_digest_at_visit: Buffer | null }>(
      'SELECT url, listing_digest, listing_digest_at_visit FROM urls WHERE url = ANY($1) ORDER BY url',
      [ITEMS.map((n) => url(`/item/${n}`))],
    );
    expect(rows.rows).toHaveLength(4);
    for (const row of rows.rows) {
      expect(row.listing_digest, row.url).not.toBeNull();
      // Every item was visited after the last catalog reading that concerns it.
      expect(row.listing_digest_at_visit?.toString('hex'), row.url).toBe(row.listing_digest?.toString('hex'));
    }
    // Links outside the list (the navigation) are not entries.
    const home = await harness.pool.query<{ listing_digest: Buffer | null }>('SELECT listing_digest FROM urls WHERE url = $1', [url('/')]);
    expect(home.rows[0]?.listing_digest).toBeNull();
  });

  it('re-reads the listing page before planning, fetching nothing it links to', async () => {
    const catalogTimes = firstLog.filter((entry) => entry.path === '/catalog').map((entry) => entry.startedAtMs);
    const itemTimes = firstLog.filter((entry) => entry.path.startsWith('/item/')).map((entry) => entry.startedAtMs);
    expect(catalogTimes.length).toBeGreaterThanOrEqual(1);
    expect(Math.min(...catalogTimes)).toBeLessThan(Math.min(...itemTimes));
    expect(first.signals).toMatchObject({ requests: 1, urls: 0, listingPages: 1, itemSummaries: 4, changedSummaries: 1 });
    // A new item in the catalog is an entry, not a known item's change; the sweep fetches nothing it links to.
    expect(second.signals).toMatchObject({ listingPages: 1, itemSummaries: 5, changedSummaries: 1 });
    for (const cycle of [first, second]) {
      const sweep = await harness.pool.query<{ url: string; purpose: string }>('SELECT url, purpose FROM frontier WHERE crawl_id = $1', [`${cycle.crawlId}-signals`]);
      expect(sweep.rows).toEqual([{ url: url('/catalog'), purpose: 'listing' }]);
    }
  });

  it('plans the item whose entry changed, before the origin has earned trust for "unchanged"', async () => {
    expect(first.plan.cheapSignals).toEqual({ changed: 1, unchanged: 0 });
    for (const n of ITEMS) expect(requested(firstLog, `/item/${n}`), `/item/${n}`).toBe(1);
    expect(await verdictsByUrl(harness.pool, first.crawlId, url('/item/%'))).toEqual({
      [url('/item/1')]: 'changed',
      [url('/item/2')]: 'unchanged',
      [url('/item/3')]: 'unchanged',
      [url('/item/4')]: 'unchanged',
    });
    expect(trustAfterFirst).toEqual([{ origin: `http://${C}:${web.port}`, source: 'listing', confirmed: 4, refuted: 0 }]);
  });

  it('then plans only the item whose entry changed and leaves out the items whose entry did not', async () => {
    expect(second.plan.cheapSignals).toEqual({ changed: 1, unchanged: 3 });
    expect(requested(secondLog, '/item/3')).toBe(1);
    for (const n of [1, 2, 4]) expect(requested(secondLog, `/item/${n}`), `/item/${n}`).toBe(0);
    expect(await verdictsByUrl(harness.pool, second.crawlId, url('/item/3'))).toEqual({ [url('/item/3')]: 'changed' });
    // Item 3's change confirms the catalog's claim. The plan's burst re-reads the catalog about
    // 200 ms after item 3, and that reading may commit before item 3's change detection runs: the
    // check then takes the reading before it (the one taken before item 3's fetch), kept beside it.
    expect(await readTrust()).toEqual([{ origin: `http://${C}:${web.port}`, source: 'listing', confirmed: 5, refuted: 0 }]);
  });

  it('stays polite in both cycles', () => {
    for (const log of [firstLog, secondLog]) {
      const report = politenessReport(log, MIN_DELAY_MS);
      expect(report.overlaps).toEqual([]);
      expect(report.violations).toEqual([]);
    }
  });
});
