import { RobotsError, requireIntegerOption } from './errors.js';
import { requestedLifetimeMs, type RobotsResponseHeaders } from './http-cache.js';
import { compileRobotsMatcher, type RobotsVerdict } from './match.js';
import { parseRobotsTxt, type ParseRobotsOptions } from './parse.js';
import { canonicalRequestPath, isRobotsTxtPath } from './request-path.js';
import type { RobotsRules } from './types.js';

/** Redirect hops the robots.txt fetcher follows (RFC 9309 §2.3.1.2: at least five). */
export const MAX_ROBOTS_REDIRECTS = 5;

/**
 * What one robots.txt fetch meant, as the fetcher classifies it (RFC 9309 §2.3.1.2-4);
 * {@link robotsFetchOutcomeOf} does the classification from a final status.
 */
export type RobotsFetchOutcome =
  /** 2xx, after following up to {@link MAX_ROBOTS_REDIRECTS} redirects: the body is obeyed. */
  | { kind: 'ok'; status: number; body: string | Uint8Array }
  /** 304 to a conditional refresh: the rules cached with the validators still hold. */
  | { kind: 'not-modified'; status: 304 }
  /** 4xx (404, 401, 403...): there is no robots.txt for us, everything is allowed. */
  | { kind: 'unavailable'; status: number }
  /** 5xx, 429, network error, timeout, too many redirects: assume everything is disallowed. */
  | { kind: 'unreachable'; reason: string; status?: number };

/** The policy in force for an origin. */
export type RobotsPolicy =
  | { kind: 'rules'; rules: RobotsRules }
  | { kind: 'allow-all'; reason: string }
  | { kind: 'disallow-all'; reason: string };

/** One origin's cached robots state: JSON-serializable, stored in Postgres and shared by all workers. */
export interface RobotsCacheEntry {
  policy: RobotsPolicy;
  /** When the response behind this entry arrived (or the fetch failed), epoch ms. */
  fetchedAtMs: number;
  /** After this instant the entry must be refreshed before it is trusted, epoch ms. */
  expiresAtMs: number;
  /** Rules of the last 2xx, kept through unreachable periods for the 30-day fallback and for 304s. */
  lastGoodRules?: RobotsRules;
  /** Start of the current run of unreachable fetches, epoch ms; absent when the last fetch reached the file. */
  unreachableSinceMs?: number;
  /** Validator of `lastGoodRules`, for `If-None-Match`. */
  etag?: string;
  /** Validator of `lastGoodRules`, for `If-Modified-Since`. */
  lastModified?: string;
}

/** Cache lifetimes and the unreachable fallback. Every field is optional. */
export interface RobotsCacheOptions extends ParseRobotsOptions {
  /** Longest reuse of a fetched robots.txt, ms. Default and ceiling 24 h (RFC 9309 §2.4). */
  maxLifetimeMs?: number;
  /** Lifetime when the response sends no Cache-Control or Expires, ms. Default 24 h. */
  defaultLifetimeMs?: number;
  /**
   * Shortest reuse, ms, even under `no-store` or `max-age=0`. Default 60 s: refetching
   * robots.txt before every page would double the load on the host it is meant to protect.
   * Set 0 to revalidate on every use.
   */
  minLifetimeMs?: number;
  /** How soon an unreachable robots.txt is tried again, ms. Default 10 minutes. */
  unreachableRetryMs?: number;
  /** Continuous unreachability after which the 30-day fallback applies, ms. Default 30 days (RFC 9309 §2.3.1.4). */
  unreachableFallbackAfterMs?: number;
}

const HOUR_MS = 3_600_000;
/** RFC 9309 §2.4: a cached robots.txt should not be used for more than 24 hours. */
export const MAX_ROBOTS_CACHE_MS = 24 * HOUR_MS;
/** Default {@link RobotsCacheOptions.minLifetimeMs}: 60 s. */
export const MIN_ROBOTS_CACHE_MS = 60_000;
/** Default {@link RobotsCacheOptions.unreachableRetryMs}: 10 minutes. */
export const ROBOTS_UNREACHABLE_RETRY_MS = 10 * 60_000;
/** Default {@link RobotsCacheOptions.unreachableFallbackAfterMs}: 30 days. */
export const ROBOTS_UNREACHABLE_FALLBACK_MS = 30 * 24 * HOUR_MS;

/**
 * Classifies the final status of a robots.txt fetch. 429 counts as unreachable, not as
 * unavailable: a host that says "too many requests" must not be read as "crawl everything".
 * Any other 3xx reaching here (redirects exhausted, no Location) is unreachable too, the
 * conservative reading of RFC 9309 §2.3.1.2.
 */
export function robotsFetchOutcomeOf(status: number, body: string | Uint8Array = ''): RobotsFetchOutcome {
  if (status >= 200 && status <= 299) return { kind: 'ok', status, body };
  if (status === 304) return { kind: 'not-modified', status };
  if (status === 429) return { kind: 'unreachable', reason: 'HTTP 429 Too Many Requests', status };
  if (status >= 400 && status <= 499) return { kind: 'unavailable', status };
  return { kind: 'unreachable', reason: `HTTP ${status}`, status };
}

interface Resolved {
  maxLifetimeMs: number;
  defaultLifetimeMs: number;
  minLifetimeMs: number;
  unreachableRetryMs: number;
  unreachableFallbackAfterMs: number;
}

function resolve(options: RobotsCacheOptions): Resolved {
  const maxLifetimeMs = requireIntegerOption('options.maxLifetimeMs', options.maxLifetimeMs ?? MAX_ROBOTS_CACHE_MS, 0, MAX_ROBOTS_CACHE_MS);
  return {
    maxLifetimeMs,
    defaultLifetimeMs: requireIntegerOption('options.defaultLifetimeMs', options.defaultLifetimeMs ?? MAX_ROBOTS_CACHE_MS, 0, MAX_ROBOTS_CACHE_MS),
    minLifetimeMs: requireIntegerOption('options.minLifetimeMs', options.minLifetimeMs ?? Math.min(MIN_ROBOTS_CACHE_MS, maxLifetimeMs), 0, maxLifetimeMs),
    unreachableRetryMs: requireIntegerOption('options.unreachableRetryMs', options.unreachableRetryMs ?? ROBOTS_UNREACHABLE_RETRY_MS, 0, MAX_ROBOTS_CACHE_MS),
    unreachableFallbackAfterMs: requireIntegerOption(
      'options.unreachableFallbackAfterMs',
      options.unreachableFallbackAfterMs ?? ROBOTS_UNREACHABLE_FALLBACK_MS,
      0,
      Number.MAX_SAFE_INTEGER,
    ),
  };
}

/**
 * The cache entry after a robots.txt fetch (RFC 9309 §2.3.1, §2.4):
 * - 2xx: the parsed body is obeyed; it becomes the last good rules, with its validators;
 * - 304: the last good rules still hold, with a fresh expiry (no last good rules: unreachable);
 * - 4xx: everything allowed, and the last good rules are forgotten (the file is gone);
 * - 429, 5xx, network errors: everything disallowed, retried after `unreachableRetryMs`; once
 *   unreachable for longer than `unreachableFallbackAfterMs` (30 days) without a break, the last
 *   good rules apply again, or, with none, everything is allowed as if unavailable.
 * Lifetimes honour Cache-Control (`no-store`, `no-cache`, `max-age`) and Expires, clamped to
 * [`minLifetimeMs`, `maxLifetimeMs`] (at most 24 hours).
 *
 * @throws RobotsError `ROBOTS_OUTCOME_INVALID` when the outcome's kind contradicts its status,
 *   `ROBOTS_OPTIONS_INVALID` for bad options.
 */
export function nextRobotsCacheEntry(
  outcome: RobotsFetchOutcome,
  previous: RobotsCacheEntry | undefined,
  nowMs: number,
  headers?: RobotsResponseHeaders,
  options: RobotsCacheOptions = {},
): RobotsCacheEntry {
  const resolved = resolve(options);
  const lifetimeMs = (): number => {
    const requested = requestedLifetimeMs(headers, nowMs) ?? resolved.defaultLifetimeMs;
    return Math.min(resolved.maxLifetimeMs, Math.max(resolved.minLifetimeMs, requested));
  };
  const previousGood = previous?.lastGoodRules ?? (previous?.policy.kind === 'rules' ? previous.policy.rules : undefined);

  switch (outcome.kind) {
    case 'ok': {
      requireStatus(outcome.status, 200, 299, 'ok');
      const rules = parseRobotsTxt(outcome.body, options.maxBytes === undefined ? {} : { maxBytes: options.maxBytes });
      return withValidators({ policy: { kind: 'rules', rules }, fetchedAtMs: nowMs, expiresAtMs: nowMs + lifetimeMs(), lastGoodRules: rules }, headers);
    }
    case 'not-modified': {
      requireStatus(outcome.status, 304, 304, 'not-modified');
      if (previousGood === undefined) {
        return unreachable('HTTP 304 but no cached rules to revalidate', previous, undefined, nowMs, resolved);
      }
      return withValidators(
        { policy: { kind: 'rules', rules: previousGood }, fetchedAtMs: nowMs, expiresAtMs: nowMs + lifetimeMs(), lastGoodRules: previousGood },
        // A 304 may omit validators; the ones we sent still identify the rules.
        { etag: headers?.etag ?? previous?.etag, lastModified: headers?.lastModified ?? previous?.lastModified },
      );
    }
    case 'unavailable': {
      requireStatus(outcome.status, 400, 499, 'unavailable');
      if (outcome.status === 429) return unreachable('HTTP 429 Too Many Requests', previous, previousGood, nowMs, resolved);
      return {
        policy: { kind: 'allow-all', reason: `robots.txt unavailable (HTTP ${outcome.status})` },
        fetchedAtMs: nowMs,
        expiresAtMs: nowMs + lifetimeMs(),
      };
    }
    case 'unreachable':
      return unreachable(outcome.reason, previous, previousGood, nowMs, resolved);
  }
}

function unreachable(
  reason: string,
  previous: RobotsCacheEntry | undefined,
  lastGoodRules: RobotsRules | undefined,
  nowMs: number,
  options: Resolved,
): RobotsCacheEntry {
  const unreachableSinceMs = previous?.unreachableSinceMs ?? nowMs;
  const fallback = nowMs - unreachableSinceMs > options.unreachableFallbackAfterMs;
  const policy: RobotsPolicy = !fallback
    ? { kind: 'disallow-all', reason: `robots.txt unreachable: ${reason}` }
    : lastGoodRules !== undefined
      ? { kind: 'rules', rules: lastGoodRules }
      : { kind: 'allow-all', reason: `robots.txt unreachable for over ${Math.round(options.unreachableFallbackAfterMs / (24 * HOUR_MS))} days and never fetched: treated as unavailable` };
  const entry: RobotsCacheEntry = { policy, fetchedAtMs: nowMs, expiresAtMs: nowMs + options.unreachableRetryMs, unreachableSinceMs };
  if (lastGoodRules === undefined) return entry;
  // Validators travel with the rules they identify, so a later 304 revalidates those rules.
  return withValidators({ ...entry, lastGoodRules }, { etag: previous?.etag, lastModified: previous?.lastModified });
}

function withValidators(entry: RobotsCacheEntry, headers: RobotsResponseHeaders | undefined): RobotsCacheEntry {
  if (headers?.etag !== undefined && headers.etag !== '') entry.etag = headers.etag;
  if (headers?.lastModified !== undefined && headers.lastModified !== '') entry.lastModified = headers.lastModified;
  return entry;
}

function requireStatus(status: number, min: number, max: number, kind: RobotsFetchOutcome['kind']): void {
  if (!Number.isInteger(status) || status < min || status > max) {
    throw new RobotsError('ROBOTS_OUTCOME_INVALID', 'outcome.status', status, `a '${kind}' outcome needs a status in [${min}, ${max}]; classify with robotsFetchOutcomeOf`);
  }
}

/**
 * True while `entry` may be used without a refresh: before its expiry and never more than 24
 * hours after its fetch, whatever a stored row says.
 */
export function isRobotsFresh(entry: RobotsCacheEntry, nowMs: number): boolean {
  return nowMs < entry.expiresAtMs && nowMs - entry.fetchedAtMs < MAX_ROBOTS_CACHE_MS;
}

/** A verdict plus the kind of policy that produced it. */
export type RobotsEntryVerdict = RobotsVerdict & { policyKind: RobotsPolicy['kind'] };

/**
 * Compiles an entry's policy for one crawler and returns a matcher for many paths;
 * {@link robotsVerdictFor} is this for a single path. Freshness is the caller's concern:
 * check {@link isRobotsFresh} and refresh first.
 */
export function compileRobotsPolicy(entry: RobotsCacheEntry, productToken: string): (pathAndQuery: string) => RobotsEntryVerdict {
  const policy = entry.policy;
  switch (policy.kind) {
    case 'rules': {
      const matcher = compileRobotsMatcher(policy.rules, productToken);
      return (pathAndQuery) => ({ ...matcher(pathAndQuery), policyKind: 'rules' });
    }
    case 'allow-all':
      return () => ({ allowed: true, group: 'none', policyKind: 'allow-all' });
    case 'disallow-all':
      // robots.txt itself stays fetchable: it is how the host gets out of this state.
      return (pathAndQuery) => ({ allowed: isRobotsTxtPath(canonicalRequestPath(pathAndQuery)), group: 'none', policyKind: 'disallow-all' });
  }
}

/** Whether `pathAndQuery` may be fetched under the policy in `entry`, for the crawler `productToken`. */
export function robotsVerdictFor(entry: RobotsCacheEntry, productToken: string, pathAndQuery: string): RobotsEntryVerdict {
  return compileRobotsPolicy(entry, productToken)(pathAndQuery);
}
