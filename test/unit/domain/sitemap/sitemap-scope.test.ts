import { describe, expect, it } from 'vitest';
import { canonicalizeUrl } from '../../../../src/domain/url/index.js';
import { compileSitemapScope, SitemapError, sitemapMayList } from '../../../../src/domain/sitemap/index.js';

const NOT_DECLARED = { declaredByRobotsOf: [] };

describe('sitemapMayList: the sitemaps.org location rule', () => {
  it.each([
    // The protocol's own example: a sitemap in /catalog/ speaks for /catalog/ only.
    ['http://example.com/catalog/sitemap.xml', 'http://example.com/catalog/show?item=23', true],
    ['http://example.com/catalog/sitemap.xml', 'http://example.com/catalog/', true],
    ['http://example.com/catalog/sitemap.xml', 'http://example.com/images/', false],
    ['http://example.com/catalog/sitemap.xml', 'http://example.com/index.html', false],
    ['http://example.com/catalog/sitemap.xml', 'http://example.com/catalog', false],
    ['http://h.example/a/b/sitemap.xml', 'http://h.example/a/b/page', true],
    ['http://h.example/a/b/sitemap.xml', 'http://h.example/a/b/c/d/page', true],
    ['http://h.example/a/b/sitemap.xml', 'http://h.example/a/x', false],
    ['http://h.example/a/b/sitemap.xml', 'http://h.example/a/', false],
    // A sibling directory sharing a prefix is not under the directory.
    ['http://h.example/a/b/sitemap.xml', 'http://h.example/a/bc/page', false],
    // A sitemap at the root speaks for the whole origin; its query does not move the directory.
    ['http://h.example/sitemap.xml', 'http://h.example/any/deep/page?q=1', true],
    ['http://h.example/sitemap.php?dir=/a/b/', 'http://h.example/elsewhere', true],
    ['http://h.example/a/b', 'http://h.example/a/c', true],
  ])('%s may list %s: %s', (sitemap, listed, expected) => {
    expect(sitemapMayList(sitemap, listed, NOT_DECLARED)).toBe(expected);
  });

  it.each([
    ['dot segments climbing out', 'http://h.example/a/b/../x', false],
    ['dot segments staying in', 'http://h.example/a/b/./c/../page', true],
    ['escaped unreserved characters', 'http://h.example/a/%62/page', true],
    ['escaped slash is not a directory step', 'http://h.example/a%2Fb/page', false],
    ['path case matters', 'http://h.example/A/B/page', false],
    ['fragment is ignored', 'http://h.example/a/b/page#top', true],
  ])('compares canonical paths: %s', (_, listed, expected) => {
    expect(sitemapMayList('http://h.example/a/b/sitemap.xml', listed, NOT_DECLARED)).toBe(expected);
  });

  it.each([
    ['host case', 'http://H.EXAMPLE/a/b/page', true],
    ['sitemap host case', 'http://h.example/a/b/page', true],
    ['explicit default port', 'http://h.example:80/a/b/page', true],
    ['other port', 'http://h.example:8080/a/b/page', false],
    ['other scheme', 'https://h.example/a/b/page', false],
    ['subdomain', 'http://www.h.example/a/b/page', false],
    ['parent domain', 'http://example/a/b/page', false],
    ['other host', 'http://evil.example/a/b/page', false],
  ])('same scheme, host and port: %s', (name, listed, expected) => {
    const sitemap = name === 'sitemap host case' ? 'HTTP://H.Example:80/a/b/sitemap.xml' : 'http://h.example/a/b/sitemap.xml';
    expect(sitemapMayList(sitemap, listed, NOT_DECLARED)).toBe(expected);
  });

  it('keeps a non-default port of the sitemap', () => {
    expect(sitemapMayList('http://h.example:8080/sitemap.xml', 'http://h.example:8080/page', NOT_DECLARED)).toBe(true);
    expect(sitemapMayList('http://h.example:8080/sitemap.xml', 'http://h.example/page', NOT_DECLARED)).toBe(false);
    expect(sitemapMayList('https://h.example:443/sitemap.xml', 'https://h.example/page', NOT_DECLARED)).toBe(true);
  });

  it.each([
    ['relative', '/a/b/page'],
    ['protocol-relative', '//h.example/a/b/page'],
    ['other scheme', 'ftp://h.example/a/b/page'],
    ['not a URL', 'page'],
    ['empty', ''],
  ])('refuses a listed URL that is not absolute http(s): %s', (_, listed) => {
    expect(sitemapMayList('http://h.example/a/b/sitemap.xml', listed, NOT_DECLARED)).toBe(false);
  });
});

describe('sitemapMayList: cross-submission through robots.txt', () => {
  const CDN_SITEMAP = 'https://sitemaps.cdn.example/hosts/b/sitemap.xml';

  it('lets a sitemap on host A list any URL of an origin whose robots.txt declared it', () => {
    const declared = { declaredByRobotsOf: ['https://b.example'] };
    expect(sitemapMayList(CDN_SITEMAP, 'https://b.example/any/path?x=1', declared)).toBe(true);
    expect(sitemapMayList(CDN_SITEMAP, 'https://B.Example:443/', declared)).toBe(true);
    expect(sitemapMayList(CDN_SITEMAP, 'http://b.example/any/path', declared)).toBe(false);
    expect(sitemapMayList(CDN_SITEMAP, 'https://www.b.example/any/path', declared)).toBe(false);
    expect(sitemapMayList(CDN_SITEMAP, 'https://c.example/any/path', declared)).toBe(false);
  });

  it('keeps a sitemap on host A from speaking for host B when B did not declare it', () => {
    expect(sitemapMayList(CDN_SITEMAP, 'https://b.example/page', NOT_DECLARED)).toBe(false);
    expect(sitemapMayList(CDN_SITEMAP, 'https://b.example/page', { declaredByRobotsOf: ['https://c.example'] })).toBe(false);
  });

  it('reads declaring origins canonically: case, default port, any URL of the origin', () => {
    for (const origin of ['HTTPS://B.EXAMPLE', 'https://b.example:443', 'https://b.example/robots.txt', 'https://b.example/']) {
      expect(sitemapMayList(CDN_SITEMAP, 'https://b.example/page', { declaredByRobotsOf: [origin] })).toBe(true);
    }
    const withPort = { declaredByRobotsOf: ['http://b.example:8080'] };
    expect(sitemapMayList(CDN_SITEMAP, 'http://b.example:8080/page', withPort)).toBe(true);
    expect(sitemapMayList(CDN_SITEMAP, 'http://b.example/page', withPort)).toBe(false);
  });

  it('lets the sitemap host own robots.txt widen the location rule to its whole origin', () => {
    const deep = 'http://h.example/a/b/sitemap.xml';
    expect(sitemapMayList(deep, 'http://h.example/x', NOT_DECLARED)).toBe(false);
    expect(sitemapMayList(deep, 'http://h.example/x', { declaredByRobotsOf: ['http://h.example'] })).toBe(true);
  });
});

describe('compileSitemapScope', () => {
  const listed = (url: string) => canonicalizeUrl(url);

  it('lets a sitemap index point at sitemaps anywhere on its own origin, but not on other hosts', () => {
    const scope = compileSitemapScope('http://h.example/blog/sitemap_index.xml', NOT_DECLARED);
    expect(scope.mayListSitemap(listed('http://h.example/sitemap-posts.xml'))).toBe(true);
    expect(scope.mayListSitemap(listed('http://h.example/blog/2024.xml'))).toBe(true);
    expect(scope.mayListUrl(listed('http://h.example/sitemap-posts.xml'))).toBe(false);
    expect(scope.mayListSitemap(listed('https://h.example/sitemap-posts.xml'))).toBe(false);
    expect(scope.mayListSitemap(listed('http://cdn.example/sitemap-posts.xml'))).toBe(false);
  });

  it('lets a sitemap index point at sitemaps of origins that declared it', () => {
    const scope = compileSitemapScope('http://h.example/sitemap_index.xml', { declaredByRobotsOf: ['http://h.example', 'https://cdn.example'] });
    expect(scope.mayListSitemap(listed('https://cdn.example/s/1.xml'))).toBe(true);
    expect(scope.mayListSitemap(listed('http://cdn.example/s/1.xml'))).toBe(false);
  });

  it.each([
    ['a relative sitemap URL', '/sitemap.xml', [], 'sitemapUrl'],
    ['a non-http sitemap URL', 'ftp://h.example/sitemap.xml', [], 'sitemapUrl'],
    ['an invalid declaring origin', 'http://h.example/sitemap.xml', ['http://h.example', 'h.example'], 'options.declaredByRobotsOf[1]'],
  ])('throws SITEMAP_URL_INVALID for %s', (_, sitemapUrl, declaredByRobotsOf, field) => {
    expect(() => compileSitemapScope(sitemapUrl, { declaredByRobotsOf })).toThrow(SitemapError);
    expect(() => sitemapMayList(sitemapUrl, 'http://h.example/page', { declaredByRobotsOf })).toThrow(expect.objectContaining({ code: 'SITEMAP_URL_INVALID', field }));
  });
});
