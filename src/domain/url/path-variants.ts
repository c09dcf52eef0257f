// What makes two URLs "variants of one path" for trap detection (docs/design.md, "Crawler traps"): the same
// scheme, host and path once the query and `;name=value` path parameters are set aside.
// Servlet containers put session ids in the path (`/cart;jsessionid=A1`), so counting only
// queries would let a session trap mint a new "path" on every visit.

import type { CanonicalUrl } from './canonicalize.js';
import { pairNameKey, queryPairs } from './query-params.js';

const PATH_PARAM = /;[^/;=]*=[^/;]*/g;

/** `path` without its `;name=value` parameters: `/shop/item/1;jsessionid=AB` → `/shop/item/1`. */
export function pathWithoutParams(path: string): string {
  return path.replace(PATH_PARAM, '');
}

/**
 * Whether `url` is a variant of its path (the path without parameters): it has a query or
 * `;name=value` path parameters. `/cal?m=1`, `/cal?m=2` and `/cal;s=9` are three variants of
 * `/cal`; `/cal` itself is not a variant.
 */
export function isPathVariant(url: CanonicalUrl): boolean {
  return url.query !== undefined || pathWithoutParams(url.path) !== url.path;
}

/**
 * The URL with its session-id parameters removed (from the query and from `;name=value` path
 * parameters), or undefined when it has none. Not a canonicalization rule: the crawler never
 * fetches this form on its own; it only asks whether the crawl already knows the page under it.
 * @param sessionParamNames names compared case-insensitively (DEFAULT_SESSION_PARAM_NAMES unless the crawl sets its own).
 */
export function withoutSessionParams(url: CanonicalUrl, sessionParamNames: readonly string[]): string | undefined {
  const names = new Set(sessionParamNames.map((name) => name.toLowerCase()));
  let changed = false;
  const path = url.path.replace(PATH_PARAM, (param) => {
    const name = param.slice(1, param.indexOf('=')).toLowerCase();
    if (!names.has(name)) return param;
    changed = true;
    return '';
  });
  let query = url.query;
  if (query !== undefined && query !== '') {
    const pairs = queryPairs(query);
    const kept = pairs.filter((pair) => !names.has(pairNameKey(pair).toLowerCase()));
    if (kept.length !== pairs.length) {
      changed = true;
      query = kept.length === 0 ? undefined : kept.join('&');
    }
  }
  if (!changed) return undefined;
  return `${url.origin}${path || '/'}${query === undefined ? '' : `?${query}`}`;
}
