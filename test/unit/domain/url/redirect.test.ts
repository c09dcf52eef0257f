import { describe, expect, it } from 'vitest';
import {
  canonicalizeUrl,
  compileQueryPolicies,
  decideRedirect,
  MAX_REDIRECT_HOPS,
  REDIRECT_STATUSES,
  UrlRejectedError,
  urlFingerprint,
} from '../../../../src/domain/url/index.js';

const fp = (url: string): string => urlFingerprint(canonicalizeUrl(url).url);
const FROM = 'https://example.com/old/page';

describe('decideRedirect', () => {
  it('follows a relative Location to its canonical target, with its fingerprint', () => {
    const decision = decideRedirect({ location: '../New/Page?b=2&a=1#x', fromUrl: FROM, chainFingerprints: [fp(FROM)] });
    expect(decision).toMatchObject({ kind: 'follow', target: { url: 'https://example.com/New/Page?b=2&a=1' } });
    if (decision.kind === 'follow') expect(decision.fingerprint).toBe(fp('https://example.com/New/Page?b=2&a=1'));
  });

  it('follows absolute and protocol-relative Locations to other hosts (scope is the caller’s check)', () => {
    expect(decideRedirect({ location: 'HTTP://Other.Example:80/', fromUrl: FROM, chainFingerprints: [fp(FROM)] })).toMatchObject({
      kind: 'follow',
      target: { url: 'http://other.example/', host: 'other.example' },
    });
    expect(decideRedirect({ location: '//cdn.example/x', fromUrl: FROM, chainFingerprints: [fp(FROM)] })).toMatchObject({
      kind: 'follow',
      target: { url: 'https://cdn.example/x' },
    });
  });

  it('applies the crawl’s query policies to the target', () => {
    const options = { queryPolicies: compileQueryPolicies([{ origin: 'https://shop.example', stripParams: ['utm_source'] }]) };
    expect(
      decideRedirect({ location: 'https://shop.example/item/42?utm_source=mail', fromUrl: FROM, chainFingerprints: [fp(FROM)], options }),
    ).toMatchObject({ kind: 'follow', target: { url: 'https://shop.example/item/42' } });
  });

  it('detects a self-redirect as a loop, even when the Location differs only by spelling', () => {
    const decision = decideRedirect({ location: 'HTTPS://EXAMPLE.COM:443/old/./page#top', fromUrl: FROM, chainFingerprints: [fp(FROM)] });
    expect(decision).toEqual({ kind: 'loop', fingerprint: fp(FROM) });
  });

  it('detects a loop back to any earlier URL of the chain', () => {
    const chain = [FROM, 'https://example.com/b', 'https://example.com/c'].map(fp);
    expect(decideRedirect({ location: '/b', fromUrl: 'https://example.com/c', chainFingerprints: chain })).toEqual({
      kind: 'loop',
      fingerprint: fp('https://example.com/b'),
    });
  });

  it(`follows hop ${MAX_REDIRECT_HOPS} and stops at hop ${MAX_REDIRECT_HOPS + 1}`, () => {
    expect(MAX_REDIRECT_HOPS).toBe(10);
    // chain[0] is the source; chain[i] the target of hop i.
    const chain = (hopsTaken: number): string[] => Array.from({ length: hopsTaken + 1 }, (_, i) => fp(`https://example.com/r/${i}`));
    const next = (hopsTaken: number) =>
      decideRedirect({ location: `/r/${hopsTaken + 1}`, fromUrl: `https://example.com/r/${hopsTaken}`, chainFingerprints: chain(hopsTaken) });
    expect(next(0).kind).toBe('follow');
    expect(next(9).kind).toBe('follow');
    expect(next(10)).toEqual({ kind: 'too-many-hops' });
    expect(next(15)).toEqual({ kind: 'too-many-hops' });
  });

  it.each([
    [undefined, 'empty'],
    ['   ', 'empty'],
    ['mailto:x@example.com', 'unsupported-scheme'],
    ['ftp://example.com/file', 'unsupported-scheme'],
    ['https://user:pw@example.com/', 'userinfo'],
    ['//user:pw@example.com/', 'userinfo'],
    ['https://bad host/', 'invalid-host'],
    ['http://example.com:99999/', 'invalid-port'],
    [`/${'a'.repeat(5000)}`, 'too-long'],
  ])('treats Location %j as invalid (%s)', (location, code) => {
    const decision = decideRedirect({ location, fromUrl: FROM, chainFingerprints: [fp(FROM)] });
    expect(decision.kind).toBe('invalid');
    if (decision.kind !== 'invalid') return;
    expect(decision.error).toBeInstanceOf(UrlRejectedError);
    expect(decision.error.code).toBe(code);
    expect(decision.error.message).not.toContain('pw@');
  });

  it('lists the statuses that redirect', () => {
    expect([...REDIRECT_STATUSES].sort()).toEqual([301, 302, 303, 307, 308]);
  });
});
