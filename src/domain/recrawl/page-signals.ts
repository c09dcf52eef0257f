import { signalClaim, type SignalClaim, type SignalReading } from './cheap-signal.js';
import { listingClaim, type ListingReading } from './listing-entry.js';

/** Where a cheap signal comes from; each source earns its own trust per origin. */
export type SignalSource = 'sitemap' | 'listing';
export const SIGNAL_SOURCES: readonly SignalSource[] = ['sitemap', 'listing'];

/** What each source last said about a page; a source that never showed it is absent. */
export interface PageSignals {
  sitemap?: SignalReading;
  listing?: ListingReading;
}

/** What the page's signals claim about the copy taken at `lastVisitAtMs`, by source. */
export function claimsOf(signals: PageSignals, lastVisitAtMs: number | undefined): Record<SignalSource, SignalClaim | undefined> {
  return { sitemap: signalClaim(signals.sitemap, lastVisitAtMs), listing: listingClaim(signals.listing, lastVisitAtMs) };
}
