import { describe, expect, it } from 'vitest';
import {
  canonicalizeUrl,
  checkScope,
  createScopeChecker,
  isSkippedContentType,
  PrefixTrie,
  registrableDomain,
  ScopeConfigError,
  type ScopeOptions,
} from '../../../../src/domain/url/index.js';

const c = canonicalizeUrl;
const seeds = new Set(['www.example.co.uk']);
const scope = (url: string, options: ScopeOptions, hosts: ReadonlySet<string> = seeds) => checkScope(c(url), hosts, options);

describe('PrefixTrie', () => {
  it('lets the most specific prefix win (host pass, host/a block, host/a/b pass)', () => {
    const trie = new PrefixTrie<'pass' | 'block'>();
    trie.set('www.google.com', 'pass');
    trie.set('www.google.com/a', 'block');
    trie.set('www.google.com/a/b', 'pass');
    expect(trie.longestMatch('www.google.com/x')?.value).toBe('pass');
    expect(trie.longestMatch('www.google.com/a/x')?.value).toBe('block');
    expect(trie.longestMatch('www.google.com/a/b/c')).toEqual({ prefix: 'www.google.com/a/b', value: 'pass' });
    expect(trie.longestMatch('www.bing.com/')).toBeUndefined();
    expect(trie.size).toBe(3);
  });

  it('matches by character, replaces on re-set, and supports the empty prefix and astral characters', () => {
    const trie = new PrefixTrie<number>();
    trie.set('/a', 1);
    trie.set('/a', 2);
    expect(trie.size).toBe(1);
    expect(trie.longestMatch('/ab')?.value).toBe(2);
    expect(trie.get('/a')).toBe(2);
    expect(trie.get('/')).toBeUndefined();
    trie.set('', 0);
    expect(trie.longestMatch('/zzz')).toEqual({ prefix: '', value: 0 });
    trie.set('/😀', 9);
    expect(trie.longestMatch('/😀/x')).toEqual({ prefix: '/😀', value: 9 });
  });
});

describe('checkScope modes', () => {
  it('same-host: only the seed hosts, any scheme or port', () => {
    expect(scope('https://www.example.co.uk/a', { mode: 'same-host' })).toEqual({ inScope: true });
    expect(scope('http://WWW.example.co.uk:8080/a', { mode: 'same-host' })).toEqual({ inScope: true });
    expect(scope('https://shop.example.co.uk/a', { mode: 'same-host' })).toMatchObject({ inScope: false, code: 'host' });
  });

  it('same-registrable-domain: public-suffix aware with a multi-label suffix (co.uk)', () => {
    const options: ScopeOptions = { mode: 'same-registrable-domain' };
    expect(scope('https://shop.example.co.uk/', options)).toEqual({ inScope: true });
    expect(scope('https://a.b.example.co.uk/', options)).toEqual({ inScope: true });
    expect(scope('https://example.co.uk/', options)).toEqual({ inScope: true });
    // Sharing only the public suffix is not the same site.
    expect(scope('https://other.co.uk/', options)).toMatchObject({ inScope: false, code: 'registrable-domain' });
    expect(scope('https://example.com/', options)).toMatchObject({ inScope: false, code: 'registrable-domain' });
  });

  it('same-registrable-domain treats private suffixes (github.io) as separate sites, and IPs as hosts', () => {
    expect(registrableDomain('alice.github.io')).toBe('alice.github.io');
    expect(registrableDomain('www.example.co.uk')).toBe('example.co.uk');
    expect(registrableDomain('127.0.0.1')).toBe('127.0.0.1');
    expect(registrableDomain('[::1]')).toBe('[::1]');
    const options: ScopeOptions = { mode: 'same-registrable-domain' };
    expect(scope('https://bob.github.io/', options, new Set(['alice.github.io']))).toMatchObject({ inScope: false });
    expect(scope('https://127.0.0.1:8080/', options, new Set(['127.0.0.1']))).toEqual({ inScope: true });
  });

  it('any: no host restriction', () => {
    expect(scope('https://anything.example/', { mode: 'any' })).toEqual({ inScope: true });
  });
});

describe('checkScope prefixes', () => {
  const options: ScopeOptions = {
    mode: 'any',
    allowPrefixes: ['docs.example.com', 'https://docs.example.com/a/b/'],
    denyPrefixes: ['https://docs.example.com/a/'],
  };

  it('most specific rule wins: host allowed, /a/ denied, /a/b/ allowed again', () => {
    expect(scope('https://docs.example.com/x', options)).toEqual({ inScope: true });
    expect(scope('https://docs.example.com/a/x', options)).toMatchObject({ inScope: false, code: 'deny-prefix' });
    expect(scope('https://docs.example.com/a/b/c', options)).toEqual({ inScope: true });
  });

  it('scheme-less prefixes cover both schemes; a scheme limits the rule to it', () => {
    expect(scope('http://docs.example.com/x', options)).toEqual({ inScope: true });
    // The deny rule names https only, so over http the host-wide allow still applies.
    expect(scope('http://docs.example.com/a/x', options)).toEqual({ inScope: true });
    expect(scope('https://docs.example.com/a/x', options)).toMatchObject({ inScope: false, code: 'deny-prefix' });
  });

  it('with allow prefixes, anything matching none is out; host boundaries are respected', () => {
    expect(scope('https://other.example.com/', options)).toMatchObject({ inScope: false, code: 'no-allow-prefix' });
    expect(scope('https://docs.example.com.evil.example/', options)).toMatchObject({ inScope: false, code: 'no-allow-prefix' });
  });

  it('deny prefixes alone exclude just their subtree; prefixes are canonicalized like URLs', () => {
    const denyOnly: ScopeOptions = { mode: 'same-host', denyPrefixes: ['HTTPS://WWW.Example.co.uk/%7Epriv'] };
    expect(scope('https://www.example.co.uk/~private/x', denyOnly)).toMatchObject({ inScope: false, code: 'deny-prefix' });
    expect(scope('https://www.example.co.uk/public', denyOnly)).toEqual({ inScope: true });
  });

  it('mode and prefixes must both pass', () => {
    expect(scope('https://docs.example.com/x', { ...options, mode: 'same-host' })).toMatchObject({ inScope: false, code: 'host' });
  });
});

describe('checkScope extensions and length', () => {
  it('skips common binary and media extensions by default, any case, ignoring the query', () => {
    expect(scope('https://www.example.co.uk/photo.JPG', { mode: 'same-host' })).toMatchObject({ inScope: false, code: 'extension' });
    expect(scope('https://www.example.co.uk/file.pdf;jsessionid=1', { mode: 'same-host' })).toMatchObject({ code: 'extension' });
    expect(scope('https://www.example.co.uk/page.html?img=a.png', { mode: 'same-host' })).toEqual({ inScope: true });
    expect(scope('https://www.example.co.uk/v1.2/', { mode: 'same-host' })).toEqual({ inScope: true });
  });

  it('uses a configured extension list instead of the default', () => {
    const options: ScopeOptions = { mode: 'same-host', skipExtensions: ['.PHP'] };
    expect(scope('https://www.example.co.uk/a.php', options)).toMatchObject({ code: 'extension' });
    expect(scope('https://www.example.co.uk/a.jpg', options)).toEqual({ inScope: true });
  });

  it('enforces maxUrlLength', () => {
    expect(scope('https://www.example.co.uk/abcdef', { mode: 'same-host', maxUrlLength: 30 })).toMatchObject({ inScope: false, code: 'url-length' });
  });

  it('gives an operator-readable reason', () => {
    const decision = scope('https://elsewhere.example/', { mode: 'same-host' });
    expect(decision).toMatchObject({ inScope: false, reason: 'host: host elsewhere.example is not a seed host' });
  });
});

describe('scope configuration errors', () => {
  it.each([
    [{ mode: 'same-site' }, 'SCOPE_INVALID_MODE'],
    [{ mode: 'any', allowPrefixes: ['ftp://x/'] }, 'SCOPE_INVALID_PREFIX'],
    [{ mode: 'any', denyPrefixes: ['http://bad host/'] }, 'SCOPE_INVALID_PREFIX'],
    [{ mode: 'any', allowPrefixes: ['https://a.example/x'], denyPrefixes: ['https://A.example/x'] }, 'SCOPE_CONFLICTING_PREFIX'],
    [{ mode: 'any', skipExtensions: ['.'] }, 'SCOPE_INVALID_EXTENSION'],
    [{ mode: 'any', maxUrlLength: -1 }, 'SCOPE_INVALID_MAX_URL_LENGTH'],
  ])('%j → %s', (options, code) => {
    expect(() => createScopeChecker(seeds, options as ScopeOptions)).toThrow(expect.objectContaining({ code }));
    expect(() => createScopeChecker(seeds, options as ScopeOptions)).toThrow(ScopeConfigError);
  });

  it('does not echo credentials from a bad prefix', () => {
    expect(() => createScopeChecker(seeds, { mode: 'any', allowPrefixes: ['https://u:hunter2@a.example/'] })).toThrow(
      expect.objectContaining({ message: expect.not.stringContaining('hunter2') }),
    );
  });
});

describe('isSkippedContentType', () => {
  it.each([
    ['text/html', false],
    ['text/html; charset=utf-8', false],
    ['TEXT/HTML;charset=UTF-8', false],
    ['application/xhtml+xml', false],
    ['text/plain', false],
    ['image/png', true],
    ['application/pdf', true],
    ['application/octet-stream', true],
    ['text/css', true],
    ['', true],
    ['html', true],
  ])('%j → skipped %s', (contentType, skipped) => {
    expect(isSkippedContentType(contentType)).toBe(skipped);
  });

  it('honours a configured list with type/* wildcards', () => {
    expect(isSkippedContentType('application/pdf', ['application/pdf'])).toBe(false);
    expect(isSkippedContentType('text/csv', ['text/*'])).toBe(false);
    expect(isSkippedContentType('text/html', ['application/pdf'])).toBe(true);
  });
});
