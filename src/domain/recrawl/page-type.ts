/**
 * A page's type for cost reports (docs/design.md, "Cost per detected change": "fetches that found no change, by site and page type"):
 * 'listing' for the crawl's listing pages, else the pattern of its path's first segment, digits
 * folded: '/product/123?x' is '/product/*', '/page-3' is '/page-#', '/' is '/'. Coarse on purpose:
 * a few types per site, which a report can rank, whatever the number of pages.
 */
export function pageTypeOfPath(pathAndQuery: string, isListing = false): string {
  if (isListing) return 'listing';
  const path = pathAndQuery.split(/[?#]/, 1)[0] ?? '';
  const trimmed = path.startsWith('/') ? path.slice(1) : path;
  if (trimmed === '') return '/';
  const slash = trimmed.indexOf('/');
  const first = (slash < 0 ? trimmed : trimmed.slice(0, slash)).replace(/[0-9]+/g, '#');
  return slash < 0 ? `/${first}` : `/${first}/*`;
}
