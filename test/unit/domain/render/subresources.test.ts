import { describe, expect, it } from 'vitest';
import {
  DEFAULT_SUBRESOURCE_POLICY,
  RenderInputError,
  classifySubresource,
  isSubresourceFresh,
  normalizeAllowedOrigin,
  subresourceCacheDecision,
  subresourceTypeOf,
  type SubresourceType,
} from '../../../../src/domain/render/index.js';

const PAGE = 'https://shop.example/products/1';
const request = (url: string, type: SubresourceType = 'script', method = 'GET') => ({ url, type, method, isMainDocument: false });

describe('classifySubresource', () => {
  it('answers the main document from the stored body', () => {
    expect(classifySubresource({ url: PAGE, type: 'document', method: 'GET', isMainDocument: true }, PAGE)).toEqual({ kind: 'main-document' });
  });

  it.each(['image', 'media', 'font', 'ping', 'eventsource', 'websocket', 'manifest', 'texttrack'] as const)('blocks %s by default', (type) => {
    expect(classifySubresource(request('https://shop.example/x', type), PAGE)).toEqual({ kind: 'blocked-type', type });
  });

  it.each(['script', 'stylesheet', 'xhr', 'fetch', 'document', 'other'] as const)('allows same-origin %s', (type) => {
    expect(classifySubresource(request('https://shop.example/x', type), PAGE)).toEqual({ kind: 'allowed', origin: 'https://shop.example', host: 'shop.example', sameHost: true });
  });

  it('refuses other origins unless allowed, and counts an allowed one as its own host', () => {
    expect(classifySubresource(request('https://cdn.example/app.js'), PAGE)).toEqual({ kind: 'blocked-origin', origin: 'https://cdn.example' });
    // Another port or scheme is another origin.
    expect(classifySubresource(request('http://shop.example/app.js'), PAGE).kind).toBe('blocked-origin');
    const policy = { ...DEFAULT_SUBRESOURCE_POLICY, allowedOrigins: ['https://cdn.example', 'https://shop.example:8443'] };
    expect(classifySubresource(request('https://cdn.example/app.js'), PAGE, policy)).toEqual({ kind: 'allowed', origin: 'https://cdn.example', host: 'cdn.example', sameHost: false });
    expect(classifySubresource(request('https://shop.example:8443/app.js'), PAGE, policy)).toEqual({ kind: 'allowed', origin: 'https://shop.example:8443', host: 'shop.example', sameHost: true });
  });

  it('refuses other schemes and methods that write', () => {
    expect(classifySubresource(request('ftp://shop.example/x'), PAGE).kind).toBe('blocked-scheme');
    expect(classifySubresource(request('nonsense'), PAGE).kind).toBe('blocked-scheme');
    expect(classifySubresource(request('https://shop.example/api', 'fetch', 'POST'), PAGE).kind).toBe('blocked-type');
  });

  it('names unknown browser types other, beacons ping', () => {
    expect(subresourceTypeOf('beacon')).toBe('ping');
    expect(subresourceTypeOf('prefetch')).toBe('other');
    expect(subresourceTypeOf('script')).toBe('script');
  });
});

describe('normalizeAllowedOrigin', () => {
  it('keeps the origin only', () => {
    expect(normalizeAllowedOrigin('https://CDN.example/some/path', 'x')).toBe('https://cdn.example');
    expect(normalizeAllowedOrigin('http://cdn.example:80', 'x')).toBe('http://cdn.example');
  });
  it('refuses what is not an http(s) origin', () => {
    expect(() => normalizeAllowedOrigin('cdn.example', 'renderAllowOrigins[0]')).toThrow(RenderInputError);
    expect(() => normalizeAllowedOrigin('ftp://cdn.example', 'x')).toThrow(/http\(s\) origin/);
    expect(() => normalizeAllowedOrigin('https://u:p@cdn.example', 'x')).toThrow(/credentials/);
  });
});

describe('subresourceCacheDecision', () => {
  const T = Date.UTC(2026, 0, 10, 12, 0, 0);
  it('stores a response for its max-age less its Age', () => {
    expect(subresourceCacheDecision({ status: 200, cacheControl: 'public, max-age=600', age: '100' }, T)).toEqual({ storable: true, freshUntilMs: T + 500_000 });
  });
  it('never stores no-store, Vary: *, or statuses other than 200 and 203', () => {
    expect(subresourceCacheDecision({ status: 200, cacheControl: 'no-store' }, T)).toEqual({ storable: false, reason: 'no-store' });
    expect(subresourceCacheDecision({ status: 200, vary: '*' }, T)).toEqual({ storable: false, reason: 'vary-star' });
    expect(subresourceCacheDecision({ status: 404, cacheControl: 'max-age=600' }, T)).toEqual({ storable: false, reason: 'status' });
  });
  it('stores no-cache and unlabelled responses stale, to revalidate with their validators', () => {
    expect(subresourceCacheDecision({ status: 200, cacheControl: 'no-cache', etag: '"v1"' }, T)).toEqual({ storable: true, freshUntilMs: T, etag: '"v1"' });
    expect(subresourceCacheDecision({ status: 200 }, T)).toEqual({ storable: true, freshUntilMs: T });
  });
  it('keeps a private response (the cache is ours alone)', () => {
    expect(subresourceCacheDecision({ status: 200, cacheControl: 'private, max-age=60' }, T)).toEqual({ storable: true, freshUntilMs: T + 60_000 });
  });
  it('uses Expires, and a tenth of the Last-Modified age as a heuristic, capped at a day', () => {
    expect(subresourceCacheDecision({ status: 200, expires: new Date(T + 3_600_000).toUTCString() }, T)).toEqual({ storable: true, freshUntilMs: T + 3_600_000 });
    const lastModified = new Date(T - 10 * 3_600_000).toUTCString();
    expect(subresourceCacheDecision({ status: 200, lastModified }, T)).toEqual({ storable: true, freshUntilMs: T + 3_600_000, lastModified });
    const old = new Date(T - 365 * 86_400_000).toUTCString();
    expect(subresourceCacheDecision({ status: 200, lastModified: old }, T)).toMatchObject({ freshUntilMs: T + 86_400_000 });
    expect(subresourceCacheDecision({ status: 200, cacheControl: 'max-age=31536000' }, T)).toMatchObject({ freshUntilMs: T + 86_400_000 });
  });
  it('says fresh strictly before its end', () => {
    expect(isSubresourceFresh({ freshUntilMs: T }, T - 1)).toBe(true);
    expect(isSubresourceFresh({ freshUntilMs: T }, T)).toBe(false);
  });
});
