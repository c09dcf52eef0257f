// Per-origin query policies. Stripping, sorting or re-encoding a query is only safe where
// someone verified that the origin serves the same resource either way (docs/design.md, "URL identity"), so the
// policy set is an allowlist keyed by origin and empty by default.

import { nameKey, pairNameKey, queryPairs } from './query-params.js';
import { normalizeQueryEncoding } from './percent-encoding.js';
import { redactUserinfo } from './redact.js';

/**
 * One verified origin's rule, as written in the JSON config (docs/url-canonicalization.md).
 * Every field but `origin` is optional and defaults to "leave the URL alone".
 */
export interface OriginQueryPolicy {
  /** `scheme://host[:port]`, e.g. `https://shop.example`; no path, query or userinfo. */
  origin: string;
  /** Parameter names removed wherever they occur (compared after escape normalization, case-sensitive). Default none. */
  stripParams?: string[];
  /** Parameters whose name starts with one of these are removed, e.g. `utm_`. Default none. */
  stripParamPrefixes?: string[];
  /** Sort pairs by name; pairs with the same name keep their order (`q=a&q=b`). Default false. */
  sortParams?: boolean;
  /** `strip` removes trailing slashes except on `/`; `add` adds one unless the last segment has a dot (a file name). Default `keep`. */
  trailingSlash?: 'keep' | 'strip' | 'add';
  /** Drop a bare `?` (`/a?` → `/a`). Default false. */
  dropEmptyQuery?: boolean;
  /** Decode unreserved escapes and uppercase the rest in the query, as in the path. Default false. */
  normalizeQueryEscapes?: boolean;
  /** Free text: who verified the rule, when, and how. Not interpreted. */
  note?: string;
}

/** A compiled policy: what canonicalization applies for one origin. */
export interface CompiledQueryPolicy {
  readonly origin: string;
  readonly stripNames: ReadonlySet<string>;
  readonly stripPrefixes: readonly string[];
  readonly sortParams: boolean;
  readonly trailingSlash: 'keep' | 'strip' | 'add';
  readonly dropEmptyQuery: boolean;
  readonly normalizeQueryEscapes: boolean;
}

/** Validated policies keyed by canonical origin. Build with compileQueryPolicies. */
export class QueryPolicySet {
  static readonly empty = new QueryPolicySet(new Map());

  private constructor(private readonly byOrigin: ReadonlyMap<string, CompiledQueryPolicy>) {}

  /** @internal use compileQueryPolicies. */
  static fromCompiled(policies: readonly CompiledQueryPolicy[]): QueryPolicySet {
    return new QueryPolicySet(new Map(policies.map((policy) => [policy.origin, policy])));
  }

  /** The policy for a canonical origin (`CanonicalUrl.origin`), if one is configured. */
  forOrigin(origin: string): CompiledQueryPolicy | undefined {
    return this.byOrigin.get(origin);
  }

  /** Number of configured origins. */
  get size(): number {
    return this.byOrigin.size;
  }

  /** Configured origins, in config order. */
  origins(): string[] {
    return [...this.byOrigin.keys()];
  }
}

/** Stable codes for a bad query-policy config. */
export type QueryPolicyConfigErrorCode = 'QUERY_POLICY_INVALID_ENTRY' | 'QUERY_POLICY_INVALID_ORIGIN' | 'QUERY_POLICY_DUPLICATE_ORIGIN' | 'QUERY_POLICY_INVALID_FIELD' | 'QUERY_POLICY_UNKNOWN_FIELD';

/** A query-policy config entry that cannot be used; names the entry and the field to fix. */
export class QueryPolicyConfigError extends Error {
  override readonly name = 'QueryPolicyConfigError';

  /**
   * @param code stable reason.
   * @param entryIndex position of the bad entry in the config array.
   * @param field the bad field, or undefined for the entry as a whole.
   */
  constructor(
    readonly code: QueryPolicyConfigErrorCode,
    readonly entryIndex: number,
    readonly field: string | undefined,
    message: string,
  ) {
    super(`queryPolicies[${entryIndex}]${field ? `.${field}` : ''}: ${message}`);
  }
}

/** Turns a config origin into `CanonicalUrl.origin` form, or undefined if it is not an origin. */
export type OriginCanonicalizer = (origin: string) => string | undefined;

const KNOWN_FIELDS = new Set([
  'origin',
  'stripParams',
  'stripParamPrefixes',
  'sortParams',
  'trailingSlash',
  'dropEmptyQuery',
  'normalizeQueryEscapes',
  'note',
]);

/**
 * Validates a policy config (typically parsed JSON) and compiles it.
 * @throws QueryPolicyConfigError naming the first bad entry and field.
 */
export function compilePolicies(config: readonly OriginQueryPolicy[], canonicalOrigin: OriginCanonicalizer): QueryPolicySet {
  if (!Array.isArray(config)) throw new QueryPolicyConfigError('QUERY_POLICY_INVALID_ENTRY', 0, undefined, 'the config must be an array of policies');
  const compiled: CompiledQueryPolicy[] = [];
  const seen = new Map<string, number>();
  config.forEach((entry: unknown, index) => {
    if (typeof entry !== 'object' || entry === null || Array.isArray(entry)) {
      throw new QueryPolicyConfigError('QUERY_POLICY_INVALID_ENTRY', index, undefined, 'each policy must be an object with an "origin"');
    }
    const raw = entry as Record<string, unknown>;
    for (const key of Object.keys(raw)) {
      if (!KNOWN_FIELDS.has(key)) {
        throw new QueryPolicyConfigError('QUERY_POLICY_UNKNOWN_FIELD', index, key, `unknown field; expected one of ${[...KNOWN_FIELDS].join(', ')}`);
      }
    }
    const origin = typeof raw.origin === 'string' ? canonicalOrigin(raw.origin) : undefined;
    if (origin === undefined) {
      throw new QueryPolicyConfigError('QUERY_POLICY_INVALID_ORIGIN', index, 'origin', `${JSON.stringify(typeof raw.origin === 'string' ? redactUserinfo(raw.origin) : raw.origin)} is not an origin like "https://shop.example" or "http://host:8080"`);
    }
    const earlier = seen.get(origin);
    if (earlier !== undefined) {
      throw new QueryPolicyConfigError('QUERY_POLICY_DUPLICATE_ORIGIN', index, 'origin', `${origin} is already configured by entry ${earlier}; merge the two`);
    }
    seen.set(origin, index);
    const trailingSlash = raw.trailingSlash ?? 'keep';
    if (trailingSlash !== 'keep' && trailingSlash !== 'strip' && trailingSlash !== 'add') {
      throw new QueryPolicyConfigError('QUERY_POLICY_INVALID_FIELD', index, 'trailingSlash', 'must be "keep", "strip" or "add"');
    }
    compiled.push({
      origin,
      stripNames: new Set(stringList(raw, 'stripParams', index).map(nameKey)),
      stripPrefixes: stringList(raw, 'stripParamPrefixes', index).map(nameKey),
      sortParams: flag(raw, 'sortParams', index),
      trailingSlash,
      dropEmptyQuery: flag(raw, 'dropEmptyQuery', index),
      normalizeQueryEscapes: flag(raw, 'normalizeQueryEscapes', index),
    });
    if (raw.note !== undefined && typeof raw.note !== 'string') {
      throw new QueryPolicyConfigError('QUERY_POLICY_INVALID_FIELD', index, 'note', 'must be a string');
    }
  });
  return QueryPolicySet.fromCompiled(compiled);
}

/**
 * Path and query after an origin's policy. Idempotent: applying it to its own output changes
 * nothing, which canonicalization's idempotence relies on.
 * @param query the query without '?', or undefined when the URL has no '?'.
 */
export function applyQueryPolicy(
  policy: CompiledQueryPolicy,
  path: string,
  query: string | undefined,
): { path: string; query: string | undefined } {
  return { path: applyTrailingSlash(policy.trailingSlash, path), query: applyToQuery(policy, query) };
}

function applyToQuery(policy: CompiledQueryPolicy, query: string | undefined): string | undefined {
  if (query === undefined) return undefined;
  let result = query;
  const restructures = policy.stripNames.size > 0 || policy.stripPrefixes.length > 0 || policy.sortParams || policy.normalizeQueryEscapes;
  if (restructures && query !== '') {
    const source = policy.normalizeQueryEscapes ? normalizeQueryEncoding(query) : query;
    const kept = queryPairs(source).filter((pair) => !isStripped(policy, pairNameKey(pair)));
    if (policy.sortParams) sortStableByName(kept);
    result = kept.join('&');
    // Every pair was tracking-only: drop the delimiter too (`/item/42?utm_source=x` becomes `/item/42`).
    if (result === '') return undefined;
  }
  return result === '' && policy.dropEmptyQuery ? undefined : result;
}

function isStripped(policy: CompiledQueryPolicy, key: string): boolean {
  return policy.stripNames.has(key) || policy.stripPrefixes.some((prefix) => key.startsWith(prefix));
}

function sortStableByName(pairs: string[]): void {
  // Array.prototype.sort is stable (ES2019), so equal names keep their relative order.
  const keys = new Map(pairs.map((pair) => [pair, pairNameKey(pair)]));
  pairs.sort((a, b) => {
    const ka = keys.get(a) as string;
    const kb = keys.get(b) as string;
    return ka < kb ? -1 : ka > kb ? 1 : 0;
  });
}

function applyTrailingSlash(mode: 'keep' | 'strip' | 'add', path: string): string {
  if (mode === 'strip') return path.replace(/\/+$/, '') || '/';
  if (mode === 'add' && !path.endsWith('/')) {
    const last = path.slice(path.lastIndexOf('/') + 1);
    return last.includes('.') ? path : `${path}/`;
  }
  return path;
}

function stringList(raw: Record<string, unknown>, field: string, index: number): string[] {
  const value = raw[field];
  if (value === undefined) return [];
  if (!Array.isArray(value) || !value.every((item) => typeof item === 'string' && item !== '')) {
    throw new QueryPolicyConfigError('QUERY_POLICY_INVALID_FIELD', index, field, 'must be an array of non-empty strings');
  }
  return value as string[];
}

function flag(raw: Record<string, unknown>, field: string, index: number): boolean {
  const value = raw[field];
  if (value === undefined) return false;
  if (typeof value !== 'boolean') throw new QueryPolicyConfigError('QUERY_POLICY_INVALID_FIELD', index, field, 'must be true or false');
  return value;
}
