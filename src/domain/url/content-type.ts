/** Media types a text crawl parses; everything else is recorded but not stored or parsed. */
export const DEFAULT_ACCEPTED_CONTENT_TYPES: readonly string[] = ['text/html', 'application/xhtml+xml', 'text/plain'];

/**
 * Media types a sitemap arrives as (sitemaps.org: XML, RSS/Atom feeds, plain text; gzipped files
 * are often labelled as archives or bytes, and some servers label XML as HTML). The reader looks
 * at the body itself and refuses what is not a sitemap.
 */
export const SITEMAP_CONTENT_TYPES: readonly string[] = [
  'application/xml',
  'text/xml',
  'application/rss+xml',
  'application/atom+xml',
  'text/plain',
  'text/html',
  'application/gzip',
  'application/x-gzip',
  'application/octet-stream',
];

/**
 * True when a response of this Content-Type should be skipped. Parameters (`; charset=...`)
 * and case are ignored; `type/*` in `acceptedTypes` accepts a whole family. A missing or
 * unparseable header is skipped: sniffing binary bodies is the fetcher's call, not a default.
 * @param acceptedTypes media types to keep. Default DEFAULT_ACCEPTED_CONTENT_TYPES.
 */
export function isSkippedContentType(contentType: string, acceptedTypes: readonly string[] = DEFAULT_ACCEPTED_CONTENT_TYPES): boolean {
  const mediaType = (contentType.split(';')[0] as string).trim().toLowerCase();
  if (!/^[a-z0-9!#$&^_.+-]+\/[a-z0-9!#$&^_.+-]+$/.test(mediaType)) return true;
  const family = `${mediaType.slice(0, mediaType.indexOf('/'))}/*`;
  return !acceptedTypes.some((accepted) => {
    const normalized = accepted.trim().toLowerCase();
    return normalized === mediaType || normalized === family;
  });
}
