import { SitemapError } from './errors.js';

/** sitemaps.org: a sitemap file (or sitemap index) lists at most 50,000 entries. */
export const SITEMAP_MAX_ENTRIES = 50_000;

/** sitemaps.org: a sitemap file is at most 50 MiB uncompressed. */
export const SITEMAP_MAX_UNCOMPRESSED_BYTES = 50 * 1024 * 1024;

/**
 * sitemaps.org: a `<loc>` is "less than 2,048 characters". We accept 2,048 itself, the same
 * bound the crawler puts on any URL (DEFAULT_MAX_URL_LENGTH), so a sitemap URL we keep is
 * always one the frontier accepts.
 */
export const SITEMAP_MAX_LOC_CHARS = 2_048;

/** How much of an untrusted sitemap is read. Defaults are the protocol's own limits. */
export interface SitemapLimits {
  /** Entries examined per file, refused ones included; more sets `truncated`. Default 50,000. */
  maxEntries: number;
  /** Longest `<loc>` accepted, as written and once canonical, in characters. Default 2,048. */
  maxLocChars: number;
  /**
   * Characters of the decoded body read; the rest is ignored and `truncated` set. Default
   * SITEMAP_MAX_UNCOMPRESSED_BYTES: a file within the protocol's 50 MiB never has more UTF-16 code units
   * than UTF-8 bytes, so the default never cuts a conforming file.
   */
  maxDocumentChars: number;
}

export const DEFAULT_SITEMAP_LIMITS: Readonly<SitemapLimits> = Object.freeze({
  maxEntries: SITEMAP_MAX_ENTRIES,
  maxLocChars: SITEMAP_MAX_LOC_CHARS,
  maxDocumentChars: SITEMAP_MAX_UNCOMPRESSED_BYTES,
});

/**
 * The defaults overridden by `limits`, each checked to be a positive safe integer.
 * @throws SitemapError `SITEMAP_OPTIONS_INVALID`
 */
export function resolveSitemapLimits(limits: Partial<SitemapLimits> = {}): SitemapLimits {
  const resolved = { ...DEFAULT_SITEMAP_LIMITS };
  for (const key of Object.keys(DEFAULT_SITEMAP_LIMITS) as Array<keyof SitemapLimits>) {
    const value = limits[key];
    if (value === undefined) continue;
    if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 1) {
      throw new SitemapError('SITEMAP_OPTIONS_INVALID', `limits.${key}`, value, 'pass a positive integer, or leave it out for the protocol default');
    }
    resolved[key] = value;
  }
  return resolved;
}
