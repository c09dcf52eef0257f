import { describe, expect, it } from 'vitest';
import {
  compileRobotsPolicy,
  isRobotsFresh,
  MAX_ROBOTS_CACHE_MS,
  MAX_ROBOTS_REDIRECTS,
  nextRobotsCacheEntry,
  parseHttpDateMs,
  parseRobotsTxt,
  requestedLifetimeMs,
  ROBOTS_UNREACHABLE_FALLBACK_MS,
  ROBOTS_UNREACHABLE_RETRY_MS,
  RobotsError,
  robotsFetchOutcomeOf,
  robotsVerdictFor,
  type RobotsCacheEntry,
  type RobotsFetchOutcome,
} from '../../../../src/domain/robots/index.js';

const TOKEN = 'DurableCrawler';
const T0 = Date.UTC(2025, 0, 1);
const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const BODY = 'User-agent: *\nDisallow: /private\n';

const ok = (body: string = BODY): RobotsFetchOutcome => ({ kind: 'ok', status: 200, body });
const unreachable: RobotsFetchOutcome = { kind: 'unreachable', reason: 'ECONNREFUSED' };
const verdict = (entry: RobotsCacheEntry, path: string) => robotsVerdictFor(entry, TOKEN, path);

describe('what a robots.txt fetch means (RFC 9309 §2.3.1)', () => {
  it('200: the rules are obeyed', () => {
    const entry = nextRobotsCacheEntry(ok(), undefined, T0);
    expect(entry.policy.kind).toBe('rules');
    expect(verdict(entry, '/private/x')).toMatchObject({ allowed: false, policyKind: 'rules', group: 'wildcard' });
    expect(verdict(entry, '/public')).toMatchObject({ allowed: true, policyKind: 'rules' });
    expect(entry.lastGoodRules).toEqual(parseRobotsTxt(BODY));
  });

  it('200 with an HTML page or an empty body: no rules, everything allowed', () => {
    for (const body of ['<html><body>Welcome</body></html>', '']) {
      const entry = nextRobotsCacheEntry(ok(body), undefined, T0);
      expect(verdict(entry, '/anything')).toMatchObject({ allowed: true, policyKind: 'rules', group: 'none' });
    }
  });

  it.each([404, 401, 403, 410, 451])('%i: unavailable, everything allowed', (status) => {
    const entry = nextRobotsCacheEntry({ kind: 'unavailable', status }, undefined, T0);
    expect(entry.policy).toEqual({ kind: 'allow-all', reason: `robots.txt unavailable (HTTP ${status})` });
    expect(verdict(entry, '/private/x')).toEqual({ allowed: true, group: 'none', policyKind: 'allow-all' });
    expect(entry.expiresAtMs).toBe(T0 + DAY);
  });

  it.each([500, 502, 503, 504])('%i: unreachable, everything disallowed but robots.txt, retried in 10 minutes', (status) => {
    const entry = nextRobotsCacheEntry(robotsFetchOutcomeOf(status), undefined, T0);
    expect(entry.policy).toEqual({ kind: 'disallow-all', reason: `robots.txt unreachable: HTTP ${status}` });
    expect(verdict(entry, '/')).toEqual({ allowed: false, group: 'none', policyKind: 'disallow-all' });
    expect(verdict(entry, '/robots.txt').allowed).toBe(true);
    expect(entry.unreachableSinceMs).toBe(T0);
    expect(entry.expiresAtMs).toBe(T0 + ROBOTS_UNREACHABLE_RETRY_MS);
    expect(ROBOTS_UNREACHABLE_RETRY_MS).toBe(10 * 60_000);
  });

  it('network error, timeout or too many redirects: unreachable', () => {
    for (const reason of ['ECONNRESET', 'timeout after 30000 ms', `more than ${MAX_ROBOTS_REDIRECTS} redirects`]) {
      const entry = nextRobotsCacheEntry({ kind: 'unreachable', reason }, undefined, T0);
      expect(entry.policy).toEqual({ kind: 'disallow-all', reason: `robots.txt unreachable: ${reason}` });
    }
    expect(MAX_ROBOTS_REDIRECTS).toBe(5);
  });

  it('429 is unreachable, not unavailable, even when a fetcher files it under unavailable', () => {
    expect(robotsFetchOutcomeOf(429)).toMatchObject({ kind: 'unreachable', status: 429 });
    const entry = nextRobotsCacheEntry({ kind: 'unavailable', status: 429 }, undefined, T0);
    expect(entry.policy.kind).toBe('disallow-all');
    expect(entry.expiresAtMs).toBe(T0 + ROBOTS_UNREACHABLE_RETRY_MS);
  });

  it('robotsFetchOutcomeOf classifies final statuses', () => {
    expect(robotsFetchOutcomeOf(200, 'x')).toEqual({ kind: 'ok', status: 200, body: 'x' });
    expect(robotsFetchOutcomeOf(204)).toEqual({ kind: 'ok', status: 204, body: '' });
    expect(robotsFetchOutcomeOf(304)).toEqual({ kind: 'not-modified', status: 304 });
    expect(robotsFetchOutcomeOf(404)).toEqual({ kind: 'unavailable', status: 404 });
    expect(robotsFetchOutcomeOf(301)).toEqual({ kind: 'unreachable', reason: 'HTTP 301', status: 301 });
    expect(robotsFetchOutcomeOf(503)).toEqual({ kind: 'unreachable', reason: 'HTTP 503', status: 503 });
    expect(robotsFetchOutcomeOf(100).kind).toBe('unreachable');
  });

  it('a 4xx forgets earlier rules: the file is gone, everything is allowed', () => {
    const good = nextRobotsCacheEntry(ok(), undefined, T0, { etag: '"v1"' });
    const gone = nextRobotsCacheEntry({ kind: 'unavailable', status: 404 }, good, T0 + DAY);
    expect(gone.lastGoodRules).toBeUndefined();
    expect(gone.etag).toBeUndefined();
    expect(verdict(gone, '/private').allowed).toBe(true);
  });
});

describe('the 30-day unreachable fallback (RFC 9309 §2.3.1.4)', () => {
  it('keeps disallowing for 30 days of continuous unreachability, then uses the last good rules', () => {
    const good = nextRobotsCacheEntry(ok(), undefined, T0);
    let entry = nextRobotsCacheEntry(unreachable, good, T0 + DAY);
    expect(entry.unreachableSinceMs).toBe(T0 + DAY);
    expect(entry.lastGoodRules).toEqual(good.lastGoodRules);
    entry = nextRobotsCacheEntry(unreachable, entry, T0 + DAY + 15 * DAY);
    expect(entry.policy.kind).toBe('disallow-all');
    entry = nextRobotsCacheEntry(unreachable, entry, T0 + DAY + 30 * DAY);
    expect(entry.policy.kind).toBe('disallow-all');
    entry = nextRobotsCacheEntry(unreachable, entry, T0 + DAY + 30 * DAY + 1);
    expect(entry.policy).toEqual({ kind: 'rules', rules: good.lastGoodRules });
    expect(entry.unreachableSinceMs).toBe(T0 + DAY);
    expect(verdict(entry, '/private/x')).toMatchObject({ allowed: false, policyKind: 'rules' });
    expect(verdict(entry, '/public')).toMatchObject({ allowed: true, policyKind: 'rules' });
    expect(entry.expiresAtMs).toBe(T0 + DAY + 30 * DAY + 1 + ROBOTS_UNREACHABLE_RETRY_MS);
  });

  it('without last good rules, allows everything after 30 days, as if unavailable', () => {
    let entry = nextRobotsCacheEntry(unreachable, undefined, T0);
    entry = nextRobotsCacheEntry(unreachable, entry, T0 + ROBOTS_UNREACHABLE_FALLBACK_MS);
    expect(entry.policy.kind).toBe('disallow-all');
    entry = nextRobotsCacheEntry(unreachable, entry, T0 + ROBOTS_UNREACHABLE_FALLBACK_MS + HOUR);
    expect(entry.policy.kind).toBe('allow-all');
    expect(verdict(entry, '/anything')).toEqual({ allowed: true, group: 'none', policyKind: 'allow-all' });
  });

  it('a successful fetch ends the unreachable run; the next failure starts a new one', () => {
    let entry = nextRobotsCacheEntry(unreachable, undefined, T0);
    entry = nextRobotsCacheEntry(ok(), entry, T0 + 20 * DAY);
    expect(entry.unreachableSinceMs).toBeUndefined();
    entry = nextRobotsCacheEntry(unreachable, entry, T0 + 25 * DAY);
    expect(entry.unreachableSinceMs).toBe(T0 + 25 * DAY);
    entry = nextRobotsCacheEntry(unreachable, entry, T0 + 40 * DAY);
    expect(entry.policy.kind).toBe('disallow-all');
  });

  it('a 404 between failures also ends the run, and leaves no rules to fall back to', () => {
    let entry = nextRobotsCacheEntry(ok(), undefined, T0);
    entry = nextRobotsCacheEntry({ kind: 'unavailable', status: 404 }, entry, T0 + DAY);
    entry = nextRobotsCacheEntry(unreachable, entry, T0 + 2 * DAY);
    entry = nextRobotsCacheEntry(unreachable, entry, T0 + 33 * DAY);
    expect(entry.policy.kind).toBe('allow-all');
  });

  it('honours a configured fallback period', () => {
    let entry = nextRobotsCacheEntry(unreachable, undefined, T0, undefined, { unreachableFallbackAfterMs: DAY });
    entry = nextRobotsCacheEntry(unreachable, entry, T0 + DAY + 1, undefined, { unreachableFallbackAfterMs: DAY });
    expect(entry.policy.kind).toBe('allow-all');
  });
});

describe('cache lifetime (RFC 9309 §2.4) and conditional refresh', () => {
  it('defaults to 24 hours without caching headers', () => {
    const entry = nextRobotsCacheEntry(ok(), undefined, T0);
    expect(entry).toMatchObject({ fetchedAtMs: T0, expiresAtMs: T0 + DAY });
    expect(MAX_ROBOTS_CACHE_MS).toBe(DAY);
  });

  it('honours a shorter max-age', () => {
    expect(nextRobotsCacheEntry(ok(), undefined, T0, { cacheControl: 'public, max-age=3600' }).expiresAtMs).toBe(T0 + HOUR);
  });

  it('caps a longer max-age or Expires at 24 hours', () => {
    expect(nextRobotsCacheEntry(ok(), undefined, T0, { cacheControl: 'max-age=604800' }).expiresAtMs).toBe(T0 + DAY);
    expect(nextRobotsCacheEntry(ok(), undefined, T0, { expires: 'Fri, 01 Jan 2027 00:00:00 GMT' }).expiresAtMs).toBe(T0 + DAY);
    expect(nextRobotsCacheEntry(ok(), undefined, T0, { cacheControl: 'max-age=604800' }, { maxLifetimeMs: HOUR }).expiresAtMs).toBe(T0 + HOUR);
  });

  it('honours Expires when there is no max-age, and prefers max-age when both are sent', () => {
    expect(nextRobotsCacheEntry(ok(), undefined, T0, { expires: 'Wed, 01 Jan 2025 02:00:00 GMT' }).expiresAtMs).toBe(T0 + 2 * HOUR);
    expect(nextRobotsCacheEntry(ok(), undefined, T0, { expires: 'Wed, 01 Jan 2025 02:00:00 GMT', cacheControl: 'max-age=600' }).expiresAtMs).toBe(T0 + 600_000);
  });

  it('no-store, no-cache and max-age=0 keep the entry only for the 60 s floor, or not at all when the floor is 0', () => {
    for (const cacheControl of ['no-store', 'no-cache', 'max-age=0', 'private, NO-STORE']) {
      expect(nextRobotsCacheEntry(ok(), undefined, T0, { cacheControl }).expiresAtMs, cacheControl).toBe(T0 + 60_000);
      const strict = nextRobotsCacheEntry(ok(), undefined, T0, { cacheControl }, { minLifetimeMs: 0 });
      expect(isRobotsFresh(strict, T0), cacheControl).toBe(false);
    }
  });

  it('treats an invalid or past Expires as stale', () => {
    for (const expires of ['0', 'tomorrow', 'Tue, 31 Dec 2024 00:00:00 GMT']) {
      expect(requestedLifetimeMs({ expires }, T0), expires).toBe(0);
    }
  });

  it('applies header lifetimes to 4xx answers too', () => {
    expect(nextRobotsCacheEntry({ kind: 'unavailable', status: 404 }, undefined, T0, { cacheControl: 'max-age=120' }).expiresAtMs).toBe(T0 + 120_000);
  });

  it('isRobotsFresh: fresh before expiry, stale at it, and never beyond 24 h after the fetch', () => {
    const entry = nextRobotsCacheEntry(ok(), undefined, T0, { cacheControl: 'max-age=3600' });
    expect(isRobotsFresh(entry, T0)).toBe(true);
    expect(isRobotsFresh(entry, T0 + HOUR - 1)).toBe(true);
    expect(isRobotsFresh(entry, T0 + HOUR)).toBe(false);
    // A row written by some other code with a week-long expiry is still refreshed after 24 h.
    expect(isRobotsFresh({ ...entry, expiresAtMs: T0 + 7 * DAY }, T0 + DAY)).toBe(false);
  });

  it('keeps validators with the rules, and a 304 revalidates those rules with a new expiry', () => {
    const good = nextRobotsCacheEntry(ok(), undefined, T0, { etag: '"v1"', lastModified: 'Tue, 31 Dec 2024 00:00:00 GMT' });
    expect(good).toMatchObject({ etag: '"v1"', lastModified: 'Tue, 31 Dec 2024 00:00:00 GMT' });
    const revalidated = nextRobotsCacheEntry({ kind: 'not-modified', status: 304 }, good, T0 + DAY, { cacheControl: 'max-age=7200' });
    expect(revalidated).toMatchObject({ fetchedAtMs: T0 + DAY, expiresAtMs: T0 + DAY + 2 * HOUR, etag: '"v1"' });
    expect(revalidated.policy).toEqual(good.policy);
    expect(verdict(revalidated, '/private').allowed).toBe(false);
  });

  it('a 304 after an unreachable spell restores the last good rules', () => {
    const good = nextRobotsCacheEntry(ok(), undefined, T0, { etag: '"v1"' });
    const down = nextRobotsCacheEntry(unreachable, good, T0 + DAY);
    expect(down).toMatchObject({ etag: '"v1"', policy: { kind: 'disallow-all' } });
    const back = nextRobotsCacheEntry({ kind: 'not-modified', status: 304 }, down, T0 + DAY + HOUR);
    expect(back.policy).toEqual({ kind: 'rules', rules: good.lastGoodRules });
    expect(back.unreachableSinceMs).toBeUndefined();
  });

  it('a 304 with nothing cached to revalidate counts as unreachable', () => {
    const entry = nextRobotsCacheEntry({ kind: 'not-modified', status: 304 }, undefined, T0);
    expect(entry.policy.kind).toBe('disallow-all');
    expect(entry.expiresAtMs).toBe(T0 + ROBOTS_UNREACHABLE_RETRY_MS);
  });

  it('entries survive a JSON round trip (Postgres jsonb) with the same verdicts', () => {
    const entry = nextRobotsCacheEntry(ok(), undefined, T0, { etag: '"v1"' });
    const stored = JSON.parse(JSON.stringify(entry)) as RobotsCacheEntry;
    expect(stored).toEqual(entry);
    expect(verdict(stored, '/private')).toEqual(verdict(entry, '/private'));
  });
});

describe('verdicts and misuse', () => {
  it('compileRobotsPolicy answers like robotsVerdictFor for every policy kind', () => {
    const entries = [
      nextRobotsCacheEntry(ok(), undefined, T0),
      nextRobotsCacheEntry({ kind: 'unavailable', status: 404 }, undefined, T0),
      nextRobotsCacheEntry(unreachable, undefined, T0),
    ];
    for (const entry of entries) {
      const match = compileRobotsPolicy(entry, TOKEN);
      for (const path of ['/', '/private/a', '/robots.txt', 'https://example.com/robots.txt']) {
        expect(match(path), `${entry.policy.kind} ${path}`).toEqual(verdict(entry, path));
      }
    }
  });

  it('a disallow-all policy still allows /robots.txt given as an absolute URL', () => {
    const entry = nextRobotsCacheEntry(unreachable, undefined, T0);
    expect(verdict(entry, 'https://example.com/robots.txt').allowed).toBe(true);
    expect(verdict(entry, 'https://example.com/index.html').allowed).toBe(false);
  });

  it.each([
    [{ kind: 'ok', status: 404, body: '' }],
    [{ kind: 'unavailable', status: 503 }],
    [{ kind: 'unavailable', status: 200 }],
  ] as [RobotsFetchOutcome][])('rejects an outcome whose kind contradicts its status: %j', (outcome) => {
    try {
      nextRobotsCacheEntry(outcome, undefined, T0);
      expect.unreachable('accepted a contradictory outcome');
    } catch (error) {
      expect(error).toBeInstanceOf(RobotsError);
      expect((error as RobotsError).code).toBe('ROBOTS_OUTCOME_INVALID');
    }
  });

  it('rejects cache options beyond 24 hours', () => {
    expect(() => nextRobotsCacheEntry(ok(), undefined, T0, undefined, { maxLifetimeMs: 2 * DAY })).toThrow(/options.maxLifetimeMs/);
  });
});

describe('HTTP dates', () => {
  it('parses the three HTTP-date forms', () => {
    const expected = Date.UTC(1994, 10, 6, 8, 49, 37);
    expect(parseHttpDateMs('Sun, 06 Nov 1994 08:49:37 GMT')).toBe(expected);
    expect(parseHttpDateMs('Sunday, 06-Nov-94 08:49:37 GMT')).toBe(expected);
    expect(parseHttpDateMs('Sun Nov  6 08:49:37 1994')).toBe(expected);
  });

  it('rejects what is not an HTTP-date, or a day that does not exist', () => {
    for (const value of ['', '0', '-1', '2025-01-01T00:00:00Z', 'Mon, 31 Feb 2025 00:00:00 GMT', 'Sun, 06 Foo 1994 08:49:37 GMT']) {
      expect(parseHttpDateMs(value), value).toBeUndefined();
    }
  });

  it('of several max-age values, the smallest counts; an invalid one means stale', () => {
    expect(requestedLifetimeMs({ cacheControl: 'max-age=600, max-age=60' }, T0)).toBe(60_000);
    expect(requestedLifetimeMs({ cacheControl: 'max-age=soon' }, T0)).toBe(0);
    expect(requestedLifetimeMs({ cacheControl: 'max-age="120"' }, T0)).toBe(120_000);
    expect(requestedLifetimeMs({ cacheControl: 'public' }, T0)).toBeUndefined();
    expect(requestedLifetimeMs({ cacheControl: 'no-cache="Set-Cookie", max-age=30' }, T0)).toBe(30_000);
  });
});
