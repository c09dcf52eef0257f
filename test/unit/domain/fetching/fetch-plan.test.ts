import { describe, expect, it } from 'vitest';
import { bodyLimitsOf, conditionalHeadersOf, crawlSkipReasonOf, robotsGateOf } from '../../../../src/domain/fetching/index.js';
import { parseRobotsTxt, type RobotsCacheEntry } from '../../../../src/domain/robots/index.js';
import { SITEMAP_MAX_UNCOMPRESSED_BYTES } from '../../../../src/domain/sitemap/index.js';

const NOW = 1_700_000_000_000;
const HOUR = 3_600_000;

function rules(body: string, fetchedAtMs = NOW - HOUR, expiresAtMs = NOW + HOUR): RobotsCacheEntry {
  return { policy: { kind: 'rules', rules: parseRobotsTxt(body) }, fetchedAtMs, expiresAtMs };
}

function unreachable(expiresAtMs: number): RobotsCacheEntry {
  return { policy: { kind: 'disallow-all', reason: 'robots.txt answered 503' }, fetchedAtMs: NOW - HOUR, expiresAtMs, unreachableSinceMs: NOW - 2 * HOUR };
}

const gate = (robots: RobotsCacheEntry | undefined, pathAndQuery = '/page', refreshesRobots = false) =>
  robotsGateOf({ robots, nowMs: NOW, refreshesRobots, productToken: 'testbot', pathAndQuery });

describe('crawlSkipReasonOf', () => {
  it.each([
    ['stopping', 'crawl-stopping'],
    ['stopped', 'crawl-stopping'],
    ['finished', 'crawl-stopping'],
    ['paused', 'crawl-paused'],
    ['running', undefined],
  ])('a %s crawl: %s', (state, reason) => {
    expect(crawlSkipReasonOf(state)).toBe(reason);
  });
});

describe('robotsGateOf', () => {
  it('no cached file: stale, fetched first', () => {
    expect(gate(undefined)).toEqual({ kind: 'stale' });
  });

  it('rules past their expiry, or older than a day: stale', () => {
    expect(gate(rules('User-agent: *\nAllow: /', NOW - HOUR, NOW - 1))).toEqual({ kind: 'stale' });
    expect(gate(rules('User-agent: *\nAllow: /', NOW - 25 * HOUR, NOW + HOUR))).toEqual({ kind: 'stale' });
  });

  it('fresh rules that allow the path: allowed, and the sitemaps they declare are registered', () => {
    expect(gate(rules('User-agent: *\nDisallow: /private'))).toEqual({ kind: 'allowed', registersSitemaps: true });
  });

  it('fresh rules that disallow the path: disallowed, the sitemaps registered all the same', () => {
    expect(gate(rules('User-agent: *\nDisallow: /private'), '/private/x')).toEqual({ kind: 'disallowed', registersSitemaps: true });
  });

  it('an allow-all policy (a 404 robots.txt): allowed', () => {
    const entry: RobotsCacheEntry = { policy: { kind: 'allow-all', reason: '404' }, fetchedAtMs: NOW - HOUR, expiresAtMs: NOW + HOUR };
    expect(gate(entry)).toEqual({ kind: 'allowed', registersSitemaps: true });
  });

  it('a disallow-all that is not an outage (no unreachableSinceMs): disallowed, no sitemaps to register', () => {
    const entry: RobotsCacheEntry = { policy: { kind: 'disallow-all', reason: 'forced' }, fetchedAtMs: NOW - HOUR, expiresAtMs: NOW + HOUR };
    expect(gate(entry)).toEqual({ kind: 'disallowed', registersSitemaps: false });
  });

  it('an unreachable file before its retry time: the URL waits until then (RobotsUnreachable)', () => {
    expect(gate(unreachable(NOW + 5 * 60_000))).toEqual({ kind: 'unreachable', reason: 'robots.txt answered 503', retryAfterAtMs: NOW + 5 * 60_000, registersSitemaps: false });
  });

  it('an unreachable file past its retry time still disallows, for a caller that does not refresh it; the wait ends now', () => {
    expect(gate(unreachable(NOW - 1))).toEqual({ kind: 'unreachable', reason: 'robots.txt answered 503', retryAfterAtMs: NOW, registersSitemaps: false });
  });

  it('an unreachable file past its retry time is stale for a caller that refreshes it (a burst)', () => {
    expect(gate(unreachable(NOW - 1), '/page', true)).toEqual({ kind: 'stale' });
  });

  it('an unreachable file still lets robots.txt itself be fetched', () => {
    expect(gate(unreachable(NOW + 60_000), '/robots.txt')).toEqual({ kind: 'allowed', registersSitemaps: false });
  });
});

describe('conditionalHeadersOf: each validator case', () => {
  it.each([
    [{ etag: null, lastModified: null }, {}],
    [{ etag: '"v1"', lastModified: null }, { 'if-none-match': '"v1"' }],
    [{ etag: null, lastModified: 'Tue, 01 Dec 2026 00:00:00 GMT' }, { 'if-modified-since': 'Tue, 01 Dec 2026 00:00:00 GMT' }],
    [{ etag: '"v1"', lastModified: 'Tue, 01 Dec 2026 00:00:00 GMT' }, { 'if-none-match': '"v1"', 'if-modified-since': 'Tue, 01 Dec 2026 00:00:00 GMT' }],
    [{ etag: '', lastModified: '' }, {}],
  ])('a page with %j sends %j', (validators, headers) => {
    expect(conditionalHeadersOf(validators, false)).toEqual(headers);
  });

  it('a sitemap is always read whole: no conditional header, whatever is stored', () => {
    expect(conditionalHeadersOf({ etag: '"v1"', lastModified: 'Tue, 01 Dec 2026 00:00:00 GMT' }, true)).toEqual({});
  });
});

describe('bodyLimitsOf', () => {
  const limits = { maxBodyBytes: 1024 * 1024, maxDecompressedBytes: 2 * 1024 * 1024 };

  it("a page: the crawl's limits", () => {
    expect(bodyLimitsOf(limits, false)).toEqual(limits);
  });

  it('a sitemap: at least the 50 MiB sitemaps.org allows', () => {
    expect(bodyLimitsOf(limits, true)).toEqual({ maxBodyBytes: SITEMAP_MAX_UNCOMPRESSED_BYTES, maxDecompressedBytes: SITEMAP_MAX_UNCOMPRESSED_BYTES });
    const larger = { maxBodyBytes: SITEMAP_MAX_UNCOMPRESSED_BYTES * 2, maxDecompressedBytes: SITEMAP_MAX_UNCOMPRESSED_BYTES * 3 };
    expect(bodyLimitsOf(larger, true)).toEqual(larger);
  });
});
