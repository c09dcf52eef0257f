import type { FetchFailureType } from '../failures/index.js';
import { requireTimeMs } from './errors.js';
import { hostDelayFloorMs } from './host-delays.js';
import type { HostPolitenessPolicy } from './host-politeness-policy.js';
import type { HostPolitenessState } from './host-politeness-state.js';

/** 'half-open': the open period has passed but the streak has not been broken; one probe at a time. */
export type CircuitState = 'closed' | 'open' | 'half-open';

export function circuitStateAt(state: HostPolitenessState, policy: HostPolitenessPolicy, nowMs: number): CircuitState {
  requireTimeMs('nowMs', nowMs);
  if (nowMs < state.circuitOpenUntilMs) return 'open';
  return state.consecutiveFailures >= policy.circuitFailureThreshold ? 'half-open' : 'closed';
}

/** The quarantine or negative cache in force at nowMs, if any. Workflows may fail queued URLs fast with `reason`. */
export function hostHoldAt(state: HostPolitenessState, nowMs: number): { reason: FetchFailureType; untilMs: number } | undefined {
  requireTimeMs('nowMs', nowMs);
  if (nowMs >= state.holdUntilMs || state.holdReason === undefined) return undefined;
  return { reason: state.holdReason, untilMs: state.holdUntilMs };
}

/**
 * The earliest absolute time, at or after nowMs, at which a request may start: the stored
 * next_fetch_at, Retry-After or throttle, the open circuit and any host hold. Use it as the
 * host's min-heap key or as the workflow's timer deadline.
 */
export function nextFetchAtMs(state: HostPolitenessState, nowMs: number): number {
  requireTimeMs('nowMs', nowMs);
  return Math.max(nowMs, state.nextFetchAtMs, state.retryAfterAtMs, state.circuitOpenUntilMs, state.holdUntilMs);
}

/**
 * True when a request may start now: nextFetchAtMs has come and a slot is free
 * (maxConcurrentFetches, or 1 while the circuit is half-open). If the time has come but no slot is
 * free, wait for an in-flight fetch to finish rather than for a timer.
 */
export function canStartFetch(state: HostPolitenessState, policy: HostPolitenessPolicy, nowMs: number): boolean {
  if (nextFetchAtMs(state, nowMs) > nowMs) return false;
  const slots = circuitStateAt(state, policy, nowMs) === 'half-open' ? 1 : policy.maxConcurrentFetches;
  return state.inFlight < slots;
}

/**
 * Records a request starting at nowMs. With `policy`, also spaces the next start by the host delay,
 * which only matters when maxConcurrentFetches > 1 (with one slot the finish already spaces them).
 * Call it only for requests that will be sent, after canStartFetch said yes.
 */
export function onFetchStarted(state: HostPolitenessState, nowMs: number, policy?: HostPolitenessPolicy): HostPolitenessState {
  requireTimeMs('nowMs', nowMs);
  const next: HostPolitenessState = { ...state, inFlight: state.inFlight + 1 };
  if (policy !== undefined) next.nextFetchAtMs = Math.max(state.nextFetchAtMs, nowMs + hostDelayFloorMs(state, policy));
  return next;
}
