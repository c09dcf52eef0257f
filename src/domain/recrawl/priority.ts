import { RecrawlInputError, requireNumber } from './errors.js';
import { expectedFreshDays, freshnessGain } from './poisson.js';

/** One URL the recrawl cycle may visit. */
export interface RecrawlCandidate {
  id: string;
  /** Value tier weight (see DEFAULT_VALUE_TIERS). */
  value: number;
  /** Estimated change rate (estimateChangeRate). */
  ratePerDay: number;
  /** Days since the last successful visit. */
  daysSinceVisit: number;
  /** Cost of the visit in units (visitCost: real bytes and host health), at the page's current chance of a change. */
  costUnits: number;
  /**
   * Cost of a visit that finds the page unchanged (a conditional request's 304) and of one that
   * finds it changed (a full fetch), for the cycle's allocation (allocateVisitFrequencies).
   * Omitted: costUnits either way.
   */
  unchangedCostUnits?: number;
  changedCostUnits?: number;
  /**
   * A cheap signal read without fetching the page (docs/design.md, "Cost per detected change"): a sitemap `lastmod` or a listing page
   * summary newer than our copy says 'changed' (the copy is surely stale); a trusted one that is
   * not newer says 'unchanged' (nothing to buy). Omitted: the Poisson model decides.
   */
  cheapSignal?: 'changed' | 'unchanged';
  /**
   * How many of the most recent visits in a row found a change. A long streak means the rate
   * estimate is only a lower bound (censored), which makes the page eligible for a probe.
   * Omitted: 0.
   */
  changeStreak?: number;
}

/**
 * priority = value × freshness_gain / cost (docs/design.md, "Cost per detected change"). `intervalDays` is the horizon the new copy is
 * credited for, usually the revisit interval the budget affords. A 'changed' cheap signal makes
 * the staleness certain; an 'unchanged' one makes the gain zero.
 */
export function recrawlPriority(candidate: RecrawlCandidate, intervalDays: number): number {
  const { value, ratePerDay, daysSinceVisit, costUnits, cheapSignal } = validateCandidate(candidate, 'candidate');
  if (cheapSignal === 'unchanged') return 0;
  const gain = cheapSignal === 'changed' ? expectedFreshDays(ratePerDay, intervalDays) : freshnessGain(ratePerDay, daysSinceVisit, intervalDays);
  return (value * gain) / costUnits;
}

/** Checks every field of a candidate; `field` names it in errors. */
export function validateCandidate(candidate: RecrawlCandidate, field: string): RecrawlCandidate {
  if (typeof candidate.id !== 'string' || candidate.id.length === 0) {
    throw new RecrawlInputError('RECRAWL_CANDIDATE_INVALID', `${field}.id`, candidate.id, 'pass a non-empty string id (the URL fingerprint)');
  }
  requireNumber('RECRAWL_CANDIDATE_INVALID', `${field}.value`, candidate.value, { min: 0 });
  requireNumber('RECRAWL_CANDIDATE_INVALID', `${field}.ratePerDay`, candidate.ratePerDay, { min: 0 });
  requireNumber('RECRAWL_CANDIDATE_INVALID', `${field}.daysSinceVisit`, candidate.daysSinceVisit, { min: 0 });
  requireNumber('RECRAWL_CANDIDATE_INVALID', `${field}.costUnits`, candidate.costUnits, { min: 0, minExclusive: true });
  if (candidate.unchangedCostUnits !== undefined) {
    requireNumber('RECRAWL_CANDIDATE_INVALID', `${field}.unchangedCostUnits`, candidate.unchangedCostUnits, { min: 0, minExclusive: true });
  }
  if (candidate.changedCostUnits !== undefined) {
    requireNumber('RECRAWL_CANDIDATE_INVALID', `${field}.changedCostUnits`, candidate.changedCostUnits, { min: candidate.unchangedCostUnits ?? 0, minExclusive: candidate.unchangedCostUnits === undefined });
  }
  if (candidate.changeStreak !== undefined) requireNumber('RECRAWL_CANDIDATE_INVALID', `${field}.changeStreak`, candidate.changeStreak, { min: 0, integer: true });
  if (candidate.cheapSignal !== undefined && candidate.cheapSignal !== 'changed' && candidate.cheapSignal !== 'unchanged') {
    throw new RecrawlInputError('RECRAWL_CANDIDATE_INVALID', `${field}.cheapSignal`, candidate.cheapSignal, "pass 'changed', 'unchanged' or leave it out");
  }
  return candidate;
}
