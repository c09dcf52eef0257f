import { failurePolicyFor, isFetchFailureType, type FetchFailureType } from '../failures/index.js';
import type { HostOutcome } from './host-outcome.js';

/**
 * What a fetch's result tells the host's politeness state, for the host workflow and for fetch
 * bursts alike, so both run the same arithmetic.
 */

/** The timing of a fetch that returned: a response, or no request at all. */
export type FetchResultTiming =
  | { kind: 'fetched' | 'not-modified' | 'redirect'; status: number; startedAtMs: number; finishedAtMs: number; responseMs?: number }
  | { kind: 'robots-disallowed' | 'robots-stale' | 'skipped'; atMs: number };

/** A response counts by its status; robots verdicts and skips sent nothing and only free the slot. */
export function hostOutcomeOfResult(result: FetchResultTiming): HostOutcome {
  switch (result.kind) {
    case 'fetched':
    case 'not-modified':
    case 'redirect':
      return {
        kind: 'response',
        startedAtMs: result.startedAtMs,
        finishedAtMs: result.finishedAtMs,
        status: result.status,
        ...(result.responseMs === undefined ? {} : { responseMs: result.responseMs }),
      };
    case 'robots-disallowed':
    case 'robots-stale':
    case 'skipped':
      return { kind: 'not-sent', atMs: result.atMs };
  }
}

/** What a robots.txt refresh tells the host: whether it sent a request, and how that ended. */
export interface RobotsRefreshTiming {
  requested: boolean;
  startedAtMs: number;
  finishedAtMs: number;
  status?: number;
  responseMs?: number;
  /** The request failed below HTTP (DNS, connect, TLS). */
  transportFailure?: FetchFailureType;
}

/**
 * A robots.txt request counts like any other: a response by its status, a failure below HTTP as a
 * transport failure of its type (a TLS or DNS failure then holds the host), a cached file as
 * nothing sent.
 */
export function hostOutcomeOfRobotsRefresh(result: RobotsRefreshTiming): HostOutcome {
  if (result.transportFailure === 'ProxyFailed') return hostOutcomeOfFailure('ProxyFailed', { ...result, requested: false }, result.finishedAtMs);
  if (result.transportFailure !== undefined) {
    return { kind: 'transport-failure', startedAtMs: result.startedAtMs, finishedAtMs: result.finishedAtMs, type: result.transportFailure };
  }
  if (!result.requested) return { kind: 'not-sent', atMs: result.finishedAtMs };
  return {
    kind: 'response',
    startedAtMs: result.startedAtMs,
    finishedAtMs: result.finishedAtMs,
    status: result.status ?? 200,
    ...(result.responseMs === undefined ? {} : { responseMs: result.responseMs }),
  };
}

/** The parts of a fetch failure's details that speak about the host. */
export interface FetchFailureFacts {
  status?: number;
  retryAfterAtMs?: number;
  startedAtMs: number;
  finishedAtMs: number;
  /** With a response: the host's download time, ms (request to last byte). */
  responseMs?: number;
  /** A request reached the host. */
  requested: boolean;
}

/**
 * What a failed fetch tells the host's politeness state. A failure that sent nothing releases the
 * slot, except a hold (NXDOMAIN, a private address), which applies without a request; a response
 * counts by its status, anything else as a transport failure of its type. A type outside FETCH_FAILURE_TYPES (an
 * unexpected error) has no host effect but still counts as a transport failure once a request went out.
 * A proxy's failure (ProxyFailed) holds the host's slot for its delay and nothing else.
 */
export function hostOutcomeOfFailure(type: string, facts: FetchFailureFacts | undefined, nowMs: number): HostOutcome {
  if (type === 'ProxyFailed') {
    // The proxy failed, not the host: the host's slot is held for its ordinary delay (a host's rate
    // is the host's, whatever exits the traffic), but the time the proxy took says nothing of the
    // host's speed, so it counts as an instant failure without a host effect.
    const atMs = facts?.finishedAtMs ?? nowMs;
    return { kind: 'transport-failure', startedAtMs: atMs, finishedAtMs: atMs, type };
  }
  const effect = isFetchFailureType(type) ? failurePolicyFor(type).hostEffect : 'none';
  const holds = (effect === 'quarantine-host' || effect === 'negative-cache-host');
  if ((facts === undefined || facts.requested === false) && !holds) return { kind: 'not-sent', atMs: nowMs };
  if (facts?.status !== undefined) {
    return {
      kind: 'response',
      startedAtMs: facts.startedAtMs,
      finishedAtMs: facts.finishedAtMs,
      status: facts.status,
      ...(facts.retryAfterAtMs === undefined ? {} : { retryAfterAtMs: facts.retryAfterAtMs }),
      ...(facts.responseMs === undefined ? {} : { responseMs: facts.responseMs }),
    };
  }
  return { kind: 'transport-failure', startedAtMs: facts?.startedAtMs ?? nowMs, finishedAtMs: facts?.finishedAtMs ?? nowMs, type: type as FetchFailureType };
}

/**
 * The host's download time as adaptive politeness counts it, ms: request to last byte as our
 * event loop saw it, less the lag that loop had lately (it saw the last byte late by about that),
 * rounded, at least 0.
 */
export function hostDownloadMs(measured: { lastByteMs: number; loopLagMs: number }): number {
  return Math.max(0, Math.round(measured.lastByteMs - measured.loopLagMs));
}
