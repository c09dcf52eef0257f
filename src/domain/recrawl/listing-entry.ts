/**
 * Listing pages as change detectors (docs/design.md, "Cost per detected change": a category or search page shows dozens of items' prices
 * and status; fetch the list, compare, and fetch only the items whose entry changed). An item's
 * entry is kept as a digest of its normalized text (dates and tokens masked, as for page content):
 * the digest at the latest listing reading against the one current when we last visited the item.
 */
import { normalizeTextForHash } from '../content/index.js';
import { sha256Hex } from '../hash/index.js';
import type { SignalClaim } from './cheap-signal.js';
import { requireNumber } from './errors.js';

/** Digest of a listing entry's text; entries that differ only in masked dates or tokens are equal. */
export function listingEntryDigest(text: string): string {
  return sha256Hex(normalizeTextForHash(text));
}

/** What the listings say about one item. */
export interface ListingReading {
  /** Its entry's digest at the latest listing reading. */
  digest: string;
  /** Fetch start of that reading, ms since epoch. */
  readAtMs: number;
  /** The entry's digest when the item itself was last visited; null when no listing had shown it by then. */
  digestAtVisit: string | null;
  /** The reading before the latest, when one was kept. */
  previous?: { digest: string; readAtMs: number };
}

/**
 * The latest of the item's two kept readings taken at or before `atMs` (a visit's fetch start):
 * what the listings said before the visit, so the visit can check that claim. A listing read
 * again while the item was fetched leaves its newer reading out. Undefined when neither is.
 */
export function listingReadingAsOf(reading: ListingReading | undefined, atMs: number): ListingReading | undefined {
  if (reading === undefined) return undefined;
  requireNumber('RECRAWL_OBSERVATION_INVALID', 'atMs', atMs);
  if (reading.readAtMs <= atMs) return reading;
  const { previous } = reading;
  if (previous === undefined || previous.readAtMs > atMs) return undefined;
  return { digest: previous.digest, readAtMs: previous.readAtMs, digestAtVisit: reading.digestAtVisit };
}

/**
 * The entry digest a visit at `visitAtMs` keeps as its baseline (the next visit's `digestAtVisit`):
 * the latest reading taken at or before the visit; with none, the latest reading; null with no
 * reading at all. A later, different entry then says the item changed since this visit.
 */
export function listingDigestAtVisit(reading: ListingReading | undefined, visitAtMs: number): string | null {
  return (listingReadingAsOf(reading, visitAtMs) ?? reading)?.digest ?? null;
}

/**
 * What the listing claims about the copy taken at `lastVisitAtMs`: an entry that differs from the
 * one current at that visit says 'changed'; the same entry, read after the visit, 'unchanged'.
 * With no entry known at the visit, or a reading older than the visit, it says nothing.
 */
export function listingClaim(reading: ListingReading | undefined, lastVisitAtMs: number | undefined): SignalClaim | undefined {
  if (reading === undefined || lastVisitAtMs === undefined || reading.digestAtVisit === null) return undefined;
  requireNumber('RECRAWL_OBSERVATION_INVALID', 'reading.readAtMs', reading.readAtMs, { min: 0 });
  if (reading.digest !== reading.digestAtVisit) return 'changed';
  return reading.readAtMs >= lastVisitAtMs ? 'unchanged' : undefined;
}
