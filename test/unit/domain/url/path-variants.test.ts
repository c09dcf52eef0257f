import { describe, expect, it } from 'vitest';
import {
  DEFAULT_SESSION_PARAM_NAMES,
  assessTrap,
  canonicalizeUrl,
  isPathVariant,
  pathWithoutParams,
  withoutSessionParams,
} from '../../../../src/domain/url/index.js';

const c = (url: string) => canonicalizeUrl(url);

describe('path variants: queries and ;name=value parameters of one path', () => {
  it('strips path parameters but keeps everything else of the path', () => {
    expect(pathWithoutParams('/shop/item/1;jsessionid=AB12')).toBe('/shop/item/1');
    expect(pathWithoutParams('/a;v=1/b;x=2')).toBe('/a/b');
    expect(pathWithoutParams('/a;b/c')).toBe('/a;b/c');
    expect(pathWithoutParams('/plain/path')).toBe('/plain/path');
  });

  it('a URL with a query or path parameters is a variant; the bare path is not', () => {
    expect(isPathVariant(c('https://h.example/cal?m=1'))).toBe(true);
    expect(isPathVariant(c('https://h.example/cal?'))).toBe(true);
    expect(isPathVariant(c('https://h.example/cart;jsessionid=AB'))).toBe(true);
    expect(isPathVariant(c('https://h.example/cal'))).toBe(false);
  });

  it('session ids minted into the path count as variants of the path for the trap limits', () => {
    const options = { maxVariantsPerPath: 4, overflowSampleRate: 0 };
    const ctx = { depth: 3, nowMs: Date.UTC(2026, 0, 1), hostUrlCount: 0 };
    const url = c('https://h.example/shop/item/1;jsessionid=ZZ9');
    expect(assessTrap(url, { ...ctx, pathVariantCount: 20 }, options).reasons.map((r) => [r.code, r.action])).toEqual([
      ['session-id', 'demote'],
      ['path-variants', 'drop'],
    ]);
    expect(assessTrap(c('https://h.example/shop/item/1'), { ...ctx, pathVariantCount: 20 }, options).action).toBe('accept');
  });
});

describe('withoutSessionParams: the same URL without its session id', () => {
  const strip = (url: string) => withoutSessionParams(c(url), DEFAULT_SESSION_PARAM_NAMES);

  it('removes session ids from the query and from path parameters, any case', () => {
    expect(strip('http://h.example/shop/item/2;jsessionid=ABC')).toBe('http://h.example/shop/item/2');
    expect(strip('http://h.example/shop/item/2?sid=ABC')).toBe('http://h.example/shop/item/2');
    expect(strip('http://h.example/cart?item=4&PHPSESSID=x&q=1')).toBe('http://h.example/cart?item=4&q=1');
    expect(strip('http://h.example:8080/a;JSESSIONID=1/b?x=1')).toBe('http://h.example:8080/a/b?x=1');
  });

  it('is undefined for URLs without a session id, and keeps other parameters as written', () => {
    expect(strip('http://h.example/shop/item/2')).toBeUndefined();
    expect(strip('http://h.example/a;color=red?session_ref=1')).toBeUndefined();
    expect(withoutSessionParams(c('http://h.example/a?tok=1&b=2'), ['tok'])).toBe('http://h.example/a?b=2');
  });
});
