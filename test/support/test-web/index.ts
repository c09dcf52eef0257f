// The test web: many loopback hosts on one port, a request log, and generated webs for tests and
// benchmarks. Everything tests and benches use is exported here; other modules are internals.
export { startTestWeb, type StartTestWebOptions } from './server.js';
export { loopbackHosts, isLoopbackIpv4, type LoopbackHostsOptions } from './loopback.js';
export { TestWebError, type TestWebErrorCode } from './errors.js';
export {
  PORT_PLACEHOLDER,
  type Behavior,
  type HostSpec,
  type PageSpec,
  type RequestContext,
  type RequestLogEntry,
  type RobotsSpec,
  type TestWeb,
  type WebSpec,
} from './types.js';
export { generateWeb, PRODUCT_TOKEN, type GeneratedPage, type GeneratedWeb, type GenerateWebOptions, type RobotsKind } from './generate-web.js';
export { PAGE_TEXT_SHAPES, type PageTextShape } from './page-text.js';
export { docTreesWeb, type DocTree, type DocTreesWeb, type DocTreesWebOptions } from './doc-trees.js';
export { trapWeb, type TrapFamily, type TrapWeb, type TrapWebOptions } from './trap-web.js';
export { hostileWeb, type HostileWeb, type HostileWebOptions } from './hostile-web.js';
export {
  politenessReport,
  requestsByHost,
  type PolitenessReport,
  type PolitenessReportOptions,
  type PolitenessViolation,
  type RequestOverlap,
} from './politeness.js';
export { ChangeTimeline, type ChangeProcessOptions } from './changing.js';
export { freshnessWeb, FRESHNESS_WEB_RATE_MIX, type FreshnessPage, type FreshnessRateClass, type FreshnessWeb, type FreshnessWebOptions } from './freshness-web.js';
export {
  scoreFreshness,
  FRESHNESS_POLICY_NAMES,
  type FreshnessPolicyName,
  type FreshnessScore,
  type FreshnessScoreInput,
  type PageFreshness,
  type PolicyScore,
} from './freshness-score.js';
export { renderHtmlPage, relativeHref, type HtmlPageOptions, type PageLink } from './html.js';
