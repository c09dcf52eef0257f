// The frontier's pure math: seen-test Bloom filter, priority and tiers, tier selection,
// admission and backpressure (from parsers, and from the workers that begin host runs), cycle
// budgets and capacity arithmetic. Safe to import from workflows.
export { FrontierInputError, type FrontierErrorCode } from './errors.js';
export { bloomSizing, type BloomSizing } from './bloom-sizing.js';
export { BloomFilter } from './bloom-filter.js';
export {
  planSeenTest,
  settleSeenTest,
  type SeenFilterProbe,
  type SeenTestPlan,
  type SeenTestVerdict,
} from './seen-test.js';
export {
  urlPriority,
  resolvePriorityWeights,
  DEFAULT_PRIORITY_WEIGHTS,
  type PrioritySignals,
  type PriorityWeights,
} from './priority.js';
export { TIER_COUNT, DEFAULT_TIER_BOUNDS, tierOf } from './tiers.js';
export { chooseTierCounts, type TierSelectionOptions } from './tier-selection.js';
export {
  admissionDecision,
  hostClaimCap,
  MIN_HOST_CLAIM,
  resolveAdmissionOptions,
  DEFAULT_ADMISSION_OPTIONS,
  type AdmissionInput,
  type AdmissionOptions,
  type AdmissionDecision,
  type AdmissionReason,
  type HostClaimCapInput,
} from './admission.js';
export {
  hostWakeRoom,
  DEFAULT_HOST_WAKE_ROOM_OPTIONS,
  type HostWakeRoomInput,
  type HostWakeRoomOptions,
} from './host-wake-room.js';
export { RateMeter, type RateMeterOptions, type RateMeterState } from './rate-meter.js';
export {
  splitBudget,
  reallocateBudget,
  validateBudgetShares,
  budgetTotal,
  BUDGET_POOLS,
  DEFAULT_BUDGET_SHARES,
  type BudgetShares,
  type BudgetSplit,
} from './budget.js';
export {
  politenessCeilingPagesPerSecond,
  requiredHostsFor,
  littleLawThroughput,
  littleLawConcurrency,
  requiredPagesPerSecond,
  throughputCeiling,
  type ThroughputCeilingInput,
  type ThroughputCeiling,
} from './capacity.js';
export { crawlEndOf, type CrawlEnd, type CrawlEndFacts, type CrawlEndReason, type CrawlLimitField } from './crawl-end.js';
export { listedUrlPriority, LASTMOD_HALF_RAISE_MS, type ListedPriorityOptions, type ListedUrlSignals } from './listed-priority.js';
export {
  discoveryPriority,
  hostImportanceFromInlinks,
  inlinkWeight,
  CROSS_HOST_INLINK_WEIGHT,
  SAME_HOST_INLINK_WEIGHT,
  HOST_INLINKS_FOR_HALF_IMPORTANCE,
  type DiscoverySignals,
} from './importance.js';
