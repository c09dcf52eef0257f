/** Stable codes for misuse of the sitemap module; match on these, not on messages. */
export type SitemapErrorCode = 'SITEMAP_OPTIONS_INVALID' | 'SITEMAP_URL_INVALID';

/**
 * Thrown for programming or configuration errors only: bad limits, a sitemap URL or a declaring
 * origin that is not an absolute http(s) URL (both come from our own records, never from the
 * body). Untrusted sitemap bodies never throw: what they get wrong is refused and counted.
 */
export class SitemapError extends Error {
  override readonly name = 'SitemapError';

  /**
   * @param code stable code for the kind of mistake.
   * @param field dotted name of the bad input, e.g. `limits.maxEntries`.
   * @param hint what the caller should do instead.
   */
  constructor(
    readonly code: SitemapErrorCode,
    readonly field: string,
    value: unknown,
    hint: string,
  ) {
    super(`${field} = ${describeValue(value)} is invalid: ${hint}`);
  }
}

function describeValue(value: unknown): string {
  if (typeof value === 'string') return JSON.stringify(value.length > 80 ? `${value.slice(0, 80)}…` : value);
  if (typeof value === 'number' || typeof value === 'boolean' || value === undefined || value === null) return String(value);
  return typeof value;
}
