// Link registration's decision, pure: which discovered URLs become frontier entries, which lower a
// known URL's depth or raise its priority, which are refused and why, and the figures they leave.
// The service (services/frontier/link-registration.ts) reads the facts and writes the rows.
export type {
  Candidate,
  DepthLowering,
  DiscoveredUrl,
  DiscoverySource,
  HostGrowth,
  InlinkBump,
  LinkEdge,
  LinkEdgeKind,
  NewEntry,
  PathGrowth,
  RefusedUrl,
  RegistrationFacts,
  RegistrationFactsQuery,
  RegistrationGate,
  RegistrationInput,
  RegistrationResult,
  SourceRegistration,
  UrlFate,
  UrlIdentity,
} from './registration-types.js';
export {
  DEPTH_REFUSAL,
  DISCOVERY_BUDGET_REFUSAL,
  MIN_PAGES_FOR_CONTENT_RATIO,
  decideRegistrations,
  depthContentKey,
  hostImportanceOf,
  pathStatKey,
  prepareRegistrations,
  priorityOfDiscovery,
  type BatchDecision,
  type RegistrationBatch,
  type RegistrationRules,
} from './registration-decision.js';
export {
  depthLoweringsOf,
  growthOf,
  inlinkBumpsOf,
  registrationResultsOf,
  seenFiguresOf,
  settleFates,
  type InsertOutcome,
} from './registration-settlement.js';
