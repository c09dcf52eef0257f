import {
  QueryPolicyConfigError,
  ScopeConfigError,
  TrapOptionsError,
  assessTrap,
  canonicalizeUrl,
  compileQueryPolicies,
  createScopeChecker,
  type OriginQueryPolicy,
  type TrapOptions,
} from '../domain/url/index.js';

import { RecrawlInputError, validateCostModel, type CostModel } from '../domain/recrawl/index.js';
import { changeFieldSelectorProblem } from '../parse/change-fields.js';
import { politenessConfigProblem, type CrawlPolitenessConfig } from './politeness-config.js';
import { DEFAULT_RENDER_CONFIG, resolveRenderConfig, type CrawlRenderConfig } from './render-config.js';
import { RenderInputError } from '../domain/render/index.js';

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
  /** URLs more than this many links from the seeds, by the shortest path found so far, are not registered. Default 5. */
  maxDepth: number;
  /** Minimum time between two requests to one host, in milliseconds. Default 1,000. */
  minHostDelayMs: number;
  /** Requests one host may have in flight at once. Default 1 (docs/design.md, "Politeness"). */
  maxConcurrentFetchesPerHost: number;
  /** Loopback, private and link-local addresses are refused unless this is true. Default false. */
  allowPrivateNetworks: boolean;
  /** Wire body cap in bytes; longer bodies are cut off. Default 10 MiB. */
  maxBodyBytes: number;
  /** Decoded body cap in bytes (gzip/br/deflate bombs). Default 40 MiB. */
  maxDecompressedBytes: number;
  /** Connect deadline of one fetch (DNS, TCP, TLS), ms. Default 10,000. */
  connectTimeoutMs: number;
  /** From the request sent to the response head, ms. Default 30,000. */
  firstByteTimeoutMs: number;
  /** Whole-body deadline from the response head, ms. Default 60,000. */
  bodyTimeoutMs: number;
  /** Politeness and retry knobs beyond the delay (docs/politeness.md). Default {} (every default). */
  politeness: CrawlPolitenessConfig;
  /**
   * URLs the whole crawl may have handed to host queues and not yet settled. Default 1,000. A
   * host's claimed URLs wait in its queue for its delay, so by Little's law the limit must cover
   * the hosts fetched at once times a few URLs each; below that, claims shrink and each page costs
   * more history events (bench/README.md, "Figures behind the defaults").
   */
  maxInFlight: number;
  /** Which discovered links stay in the crawl. */
  scope: CrawlScopeConfig;
  /** Follow links marked rel=nofollow (a page's `<meta name=robots content=nofollow>` is always obeyed). Default false. */
  followNofollowLinks: boolean;
  /** Per-origin verified query policies, the JSON format of docs/url-canonicalization.md. Default none. */
  queryPolicies: OriginQueryPolicy[];
  /** New URLs the crawl may register (its discovery budget). Default 20 x maxPages, at least 1,000. */
  maxDiscoveredUrls: number;
  /**
   * Crawler-trap thresholds (docs/design.md and docs/url-canonicalization.md, "Crawler traps"). Fields left
   * out keep assessTrap's defaults; the crawl's depth limit is `maxDepth`. Default {}.
   */
  traps: CrawlTrapConfig;
  /**
   * Distinct URLs the seen test's in-memory Bloom filter (one per crawl per worker process) is
   * sized for (docs/design.md, "Seen test"). Past it the filter saturates: more of its positives are false and cost
   * an exact lookup, never a lost URL. 0 turns the filter off (every URL goes to Postgres).
   * Default maxDiscoveredUrls, at least 10,000; at most 100,000,000.
   */
  seenFilterCapacity: number;
  /** False-positive rate the filter is sized for at capacity, in (0, 0.5]. Default 0.01 (9.6 bits per URL). */
  seenFilterFalsePositiveRate: number;
  /**
   * Fields whose text decides whether a page changed, instead of its whole main text: field name to
   * CSS selector, e.g. {"price": ".price", "stock": "#availability"} for a price monitor
   * (docs/storage-and-recrawl.md, "Change detection"). A field's text is that of every element its
   * selector matches, normalized like the main text, its first 2,000 characters; it is stored in
   * `documents.extracted.changeFields`. A page none of the fields match is compared by its main
   * text. Changing the fields makes each page's next visit a baseline, not a change. Names match
   * ^[a-z][a-z0-9_-]*$ (64 characters at most), at most 32 fields; selectors are what cheerio
   * accepts. Default {} (the main text decides). Crawls stored before this option have none.
   */
  changeFields: Record<string, string>;
  /**
   * URL prefixes of listing pages (category, search or index pages that show their items' prices,
   * dates or status): when such a page is parsed, the text of each linked item's entry is kept,
   * and an entry that changed says its item changed, one that did not says it did not, without
   * visiting the items (docs/design.md, "Cost per detected change": listing pages as change detectors; docs/storage-and-recrawl.md).
   * Recrawl cycles re-read these pages first. Stored in canonical form; at most 100. Default [].
   */
  listingPages: string[];
  /**
   * Which sitemaps a crawl reads to discover pages (sitemaps.org): `declared`, those each origin's
   * robots.txt declares; `declared-and-default`, those, and `/sitemap.xml` of each seed origin
   * whose robots.txt declares none; `off`, none. A sitemap is a frontier entry fetched under the
   * same robots and politeness rules as a page, and the URLs it lists are registered like links
   * (scope, traps, the discovery budget). Recrawl cycles read the declared ones in their signal
   * sweep whatever this says. Default 'declared': probing every seed origin for a /sitemap.xml it
   * did not declare costs a request per origin, most of them 404s.
   */
  sitemaps: SitemapDiscoveryMode;
  /**
   * Highest priority (0..1) a URL a sitemap or feed lists can reach by its listed `<priority>` or a
   * recent lastmod; its priority as a link one level below the site's root is the floor. Default
   * {@link DEFAULT_SITEMAP_PRIORITY_CAP}: above a link of a seed page, below a seed.
   */
  sitemapPriorityCap: number;
  /**
   * Proxies every request of the crawl goes through (docs/proxies.md), robots.txt included. Their
   * user:password never goes here: this config is stored and shown; each worker reads them from
   * its environment or a file (CRAWLER_PROXY_CREDENTIALS, CRAWLER_PROXY_CREDENTIALS_FILE).
   * Politeness is the same as without: a host's rate is the host's, whatever exits the traffic.
   * Default none (absent): requests go direct.
   */
  proxy?: CrawlProxyConfig;
  /**
   * How the operator pays for the crawl's fetches (docs/storage-and-recrawl.md, "What a fetch
   * costs"): 'gateway-bytes' (bytes through a proxy gateway, failures included), 'successful-requests'
   * (API credits, failures free) or 'direct-bytes', at `price` per GB or per request. Recrawl cycles
   * price their visits by its unit, and status and cycle summaries report the bill. Default (absent):
   * 'gateway-bytes' with proxies, else 'direct-bytes', price 0 (bytes and requests, no amount).
   */
  costModel?: CostModel;
  /**
   * Rendering pages built by JavaScript in a browser (docs/rendering.md): mode, allow and deny
   * rules, third-party origins, budget and times. Default mode 'never'; crawls stored before
   * rendering have none (never).
   */
  render?: CrawlRenderConfig;
}

/** CrawlConfig.sitemaps. */
export type SitemapDiscoveryMode = 'declared' | 'declared-and-default' | 'off';
export const SITEMAP_DISCOVERY_MODES: readonly SitemapDiscoveryMode[] = ['declared', 'declared-and-default', 'off'];

/** 0.55: a link found on a seed page ranks about 0.45, a seed about 0.56 (DEFAULT_PRIORITY_WEIGHTS). */
export const DEFAULT_SITEMAP_PRIORITY_CAP = 0.55;

/** Where a crawl's requests exit (CrawlConfig.proxy). */
export interface CrawlProxyConfig {
  /** Proxy URLs, http: or https:, without user:password and path, e.g. "http://gateway.example:8000"; 1 to 100, stored as origins. */
  urls: string[];
  /**
   * Requests a host sends through one proxy before it moves to the next of the list: a session,
   * so what the host sees (exit address, cookies a gateway keeps per session) stays consistent.
   * A failure of its proxy ends a host's session at once. Default 100.
   */
  sessionRequests: number;
}

/** Most proxies one crawl may list. */
export const MAX_PROXIES = 100;
/** Requests per host session on one proxy when the crawl does not say. */
export const DEFAULT_PROXY_SESSION_REQUESTS = 100;

/** assessTrap's options as a crawl sets them; the depth limit is the crawl's own `maxDepth`. */
export type CrawlTrapConfig = Omit<TrapOptions, 'maxDepth'>;

/** The domain's ScopeOptions as a crawl stores them (src/domain/url/scope.ts). */
export interface CrawlScopeConfig {
  /**
   * Hosts a discovered URL may be on, relative to the seeds' hosts: `same-host`,
   * `same-registrable-domain` (public-suffix aware) or `any`. Default 'same-registrable-domain'.
   */
  mode: 'same-host' | 'same-registrable-domain' | 'any';
  /**
   * URL prefixes (`https://host/path`, or `host/path` for both schemes). When any are given, a URL
   * must also fall under one of them. Default none.
   */
  allowPrefixes: string[];
  /** URL prefixes never crawled, unless a more specific allow prefix covers the URL. Default none. */
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
  connectTimeoutMs: 10_000,
  firstByteTimeoutMs: 30_000,
  bodyTimeoutMs: 60_000,
  politeness: {},
  maxInFlight: 1000,
  scope: { mode: 'same-registrable-domain', allowPrefixes: [], denyPrefixes: [] },
  followNofollowLinks: false,
  queryPolicies: [],
  maxDiscoveredUrls: 20_000,
  traps: {},
  seenFilterCapacity: 20_000,
  seenFilterFalsePositiveRate: 0.01,
  changeFields: {},
  listingPages: [],
  sitemaps: 'declared',
  sitemapPriorityCap: DEFAULT_SITEMAP_PRIORITY_CAP,
  render: DEFAULT_RENDER_CONFIG,
};

/** Largest seen-filter capacity: 100 million URLs at 1% is a 120 MB filter per worker process. */
export const MAX_SEEN_FILTER_CAPACITY = 100_000_000;

/** An inclusive range of integers. */
export interface IntegerRange {
  min: number;
  max: number;
}

/**
 * The integer fields' accepted ranges, inclusive: resolveCrawlConfig checks them and the CLI
 * names them when it refuses a flag. maxDecompressedBytes must also be at least maxBodyBytes.
 */
export const CRAWL_CONFIG_INTEGER_RANGES = {
  maxPages: { min: 1, max: Number.MAX_SAFE_INTEGER },
  maxDepth: { min: 0, max: 1000 },
  minHostDelayMs: { min: 0, max: 24 * 3600 * 1000 },
  maxConcurrentFetchesPerHost: { min: 1, max: 64 },
  maxBodyBytes: { min: 1024, max: Number.MAX_SAFE_INTEGER },
  maxDecompressedBytes: { min: 1024, max: Number.MAX_SAFE_INTEGER },
  connectTimeoutMs: { min: 100, max: 120_000 },
  firstByteTimeoutMs: { min: 100, max: 120_000 },
  bodyTimeoutMs: { min: 100, max: 120_000 },
  maxInFlight: { min: 1, max: 100_000 },
  maxDiscoveredUrls: { min: 1, max: Number.MAX_SAFE_INTEGER },
  seenFilterCapacity: { min: 0, max: MAX_SEEN_FILTER_CAPACITY },
} as const satisfies Record<string, IntegerRange>;

/** Change fields a crawl may configure: every one is a selector run on every page. */
export const MAX_CHANGE_FIELDS = 32;
/** Longest change-field selector, in characters. */
export const MAX_CHANGE_FIELD_SELECTOR_CHARS = 1000;
const CHANGE_FIELD_NAME = /^[a-z][a-z0-9_-]{0,63}$/;

const TRAP_OPTION_FIELDS = new Set<string>([
  'maxQueryParams',
  'maxUrlLength',
  'maxRepeatedSegment',
  'calendarYearsWindow',
  'maxUrlsPerHost',
  'maxVariantsPerPath',
  'sessionParamNames',
  'dropMultiplier',
  'overflowSampleRate',
  'contentStallMinDepth',
  'minUniqueContentRatio',
] satisfies (keyof CrawlTrapConfig)[]);

export class CrawlConfigError extends Error {
  constructor(
    readonly field: string,
    message: string,
  ) {
    super(`${field}: ${message}`);
    this.name = 'CrawlConfigError';
  }
}

function requireInRange(field: keyof typeof CRAWL_CONFIG_INTEGER_RANGES, value: number, min: number = CRAWL_CONFIG_INTEGER_RANGES[field].min): void {
  const { max } = CRAWL_CONFIG_INTEGER_RANGES[field];
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
    traps: partial.traps ?? {},
    changeFields: partial.changeFields ?? {},
    listingPages: canonicalListingPrefixes(partial.listingPages ?? []),
  };
  if (partial.maxDiscoveredUrls === undefined) config.maxDiscoveredUrls = Math.max(1000, config.maxPages * 20);
  if (partial.seenFilterCapacity === undefined) config.seenFilterCapacity = Math.min(MAX_SEEN_FILTER_CAPACITY, Math.max(10_000, config.maxDiscoveredUrls));
  requireInRange('maxPages', config.maxPages);
  requireInRange('maxDepth', config.maxDepth);
  requireInRange('minHostDelayMs', config.minHostDelayMs);
  requireInRange('maxConcurrentFetchesPerHost', config.maxConcurrentFetchesPerHost);
  requireInRange('maxBodyBytes', config.maxBodyBytes);
  requireInRange('maxDecompressedBytes', config.maxDecompressedBytes, Math.max(config.maxBodyBytes, CRAWL_CONFIG_INTEGER_RANGES.maxDecompressedBytes.min));
  requireInRange('connectTimeoutMs', config.connectTimeoutMs);
  requireInRange('firstByteTimeoutMs', config.firstByteTimeoutMs);
  requireInRange('bodyTimeoutMs', config.bodyTimeoutMs);
  const politenessProblem = politenessConfigProblem(config.politeness);
  if (politenessProblem) throw new CrawlConfigError(politenessProblem.field, politenessProblem.message);
  requireInRange('maxInFlight', config.maxInFlight);
  requireInRange('maxDiscoveredUrls', config.maxDiscoveredUrls);
  if (!config.userAgent.trim() || /[\r\n]/.test(config.userAgent)) {
    throw new CrawlConfigError('userAgent', 'must be one non-empty line, e.g. "MyCrawler/1.0 (+https://you.example/bot)"');
  }
  if (!['same-host', 'same-registrable-domain', 'any'].includes(config.scope.mode)) {
    throw new CrawlConfigError('scope.mode', `expected same-host, same-registrable-domain or any, got ${String(config.scope.mode)}`);
  }
  if (typeof config.followNofollowLinks !== 'boolean') throw new CrawlConfigError('followNofollowLinks', 'expected true or false');
  validateScope(config.scope);
  validateQueryPolicies(config.queryPolicies);
  validateTraps(config.traps);
  requireInRange('seenFilterCapacity', config.seenFilterCapacity);
  const rate = config.seenFilterFalsePositiveRate;
  if (typeof rate !== 'number' || !(rate > 0 && rate <= 0.5)) {
    throw new CrawlConfigError('seenFilterFalsePositiveRate', `expected a share in (0, 0.5], e.g. 0.01, got ${String(rate)}`);
  }
  validateChangeFields(config.changeFields);
  if (!SITEMAP_DISCOVERY_MODES.includes(config.sitemaps)) {
    throw new CrawlConfigError('sitemaps', `expected ${SITEMAP_DISCOVERY_MODES.join(', ')}, got ${String(config.sitemaps)}`);
  }
  const cap = config.sitemapPriorityCap;
  if (typeof cap !== 'number' || !(cap >= 0 && cap <= 1)) {
    throw new CrawlConfigError('sitemapPriorityCap', `expected a priority from 0 to 1, e.g. ${DEFAULT_SITEMAP_PRIORITY_CAP}, got ${String(cap)}`);
  }
  if (partial.proxy !== undefined) config.proxy = resolveProxyConfig(partial.proxy);
  if (partial.costModel !== undefined) {
    try {
      config.costModel = { ...validateCostModel({ ...partial.costModel, price: partial.costModel.price ?? 0 }) };
    } catch (error) {
      if (error instanceof RecrawlInputError) throw new CrawlConfigError(error.field, error.message.slice(error.message.indexOf(' is invalid: ') + ' is invalid: '.length));
      throw error;
    }
  }
  try {
    config.render = resolveRenderConfig(partial.render);
  } catch (error) {
    if (error instanceof RenderInputError) throw new CrawlConfigError(error.field, error.message);
    throw error;
  }
  return config;
}

/** The crawl's sitemap discovery mode; crawls stored before the option existed get the default. */
export function sitemapDiscoveryModeOf(config: Pick<CrawlConfig, 'sitemaps'>): SitemapDiscoveryMode {
  return config.sitemaps ?? DEFAULT_CRAWL_CONFIG.sitemaps;
}

/** The crawl's sitemap priority cap; crawls stored before the option existed get the default. */
export function sitemapPriorityCapOf(config: Pick<CrawlConfig, 'sitemapPriorityCap'>): number {
  return config.sitemapPriorityCap ?? DEFAULT_SITEMAP_PRIORITY_CAP;
}

/**
 * The proxies as a crawl stores them: each URL's origin, credentials refused (the message shows
 * the host, never what stood before it).
 * @throws CrawlConfigError naming `proxy.urls[i]` or `proxy.sessionRequests`.
 */
function resolveProxyConfig(proxy: Partial<CrawlProxyConfig>): CrawlProxyConfig {
  if (typeof proxy !== 'object' || proxy === null || !Array.isArray(proxy.urls)) {
    throw new CrawlConfigError('proxy.urls', 'expected a list of proxy URLs such as "http://gateway.example:8000"');
  }
  if (proxy.urls.length === 0 || proxy.urls.length > MAX_PROXIES) {
    throw new CrawlConfigError('proxy.urls', `expected 1 to ${MAX_PROXIES} proxy URLs, got ${proxy.urls.length}`);
  }
  const urls = proxy.urls.map((raw, i) => {
    const field = `proxy.urls[${i}]`;
    if (typeof raw !== 'string') throw new CrawlConfigError(field, 'expected a proxy URL such as "http://gateway.example:8000"');
    let url: URL;
    try {
      url = new URL(raw);
    } catch {
      // Not echoed: a mistyped proxy URL may hold a password.
      throw new CrawlConfigError(field, 'not a URL; write it like http://gateway.example:8000');
    }
    if (url.username !== '' || url.password !== '') {
      throw new CrawlConfigError(
        field,
        `proxy ${url.host}: user:password must not be in the URL (it would be stored and shown); put it in CRAWLER_PROXY_CREDENTIALS or a file named by --proxy-credentials-file`,
      );
    }
    if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new CrawlConfigError(field, `a proxy is http: or https:, not ${url.protocol}`);
    if ((url.pathname !== '/' && url.pathname !== '') || url.search !== '' || url.hash !== '') {
      throw new CrawlConfigError(field, `a proxy URL has no path, query or fragment: write ${url.origin}`);
    }
    return url.origin;
  });
  const sessionRequests = proxy.sessionRequests ?? DEFAULT_PROXY_SESSION_REQUESTS;
  if (!Number.isSafeInteger(sessionRequests) || sessionRequests < 1 || sessionRequests > 1_000_000) {
    throw new CrawlConfigError('proxy.sessionRequests', `expected an integer from 1 to 1000000, got ${String(sessionRequests)}`);
  }
  return { urls, sessionRequests };
}

function validateScope(scope: CrawlScopeConfig): void {
  for (const field of ['allowPrefixes', 'denyPrefixes'] as const) {
    if (!Array.isArray(scope[field]) || !scope[field].every((prefix) => typeof prefix === 'string')) {
      throw new CrawlConfigError(`scope.${field}`, 'expected an array of URL prefixes such as "https://example.com/docs/"');
    }
  }
  try {
    // Seed hosts do not change whether the prefixes and mode are valid.
    createScopeChecker(new Set(), { mode: scope.mode, allowPrefixes: scope.allowPrefixes, denyPrefixes: scope.denyPrefixes });
  } catch (error) {
    if (error instanceof ScopeConfigError) throw new CrawlConfigError(`scope.${error.field}`, error.message.replace(/^ScopeOptions\.\w+: /, ''));
    throw error;
  }
}

/** @throws CrawlConfigError whose field names the entry and field, e.g. `queryPolicies[1].origin`. */
function validateQueryPolicies(policies: unknown): void {
  if (!Array.isArray(policies)) throw new CrawlConfigError('queryPolicies', 'expected an array of per-origin policies (docs/url-canonicalization.md)');
  try {
    compileQueryPolicies(policies as OriginQueryPolicy[]);
  } catch (error) {
    if (error instanceof QueryPolicyConfigError) {
      const field = `queryPolicies[${error.entryIndex}]${error.field ? `.${error.field}` : ''}`;
      throw new CrawlConfigError(field, error.message.slice(error.message.indexOf(': ') + 2));
    }
    throw error;
  }
}

const TRAP_PROBE_URL = canonicalizeUrl('http://example.invalid/');

function validateTraps(traps: unknown): void {
  if (typeof traps !== 'object' || traps === null || Array.isArray(traps)) {
    throw new CrawlConfigError('traps', 'expected an object of trap thresholds, e.g. {"maxVariantsPerPath": 20}');
  }
  for (const key of Object.keys(traps)) {
    if (!TRAP_OPTION_FIELDS.has(key)) {
      throw new CrawlConfigError(`traps.${key}`, `unknown trap option; expected one of ${[...TRAP_OPTION_FIELDS].join(', ')}`);
    }
  }
  const names = (traps as CrawlTrapConfig).sessionParamNames;
  if (names !== undefined && (!Array.isArray(names) || !names.every((name) => typeof name === 'string' && name !== ''))) {
    throw new CrawlConfigError('traps.sessionParamNames', 'expected an array of non-empty parameter names');
  }
  try {
    // assessTrap validates its options on every call; one probe surfaces a bad one here.
    assessTrap(TRAP_PROBE_URL, { depth: 0, nowMs: 0, hostUrlCount: 0, pathVariantCount: 0 }, traps as CrawlTrapConfig);
  } catch (error) {
    if (error instanceof TrapOptionsError) throw new CrawlConfigError(`traps.${error.field}`, error.message.replace(/^TrapOptions\.\w+: /, ''));
    throw error;
  }
}

/** Listing prefixes in canonical form, so they match the canonical URLs of the pages. */
function canonicalListingPrefixes(prefixes: unknown): string[] {
  if (!Array.isArray(prefixes)) throw new CrawlConfigError('listingPages', 'expected an array of URL prefixes such as "https://shop.example/category/"');
  if (prefixes.length > MAX_LISTING_PREFIXES) {
    throw new CrawlConfigError('listingPages', `at most ${MAX_LISTING_PREFIXES} prefixes, got ${prefixes.length}; use shorter prefixes that cover several listings`);
  }
  return prefixes.map((prefix, i) => {
    if (typeof prefix !== 'string') throw new CrawlConfigError(`listingPages[${i}]`, 'expected a URL prefix such as "https://shop.example/category/"');
    try {
      return canonicalizeUrl(prefix).url;
    } catch (error) {
      throw new CrawlConfigError(`listingPages[${i}]`, `"${prefix}" is not an absolute http(s) URL (${error instanceof Error ? error.message : String(error)}); write it like "https://shop.example/category/"`);
    }
  });
}

const MAX_LISTING_PREFIXES = 100;

/** Whether a canonical URL is one of the crawl's listing pages. */
export function isListingPage(config: Pick<CrawlConfig, 'listingPages'>, canonicalUrl: string): boolean {
  return (config.listingPages ?? []).some((prefix) => canonicalUrl.startsWith(prefix));
}

/** @throws CrawlConfigError naming the field, e.g. `changeFields.price`, and what to write instead. */
function validateChangeFields(fields: unknown): void {
  if (typeof fields !== 'object' || fields === null || Array.isArray(fields)) {
    throw new CrawlConfigError('changeFields', 'expected an object of field name to CSS selector, e.g. {"price": ".price", "stock": "#availability"}');
  }
  const entries = Object.entries(fields as Record<string, unknown>);
  if (entries.length > MAX_CHANGE_FIELDS) {
    throw new CrawlConfigError('changeFields', `at most ${MAX_CHANGE_FIELDS} fields, got ${entries.length}; keep the ones whose change matters`);
  }
  for (const [name, selector] of entries) {
    const field = `changeFields.${name}`;
    if (!CHANGE_FIELD_NAME.test(name)) {
      throw new CrawlConfigError(field, `field names are 1 to 64 lowercase letters, digits, "_" or "-", starting with a letter (e.g. "price", "in_stock"), got ${JSON.stringify(name)}`);
    }
    if (typeof selector !== 'string' || selector.trim() === '') {
      throw new CrawlConfigError(field, 'expected a non-empty CSS selector, e.g. ".price" or "#availability"');
    }
    if (selector.length > MAX_CHANGE_FIELD_SELECTOR_CHARS) {
      throw new CrawlConfigError(field, `selector is ${selector.length} characters; at most ${MAX_CHANGE_FIELD_SELECTOR_CHARS}`);
    }
    const problem = changeFieldSelectorProblem(selector);
    if (problem !== undefined) {
      throw new CrawlConfigError(field, `${JSON.stringify(selector)} is not a CSS selector cheerio can apply (${problem}); fix it (e.g. ".price", "#availability", "[itemprop=price]") or remove the field`);
    }
  }
}
