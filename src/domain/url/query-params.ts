// Query parameters as `&`-separated pairs, only for origins and heuristics that need structure.
// Splitting never decodes values: the default query stays opaque.

import { encodeQueryRaw, normalizeQueryEncoding } from './percent-encoding.js';

/** The `name=value` pairs of `query`, empty pairs (`a=1&&b=2`) left out. */
export function queryPairs(query: string): string[] {
  return query === '' ? [] : query.split('&').filter((pair) => pair !== '');
}

/**
 * A pair's name in comparable form: `utm%5Fsource` and `utm_source` compare equal, while `+`
 * and case stay significant.
 */
export function pairNameKey(pair: string): string {
  const eq = pair.indexOf('=');
  return nameKey(eq < 0 ? pair : pair.slice(0, eq));
}

/** A configured or observed parameter name in the same comparable form as pairNameKey. */
export function nameKey(name: string): string {
  return normalizeQueryEncoding(encodeQueryRaw(name));
}
