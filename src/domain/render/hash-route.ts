/**
 * Hash routes (docs/design.md, "URL identity"): a client-side router may draw `#/products/42` as a screen of its own,
 * though the fragment never reaches the server. The HTTP fingerprint never includes a fragment;
 * on a site allowlisted for rendering, such a route is a render task of the page with a virtual
 * route key, its own rendered DOM, links and record.
 */

/** Routes taken from one page at most: a router's links are many on a big application. */
export const MAX_HASH_ROUTES_PER_PAGE = 20;

/**
 * The route key of a link that is a hash route of `pageUrl`, or undefined. A hash route is a
 * fragment starting `#/` or `#!/` (the two conventions routers use) on the page's own document;
 * a plain anchor (`#reviews`) is a place on the page, not a route. The key is the fragment, `#`
 * included, without trailing slashes, at most 200 characters.
 */
export function hashRouteKeyOf(href: string, pageUrl: string): string | undefined {
  let link: URL;
  let page: URL;
  try {
    page = new URL(pageUrl);
    link = new URL(href, pageUrl);
  } catch {
    return undefined;
  }
  if (link.origin !== page.origin || link.pathname !== page.pathname || link.search !== page.search) return undefined;
  const fragment = link.hash;
  if (!fragment.startsWith('#/') && !fragment.startsWith('#!/')) return undefined;
  const key = fragment.replace(/\/+$/, '');
  if (key === '#' || key === '#!' || key.length > 200) return undefined;
  return key;
}

/** The distinct route keys among `hrefs`, in order, at most MAX_HASH_ROUTES_PER_PAGE, without `except` (the route being rendered). */
export function hashRoutesOf(hrefs: readonly string[], pageUrl: string, except?: string): string[] {
  const keys: string[] = [];
  for (const href of hrefs) {
    const key = hashRouteKeyOf(href, pageUrl);
    if (key === undefined || key === except || keys.includes(key)) continue;
    keys.push(key);
    if (keys.length === MAX_HASH_ROUTES_PER_PAGE) break;
  }
  return keys;
}
