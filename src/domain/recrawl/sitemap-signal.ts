/**
 * Sitemap `lastmod` as a cheap change signal (001: sitemaps say what changed without a visit, when
 * their dates are reliable). Two questions, kept apart:
 * 1. What does the lastmod claim about our copy? ({@link sitemapClaim}) Newer than our last visit:
 *    'changed'; ended before it: 'unchanged'; a window that straddles the visit, a date in the
 *    future or no visit yet: no claim.
 * 2. Is the origin's sitemap trusted enough to act on the claim? ({@link trustedSitemapSignal})
 *    Believing a false 'changed' costs one fetch; believing a false 'unchanged' leaves a stale
 *    copy unseen. So 'changed' is acted on unless the origin's dates were shown unreliable, and
 *    'unchanged' only once our own visits have confirmed them.
 */
import { RecrawlInputError, requireNumber } from './errors.js';

/** When the page last changed according to a sitemap: a window, as wide as the lastmod's precision. */
export interface LastmodWindow {
  /** Earliest moment the stated lastmod covers, ms since epoch. */
  fromMs: number;
  /** Latest moment it covers (equal to fromMs for a full timestamp), ms since epoch. */
  toMs: number;
}

export type SitemapClaim = 'changed' | 'unchanged';

/** Tolerances of {@link sitemapClaim}. */
export interface SitemapClaimOptions {
  /** Clocks of site and crawler disagree by up to this much; a lastmod this close to the visit says nothing. Default 60,000 (a minute). */
  clockSkewMs: number;
  /** A lastmod further than this past the reading is a broken generator, not a claim. Default 86,400,000 (a day: time zones). */
  maxFutureMs: number;
}

export const DEFAULT_SITEMAP_CLAIM_OPTIONS: Readonly<SitemapClaimOptions> = Object.freeze({ clockSkewMs: 60_000, maxFutureMs: 86_400_000 });

/** What a sitemap said about one page, and when we read it. */
export interface SitemapReadingOfPage {
  /** The listed lastmod; undefined when the entry had none (or an invalid one). */
  lastmod: LastmodWindow | undefined;
  /** Fetch start of the sitemap reading that listed it, ms since epoch. */
  readAtMs: number;
}

/**
 * What a lastmod says about the copy taken at `lastVisitAtMs`; undefined when it says nothing
 * certain. 'unchanged' needs a reading taken after that visit: an older one cannot vouch for
 * what happened since.
 */
export function sitemapClaim(
  reading: SitemapReadingOfPage | undefined,
  lastVisitAtMs: number | undefined,
  options: Partial<SitemapClaimOptions> = {},
): SitemapClaim | undefined {
  const { clockSkewMs, maxFutureMs } = { ...DEFAULT_SITEMAP_CLAIM_OPTIONS, ...options };
  requireNumber('RECRAWL_OPTIONS_INVALID', 'options.clockSkewMs', clockSkewMs, { min: 0 });
  requireNumber('RECRAWL_OPTIONS_INVALID', 'options.maxFutureMs', maxFutureMs, { min: 0 });
  const lastmod = reading?.lastmod;
  if (reading === undefined || lastmod === undefined || lastVisitAtMs === undefined) return undefined;
  if (!(Number.isFinite(lastmod.fromMs) && Number.isFinite(lastmod.toMs) && lastmod.fromMs <= lastmod.toMs)) {
    throw new RecrawlInputError('RECRAWL_OBSERVATION_INVALID', 'reading.lastmod', lastmod, 'pass a window with finite fromMs <= toMs');
  }
  requireNumber('RECRAWL_OBSERVATION_INVALID', 'reading.readAtMs', reading.readAtMs, { min: 0 });
  if (lastmod.fromMs > reading.readAtMs + maxFutureMs) return undefined;
  if (lastmod.fromMs > lastVisitAtMs + clockSkewMs) return 'changed';
  if (reading.readAtMs >= lastVisitAtMs && lastmod.toMs < lastVisitAtMs - clockSkewMs) return 'unchanged';
  return undefined;
}

/** An origin's record of sitemap claims checked against our visits. */
export interface SitemapTrustRecord {
  confirmed: number;
  refuted: number;
}

/** Thresholds of {@link trustedSitemapSignal}. */
export interface SitemapTrustOptions {
  /** Checked claims before an origin's dates are judged at all. Default 3. */
  minCheckedClaims: number;
  /** Share of checked claims that must have been right. Default 0.8. */
  minAccuracy: number;
}

export const DEFAULT_SITEMAP_TRUST_OPTIONS: Readonly<SitemapTrustOptions> = Object.freeze({ minCheckedClaims: 3, minAccuracy: 0.8 });

export type SitemapTrustLevel = 'unknown' | 'trusted' | 'unreliable';

export function sitemapTrustLevel(record: SitemapTrustRecord, options: Partial<SitemapTrustOptions> = {}): SitemapTrustLevel {
  const { minCheckedClaims, minAccuracy } = { ...DEFAULT_SITEMAP_TRUST_OPTIONS, ...options };
  requireNumber('RECRAWL_OPTIONS_INVALID', 'options.minCheckedClaims', minCheckedClaims, { min: 1, integer: true });
  requireNumber('RECRAWL_OPTIONS_INVALID', 'options.minAccuracy', minAccuracy, { min: 0, max: 1 });
  requireNumber('RECRAWL_OBSERVATION_INVALID', 'trust.confirmed', record.confirmed, { min: 0, integer: true });
  requireNumber('RECRAWL_OBSERVATION_INVALID', 'trust.refuted', record.refuted, { min: 0, integer: true });
  const checked = record.confirmed + record.refuted;
  if (checked < minCheckedClaims) return 'unknown';
  return record.confirmed / checked >= minAccuracy ? 'trusted' : 'unreliable';
}

/** The cheap signal the recrawl planner may act on (RecrawlCandidate.cheapSignal), or undefined. */
export function trustedSitemapSignal(claim: SitemapClaim | undefined, trust: SitemapTrustLevel): SitemapClaim | undefined {
  if (claim === 'changed') return trust === 'unreliable' ? undefined : 'changed';
  if (claim === 'unchanged') return trust === 'trusted' ? 'unchanged' : undefined;
  return undefined;
}

/** Whether a visit's verdict bore out the claim made before it: the origin's trust moves by one either way. */
export function claimConfirmed(claim: SitemapClaim, verdict: 'changed' | 'unchanged'): boolean {
  return claim === verdict;
}
