import { burstWaitMs, policyDelayMs, type FetchBurstLimits, type HostPolitenessPolicy, type HostPolitenessState } from '../politeness/index.js';

/**
 * How a render's requests keep their hosts' politeness (docs/rendering.md, "The gate").
 *
 * The page's host: the render holds the host's turn, as a fetch burst does. It is given the host
 * workflow's politeness state, sends its same-host requests one at a time through the same
 * arithmetic (onFetchStarted before, applyHostOutcome after), and hands the state back: page
 * fetches and subresources together never come closer than the host's policy.
 *
 * Another host (an origin allowed by --render-allow-origin): the render does not hold that host's
 * turn, so each request takes the host's turn in the pacing ledger that the host's own fetches
 * take it in too (host_pacing in Postgres): one request at a time, each at least the host's delay
 * after the previous one ended.
 */

/**
 * The longest a render waits for one subresource's turn, ms: a request that would wait longer
 * (a Retry-After, an open circuit, a long Crawl-delay) is refused instead, and the page keeps
 * what loaded. Below the render's settle time, so pacing never makes a render time out alone.
 */
export const MAX_SUBRESOURCE_WAIT_MS = 4000;

const RENDER_PACE_LIMITS: Readonly<FetchBurstLimits> = Object.freeze({ maxHostDelayMs: MAX_SUBRESOURCE_WAIT_MS, maxPaceWaitMs: MAX_SUBRESOURCE_WAIT_MS, maxUrls: Number.MAX_SAFE_INTEGER, maxSpanMs: Number.MAX_SAFE_INTEGER });

/**
 * Before a same-host request of a render: how long to wait, ms, or undefined when the request is
 * refused (the host asks for more than MAX_SUBRESOURCE_WAIT_MS, its circuit is not closed, or it is
 * held). The burst's arithmetic with the render's wait limit.
 */
export function subresourceWaitMs(state: HostPolitenessState, policy: HostPolitenessPolicy, nowMs: number, maxWaitMs = MAX_SUBRESOURCE_WAIT_MS): number | undefined {
  const limits = maxWaitMs === MAX_SUBRESOURCE_WAIT_MS ? RENDER_PACE_LIMITS : { ...RENDER_PACE_LIMITS, maxHostDelayMs: maxWaitMs, maxPaceWaitMs: maxWaitMs };
  return burstWaitMs(state, policy, nowMs, limits);
}

/**
 * One host's row in the pacing ledger: one request at a time (`busyUntilMs`: a request is under
 * way until then, or until its holder gives it back), and none before `nextAtMs` (a delay after
 * the last one ended). Times are ms since epoch; 0 means never set.
 */
export interface PacingLedgerEntry {
  nextAtMs: number;
  busyUntilMs: number;
}

/**
 * Whether a request may start at nowMs and take the host's turn for up to holdMs; if not, when to
 * ask again (the next start time, or a short poll while another request is under way).
 */
export function acquireLedgerTurn(entry: PacingLedgerEntry, nowMs: number, holdMs: number, pollMs = LEDGER_POLL_MS): { acquired: true; entry: PacingLedgerEntry } | { acquired: false; retryAtMs: number } {
  const busy = entry.busyUntilMs > nowMs;
  if (!busy && entry.nextAtMs <= nowMs) return { acquired: true, entry: { nextAtMs: entry.nextAtMs, busyUntilMs: nowMs + holdMs } };
  return { acquired: false, retryAtMs: busy ? Math.max(entry.nextAtMs, nowMs + pollMs) : entry.nextAtMs };
}

/** The ledger once the turn's request ended at finishedAtMs: free, and the next a delay after that end (never earlier than it was). */
export function releaseLedgerTurn(entry: PacingLedgerEntry, finishedAtMs: number, delayMs: number): PacingLedgerEntry {
  return { nextAtMs: Math.max(entry.nextAtMs, finishedAtMs + delayMs), busyUntilMs: 0 };
}

/** How often a request waiting for another's turn to end asks the ledger again, ms. */
export const LEDGER_POLL_MS = 50;

/** The delay a render keeps between requests to a host it does not hold the turn of: its static policy delay. */
export function ledgerDelayMs(policy: HostPolitenessPolicy): number {
  return policyDelayMs(policy);
}
