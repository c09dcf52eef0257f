import type { FetchFailureType } from '../failures/index.js';
import { requireTimeMs } from './errors.js';

/**
 * One host's politeness state, kept in the per-host workflow. Plain JSON (numbers, one optional
 * string) so it survives continue-as-new and history replay unchanged. Every time is absolute, ms
 * since epoch; 0 means "never set" because any real time is later.
 */
export interface HostPolitenessState {
  /** next_fetch_at after the last outcome (docs/design.md, "Politeness"): max(now + policy delay, retry_after_at, now + adaptive delay). */
  nextFetchAtMs: number;
  /** The server's Retry-After as an absolute time, or our throttle backoff after a 429/503 without one. */
  retryAfterAtMs: number;
  /** Duration of the last fetch, ms (a lower bound after a timeout); absent before the first one. */
  lastResponseTimeMs?: number;
  /**
   * The last RESPONSE_TIME_WINDOW response times, ms, oldest first; the adaptive delay uses their
   * minimum (hostResponseTimeMs). Absent in states saved before it was kept.
   */
  recentResponseTimesMs?: number[];
  /** Recent overload signals (429, 503, 5xx, timeouts), up to MAX_RECENT_THROTTLES; each healthy response takes one off. */
  recentThrottles: number;
  /** Cooldown failures in a row; a healthy response resets it. Opens the circuit at the threshold. */
  consecutiveFailures: number;
  /** The circuit is open (no request) until this time. */
  circuitOpenUntilMs: number;
  /** Openings since the last healthy response; the open period doubles with each. */
  circuitOpenings: number;
  /** Quarantine or negative cache: no request until this time. */
  holdUntilMs: number;
  /** Why the host is held (TlsCertificateError, DnsNotFound, ...); absent when it never was or a probe succeeded. */
  holdReason?: FetchFailureType;
  /** Requests started and not yet finished. */
  inFlight: number;
}

/**
 * How many recent response times the host's response time is the minimum of. A measured time is
 * the host's plus our own event loop's lag, which only ever adds: the least of a few recent ones is
 * the closest to the host's (as TCP keeps its least recent RTT), and a host that slows down raises
 * it within this many responses.
 */
export const RESPONSE_TIME_WINDOW = 4;

/**
 * The host's response time, ms, that the adaptive delay multiplies: the least of its recent
 * response times, else the last one, else 0.
 */
export function hostResponseTimeMs(state: HostPolitenessState): number {
  const recent = state.recentResponseTimesMs;
  if (recent !== undefined && recent.length > 0) return Math.min(...recent);
  return state.lastResponseTimeMs ?? 0;
}

/** Cap on recentThrottles: 2^10 times any base delay is already past every cap we use. */
export const MAX_RECENT_THROTTLES = 10;

/** A host never fetched: eligible at nowMs, nothing in flight, circuit closed. */
export function initialHostPolitenessState(nowMs: number): HostPolitenessState {
  requireTimeMs('nowMs', nowMs);
  return {
    nextFetchAtMs: nowMs,
    retryAfterAtMs: 0,
    recentThrottles: 0,
    consecutiveFailures: 0,
    circuitOpenUntilMs: 0,
    circuitOpenings: 0,
    holdUntilMs: 0,
    inFlight: 0,
  };
}
