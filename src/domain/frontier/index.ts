// The frontier's pure math: seen-test Bloom filter, priority and tiers, tier selection,
// admission and backpressure, cycle budgets and capacity arithmetic. Safe to import from workflows.
export { FrontierInputError, type FrontierErrorCode } from './errors.js';
export { bloomSizing, type BloomSizing } from './bloom-sizing.js';
export { BloomFilter } from './bloom-filter.js';
export {
  urlPriority,
  resolvePriorityWeights,
  DEFAULT_PRIORITY_WEIGHTS,
  type PrioritySignals,
  type PriorityWeights,
} from './priority.js';
export { TIER_COUNT, DEFAULT_TIER_BOUNDS, tierOf } from './tiers.js';
export { chooseTierCounts, type TierSelectionOptions } from './tier-selection.js';
