/** How often a page is said to change (sitemaps.org `<changefreq>`); a hint, never a schedule. */
export type SitemapChangefreq = 'always' | 'hourly' | 'daily' | 'weekly' | 'monthly' | 'yearly' | 'never';

/** Which kind of document the body was, told by its root element (or by its first line for text). */
export type SitemapFormat = 'urlset' | 'sitemapindex' | 'rss' | 'atom' | 'text' | 'unrecognized';

/** One page a sitemap lists. */
export interface SitemapUrlEntry {
  /** The page, in canonical form (canonicalizeUrl without query policies; fragment dropped). */
  loc: string;
  /**
   * When the page last changed, as the site claims it (it may lie, or name a future date): the
   * first ms (UTC) of the period its lastmod names. `2024-05-03` is the whole UTC day.
   */
  lastmodMs?: number;
  /** The last ms of that period (`2024-05-03` → 23:59:59.999Z); present exactly when lastmodMs is. */
  lastmodToMs?: number;
  changefreq?: SitemapChangefreq;
  /** The site's own relative priority in [0, 1]. */
  priority?: number;
}

/** One sitemap a sitemap index points at. */
export interface SitemapChildEntry {
  /** The child sitemap, in canonical form. */
  loc: string;
  /** When the child sitemap last changed: the first ms (UTC) of the period its lastmod names. */
  lastmodMs?: number;
  /** The last ms of that period; present exactly when lastmodMs is. */
  lastmodToMs?: number;
}

/** Why an entry was dropped. */
export type SitemapRefusal =
  /** No `<loc>` (or feed link), or an empty one. */
  | 'missing-loc'
  /** Relative, protocol-relative, or another scheme: the protocol wants absolute http(s) URLs. */
  | 'not-absolute-http'
  /** Absolute http(s) but unusable: bad host or port, userinfo, control characters, spaces. */
  | 'invalid-url'
  /** Longer than `SitemapLimits.maxLocChars`, as written or once canonical. */
  | 'too-long'
  /** Outside what this sitemap may speak for (sitemapMayList). */
  | 'out-of-scope'
  /** Same canonical URL as another entry of the file; the one with the latest lastmod is kept. */
  | 'duplicate';

export const SITEMAP_REFUSALS: readonly SitemapRefusal[] = ['missing-loc', 'not-absolute-http', 'invalid-url', 'too-long', 'out-of-scope', 'duplicate'];

/** What one sitemap body says, after every check. Plain data: safe to return from an activity. */
export interface SitemapReading {
  format: SitemapFormat;
  /** Pages, in document order (a duplicate keeps the position of the first occurrence). Empty for a sitemap index. */
  urls: SitemapUrlEntry[];
  /** Child sitemaps of a sitemap index, in document order. Empty for every other format. */
  sitemaps: SitemapChildEntry[];
  /** Dropped entries by reason; every reason is present, most are 0. */
  refused: Record<SitemapRefusal, number>;
  /** True when reading stopped before the end: too many entries, too large, too deep, or a body cut off inside an entry. */
  truncated: boolean;
}

/** One entry as an extractor found it: strings as in the document (entities decoded, CDATA unwrapped), untrimmed. */
export interface RawSitemapEntry {
  /** `<loc>`, or a feed item's link; '' when the entry had none. */
  loc: string;
  /** `<lastmod>` (W3C Datetime), or a feed's date (RFC 822 for RSS `pubDate`, W3C for Atom). */
  lastmod?: string;
  changefreq?: string;
  priority?: string;
}
