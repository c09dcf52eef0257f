// Canonicalization (docs/design.md, "URL identity"): converge representations the crawler may treat as the same
// resource, and nothing more. Aggressive global rules (lowercasing paths, sorting queries,
// stripping parameters) merge distinct resources, so they live in per-origin verified policies.

import { UrlRejectedError } from './errors.js';
import { canonicalizeAuthority, DEFAULT_PORTS } from './host.js';
import { removeDotSegments } from './dot-segments.js';
import { encodeQueryRaw, normalizePathEncoding } from './percent-encoding.js';
import { applyQueryPolicy, type QueryPolicySet } from './query-policy.js';
import { splitAbsoluteUrl } from './split.js';

/**
 * Version of the rules below. Stored beside every fingerprint (`canonicalization_version`):
 * any change to the output for some input is a new version, because old fingerprints no
 * longer match.
 */
export const CANONICALIZATION_VERSION = 1;

/** Default maximum length of a canonical URL, in UTF-16 code units (all ASCII after encoding). */
export const DEFAULT_MAX_URL_LENGTH = 2048;

/**
 * Raw input may be this many times longer than the limit (fragments, non-ASCII that gets
 * encoded) before we refuse it unread; bounds the work an adversarial link can cause.
 */
const MAX_INPUT_FACTOR = 4;

/** A URL in canonical form, with the parts other modules key on. */
export interface CanonicalUrl {
  /** The canonical string: `scheme://host[:port]/path[?query]`, no fragment. */
  url: string;
  scheme: 'http' | 'https';
  /** Lowercase ASCII hostname (IDNA → punycode), dotted IPv4, or IPv6 in brackets. */
  host: string;
  /** Effective port: explicit, else 80 for http and 443 for https. */
  port: number;
  /** `scheme://host[:port when not default]`: the robots cache and query-policy key (docs/design.md, "robots.txt": an origin includes the port). */
  origin: string;
  /** Normalized path, always starting with '/'. */
  path: string;
  /** Query without '?', exactly as canonicalized; undefined when the URL has no '?'. */
  query: string | undefined;
  /** The request target: path plus `?query` when there is a '?' (used for robots matching). */
  pathAndQuery: string;
  /** CANONICALIZATION_VERSION that produced this value. */
  version: number;
}

export interface CanonicalizeOptions {
  /** Verified per-origin query policies (compileQueryPolicies). Default: none, queries stay opaque. */
  queryPolicies?: QueryPolicySet;
  /** Longest accepted canonical URL, in characters. Default 2048 (DEFAULT_MAX_URL_LENGTH). */
  maxUrlLength?: number;
}

/**
 * The canonical form of an absolute http(s) URL:
 * - scheme and host lowercased (host through IDNA; IPv4 and IPv6 in their standard forms);
 *   path and query case preserved;
 * - the scheme's default port dropped, any other port kept;
 * - fragment dropped (a '?' after '#' is part of the fragment);
 * - path: `\` → `/`, escapes of unreserved characters decoded, other escapes uppercased, raw
 *   unsendable characters encoded as UTF-8, dot segments removed, empty → `/`;
 * - query opaque: only raw unsendable characters are encoded; order, empty values, `?flag`
 *   vs `?flag=`, `%2F` vs `/` and a bare trailing `?` are kept, unless a verified policy for
 *   the origin says otherwise.
 * URLs with userinfo are rejected before anything else. Idempotent.
 * @throws UrlRejectedError and nothing else for any input string.
 */
export function canonicalizeUrl(input: string, options: CanonicalizeOptions = {}): CanonicalUrl {
  const maxUrlLength = options.maxUrlLength ?? DEFAULT_MAX_URL_LENGTH;
  if (!Number.isInteger(maxUrlLength) || maxUrlLength < 1) {
    throw new RangeError(`CanonicalizeOptions.maxUrlLength = ${maxUrlLength}: must be a positive integer`);
  }
  if (typeof input !== 'string') throw new UrlRejectedError('empty', '', `expected a string, got ${typeof input}`);
  try {
    return canonicalizeChecked(input, maxUrlLength, options.queryPolicies);
  } catch (error) {
    if (error instanceof UrlRejectedError) throw error;
    // A bug here must not take down a workflow task on one bad link; the fuzz tests look for this detail.
    throw new UrlRejectedError('malformed', input, `internal canonicalizer error ${error instanceof Error ? error.name : 'unknown'}`);
  }
}

/** canonicalizeUrl without exceptions, for hot paths such as link extraction. */
export function tryCanonicalizeUrl(
  input: string,
  options?: CanonicalizeOptions,
): { ok: true; value: CanonicalUrl } | { ok: false; error: UrlRejectedError } {
  try {
    return { ok: true, value: canonicalizeUrl(input, options) };
  } catch (error) {
    if (error instanceof UrlRejectedError) return { ok: false, error };
    throw error;
  }
}

function canonicalizeChecked(input: string, maxUrlLength: number, policies: QueryPolicySet | undefined): CanonicalUrl {
  const raw = splitAbsoluteUrl(input, maxUrlLength * MAX_INPUT_FACTOR);
  const { host, port } = canonicalizeAuthority(raw.authority, raw.scheme, input);
  const origin = port === DEFAULT_PORTS[raw.scheme] ? `${raw.scheme}://${host}` : `${raw.scheme}://${host}:${port}`;

  let path = removeDotSegments(normalizePathEncoding(raw.path)) || '/';
  let query = raw.query === undefined ? undefined : encodeQueryRaw(raw.query);
  const policy = policies?.forOrigin(origin);
  if (policy) ({ path, query } = applyQueryPolicy(policy, path, query));

  const pathAndQuery = query === undefined ? path : `${path}?${query}`;
  const url = origin + pathAndQuery;
  if (url.length > maxUrlLength) {
    throw new UrlRejectedError('too-long', input, `canonical form has ${url.length} characters, limit ${maxUrlLength}`);
  }
  return { url, scheme: raw.scheme, host, port, origin, path, query, pathAndQuery, version: CANONICALIZATION_VERSION };
}
