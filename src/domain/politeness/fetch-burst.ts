import { requireTimeMs } from './errors.js';
import { canStartFetch, circuitStateAt, nextFetchAtMs } from './host-gate.js';
import { policyDelayMs, type HostPolitenessPolicy } from './host-politeness-policy.js';
import type { HostPolitenessState } from './host-politeness-state.js';

/**
 * A fetch burst: a few URLs of one host fetched in sequence by one activity. For a host with a
 * short delay, the activity, the timer and the workflow tasks around each URL cost more than the
 * wait itself; a burst pays them once for several URLs and keeps the same politeness arithmetic
 * (canStartFetch before every request, applyHostOutcome after it).
 */
export interface FetchBurstLimits {
  /**
   * Hosts whose static delay (max of our delay and Crawl-delay) is above this, ms, fetch one URL
   * per activity. Also the longest wait a burst makes for a host that signalled overload (a
   * Retry-After, a throttle backoff): that wait is the workflow's durable timer.
   */
  maxHostDelayMs: number;
  /**
   * The longest wait, ms, a burst makes for the host's ordinary pace: its delay grown by its
   * response times (Mercator's factor 10 makes a 150 ms response a 1.5 s wait). Below the burst
   * activity's first retry interval (5 s), so a retried burst still comes later than any wait it
   * skipped.
   */
  maxPaceWaitMs: number;
  /** At most this many URLs per burst. */
  maxUrls: number;
  /**
   * A burst plans for at most this much host time, ms: a pause, a delay change or a stop reaches
   * the host within about this long, since the workflow acts between bursts.
   */
  maxSpanMs: number;
}

/**
 * A burst plans for up to 10 s of host time: fewer, longer bursts cost fewer workflow tasks and
 * history events per page (bench/README.md, "Figures behind the defaults"), and
 * a host-level pause or delay change still reaches the host within about 10 s (a crawl's pause or
 * stop reaches every request of a burst at once, through the crawl's state).
 */
export const DEFAULT_FETCH_BURST_LIMITS: Readonly<FetchBurstLimits> = Object.freeze({
  maxHostDelayMs: 1000,
  // At 1 s, a host answering in 100 ms on a busy machine ended every burst and had each later URL
  // fetched on its own, with a timer, two activities and three workflow tasks a page.
  maxPaceWaitMs: 4000,
  maxUrls: 20,
  maxSpanMs: 10_000,
});

/** How many of `readyUrls` the next burst takes: 1 means fetch one URL on its own. */
export function fetchBurstSize(policy: HostPolitenessPolicy, readyUrls: number, limits: FetchBurstLimits = DEFAULT_FETCH_BURST_LIMITS): number {
  // Several slots per host overlap requests; a burst is one slot used back to back.
  if (policy.maxConcurrentFetches !== 1) return 1;
  const delayMs = policyDelayMs(policy);
  if (delayMs > limits.maxHostDelayMs) return 1;
  const bySpan = 1 + Math.floor(limits.maxSpanMs / Math.max(1, delayMs));
  return Math.max(1, Math.min(Math.floor(readyUrls), limits.maxUrls, bySpan));
}

/**
 * Inside a burst, before each request after the first: how long to wait, ms, or undefined when
 * the burst must end and hand its remaining URLs back. It ends when the host asks for more than
 * a short delay (a Retry-After or throttle backoff past maxHostDelayMs, an open circuit, a hold,
 * an adaptive delay grown past maxPaceWaitMs): the workflow's durable timer waits that out, not
 * an activity.
 */
export function burstWaitMs(state: HostPolitenessState, policy: HostPolitenessPolicy, nowMs: number, limits: FetchBurstLimits = DEFAULT_FETCH_BURST_LIMITS): number | undefined {
  requireTimeMs('nowMs', nowMs);
  const startAtMs = nextFetchAtMs(state, nowMs);
  const waitMs = startAtMs - nowMs;
  if (waitMs > burstWaitLimitMs(state, nowMs, limits)) return undefined;
  // A circuit that opened allows one probe once it is half-open: the workflow sends that, alone.
  if (circuitStateAt(state, policy, startAtMs) !== 'closed' || !canStartFetch(state, policy, startAtMs)) return undefined;
  return waitMs;
}

/**
 * The longest wait a burst makes now: its pace's, unless the host signalled overload (then the
 * workflow's timer waits). Limits without maxPaceWaitMs (a burst scheduled by a run of an older
 * release, retried after an upgrade) wait no longer than maxHostDelayMs, as that release did.
 */
export function burstWaitLimitMs(state: HostPolitenessState, nowMs: number, limits: FetchBurstLimits = DEFAULT_FETCH_BURST_LIMITS): number {
  const overloaded = state.recentThrottles > 0 || state.retryAfterAtMs > nowMs;
  const paceWaitMs = Number.isFinite(limits.maxPaceWaitMs) ? limits.maxPaceWaitMs : limits.maxHostDelayMs;
  return overloaded ? limits.maxHostDelayMs : Math.max(limits.maxHostDelayMs, paceWaitMs);
}

/** A robots.txt refreshed in a burst may add a Crawl-delay: every later wait takes the longer of it and the policy's. */
export function withCrawlDelay(policy: HostPolitenessPolicy, crawlDelayMs: number | undefined): HostPolitenessPolicy {
  if (crawlDelayMs === undefined) return policy;
  return { ...policy, crawlDelayMs: Math.max(policy.crawlDelayMs ?? 0, crawlDelayMs) };
}

/** Where a burst stands when it has fetched every URL it holds. */
export interface BurstExtension {
  /** URLs it may still take before its size limit. */
  roomUrls: number;
  /** Its first request's start, ms since the epoch; undefined when it sent none. */
  firstRequestAtMs: number | undefined;
  nowMs: number;
}

/**
 * Whether a burst claims more of the host's URLs to fetch itself: it has room for them, and more
 * of its span left than one delay of the host (a burst that sent nothing has no span to use).
 */
export function burstMayExtend(extension: BurstExtension, policy: HostPolitenessPolicy, limits: FetchBurstLimits = DEFAULT_FETCH_BURST_LIMITS): boolean {
  if (extension.roomUrls <= 0) return false;
  const spanLeftMs = extension.firstRequestAtMs === undefined ? 0 : limits.maxSpanMs - (extension.nowMs - extension.firstRequestAtMs);
  return spanLeftMs > policyDelayMs(policy);
}

/**
 * Whether a URL whose origin's robots.txt the burst has just refreshed is tried again in the
 * burst: the file was read (not unreachable, not a transport failure), and its Crawl-delay, in
 * `policy` now, still lets the host be fetched in bursts.
 */
export function burstRetriesAfterRobots(refresh: { readable: boolean }, policy: HostPolitenessPolicy, limits: FetchBurstLimits = DEFAULT_FETCH_BURST_LIMITS): boolean {
  return refresh.readable && policyDelayMs(policy) <= limits.maxHostDelayMs;
}
