// Which URLs a sitemap may speak for (https://www.sitemaps.org/protocol.html#location). A
// sitemap's claims are trusted only where its publisher controls the site: otherwise anyone who
// can put a file on host A could tell us that pages on host B changed, and spend our budget there.

import { tryCanonicalizeUrl, type CanonicalUrl } from '../url/index.js';
import { SitemapError } from './errors.js';

export interface SitemapScopeOptions {
  /**
   * Origins whose robots.txt declared this sitemap in a `Sitemap:` line (sitemaps.org
   * cross-submission): their owners vouch for it, so it may list any URL of theirs. Any absolute
   * http(s) URL of the origin will do (`https://Example.com:443`, `https://example.com/robots.txt`);
   * only its canonical origin counts. Empty when the sitemap was found some other way.
   */
  declaredByRobotsOf: readonly string[];
}

/** A sitemap location compiled once, for checking every entry of the file. */
export interface SitemapScope {
  /** May this sitemap list the page? The location rule, or its origin declared the sitemap. */
  mayListUrl(listed: CanonicalUrl): boolean;
  /**
   * May this sitemap, as a sitemap index, point at the child sitemap? sitemaps.org asks only
   * that children be on the same site: the child's own location then bounds what it may list.
   */
  mayListSitemap(listed: CanonicalUrl): boolean;
}

/**
 * The scope of the sitemap at `sitemapUrl` (the URL its body was fetched from, after redirects).
 * Location rule: a listed URL must have the sitemap's scheme, host and port, and a path under the
 * sitemap's directory: `http://h/a/b/sitemap.xml` may list `http://h/a/b/page` and
 * `http://h/a/b/c/page`, not `http://h/a/x` nor `https://h/a/b/page`. Both sides are compared in
 * canonical form: host case, default ports, dot segments and needless escapes do not matter,
 * path case does. Cross-submission: a URL whose origin is in `declaredByRobotsOf` may be listed
 * whatever its path.
 * @throws SitemapError `SITEMAP_URL_INVALID` when `sitemapUrl` or a declaring origin is not an
 *   absolute http(s) URL: both come from our own records, so that is a bug upstream.
 */
export function compileSitemapScope(sitemapUrl: string, options: SitemapScopeOptions): SitemapScope {
  const sitemap = canonicalOrThrow('sitemapUrl', sitemapUrl);
  const directory = sitemap.path.slice(0, sitemap.path.lastIndexOf('/') + 1);
  const declaringOrigins = new Set(options.declaredByRobotsOf.map((origin, index) => canonicalOrThrow(`options.declaredByRobotsOf[${index}]`, origin).origin));
  return {
    mayListUrl: (listed) => declaringOrigins.has(listed.origin) || (listed.origin === sitemap.origin && listed.path.startsWith(directory)),
    mayListSitemap: (listed) => declaringOrigins.has(listed.origin) || listed.origin === sitemap.origin,
  };
}

/**
 * compileSitemapScope(sitemapUrl, options).mayListUrl for one URL given as a string; false when
 * `listedUrl` is not an absolute http(s) URL.
 * @throws SitemapError `SITEMAP_URL_INVALID` as compileSitemapScope.
 */
export function sitemapMayList(sitemapUrl: string, listedUrl: string, options: SitemapScopeOptions): boolean {
  const scope = compileSitemapScope(sitemapUrl, options);
  const listed = tryCanonicalizeUrl(listedUrl);
  return listed.ok && scope.mayListUrl(listed.value);
}

function canonicalOrThrow(field: string, url: string): CanonicalUrl {
  const canonical = tryCanonicalizeUrl(url);
  if (!canonical.ok) throw new SitemapError('SITEMAP_URL_INVALID', field, url, `pass an absolute http(s) URL (${canonical.error.code})`);
  return canonical.value;
}
