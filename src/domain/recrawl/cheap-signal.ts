/**
 * Cheap change signals (docs/design.md, "Cost per detected change": learn whether a page changed for much less than fetching it): a
 * sitemap `lastmod`, or a listing page whose entry for the item changed. Both come down to a
 * window in which the page last changed, and the time we read it. Two questions, kept apart:
 * 1. What does the window claim about our copy? ({@link signalClaim}) After our last visit:
 *    'changed'; ended before it: 'unchanged'; a window that straddles the visit, a date in the
 *    future or no visit yet: no claim.
 * 2. Is the origin's source trusted enough to act on the claim? ({@link trustedSignal})
 *    Believing a false 'changed' costs one fetch; believing a false 'unchanged' leaves a stale
 *    copy unseen. So 'changed' is acted on unless the origin's dates were shown unreliable, and
 *    'unchanged' only once our own visits have confirmed them.
 */
import { RecrawlInputError, requireNumber } from './errors.js';

/**
 * When the page last changed according to a signal: a sitemap lastmod, as wide as its precision,
 * or the span between two listing readings whose entries for the page differ.
 */
export interface ChangeWindow {
  /** Earliest moment the change may have happened, ms since epoch (0: any time before toMs). */
  fromMs: number;
  /** Latest moment (equal to fromMs for a full timestamp), ms since epoch. */
  toMs: number;
}

export type SignalClaim = 'changed' | 'unchanged';

/** Tolerances of {@link signalClaim}. */
export interface SignalClaimOptions {
  /**
   * Clocks of site and crawler disagree by up to this much; a lastmod this close to the visit says
   * nothing. Not applied to a reading already on our clock (SignalReading.onOurClock). Default
   * 60,000 (a minute).
   */
  clockSkewMs: number;
  /** A lastmod further than this past the reading is a broken generator, not a claim. Default 86,400,000 (a day: time zones). */
  maxFutureMs: number;
}

export const DEFAULT_SIGNAL_CLAIM_OPTIONS: Readonly<SignalClaimOptions> = Object.freeze({ clockSkewMs: 60_000, maxFutureMs: 86_400_000 });

/** What a signal last said about one page, and when we read it. */
export interface SignalReading {
  /** When the page last changed; undefined when the source did not say (a sitemap entry without lastmod). */
  changedWithin: ChangeWindow | undefined;
  /** Fetch start of the latest reading (sitemap or listing page) that showed the page, ms since epoch. */
  readAtMs: number;
  /**
   * The window was moved onto our clock with the reading's Date header (windowOnOurClock), its
   * uncertainty included: no allowance for clock skew is needed. Default false.
   */
  onOurClock?: boolean;
}

/** What a response's Date says about the server's clock: when it stamped the response, by both clocks. */
export interface ServerClockReading {
  /** The response's Date header, ms since epoch (whole seconds: the stamp is up to a second late). */
  serverDateMs: number;
  /** Our clock at the request's start, ms since epoch. */
  requestStartedAtMs: number;
  /** Our ms from the request's start to the response's first byte: the server stamped Date in between. */
  firstByteAfterMs: number;
}

/**
 * A change window read on the server's clock (a sitemap's lastmod), moved onto ours. The server
 * stamped Date between our request and the first byte of its answer, in whole seconds, so its clock
 * minus ours lies within [Date - start - firstByte, Date + 1 s - start]; the window widens by that
 * span. A minute's allowance for clock skew (DEFAULT_SIGNAL_CLAIM_OPTIONS) hid every change within a
 * minute of a visit, on sites whose pages change every few minutes and on the live benchmark's
 * compressed time alike.
 */
export function windowOnOurClock(window: ChangeWindow, clock: ServerClockReading): ChangeWindow {
  requireNumber('RECRAWL_OBSERVATION_INVALID', 'clock.serverDateMs', clock.serverDateMs, { min: 0 });
  requireNumber('RECRAWL_OBSERVATION_INVALID', 'clock.requestStartedAtMs', clock.requestStartedAtMs, { min: 0 });
  requireNumber('RECRAWL_OBSERVATION_INVALID', 'clock.firstByteAfterMs', clock.firstByteAfterMs, { min: 0 });
  const aheadAtLeastMs = clock.serverDateMs - clock.requestStartedAtMs - clock.firstByteAfterMs;
  const aheadAtMostMs = clock.serverDateMs + 1_000 - clock.requestStartedAtMs;
  return { fromMs: window.fromMs - aheadAtMostMs, toMs: window.toMs - aheadAtLeastMs };
}

/**
 * What a change window says about the copy taken at `lastVisitAtMs`; undefined when it says nothing
 * certain. 'unchanged' needs a reading taken after that visit: an older one cannot vouch for
 * what happened since.
 */
export function signalClaim(
  reading: SignalReading | undefined,
  lastVisitAtMs: number | undefined,
  options: Partial<SignalClaimOptions> = {},
): SignalClaim | undefined {
  const resolved = { ...DEFAULT_SIGNAL_CLAIM_OPTIONS, ...options };
  const { maxFutureMs } = resolved;
  requireNumber('RECRAWL_OPTIONS_INVALID', 'options.clockSkewMs', resolved.clockSkewMs, { min: 0 });
  requireNumber('RECRAWL_OPTIONS_INVALID', 'options.maxFutureMs', maxFutureMs, { min: 0 });
  const window = reading?.changedWithin;
  if (reading === undefined || window === undefined || lastVisitAtMs === undefined) return undefined;
  if (!(Number.isFinite(window.fromMs) && Number.isFinite(window.toMs) && window.fromMs <= window.toMs)) {
    throw new RecrawlInputError('RECRAWL_OBSERVATION_INVALID', 'reading.changedWithin', window, 'pass a window with finite fromMs <= toMs');
  }
  requireNumber('RECRAWL_OBSERVATION_INVALID', 'reading.readAtMs', reading.readAtMs, { min: 0 });
  const clockSkewMs = reading.onOurClock === true ? 0 : resolved.clockSkewMs;
  if (window.fromMs > reading.readAtMs + maxFutureMs) return undefined;
  if (window.fromMs > lastVisitAtMs + clockSkewMs) return 'changed';
  if (reading.readAtMs >= lastVisitAtMs && window.toMs < lastVisitAtMs - clockSkewMs) return 'unchanged';
  return undefined;
}

/** An origin's record of sitemap claims checked against our visits. */
export interface SignalTrustRecord {
  confirmed: number;
  refuted: number;
}

/** Thresholds of {@link trustedSignal}. */
export interface SignalTrustOptions {
  /** Checked claims before an origin's dates are judged at all. Default 3. */
  minCheckedClaims: number;
  /** Share of checked claims that must have been right. Default 0.8. */
  minAccuracy: number;
}

export const DEFAULT_SIGNAL_TRUST_OPTIONS: Readonly<SignalTrustOptions> = Object.freeze({ minCheckedClaims: 3, minAccuracy: 0.8 });

export type SignalTrustLevel = 'unknown' | 'trusted' | 'unreliable';

export function signalTrustLevel(record: SignalTrustRecord, options: Partial<SignalTrustOptions> = {}): SignalTrustLevel {
  const { minCheckedClaims, minAccuracy } = { ...DEFAULT_SIGNAL_TRUST_OPTIONS, ...options };
  requireNumber('RECRAWL_OPTIONS_INVALID', 'options.minCheckedClaims', minCheckedClaims, { min: 1, integer: true });
  requireNumber('RECRAWL_OPTIONS_INVALID', 'options.minAccuracy', minAccuracy, { min: 0, max: 1 });
  requireNumber('RECRAWL_OBSERVATION_INVALID', 'trust.confirmed', record.confirmed, { min: 0, integer: true });
  requireNumber('RECRAWL_OBSERVATION_INVALID', 'trust.refuted', record.refuted, { min: 0, integer: true });
  const checked = record.confirmed + record.refuted;
  if (checked < minCheckedClaims) return 'unknown';
  return record.confirmed / checked >= minAccuracy ? 'trusted' : 'unreliable';
}

/** The cheap signal the recrawl planner may act on (RecrawlCandidate.cheapSignal), or undefined. */
export function trustedSignal(claim: SignalClaim | undefined, trust: SignalTrustLevel): SignalClaim | undefined {
  if (claim === 'changed') return trust === 'unreliable' ? undefined : 'changed';
  if (claim === 'unchanged') return trust === 'trusted' ? 'unchanged' : undefined;
  return undefined;
}

/**
 * The signal of several sources about one page: any 'changed' wins (a stale copy is the costlier
 * mistake), else any 'unchanged'.
 */
export function combineSignals(signals: readonly (SignalClaim | undefined)[]): SignalClaim | undefined {
  if (signals.includes('changed')) return 'changed';
  return signals.includes('unchanged') ? 'unchanged' : undefined;
}

/** Whether a visit's verdict bore out the claim made before it: the origin's trust moves by one either way. */
export function claimConfirmed(claim: SignalClaim, verdict: 'changed' | 'unchanged'): boolean {
  return claim === verdict;
}
