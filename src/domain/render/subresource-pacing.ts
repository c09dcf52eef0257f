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
 * turn, so it reserves a slot in the pacing ledger that the host's own fetches reserve in too
 * (host_pacing in Postgres), one request at a time, each at least the host's delay after the
 * previous one ended.
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

/** One host's row in the pacing ledger: nobody may start a request to it before this time, ms since epoch. */
export interface PacingLedgerEntry {
  nextAtMs: number;
}

/**
 * A reservation in the ledger for one request that may take up to `holdMs`: it starts at
 * max(now, nextAt), and until its end is known nobody else may start before start + holdMs +
 * delay. The caller sends at `startAtMs` and then releases with the real end (pacingAfterRequest).
 */
export function reservePacingSlot(entry: PacingLedgerEntry | undefined, nowMs: number, delayMs: number, holdMs: number): { startAtMs: number; entry: PacingLedgerEntry } {
  const startAtMs = Math.max(nowMs, entry?.nextAtMs ?? 0);
  return { startAtMs, entry: { nextAtMs: startAtMs + holdMs + delayMs } };
}

/**
 * The ledger once a reserved request ended at `finishedAtMs`: the next may start a delay after
 * that end (the reservation's hold is given back, but no reservation made since is moved earlier).
 */
export function pacingAfterRequest(entry: PacingLedgerEntry, reservedStartAtMs: number, holdMs: number, finishedAtMs: number, delayMs: number): PacingLedgerEntry {
  const heldUntilMs = reservedStartAtMs + holdMs + delayMs;
  // Someone reserved after us (nextAt moved past our hold): their slot stands.
  if (entry.nextAtMs > heldUntilMs) return entry;
  return { nextAtMs: finishedAtMs + delayMs };
}

/** The delay a render keeps between requests to a host it does not hold the turn of: its static policy delay. */
export function ledgerDelayMs(policy: HostPolitenessPolicy): number {
  return policyDelayMs(policy);
}
