/**
 * A listing page's reading (docs/design.md, "Cost per detected change": listing pages as change detectors): its entries, one per linked
 * item, as digests on the items' URL records. The extraction runs before the parse's transaction,
 * the writes inside it.
 */
import { listingEntryDigest } from '../../domain/recrawl/index.js';
import { tryCanonicalizeUrl, urlFingerprint } from '../../domain/url/index.js';
import type { ListingEntry } from '../../parse/listing-entries.js';
import { saveListingReading, type ListingEntryDigest } from '../../storage/postgres/listing-repository.js';
import type { PoolClient } from '../../storage/postgres/pool.js';
import type { CrawlContext } from '../frontier/crawl-context.js';

/** The page's entries (extractHtmlDocument's listingEntries) by item fingerprint; links that do not canonicalize are no entries. */
export function listingEntriesOf(entries: readonly ListingEntry[], context: CrawlContext): ListingEntryDigest[] {
  const byTarget = new Map<string, string>();
  for (const entry of entries) {
    const canonical = tryCanonicalizeUrl(entry.url, context.canonicalizeOptions);
    if (!canonical.ok) continue;
    const target = urlFingerprint(canonical.value.url);
    // Two raw URLs with one canonical form are one item: their texts together are its entry.
    byTarget.set(target, byTarget.has(target) ? `${byTarget.get(target)}\n${entry.text}` : entry.text);
  }
  return [...byTarget].map(([target, text]) => ({ target, digest: listingEntryDigest(text) }));
}

/** Keeps one reading; returns how many entries it had, and how many changed since the previous reading. */
export async function recordListingReading(
  client: PoolClient,
  input: { readAtMs: number; entries: readonly ListingEntryDigest[] },
): Promise<{ entries: number; changed: number }> {
  const saved = await saveListingReading(client, input.readAtMs, input.entries);
  return { entries: input.entries.length, changed: saved.changed };
}
