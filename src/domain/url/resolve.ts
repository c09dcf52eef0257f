// Link resolution (docs/design.md, "Discovery"): a raw href becomes an absolute URL against its page, by
// RFC 3986 §5.2 with the browser quirks a page author relies on. Canonicalization comes after.

import { tryCanonicalizeUrl } from './canonicalize.js';
import { removeDotSegments } from './dot-segments.js';
import { parserView } from './redact.js';

interface Reference {
  scheme: string | undefined;
  authority: string | undefined;
  path: string;
  query: string | undefined;
  fragment: string | undefined;
}

const SCHEME = /^([A-Za-z][A-Za-z0-9+.-]*):/;

/**
 * The absolute http(s) URL a link points to, or undefined when it points nowhere we crawl:
 * `mailto:`, `javascript:`, `data:`, `tel:` and other schemes, or a result canonicalization
 * would reject (malformed host, userinfo, ...). Handles relative (`../a`), root-relative
 * (`/a`), protocol-relative (`//host/a`), query-only (`?q`) and absolute references. Tabs and
 * newlines are ignored and `\` read as `/` before the query, as browsers do. The query and
 * fragment are kept as written; canonicalizeUrl decides what to keep.
 * @param baseUrl the document's base: its URL, or its `<base href>` already resolved.
 */
export function resolveHref(href: string, baseUrl: string): string | undefined {
  const resolved = resolveLink(href, baseUrl);
  return resolved.ok && tryCanonicalizeUrl(resolved.url).ok ? resolved.url : undefined;
}

/**
 * resolveHref's resolution step alone, without checking that canonicalization accepts the
 * result, so a caller can learn why it does not (decideRedirect reports the exact code).
 */
export function resolveLink(
  href: string,
  baseUrl: string,
): { ok: true; url: string } | { ok: false; reason: 'unsupported-scheme' | 'malformed'; detail: string } {
  const base = parseReference(parserView(baseUrl));
  if (!base?.scheme || base.authority === undefined) return { ok: false, reason: 'malformed', detail: 'the base URL is not absolute' };
  const baseScheme = base.scheme.toLowerCase();
  if (baseScheme !== 'http' && baseScheme !== 'https') return { ok: false, reason: 'unsupported-scheme', detail: 'the base URL is not http(s)' };

  const ref = parseReference(parserView(href));
  if (ref.scheme !== undefined) {
    const scheme = ref.scheme.toLowerCase();
    if (scheme !== 'http' && scheme !== 'https') return { ok: false, reason: 'unsupported-scheme', detail: `scheme "${scheme}"` };
    // `http:page.html` on an http page is relative (RFC 3986 §5.2.2 non-strict, WHATWG).
    if (ref.authority === undefined && scheme !== baseScheme) return { ok: false, reason: 'malformed', detail: 'absolute URL without "//"' };
    ref.scheme = ref.authority === undefined ? undefined : scheme;
  }

  const target = resolveReference(ref, { ...base, scheme: baseScheme });
  const url =
    `${target.scheme}://${target.authority}${target.path}` +
    (target.query === undefined ? '' : `?${target.query}`) +
    (target.fragment === undefined ? '' : `#${target.fragment}`);
  return { ok: true, url };
}

/** RFC 3986 §5.2.2, with `base` already known to be absolute. */
function resolveReference(ref: Reference, base: Reference): Reference {
  const out: Reference = { scheme: base.scheme, authority: base.authority, path: '', query: undefined, fragment: ref.fragment };
  if (ref.scheme !== undefined) {
    out.scheme = ref.scheme;
    out.authority = ref.authority;
    out.path = removeDotSegments(ref.path);
    out.query = ref.query;
  } else if (ref.authority !== undefined) {
    out.authority = ref.authority;
    out.path = removeDotSegments(ref.path);
    out.query = ref.query;
  } else if (ref.path === '') {
    out.path = base.path;
    out.query = ref.query ?? base.query;
  } else {
    out.path = removeDotSegments(ref.path.startsWith('/') ? ref.path : merge(base, ref.path));
    out.query = ref.query;
  }
  return out;
}

function merge(base: Reference, relativePath: string): string {
  if (base.path === '') return `/${relativePath}`;
  return base.path.slice(0, base.path.lastIndexOf('/') + 1) + relativePath;
}

/** RFC 3986 Appendix B, with '\' read as '/' before the query as http(s) browsers do. */
function parseReference(text: string): Reference {
  const hash = text.indexOf('#');
  const beforeFragment = hash < 0 ? text : text.slice(0, hash);
  const question = beforeFragment.indexOf('?');
  const hierarchical = (question < 0 ? beforeFragment : beforeFragment.slice(0, question)).replace(/\\/g, '/');
  const query = question < 0 ? undefined : beforeFragment.slice(question + 1);
  const fragment = hash < 0 ? undefined : text.slice(hash + 1);

  const schemeMatch = SCHEME.exec(hierarchical);
  const scheme = schemeMatch ? (schemeMatch[1] as string) : undefined;
  let rest = schemeMatch ? hierarchical.slice(schemeMatch[0].length) : hierarchical;
  let authority: string | undefined;
  if (rest.startsWith('//')) {
    const end = rest.indexOf('/', 2);
    authority = end < 0 ? rest.slice(2) : rest.slice(2, end);
    rest = end < 0 ? '' : rest.slice(end);
  }
  return { scheme, authority, path: rest, query, fragment };
}
