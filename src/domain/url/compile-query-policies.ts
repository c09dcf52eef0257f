import { tryCanonicalizeUrl } from './canonicalize.js';
import { compilePolicies, type OriginQueryPolicy, type QueryPolicySet } from './query-policy.js';

/**
 * Validates and compiles the per-origin query policy config (docs/url-canonicalization.md).
 * Origins are canonicalized, so `https://SHOP.example:443` and `https://shop.example` are one.
 * @throws QueryPolicyConfigError naming the bad entry (index), field and what to write instead.
 */
export function compileQueryPolicies(config: readonly OriginQueryPolicy[]): QueryPolicySet {
  return compilePolicies(config, (origin) => {
    const parsed = tryCanonicalizeUrl(origin);
    // An origin has no path, query or fragment: `https://h/` at most.
    if (!parsed.ok || !/^https?:\/\/[^/?#]+\/?$/i.test(origin.trim())) return undefined;
    return parsed.value.origin;
  });
}
