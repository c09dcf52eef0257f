import { parseHttpDateMs, requestedLifetimeMs } from '../robots/http-cache.js';

/**
 * Just enough HTTP caching (RFC 9111) for the subresource cache renders share: a site's `app.js`
 * is fetched once and reused by every render while fresh, and revalidated with its validators
 * (a conditional request, paced like any other) once stale. The cache is the crawler's own, not a
 * shared proxy: `private` responses may be kept; `no-store` ones never are.
 */

/** The response facts that decide caching, as the gate read them. */
export interface SubresourceResponseFacts {
  status: number;
  cacheControl?: string;
  expires?: string;
  lastModified?: string;
  etag?: string;
  /** The response's Date header. */
  date?: string;
  /** The response's Age header, seconds. */
  age?: string;
  vary?: string;
}

export interface SubresourceCacheOptions {
  /** Longest a response is reused without revalidation, ms, whatever it asks. Default 86,400,000 (1 day). */
  maxLifetimeMs: number;
  /** Share of the time since Last-Modified a response without explicit freshness is fresh for (RFC 9111 §4.2.2). Default 0.1. */
  heuristicShare: number;
}

export const DEFAULT_SUBRESOURCE_CACHE: Readonly<SubresourceCacheOptions> = Object.freeze({ maxLifetimeMs: 86_400_000, heuristicShare: 0.1 });

export type SubresourceCacheDecision =
  | { storable: false; reason: 'status' | 'no-store' | 'vary-star' }
  /** freshUntilMs may be the receipt time itself: stored, to be revalidated before its next use. */
  | { storable: true; freshUntilMs: number; etag?: string; lastModified?: string };

/** Only these statuses are stored: a render asking again for a 404 or a 5xx learns something new each time. */
const STORABLE_STATUSES = new Set([200, 203]);

/** Whether and for how long a response may be reused, from its headers and the time it arrived. */
export function subresourceCacheDecision(facts: SubresourceResponseFacts, receivedAtMs: number, options: SubresourceCacheOptions = DEFAULT_SUBRESOURCE_CACHE): SubresourceCacheDecision {
  if (!STORABLE_STATUSES.has(facts.status)) return { storable: false, reason: 'status' };
  const directives = (facts.cacheControl ?? '').toLowerCase();
  if (/(^|,)\s*no-store\s*(,|$)/.test(directives)) return { storable: false, reason: 'no-store' };
  if ((facts.vary ?? '').trim() === '*') return { storable: false, reason: 'vary-star' };
  const validators = { ...(facts.etag ? { etag: facts.etag } : {}), ...(facts.lastModified ? { lastModified: facts.lastModified } : {}) };
  const ageMs = /^\d+$/.test((facts.age ?? '').trim()) ? Number(facts.age!.trim()) * 1000 : 0;
  const explicitMs = requestedLifetimeMs({ ...(facts.cacheControl ? { cacheControl: facts.cacheControl } : {}), ...(facts.expires ? { expires: facts.expires } : {}) }, receivedAtMs);
  let lifetimeMs: number;
  if (explicitMs !== undefined) lifetimeMs = explicitMs;
  else {
    const modifiedAtMs = facts.lastModified ? parseHttpDateMs(facts.lastModified) : undefined;
    const dateMs = (facts.date ? parseHttpDateMs(facts.date) : undefined) ?? receivedAtMs;
    lifetimeMs = modifiedAtMs !== undefined && modifiedAtMs < dateMs ? Math.floor((dateMs - modifiedAtMs) * options.heuristicShare) : 0;
  }
  const freshForMs = Math.max(0, Math.min(options.maxLifetimeMs, lifetimeMs - ageMs));
  return { storable: true, freshUntilMs: receivedAtMs + freshForMs, ...validators };
}

/** Whether a stored response may be used at nowMs without asking the host. */
export function isSubresourceFresh(entry: { freshUntilMs: number }, nowMs: number): boolean {
  return nowMs < entry.freshUntilMs;
}
