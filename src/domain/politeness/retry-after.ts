import { requireTimeMs } from './errors.js';
import { parseHttpDate } from './http-date.js';

/** 24 h: a server cannot park a host longer than this with one header; a longer outage is the circuit breaker's job. */
export const DEFAULT_MAX_RETRY_AFTER_MS = 24 * 60 * 60 * 1000;

export interface RetryAfterOptions {
  /** Longest wait a Retry-After may impose, ms; later values are clamped to nowMs + this. Default 24 h. */
  maxRetryAfterMs?: number;
}

const DELTA_SECONDS = /^\d+$/;

/**
 * A Retry-After header as an absolute time in ms since epoch (docs/design.md, "Politeness"), or undefined when it is
 * absent or invalid. delta-seconds are added to nowMs, the receive time; an HTTP-date is absolute,
 * and one in the past (clock skew) becomes nowMs. Values beyond maxRetryAfterMs are clamped.
 * Untrusted input: never throws for any header value.
 */
export function parseRetryAfter(value: string | undefined | null, nowMs: number, options: RetryAfterOptions = {}): number | undefined {
  requireTimeMs('nowMs', nowMs);
  const maxRetryAfterMs = options.maxRetryAfterMs ?? DEFAULT_MAX_RETRY_AFTER_MS;
  requireTimeMs('options.maxRetryAfterMs', maxRetryAfterMs);
  if (value === undefined || value === null) return undefined;
  const text = value.trim();
  if (text === '') return undefined;

  // Digits only: Number() of a very long run is huge or Infinity, which the clamp absorbs.
  const atMs = DELTA_SECONDS.test(text) ? nowMs + Number(text) * 1000 : parseHttpDate(text, nowMs);
  if (atMs === undefined) return undefined;
  return Math.min(Math.max(atMs, nowMs), nowMs + Math.max(0, maxRetryAfterMs));
}
