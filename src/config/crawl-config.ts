/**
 * What one crawl is allowed to do. Stored with the crawl (Postgres `crawls.config`) so that every
 * worker applies the same rules, and passed to the frontier workflow as its input.
 * Plain JSON: it travels through Temporal payloads.
 */
export interface CrawlConfig {
  /** Product token and contact, sent on every request. Default {@link DEFAULT_USER_AGENT}. */
  userAgent: string;
  /** Stop admitting URLs once this many have been handed to host queues. Default 1,000. */
  maxPages: number;
  /** Links deeper than this many hops from a seed are not registered. Default 5. */
  maxDepth: number;
  /** Minimum time between two requests to one host, in milliseconds. Default 1,000. */
  minHostDelayMs: number;
  /** Requests one host may have in flight at once. Default 1 (000 §5.1). */
  maxConcurrentFetchesPerHost: number;
  /** Loopback, private and link-local addresses are refused unless this is true. Default false. */
  allowPrivateNetworks: boolean;
  /** Wire body cap in bytes; longer bodies are cut off. Default 10 MiB. */
  maxBodyBytes: number;
  /** Decoded body cap in bytes (gzip/br/deflate bombs). Default 40 MiB. */
  maxDecompressedBytes: number;
  /** URLs (fetched or failed) the whole crawl may have in flight at once. Default 200. */
  maxInFlight: number;
  /** Which discovered links stay in the crawl. */
  scope: CrawlScopeConfig;
  /** Follow links marked rel=nofollow. Default false. */
  followNofollowLinks: boolean;
  /** Per-origin verified query policies (see docs/url-canonicalization.md). Default none. */
  queryPolicies: unknown[];
  /** New URLs the crawl may register (its discovery budget). Default 20 x maxPages. */
  maxDiscoveredUrls: number;
}

export interface CrawlScopeConfig {
  /** Default 'same-registrable-domain'. */
  mode: 'same-host' | 'same-registrable-domain' | 'any';
  /** URL prefixes that stay in scope even when `mode` would drop them. */
  allowPrefixes: string[];
  /** URL prefixes that are never crawled. Most specific prefix wins over allowPrefixes. */
  denyPrefixes: string[];
}

export const DEFAULT_USER_AGENT = 'DurableCrawler/0.1 (+https://example.invalid/crawler-contact)';

export const DEFAULT_CRAWL_CONFIG: CrawlConfig = {
  userAgent: DEFAULT_USER_AGENT,
  maxPages: 1000,
  maxDepth: 5,
  minHostDelayMs: 1000,
  maxConcurrentFetchesPerHost: 1,
  allowPrivateNetworks: false,
  maxBodyBytes: 10 * 1024 * 1024,
  maxDecompressedBytes: 40 * 1024 * 1024,
  maxInFlight: 200,
  scope: { mode: 'same-registrable-domain', allowPrefixes: [], denyPrefixes: [] },
  followNofollowLinks: false,
  queryPolicies: [],
  maxDiscoveredUrls: 20_000,
};

export class CrawlConfigError extends Error {
  constructor(
    readonly field: string,
    message: string,
  ) {
    super(`${field}: ${message}`);
    this.name = 'CrawlConfigError';
  }
}

function requireInteger(field: string, value: number, min: number, max = Number.MAX_SAFE_INTEGER): void {
  if (!Number.isInteger(value) || value < min || value > max) {
    throw new CrawlConfigError(field, `expected an integer from ${min} to ${max}, got ${String(value)}`);
  }
}

/** Fills defaults and validates once, at the boundary; everything downstream trusts the result. */
export function resolveCrawlConfig(partial: Partial<CrawlConfig> = {}): CrawlConfig {
  const config: CrawlConfig = {
    ...DEFAULT_CRAWL_CONFIG,
    ...partial,
    scope: { ...DEFAULT_CRAWL_CONFIG.scope, ...(partial.scope ?? {}) },
  };
  if (partial.maxDiscoveredUrls === undefined) config.maxDiscoveredUrls = Math.max(1000, config.maxPages * 20);
  requireInteger('maxPages', config.maxPages, 1);
  requireInteger('maxDepth', config.maxDepth, 0, 1000);
  requireInteger('minHostDelayMs', config.minHostDelayMs, 0, 24 * 3600 * 1000);
  requireInteger('maxConcurrentFetchesPerHost', config.maxConcurrentFetchesPerHost, 1, 64);
  requireInteger('maxBodyBytes', config.maxBodyBytes, 1024);
  requireInteger('maxDecompressedBytes', config.maxDecompressedBytes, config.maxBodyBytes);
  requireInteger('maxInFlight', config.maxInFlight, 1, 100_000);
  requireInteger('maxDiscoveredUrls', config.maxDiscoveredUrls, 1);
  if (!config.userAgent.trim() || /[\r\n]/.test(config.userAgent)) {
    throw new CrawlConfigError('userAgent', 'must be one non-empty line, e.g. "MyCrawler/1.0 (+https://you.example/bot)"');
  }
  if (!['same-host', 'same-registrable-domain', 'any'].includes(config.scope.mode)) {
    throw new CrawlConfigError('scope.mode', `expected same-host, same-registrable-domain or any, got ${String(config.scope.mode)}`);
  }
  return config;
}
