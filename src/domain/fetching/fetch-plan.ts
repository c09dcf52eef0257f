import { isRobotsFresh, robotsVerdictFor, type RobotsCacheEntry } from '../robots/index.js';
import { SITEMAP_MAX_UNCOMPRESSED_BYTES } from '../sitemap/index.js';

/** What a fetch decides before any request: whether the crawl, the robots rules and the stored validators let it go out, and how. */

/** A crawl's state, as the fetch reads it: a stopping, stopped, finished or paused crawl sends nothing. */
export type CrawlSkipReason = 'crawl-stopping' | 'crawl-paused';

/** Why a URL of a crawl in `state` is skipped, or undefined when it may be fetched. */
export function crawlSkipReasonOf(state: string): CrawlSkipReason | undefined {
  if (state === 'stopping' || state === 'stopped' || state === 'finished') return 'crawl-stopping';
  return state === 'paused' ? 'crawl-paused' : undefined;
}

/** What the origin's cached robots.txt lets a fetch do. */
export type RobotsGate =
  /** No rules, or rules past their freshness: the file is fetched first. */
  | { kind: 'stale' }
  /** An unreachable file disallows everything for now (RFC 9309 §2.3.1.4): the URL waits until `retryAfterAtMs`. */
  | { kind: 'unreachable'; reason: string; retryAfterAtMs: number; registersSitemaps: false }
  | { kind: 'disallowed'; registersSitemaps: boolean }
  | { kind: 'allowed'; registersSitemaps: boolean };

export interface RobotsGateInput {
  /** The origin's cached robots.txt, undefined when none is stored. */
  robots: RobotsCacheEntry | undefined;
  nowMs: number;
  /** The caller refreshes stale rules itself (a fetch burst): an unreachable file past its retry time is then stale. */
  refreshesRobots: boolean;
  productToken: string;
  pathAndQuery: string;
}

/**
 * The robots gate of one URL. An unreachable robots.txt still disallows when its retry time has
 * passed: the URL waits (RobotsUnreachable) and the host workflow refreshes the file before the
 * URL's next attempt; or, for a caller that refreshes it itself, the file is stale and refreshed
 * first. `registersSitemaps`: the sitemaps a readable file declares join the frontier, whatever
 * its verdict on this URL.
 */
export function robotsGateOf(input: RobotsGateInput): RobotsGate {
  const { robots, nowMs } = input;
  const stillUnreachable = robots?.policy.kind === 'disallow-all' && robots.unreachableSinceMs !== undefined;
  if (!robots || (!isRobotsFresh(robots, nowMs) && (!stillUnreachable || input.refreshesRobots))) return { kind: 'stale' };
  const registersSitemaps = robots.policy.kind !== 'disallow-all';
  const verdict = robotsVerdictFor(robots, input.productToken, input.pathAndQuery);
  if (!verdict.allowed && stillUnreachable) {
    const reason = robots.policy.kind === 'disallow-all' ? robots.policy.reason : 'robots.txt unreachable';
    return { kind: 'unreachable', reason, retryAfterAtMs: Math.max(nowMs, robots.expiresAtMs), registersSitemaps: false };
  }
  return { kind: verdict.allowed ? 'allowed' : 'disallowed', registersSitemaps };
}

/** The validators a stored copy came with (a page's fetch, a robots.txt, a cached subresource). */
export interface StoredValidators {
  etag?: string | null;
  lastModified?: string | null;
}

/**
 * The conditional request headers of a fetch. A sitemap is always read whole: a 304 would leave
 * the recrawl planner without a reading dated after its last visits, and 'unchanged' signals need one.
 */
export function conditionalHeadersOf(validators: StoredValidators, readAsSitemap: boolean): Record<string, string> {
  const headers: Record<string, string> = {};
  if (readAsSitemap) return headers;
  if (validators.etag) headers['if-none-match'] = validators.etag;
  if (validators.lastModified) headers['if-modified-since'] = validators.lastModified;
  return headers;
}

/** A crawl's body limits, bytes. */
export interface BodyLimits {
  maxBodyBytes: number;
  maxDecompressedBytes: number;
}

/** sitemaps.org allows 50 MiB uncompressed: a sitemap is read to that size whatever a page may be. */
export function bodyLimitsOf(limits: BodyLimits, readAsSitemap: boolean): BodyLimits {
  if (!readAsSitemap) return { maxBodyBytes: limits.maxBodyBytes, maxDecompressedBytes: limits.maxDecompressedBytes };
  return {
    maxBodyBytes: Math.max(limits.maxBodyBytes, SITEMAP_MAX_UNCOMPRESSED_BYTES),
    maxDecompressedBytes: Math.max(limits.maxDecompressedBytes, SITEMAP_MAX_UNCOMPRESSED_BYTES),
  };
}
