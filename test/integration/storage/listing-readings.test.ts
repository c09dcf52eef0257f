// Listing readings on an item's URL record: the latest and the one before it, whatever order
// their parses commit in, so an item's visit can check the claim of the reading taken before it
// even when a re-read of the listing, taken during the visit, committed first.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { resolveCrawlConfig } from '../../../src/config/crawl-config.js';
import { listingClaim, listingEntryDigest, listingReadingAsOf, type ListingReading } from '../../../src/domain/recrawl/index.js';
import { pageSignalsOf, SIGNAL_COLUMNS, type SignalColumns } from '../../../src/storage/postgres/cheap-signal-repository.js';
import { createCrawl } from '../../../src/storage/postgres/crawl-repository.js';
import { registerFrontierEntries } from '../../../src/storage/postgres/frontier-registration.js';
import { fingerprintToBytes } from '../../../src/storage/postgres/sql-codec.js';
import { saveListingReading } from '../../../src/storage/postgres/listing-repository.js';
import { createHarness, type Harness } from '../../support/crawler-harness.js';
import { frontierEntry } from '../../support/frontier-entry.js';

describe('listing readings', () => {
  let harness: Harness;
  const host = '127.75.9.1';
  const item = frontierEntry(host, 'item/3');
  const T1 = Date.UTC(2026, 11, 5, 8);
  const VISIT = T1 + 60_000;
  const T3 = VISIT + 200;
  const inStock = listingEntryDigest('Kettle 24.90 EUR in stock');
  const soldOut = listingEntryDigest('Kettle 24.90 EUR sold out');

  const listingOf = async (): Promise<ListingReading | undefined> => {
    const result = await harness.pool.query<SignalColumns>(`SELECT ${SIGNAL_COLUMNS} FROM urls WHERE fingerprint = $1`, [fingerprintToBytes(item.fingerprint)]);
    return pageSignalsOf(result.rows[0]!).listing;
  };

  beforeAll(async () => {
    harness = await createHarness('listing-readings');
    await createCrawl(harness.pool, { id: 'listing-readings', config: resolveCrawlConfig({ allowPrivateNetworks: true, maxPages: 10 }), seedHosts: [host] });
    await registerFrontierEntries(harness.pool, 'listing-readings', [item], { respectDiscoveryBudget: false });
  });

  afterAll(async () => {
    await harness?.close();
  });

  it('keeps the reading before the latest, so a visit between them checks the earlier one', async () => {
    expect(await saveListingReading(harness.pool, T1, [{ target: item.fingerprint, digest: inStock }])).toEqual({ known: 1, changed: 0 });
    // Read again during the item's visit, and committed before the visit's check.
    expect(await saveListingReading(harness.pool, T3, [{ target: item.fingerprint, digest: soldOut }])).toEqual({ known: 1, changed: 1 });
    const listing = await listingOf();
    expect(listing).toMatchObject({ digest: soldOut, readAtMs: T3, previous: { digest: inStock, readAtMs: T1 } });
    expect(listingReadingAsOf(listing, VISIT)).toMatchObject({ digest: inStock, readAtMs: T1 });
    // With a baseline from an earlier visit, the claim checked is the earlier reading's.
    expect(listingClaim(listingReadingAsOf({ ...listing!, digestAtVisit: inStock }, VISIT), T1 - 1)).toBe('unchanged');
  });

  it('takes a late-committing older reading as the one before the latest, and ignores replays', async () => {
    const T2 = T1 + 30_000;
    expect(await saveListingReading(harness.pool, T2, [{ target: item.fingerprint, digest: inStock }])).toEqual({ known: 0, changed: 0 });
    expect(await listingOf()).toMatchObject({ digest: soldOut, readAtMs: T3, previous: { digest: inStock, readAtMs: T2 } });
    // Replays of either kept reading, and a reading older than both, change nothing.
    for (const readAtMs of [T3, T2, T1]) await saveListingReading(harness.pool, readAtMs, [{ target: item.fingerprint, digest: listingEntryDigest(`replay ${readAtMs}`) }]);
    expect(await listingOf()).toMatchObject({ digest: soldOut, readAtMs: T3, previous: { digest: inStock, readAtMs: T2 } });
  });
});
