import { RecrawlInputError, requireNumber } from './errors.js';
import type { ChangeObservation } from './rate-estimate.js';
import { checkVersionAge, DEFAULT_VERSION_AGE_CHECK_OPTIONS, type VersionDateTrustRecord } from './version-date.js';

const MS_PER_DAY = 86_400_000;

/**
 * What a URL record keeps about its past visits to decide whether the next one saw a change
 * (docs/design.md, "Change model": "each visit tells whether the page changed since the previous one").
 */
export interface UrlChangeEvidence {
  /** When the last visit that told us something about the content happened (fetch start), ms since epoch. */
  lastObservedAtMs: number | null;
  /** The change key of the content at that visit (see {@link changeKey}); null when unknown. */
  lastChangeKey: string | null;
  /** Visits compared with a previous one, all time. */
  observations: number;
  /** Of those, visits that saw a change. */
  changes: number;
  /** Sum of the compared visits' intervals, in days. */
  observedDays: number;
  /** Compared visits in a row, most recent first, that all saw a change (a censoring signal; docs/design.md, "Change model"). */
  changeStreak: number;
  /** When a visit last saw a change, ms since epoch. */
  lastChangedAtMs: number | null;
  /** Compared visits whose Last-Modified agreed (confirmed) or disagreed (refuted) with the verdict (checkVersionAge). */
  versionDateChecks: VersionDateTrustRecord;
}

export const EMPTY_CHANGE_EVIDENCE: Readonly<UrlChangeEvidence> = Object.freeze({
  lastObservedAtMs: null,
  lastChangeKey: null,
  observations: 0,
  changes: 0,
  observedDays: 0,
  changeStreak: 0,
  lastChangedAtMs: null,
  versionDateChecks: Object.freeze({ confirmed: 0, refuted: 0 }),
});

/**
 * What one visit showed. 'content': the page's change key, computed from what we decided counts as
 * the content (the normalized main text, or configured fields), never from timestamps or tokens.
 * 'not-modified': the server answered 304 to our validators, an "unchanged" at almost no cost.
 */
export type VisitContent = { kind: 'content'; changeKey: string } | { kind: 'not-modified' };

/** The verdict on one visit and the evidence after it. */
export interface ObservedVisit {
  /**
   * 'changed' / 'unchanged': compared with the previous visit. 'baseline': nothing comparable
   * before it (a first visit, or a key of another scheme such as a new parser version): it starts
   * the history. 'stale': not after the last observed visit (a late, replayed or reordered
   * report); the evidence is left as it was.
   */
  verdict: 'changed' | 'unchanged' | 'baseline' | 'stale';
  /** The observation for the rate estimate, when the verdict is changed or unchanged. */
  observation?: ChangeObservation;
  /**
   * For a baseline with a usable Last-Modified: the fetched version's age in days (at least 0), the
   * time before the history the page is known not to have changed once its dates are trusted
   * (RateEstimateOptions.unchangedDaysBefore).
   */
  baselineVersionAgeDays?: number;
  evidence: UrlChangeEvidence;
}

/**
 * A change key: `<scheme>:<hex digest>`. The scheme names what was hashed and how, e.g. `n1` for
 * the normalized main text of parser version 1 (docs/design.md, "Content identity": the normalized hash depends on the
 * parser), `r` for the raw bytes of a body that is not parsed. Keys of different schemes are
 * never compared: a parser upgrade is not a change of the page.
 */
export function changeKey(scheme: string, hexDigest: string): string {
  if (!/^[a-z][a-z0-9-]*$/.test(scheme)) {
    throw new RecrawlInputError('RECRAWL_OBSERVATION_INVALID', 'scheme', scheme, 'pass a lowercase scheme such as "n1" or "r"');
  }
  if (!/^[0-9a-f]+$/.test(hexDigest)) {
    throw new RecrawlInputError('RECRAWL_OBSERVATION_INVALID', 'hexDigest', hexDigest, 'pass a lowercase hex digest');
  }
  return `${scheme}:${hexDigest}`;
}

function schemeOf(key: string): string {
  const at = key.indexOf(':');
  return at < 0 ? '' : key.slice(0, at);
}

/**
 * Compares a visit with the URL's previous one and returns the updated evidence. A visit sees at
 * most one change, however many happened since the previous visit: the observation records the
 * interval and whether anything changed, and the estimator (estimateChangeRate) corrects for what
 * a long interval hides. With `versionAgeMs` (the fetched version's age by its Last-Modified,
 * versionAgeMs) a compared content visit also checks the date against the verdict, and a changed
 * one whose date agrees carries the age (ChangeObservation.versionAgeDays): the estimate uses it
 * once the URL's dates are trusted (versionDatesTrusted). A 304 is not checked: the server
 * compared the validators itself.
 */
export function observeVisit(evidence: UrlChangeEvidence, atMs: number, content: VisitContent, versionAgeMs?: number): ObservedVisit {
  requireNumber('RECRAWL_OBSERVATION_INVALID', 'atMs', atMs, { min: 0 });
  const last = evidence.lastObservedAtMs;
  if (last !== null && atMs <= last) return { verdict: 'stale', evidence };

  const nextKey = content.kind === 'content' ? content.changeKey : evidence.lastChangeKey;
  const comparable =
    last !== null &&
    (content.kind === 'not-modified' ||
      (evidence.lastChangeKey !== null && schemeOf(evidence.lastChangeKey) === schemeOf(content.changeKey)));
  if (!comparable) {
    const baseline: ObservedVisit = { verdict: 'baseline', evidence: { ...evidence, lastObservedAtMs: atMs, lastChangeKey: nextKey } };
    const ageKnown = content.kind === 'content' && versionAgeMs !== undefined && versionAgeMs >= -DEFAULT_VERSION_AGE_CHECK_OPTIONS.resolutionMs;
    return ageKnown ? { ...baseline, baselineVersionAgeDays: Math.max(0, versionAgeMs) / MS_PER_DAY } : baseline;
  }

  const intervalDays = (atMs - last) / MS_PER_DAY;
  const changed = content.kind === 'content' && content.changeKey !== evidence.lastChangeKey;
  const check = content.kind === 'content' ? checkVersionAge(changed ? 'changed' : 'unchanged', intervalDays, versionAgeMs) : { consistent: undefined };
  const checks = evidence.versionDateChecks;
  return {
    verdict: changed ? 'changed' : 'unchanged',
    observation: { intervalDays, changed, ...(check.versionAgeDays === undefined ? {} : { versionAgeDays: check.versionAgeDays }) },
    evidence: {
      lastObservedAtMs: atMs,
      lastChangeKey: nextKey,
      observations: evidence.observations + 1,
      changes: evidence.changes + (changed ? 1 : 0),
      observedDays: evidence.observedDays + intervalDays,
      changeStreak: changed ? evidence.changeStreak + 1 : 0,
      lastChangedAtMs: changed ? atMs : evidence.lastChangedAtMs,
      versionDateChecks:
        check.consistent === undefined
          ? checks
          : { confirmed: checks.confirmed + (check.consistent ? 1 : 0), refuted: checks.refuted + (check.consistent ? 0 : 1) },
    },
  };
}

/** Bounds and target of {@link nextRecrawlDelayDays}. */
export interface RecrawlDelayOptions {
  /** Chance of a change since the last visit at which the URL becomes due. Default 0.5. */
  dueProbability: number;
  /** Shortest delay, in days. Default 10 minutes (docs/design.md, "Recrawl": breaking news and prices). */
  minDays: number;
  /** Longest delay, in days. Default 30 (a page believed static is still looked at monthly). */
  maxDays: number;
}

export const DEFAULT_RECRAWL_DELAY_OPTIONS: Readonly<RecrawlDelayOptions> = Object.freeze({
  dueProbability: 0.5,
  minDays: 10 / (24 * 60),
  maxDays: 30,
});

/**
 * Days from a visit until the URL is due again (docs/design.md, "Recrawl": a next fetch time per document rather
 * than a fixed cron): the time at which a Poisson page at `ratePerDay` has changed with
 * probability `dueProbability`, -ln(1 - p) / rate, within [minDays, maxDays]. Due is not a
 * promise of a visit: the cycle still ranks due URLs by value × freshness gain / cost.
 */
export function nextRecrawlDelayDays(ratePerDay: number, options: Partial<RecrawlDelayOptions> = {}): number {
  const { dueProbability, minDays, maxDays } = { ...DEFAULT_RECRAWL_DELAY_OPTIONS, ...options };
  requireNumber('RECRAWL_RATE_INVALID', 'ratePerDay', ratePerDay, { min: 0 });
  requireNumber('RECRAWL_OPTIONS_INVALID', 'options.dueProbability', dueProbability, { min: 0, minExclusive: true, max: 0.999999 });
  requireNumber('RECRAWL_OPTIONS_INVALID', 'options.minDays', minDays, { min: 0 });
  requireNumber('RECRAWL_OPTIONS_INVALID', 'options.maxDays', maxDays, { min: minDays });
  if (ratePerDay === 0) return maxDays;
  return Math.min(maxDays, Math.max(minDays, -Math.log1p(-dueProbability) / ratePerDay));
}

/**
 * Days from a visit until the URL is due again under the cycle's allocation (RecrawlPlan's
 * allottedVisitsPerDay): its allotted interval 1 / visits a day, within [minDays, maxDays]; a
 * page allotted nothing (it changes too often for what its copy is worth, or never) is due after
 * maxDays. It keeps the most-overdue pool of the next cycles to pages the allocation would visit:
 * by ln 2 / rate, a page changing every second is due again at once, and forever.
 */
export function allottedRevisitDelayDays(visitsPerDay: number, options: Partial<RecrawlDelayOptions> = {}): number {
  const { minDays, maxDays } = { ...DEFAULT_RECRAWL_DELAY_OPTIONS, ...options };
  requireNumber('RECRAWL_RATE_INVALID', 'visitsPerDay', visitsPerDay, { min: 0 });
  requireNumber('RECRAWL_OPTIONS_INVALID', 'options.minDays', minDays, { min: 0 });
  requireNumber('RECRAWL_OPTIONS_INVALID', 'options.maxDays', maxDays, { min: minDays });
  if (visitsPerDay === 0) return maxDays;
  return Math.min(maxDays, Math.max(minDays, 1 / visitsPerDay));
}
