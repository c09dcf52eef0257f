// Cost-aware recrawl (docs/design.md, "Cost per detected change"): the Poisson change model, rate estimation from our own visits,
// priority = value × freshness_gain / cost, the cycle's budget reservations, and the
// Cho & Garcia-Molina optimum and simulation that the scheduler is measured against.
export { RecrawlInputError, type RecrawlErrorCode } from './errors.js';
export { probabilityChanged, freshnessGain, expectedFreshDays, expectedFreshness } from './poisson.js';
export {
  estimateChangeRate,
  naiveChangeRate,
  ratePriorFromGroup,
  revisitIntervalRatePerDay,
  choGarciaMolinaRate,
  isDatedRateMethod,
  DEFAULT_RATE_PRIOR,
  DEFAULT_RATE_LOG_SPREAD,
  DEFAULT_RATE_ESTIMATE_OPTIONS,
  type ChangeObservation,
  type RateEstimate,
  type RateEstimateMethod,
  type RatePrior,
  type RateEstimateOptions,
} from './rate-estimate.js';
export { visitCost, DEFAULT_COST_OPTIONS, type CostOptions, type VisitCostInput } from './cost.js';
export { amountOf, costUnitOf, defaultCostModel, validateCostModel, COST_MODEL_KINDS, type CostModel, type CostModelKind, type RequestTotals } from './cost-model.js';
export { validatorHonourRate, notModifiedBytesOf, DEFAULT_HOST_VALIDATOR_OPTIONS, type HostValidatorRecord, type HostValidatorOptions } from './host-validators.js';
export { pageTypeOfPath } from './page-type.js';
export { planSlaVisits, slaDueHorizonMs, isSlaDue, quantile, type FreshnessSla, type SlaUrl, type SlaShortfall, type SlaPlan, type StalenessFigures } from './sla.js';
export { DEFAULT_VALUE_TIERS, TOMBSTONE_RECHECK_DAYS, START_INTERVAL_DAYS, isTombstoneStatus, type ValueTier } from './policy-constants.js';
export { recrawlPriority, type RecrawlCandidate } from './priority.js';
export {
  observeVisit,
  changeKey,
  nextRecrawlDelayDays,
  allottedRevisitDelayDays,
  EMPTY_CHANGE_EVIDENCE,
  DEFAULT_RECRAWL_DELAY_OPTIONS,
  type UrlChangeEvidence,
  type VisitContent,
  type ObservedVisit,
  type RecrawlDelayOptions,
} from './change-evidence.js';
export {
  versionAgeMs,
  checkVersionAge,
  versionDatesTrusted,
  MIN_VERSION_DATE_ACCURACY,
  DEFAULT_VERSION_AGE_CHECK_OPTIONS,
  type VersionDateHeaders,
  type VersionAgeCheck,
  type VersionAgeCheckOptions,
  type VersionDateTrustRecord,
} from './version-date.js';
export { pageChangeKey, fieldSetScheme, fieldValuesDigest, type PageChangeKeyInput } from './page-change-key.js';
export { hostHealthScore, type HostHealthSignals } from './host-health.js';
export {
  recrawlCandidateOf,
  DEFAULT_RECRAWL_CANDIDATE_OPTIONS,
  type KnownUrlFacts,
  type RecrawlCandidateOptions,
} from './candidate.js';
export {
  planRecrawlCycle,
  DEFAULT_RECRAWL_CYCLE_OPTIONS,
  type RecrawlBudget,
  type RecrawlCycleOptions,
  type RecrawlPlan,
} from './cycle.js';
export {
  optimalVisitFrequencies,
  allocateVisitFrequencies,
  type AllocationPage,
  uniformVisitFrequencies,
  proportionalVisitFrequencies,
  averageFreshness,
} from './optimum.js';
export {
  simulateFreshness,
  syntheticRates,
  DEFAULT_RATE_MIX,
  DEFAULT_SCHEDULER_SIMULATION_OPTIONS,
  type RateClass,
  type FreshnessPolicy,
  type SchedulerSimulationOptions,
  type FreshnessSimulationOptions,
  type FreshnessSimulationResult,
} from './simulate.js';
export {
  signalClaim,
  windowOnOurClock,
  signalTrustLevel,
  trustedSignal,
  claimConfirmed,
  combineSignals,
  DEFAULT_SIGNAL_CLAIM_OPTIONS,
  DEFAULT_SIGNAL_TRUST_OPTIONS,
  type ChangeWindow,
  type SignalClaim,
  type SignalClaimOptions,
  type SignalReading,
  type ServerClockReading,
  type SignalTrustRecord,
  type SignalTrustOptions,
  type SignalTrustLevel,
} from './cheap-signal.js';
export { listingEntryDigest, listingClaim, listingDigestAtVisit, listingReadingAsOf, type ListingReading } from './listing-entry.js';
export { claimsOf, SIGNAL_SOURCES, type PageSignals, type SignalSource } from './page-signals.js';
