import { HOST_HOLD_RECHECK_MS, failurePolicyFor, failureTypeOfStatus, type FetchFailureType } from '../failures/index.js';
import { requireDurationMs, requireTimeMs } from './errors.js';
import { adaptiveDelayMs, throttleDelayMs } from './host-delays.js';
import { policyDelayMs, type HostPolitenessPolicy } from './host-politeness-policy.js';
import { MAX_RECENT_THROTTLES, RESPONSE_TIME_WINDOW, hostResponseTimeMs, type HostPolitenessState } from './host-politeness-state.js';

/** What one fetch did to the host, as the host workflow reports it. Times are absolute ms. */
export type HostOutcome =
  /** Any HTTP response. retryAfterAtMs is parseRetryAfter's result, if the header was there. */
  | {
      kind: 'response';
      startedAtMs: number;
      finishedAtMs: number;
      status: number;
      retryAfterAtMs?: number;
      /** The host's download time, ms (request to last byte), when measured; else finishedAtMs - startedAtMs counts. */
      responseMs?: number;
    }
  /** No usable response: a timeout, DNS, TLS, connection or body-limit failure. */
  | { kind: 'transport-failure'; startedAtMs: number; finishedAtMs: number; type: FetchFailureType }
  /** No request was sent (robots-disallowed, invalid URL, ...): releases the slot, adds no delay. */
  | { kind: 'not-sent'; atMs: number };

/**
 * The host's state after one outcome. Call it once for every onFetchStarted (and for a not-sent
 * that held a slot). With now = finishedAtMs:
 *
 *   nextFetchAtMs = max(now + policy delay, retryAfterAtMs, now + adaptive delay)
 *
 * all absolute (docs/design.md, "Politeness"), and never earlier than it already was (with several fetches in flight an
 * early finisher must not undo a later start). What else changes depends on the failure's policy:
 * - healthy response (2xx, 3xx, ordinary 4xx): one overload signal forgiven, failure streak and
 *   circuit reset, a host hold cleared once it has expired;
 * - 'slow-down' / 'cooldown': overload signal added; Retry-After honoured host-wide; for 429/503
 *   without it, a throttle backoff becomes retryAfterAtMs; 'cooldown' also counts toward the circuit
 *   breaker, which opens at the threshold for circuitCooldownMs, doubled per reopening, capped;
 * - 'quarantine-host' / 'negative-cache-host': the host is held for the policy's recheckAfterMs;
 * - anything else (body limits, bad encoding, malformed or 1xx responses): neutral.
 * The response time is the outcome's responseMs (the host's download time), the least of the last
 * RESPONSE_TIME_WINDOW counting; an outcome without one (recorded before it was measured) counts its
 * start to finish alone, exactly as then. A failure's elapsed time is only a lower bound, so it can
 * raise the host's response time but not lower it.
 */
export function applyHostOutcome(state: HostPolitenessState, outcome: HostOutcome, policy: HostPolitenessPolicy, random: () => number): HostPolitenessState {
  const inFlight = Math.max(0, state.inFlight - 1);
  if (outcome.kind === 'not-sent') {
    requireTimeMs('outcome.atMs', outcome.atMs);
    return { ...state, inFlight };
  }
  requireTimeMs('outcome.startedAtMs', outcome.startedAtMs);
  requireTimeMs('outcome.finishedAtMs', outcome.finishedAtMs);

  const nowMs = outcome.finishedAtMs;
  const elapsedMs = Math.max(0, outcome.finishedAtMs - outcome.startedAtMs);
  const failureType = outcome.kind === 'response' ? failureTypeOfStatus(outcome.status) : outcome.type;
  const failure = failureType === undefined ? undefined : failurePolicyFor(failureType);
  const effect = failure?.hostEffect ?? 'none';
  const overloaded = effect === 'slow-down' || effect === 'cooldown';
  const healthy = outcome.kind === 'response' && outcome.status >= 200 && outcome.status < 500 && effect === 'none';

  const next: HostPolitenessState = { ...state, inFlight };
  if (outcome.kind === 'response' && outcome.responseMs !== undefined) {
    requireDurationMs('outcome.responseMs', outcome.responseMs);
    next.lastResponseTimeMs = outcome.responseMs;
    next.recentResponseTimesMs = [...(state.recentResponseTimesMs ?? []), outcome.responseMs].slice(-RESPONSE_TIME_WINDOW);
  } else if (outcome.kind === 'response') {
    // A result recorded before download times were measured: the last elapsed time counts alone, as
    // it did then (a workflow history replays the delays it was written with).
    next.lastResponseTimeMs = elapsedMs;
    delete next.recentResponseTimesMs;
  } else {
    // A failure's elapsed time is a lower bound: it counts at once, whatever the recent responses say.
    next.lastResponseTimeMs = Math.max(state.lastResponseTimeMs ?? 0, elapsedMs);
    if (state.recentResponseTimesMs !== undefined) next.recentResponseTimesMs = [Math.max(hostResponseTimeMs(state), elapsedMs)];
  }

  if (overloaded) next.recentThrottles = Math.min(MAX_RECENT_THROTTLES, state.recentThrottles + 1);
  if (healthy) next.recentThrottles = Math.max(0, state.recentThrottles - 1);

  const serverRetryAfterAtMs = outcome.kind === 'response' && overloaded ? outcome.retryAfterAtMs : undefined;
  if (serverRetryAfterAtMs !== undefined) {
    requireTimeMs('outcome.retryAfterAtMs', serverRetryAfterAtMs);
    next.retryAfterAtMs = Math.max(state.retryAfterAtMs, serverRetryAfterAtMs);
  } else if (failure?.throttlesHost) {
    next.retryAfterAtMs = Math.max(state.retryAfterAtMs, nowMs + throttleDelayMs(next.recentThrottles, policy, random));
  }

  if (effect === 'cooldown') {
    next.consecutiveFailures = state.consecutiveFailures + 1;
    const alreadyOpen = nowMs < state.circuitOpenUntilMs;
    if (next.consecutiveFailures >= policy.circuitFailureThreshold && !alreadyOpen) {
      next.circuitOpenings = state.circuitOpenings + 1;
      const openForMs = Math.min(policy.maxCircuitCooldownMs, policy.circuitCooldownMs * 2 ** (next.circuitOpenings - 1));
      next.circuitOpenUntilMs = nowMs + openForMs;
    }
  }
  if (healthy) {
    next.consecutiveFailures = 0;
    next.circuitOpenings = 0;
    if (nowMs >= state.holdUntilMs) delete next.holdReason;
  }

  if ((effect === 'quarantine-host' || effect === 'negative-cache-host') && failureType !== undefined) {
    next.holdUntilMs = Math.max(state.holdUntilMs, nowMs + (failure?.recheckAfterMs ?? HOST_HOLD_RECHECK_MS));
    next.holdReason = failureType;
  }

  next.nextFetchAtMs = Math.max(state.nextFetchAtMs, nowMs + policyDelayMs(policy), next.retryAfterAtMs, nowMs + adaptiveDelayMs(next, policy));
  return next;
}
