import { describe, expect, it } from 'vitest';
import {
  canonicalizeUrl,
  compileQueryPolicies,
  QueryPolicyConfigError,
  QueryPolicySet,
  type OriginQueryPolicy,
} from '../../../../src/domain/url/index.js';

const canon = (url: string, config: OriginQueryPolicy[]): string =>
  canonicalizeUrl(url, { queryPolicies: compileQueryPolicies(config) }).url;

describe('per-origin query policies', () => {
  it('default set is empty: queries stay opaque', () => {
    expect(QueryPolicySet.empty.size).toBe(0);
    expect(canonicalizeUrl('https://shop.example/a?utm_source=x&b=1', { queryPolicies: QueryPolicySet.empty }).url).toBe(
      'https://shop.example/a?utm_source=x&b=1',
    );
  });

  it('strips named parameters everywhere, keeps the rest in order', () => {
    const policy = [{ origin: 'https://shop.example', stripParams: ['utm_source', 'fbclid'] }];
    expect(canon('https://shop.example/a?b=2&utm_source=x&a=1&fbclid=z&utm_source=y', policy)).toBe('https://shop.example/a?b=2&a=1');
  });

  it('matches names after escape normalization (utm%5Fsource) but case-sensitively', () => {
    const policy = [{ origin: 'https://shop.example', stripParams: ['utm_source'] }];
    expect(canon('https://shop.example/a?utm%5Fsource=x&b=1', policy)).toBe('https://shop.example/a?b=1');
    expect(canon('https://shop.example/a?UTM_SOURCE=x', policy)).toBe('https://shop.example/a?UTM_SOURCE=x');
  });

  it('strips by prefix', () => {
    expect(canon('https://shop.example/a?utm_medium=m&utm_campaign=c&id=4', [{ origin: 'https://shop.example', stripParamPrefixes: ['utm_'] }])).toBe(
      'https://shop.example/a?id=4',
    );
  });

  it('drops the ? when every pair was stripped, but keeps a bare ? unless told otherwise', () => {
    const policy = [{ origin: 'https://shop.example', stripParams: ['utm_source'] }];
    expect(canon('https://shop.example/a?utm_source=x', policy)).toBe('https://shop.example/a');
    expect(canon('https://shop.example/a?', policy)).toBe('https://shop.example/a?');
    expect(canon('https://shop.example/a?', [{ origin: 'https://shop.example', dropEmptyQuery: true }])).toBe('https://shop.example/a');
  });

  it('sorts by name, keeping the order of repeated names', () => {
    expect(canon('https://shop.example/s?q=b&c=1&q=a&a=', [{ origin: 'https://shop.example', sortParams: true }])).toBe(
      'https://shop.example/s?a=&c=1&q=b&q=a',
    );
  });

  it('unifies trailing slashes both ways, sparing file names and the root', () => {
    const strip = [{ origin: 'https://shop.example', trailingSlash: 'strip' as const }];
    expect(canon('https://shop.example/a/b//', strip)).toBe('https://shop.example/a/b');
    expect(canon('https://shop.example/', strip)).toBe('https://shop.example/');
    const add = [{ origin: 'https://shop.example', trailingSlash: 'add' as const }];
    expect(canon('https://shop.example/a/b?x', add)).toBe('https://shop.example/a/b/?x');
    expect(canon('https://shop.example/a/page.html', add)).toBe('https://shop.example/a/page.html');
  });

  it('normalizes query escapes only when asked', () => {
    const policy = [{ origin: 'https://shop.example', normalizeQueryEscapes: true }];
    expect(canon('https://shop.example/a?q=%7e%2f%zz', policy)).toBe('https://shop.example/a?q=~%2F%25zz');
  });

  it('applies to its origin only: another scheme, port or host is untouched', () => {
    const policy = [{ origin: 'https://SHOP.example:443/', stripParams: ['utm_source'] }];
    expect(canon('https://shop.example/a?utm_source=x', policy)).toBe('https://shop.example/a');
    expect(canon('http://shop.example/a?utm_source=x', policy)).toBe('http://shop.example/a?utm_source=x');
    expect(canon('https://shop.example:8443/a?utm_source=x', policy)).toBe('https://shop.example:8443/a?utm_source=x');
    expect(canon('https://www.shop.example/a?utm_source=x', policy)).toBe('https://www.shop.example/a?utm_source=x');
  });

  it('lists compiled origins in canonical form', () => {
    expect(compileQueryPolicies([{ origin: 'https://Bücher.DE' }, { origin: 'http://h:8080' }]).origins()).toEqual([
      'https://xn--bcher-kva.de',
      'http://h:8080',
    ]);
  });
});

describe('compileQueryPolicies validation', () => {
  const failure = (config: unknown): QueryPolicyConfigError => {
    try {
      compileQueryPolicies(config as OriginQueryPolicy[]);
    } catch (error) {
      expect(error).toBeInstanceOf(QueryPolicyConfigError);
      return error as QueryPolicyConfigError;
    }
    throw new Error('expected a QueryPolicyConfigError');
  };

  it.each([
    [[{ origin: 'https://a.example' }, 'nope'], 'QUERY_POLICY_INVALID_ENTRY', 1, undefined],
    [[{ origin: 'https://a.example/path' }], 'QUERY_POLICY_INVALID_ORIGIN', 0, 'origin'],
    [[{ origin: 'https://a.example/?q' }], 'QUERY_POLICY_INVALID_ORIGIN', 0, 'origin'],
    [[{ origin: 'ftp://a.example' }], 'QUERY_POLICY_INVALID_ORIGIN', 0, 'origin'],
    [[{ origin: 'https://user:pw@a.example' }], 'QUERY_POLICY_INVALID_ORIGIN', 0, 'origin'],
    [[{}], 'QUERY_POLICY_INVALID_ORIGIN', 0, 'origin'],
    [[{ origin: 'https://a.example' }, { origin: 'https://A.example:443' }], 'QUERY_POLICY_DUPLICATE_ORIGIN', 1, 'origin'],
    [[{ origin: 'https://a.example', stripParam: ['x'] }], 'QUERY_POLICY_UNKNOWN_FIELD', 0, 'stripParam'],
    [[{ origin: 'https://a.example', stripParams: 'utm_source' }], 'QUERY_POLICY_INVALID_FIELD', 0, 'stripParams'],
    [[{ origin: 'https://a.example', stripParams: [''] }], 'QUERY_POLICY_INVALID_FIELD', 0, 'stripParams'],
    [[{ origin: 'https://a.example', sortParams: 'yes' }], 'QUERY_POLICY_INVALID_FIELD', 0, 'sortParams'],
    [[{ origin: 'https://a.example', trailingSlash: 'remove' }], 'QUERY_POLICY_INVALID_FIELD', 0, 'trailingSlash'],
  ])('%j → %s at entry %i', (config, code, entryIndex, field) => {
    const error = failure(config);
    expect(error.code).toBe(code);
    expect(error.entryIndex).toBe(entryIndex);
    expect(error.field).toBe(field);
    expect(error.message).toContain(`queryPolicies[${entryIndex}]`);
  });

  it('never echoes credentials from a bad origin', () => {
    expect(failure([{ origin: 'https://user:hunter2@a.example' }]).message).not.toContain('hunter2');
  });
});
