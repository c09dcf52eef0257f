/** A value tier: how much a fresh copy of a page matters to the business (docs/design.md, "Cost per detected change": keep it coarse). */
export interface ValueTier {
  name: string;
  value: number;
}

/**
 * Default tiers (docs/design.md, "Cost per detected change": "3-4 levels are usually enough"). Each step is worth about four of the
 * next: a critical page gets recrawled where a low one would need four times the freshness gain.
 */
export const DEFAULT_VALUE_TIERS: readonly ValueTier[] = Object.freeze([
  Object.freeze({ name: 'critical', value: 16 }),
  Object.freeze({ name: 'high', value: 4 }),
  Object.freeze({ name: 'normal', value: 1 }),
  Object.freeze({ name: 'low', value: 0.25 }),
]);

/** 404/410 tombstones of pages that once existed are rechecked on this long interval, never retried at once (docs/design.md, "Recrawl"). */
export const TOMBSTONE_RECHECK_DAYS = 30;

/** Whether an HTTP status turns a known URL into a tombstone. */
export function isTombstoneStatus(status: number): boolean {
  return status === 404 || status === 410;
}

/** Starting recrawl intervals by kind of document (docs/design.md, "Recrawl"), before the page's own history takes over. */
export const START_INTERVAL_DAYS = Object.freeze({
  /** Breaking news and prices: 10 minutes. */
  newsOrPrice: 10 / (24 * 60),
  /** Product detail pages: 1 day, widened (2, 4 days…) while unchanged. */
  productDetail: 1,
  /** Technical documentation: 7 days, shortened for a while after a change. */
  documentation: 7,
  /** 404/410 tombstones. */
  tombstone: TOMBSTONE_RECHECK_DAYS,
});
