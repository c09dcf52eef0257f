import { MAX_RECENT_THROTTLES } from '../politeness/index.js';
import { requireNumber } from './errors.js';

/** The parts of a host's politeness state (HostPolitenessState) that say how it is coping. */
export interface HostHealthSignals {
  /** Recent overload signals (429, 503, 5xx, timeouts), 0..MAX_RECENT_THROTTLES. */
  recentThrottles?: number;
  /** Failures in a row since the last healthy response. */
  consecutiveFailures?: number;
  /** The circuit is open until this time (ms since epoch); 0 or absent when closed. */
  circuitOpenUntilMs?: number;
  /** The host is held (quarantine, negative DNS cache) until this time; 0 or absent when not. */
  holdUntilMs?: number;
  /** An operator or a TLS failure quarantined the host. */
  quarantined?: boolean;
}

/**
 * Health of a host in [0, 1], 1 healthy, for the cost of visiting it (docs/design.md, "Cost per detected change": a falling health score
 * raises the effective cost of the host's pages). Each recent throttle takes a tenth off, each
 * failure in a row halves what is left; a quarantined, held or open-circuit host is at 0, so its
 * pages cost the most and are planned only when nothing better is left. Unknown hosts are healthy.
 */
export function hostHealthScore(signals: HostHealthSignals | null | undefined, nowMs: number): number {
  requireNumber('RECRAWL_COST_INPUT_INVALID', 'nowMs', nowMs, { min: 0 });
  if (!signals) return 1;
  if (signals.quarantined) return 0;
  if ((signals.holdUntilMs ?? 0) > nowMs || (signals.circuitOpenUntilMs ?? 0) > nowMs) return 0;
  const throttles = Math.min(MAX_RECENT_THROTTLES, Math.max(0, signals.recentThrottles ?? 0));
  const failures = Math.min(20, Math.max(0, signals.consecutiveFailures ?? 0));
  return (1 - throttles / MAX_RECENT_THROTTLES) * 0.5 ** failures;
}
