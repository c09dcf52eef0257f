// robots.txt per RFC 9309: parsing, matching, Crawl-delay and the fetch-status/cache policy.
// Pure: no I/O, no clock (time is `nowMs`), safe to import from workflows.
export type { RobotsGroup, RobotsRule, RobotsRules } from './types.js';
export { RobotsError, type RobotsErrorCode } from './errors.js';
export { DEFAULT_ROBOTS_MAX_BYTES, parseRobotsTxt, type ParseRobotsOptions } from './parse.js';
export {
  compileRobotsMatcher,
  crawlDelayMs,
  matchRobots,
  MAX_CRAWL_DELAY_MS,
  selectRobotsGroup,
  type CrawlDelayOptions,
  type RobotsVerdict,
  type SelectedRobotsGroup,
} from './match.js';
export { productTokenOf } from './product-token.js';
export { canonicalOctets } from './percent-encoding.js';
export { parseHttpDateMs, requestedLifetimeMs, type RobotsResponseHeaders } from './http-cache.js';
export {
  compileRobotsPolicy,
  isRobotsFresh,
  MAX_ROBOTS_CACHE_MS,
  MAX_ROBOTS_REDIRECTS,
  MIN_ROBOTS_CACHE_MS,
  nextRobotsCacheEntry,
  ROBOTS_UNREACHABLE_FALLBACK_MS,
  ROBOTS_UNREACHABLE_RETRY_MS,
  robotsFetchOutcomeOf,
  robotsVerdictFor,
  type RobotsCacheEntry,
  type RobotsCacheOptions,
  type RobotsEntryVerdict,
  type RobotsFetchOutcome,
  type RobotsPolicy,
} from './policy.js';
