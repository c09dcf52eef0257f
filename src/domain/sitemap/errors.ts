import { DomainInputError } from '../input-error.js';

/** Stable codes for misuse of the sitemap module; match on these, not on messages. */
export type SitemapErrorCode = 'SITEMAP_OPTIONS_INVALID' | 'SITEMAP_URL_INVALID';

/**
 * Thrown for programming or configuration errors only: bad limits, a sitemap URL or a declaring
 * origin that is not an absolute http(s) URL (both come from our own records, never from the
 * body). Untrusted sitemap bodies never throw: what they get wrong is refused and counted.
 */
export class SitemapError extends DomainInputError<SitemapErrorCode> {
  override readonly name = 'SitemapError';
}

