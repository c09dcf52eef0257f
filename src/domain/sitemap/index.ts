// Sitemaps (sitemaps.org protocol, plus RSS 2.0 / Atom feeds and plain-text sitemaps) read as
// cheap change signals. Pure: the document is parsed in src/parse/sitemap-document.ts; this
// module judges what the entries say. Untrusted input is refused and counted, never thrown.
export {
  SITEMAP_REFUSALS,
  type RawSitemapEntry,
  type SitemapChangefreq,
  type SitemapChildEntry,
  type SitemapFormat,
  type SitemapReading,
  type SitemapRefusal,
  type SitemapUrlEntry,
} from './types.js';
export { SitemapError, type SitemapErrorCode } from './errors.js';
export {
  DEFAULT_SITEMAP_LIMITS,
  SITEMAP_MAX_UNCOMPRESSED_BYTES,
  SITEMAP_MAX_ENTRIES,
  SITEMAP_MAX_LOC_CHARS,
  resolveSitemapLimits,
  type SitemapLimits,
} from './limits.js';
export type { DatetimeSpan } from './utc-calendar.js';
export { parseW3cDatetime, w3cDatetimeSpan } from './w3c-datetime.js';
export { parseRfc822Datetime, rfc822DatetimeSpan } from './rfc822-datetime.js';
export { compileSitemapScope, sitemapMayList, type SitemapScope, type SitemapScopeOptions } from './sitemap-scope.js';
export { readSitemapEntries, type ReadSitemapEntriesInput } from './read-sitemap-entries.js';
