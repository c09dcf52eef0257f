import { resolveHref } from './resolve.js';

/** Link header values read at most: a header is untrusted and may be long. */
const MAX_LINK_HEADER_CHARS = 8192;

/**
 * The target of the first `rel="canonical"` link in an HTTP `Link` header (RFC 8288), resolved
 * against `baseUrl`; undefined when there is none or it is no http(s) URL. Several values,
 * parameters in any order and case, quoted or bare rel values, and several relation types in one
 * rel (`rel="canonical alternate"`) are understood; anything malformed is skipped.
 */
export function canonicalFromLinkHeader(header: string | undefined, baseUrl: string): string | undefined {
  if (header === undefined) return undefined;
  const text = header.slice(0, MAX_LINK_HEADER_CHARS);
  // Each link-value is `<URI-Reference>` followed by `;`-separated parameters; a URI may hold commas.
  const linkValue = /<([^>]*)>((?:\s*;\s*[^;,<]*(?:"[^"]*"[^;,<]*)?)*)/g;
  for (const match of text.matchAll(linkValue)) {
    const params = match[2] ?? '';
    const rel = /;\s*rel\s*=\s*(?:"([^"]*)"|([^\s;,"]+))/i.exec(params);
    const types = (rel?.[1] ?? rel?.[2] ?? '').toLowerCase().split(/\s+/);
    if (!types.includes('canonical')) continue;
    const resolved = resolveHref((match[1] ?? '').trim(), baseUrl);
    if (resolved !== undefined) return resolved;
  }
  return undefined;
}
