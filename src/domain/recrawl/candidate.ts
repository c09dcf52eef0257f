import { DEFAULT_COST_OPTIONS, visitCost, type CostOptions } from './cost.js';
import { RecrawlInputError, requireNumber } from './errors.js';
import { probabilityChanged } from './poisson.js';
import { DEFAULT_VALUE_TIERS } from './policy-constants.js';
import type { RecrawlCandidate } from './priority.js';
import { DEFAULT_RATE_PRIOR } from './rate-estimate.js';

const MS_PER_DAY = 86_400_000;

/** What the URL record knows about a page the recrawl cycle may visit. */
export interface KnownUrlFacts {
  /** The URL fingerprint. */
  id: string;
  /** Index into the value tiers (0 = most valuable). */
  valueTier: number;
  /** The stored change-rate estimate, per day; null before the first comparison. */
  ratePerDay: number | null;
  /** When the content was last observed (ms since epoch); null if never. */
  lastVisitAtMs: number | null;
  /** Decoded bytes of the last full response; null if unknown. */
  expectedBytes: number | null;
  /** Bytes on the wire of the last full response's exchange, heads included: what a changed visit costs, measured. Preferred to expectedBytes when known. */
  lastTransferBytes?: number | null;
  /** The host's validator honour rate (validatorHonourRate). Default 1. */
  hostValidatorHonourRate?: number;
  /** Bytes of one of the host's 304 exchanges as measured (notModifiedBytesOf). Default the cost options'. */
  hostNotModifiedBytes?: number;
  /** The record holds an ETag or Last-Modified: the request will be conditional (304s are cheap). */
  hasValidators: boolean;
  /** Health of the URL's host in [0, 1] (hostHealthScore). */
  hostHealth: number;
  /** Recent visits in a row that saw a change. */
  changeStreak: number;
  /**
   * The rate estimate read the dates of changes (isDatedRateMethod): it is no censored lower
   * bound, so a streak of changes does not make the page a probe candidate. Default false.
   */
  rateDated?: boolean;
  /** A member, not the representative, of a near-duplicate cluster: demoted, never dropped (docs/design.md, "Near-duplicates"). */
  nearDuplicate: boolean;
  /** A trusted cheap signal (trustedSignal), when one speaks for this page. */
  cheapSignal?: 'changed' | 'unchanged';
}

/** How {@link recrawlCandidateOf} fills what the record does not know. */
export interface RecrawlCandidateOptions {
  /** Value per tier, most valuable first. Default DEFAULT_VALUE_TIERS' values (16, 4, 1, 0.25). */
  valueTiers: readonly number[];
  /** Rate assumed for a page with no estimate yet, per day. Default DEFAULT_RATE_PRIOR's (weekly). */
  defaultRatePerDay: number;
  /** Bytes assumed for a page with no recorded size. Default 100,000 (about one cost unit). */
  defaultBytes: number;
  /** Days since visit assumed for a page never observed. Default 30. */
  unvisitedDays: number;
  /** Value multiplier of a near-duplicate. Default 0.25 (the frontier's nearDuplicateFactor). */
  nearDuplicateFactor: number;
  /** Cost model options. Default DEFAULT_COST_OPTIONS. */
  cost: Partial<CostOptions>;
}

export const DEFAULT_RECRAWL_CANDIDATE_OPTIONS: Readonly<RecrawlCandidateOptions> = Object.freeze({
  valueTiers: Object.freeze(DEFAULT_VALUE_TIERS.map((tier) => tier.value)),
  defaultRatePerDay: DEFAULT_RATE_PRIOR.ratePerDay,
  defaultBytes: DEFAULT_COST_OPTIONS.bytesPerUnit,
  unvisitedDays: 30,
  nearDuplicateFactor: 0.25,
  cost: Object.freeze({}),
});

/**
 * A URL record as a {@link RecrawlCandidate} (value, change, cost: docs/design.md, "Cost per detected change"): value from its tier (demoted
 * when it is a near-duplicate), its own change rate, and the cost of the visit from its measured
 * bytes on the wire, whether the request will be conditional (then weighted by the chance of a
 * change and by how often its host honours validators: a likely 304 costs the host's measured
 * heads), and its host's health; with the costs of a visit that finds it unchanged
 * and of one that finds it changed, for the cycle's allocation. A tier past the end of
 * `valueTiers` gets the last.
 */
export function recrawlCandidateOf(facts: KnownUrlFacts, nowMs: number, options: Partial<RecrawlCandidateOptions> = {}): RecrawlCandidate {
  const resolved = { ...DEFAULT_RECRAWL_CANDIDATE_OPTIONS, ...options };
  const { valueTiers, defaultRatePerDay, defaultBytes, unvisitedDays, nearDuplicateFactor } = resolved;
  if (valueTiers.length === 0) {
    throw new RecrawlInputError('RECRAWL_OPTIONS_INVALID', 'options.valueTiers', valueTiers, 'pass at least one tier value, e.g. [16, 4, 1, 0.25]');
  }
  valueTiers.forEach((value, i) => requireNumber('RECRAWL_OPTIONS_INVALID', `options.valueTiers[${i}]`, value, { min: 0 }));
  requireNumber('RECRAWL_OPTIONS_INVALID', 'options.nearDuplicateFactor', nearDuplicateFactor, { min: 0, max: 1 });
  requireNumber('RECRAWL_CANDIDATE_INVALID', 'facts.valueTier', facts.valueTier, { min: 0, integer: true });
  requireNumber('RECRAWL_DAYS_INVALID', 'nowMs', nowMs, { min: 0 });

  const tierValue = valueTiers[Math.min(facts.valueTier, valueTiers.length - 1)] ?? 1;
  const value = tierValue * (facts.nearDuplicate ? nearDuplicateFactor : 1);
  const ratePerDay = facts.ratePerDay ?? defaultRatePerDay;
  const daysSinceVisit = facts.lastVisitAtMs === null ? unvisitedDays : Math.max(0, (nowMs - facts.lastVisitAtMs) / MS_PER_DAY);
  const costAt = (chanceOfChange: number): number =>
    visitCost(
      {
        expectedBytes: facts.lastTransferBytes ?? facts.expectedBytes ?? defaultBytes,
        conditional: facts.hasValidators,
        hostHealth: Math.min(1, Math.max(0, facts.hostHealth)),
        probabilityChanged: chanceOfChange,
        ...(facts.hostValidatorHonourRate === undefined ? {} : { validatorHonourRate: facts.hostValidatorHonourRate }),
        ...(facts.hostNotModifiedBytes === undefined ? {} : { notModifiedBytes: facts.hostNotModifiedBytes }),
      },
      resolved.cost,
    );
  // A signal settles what the model would guess: a conditional request to a changed page is a full fetch.
  const costUnits = costAt(facts.cheapSignal === 'changed' ? 1 : facts.cheapSignal === 'unchanged' ? 0 : probabilityChanged(ratePerDay, daysSinceVisit));
  return {
    id: facts.id,
    value,
    ratePerDay,
    daysSinceVisit,
    costUnits,
    unchangedCostUnits: costAt(0),
    changedCostUnits: costAt(1),
    changeStreak: facts.rateDated === true ? 0 : facts.changeStreak,
    ...(facts.cheapSignal === undefined ? {} : { cheapSignal: facts.cheapSignal }),
  };
}
