/**
 * Change detection and rate estimation on every visit (docs/design.md, "Change model"): the parser reports the content's
 * change key, the fetcher reports 304s (and the raw hash of bodies it does not parse). Each
 * report becomes at most one observation per (fingerprint, generation), so a replayed activity
 * changes nothing, and updates the URL's evidence, its change-rate estimate and its next due time.
 */
import {
  DEFAULT_RATE_LOG_SPREAD,
  DEFAULT_RATE_PRIOR,
  estimateChangeRate,
  nextRecrawlDelayDays,
  observeVisit,
  ratePriorFromGroup,
  revisitIntervalRatePerDay,
  versionAgeMs,
  versionDatesTrusted,
  claimConfirmed,
  claimsOf,
  listingDigestAtVisit,
  listingReadingAsOf,
  SIGNAL_SOURCES,
  type ChangeObservation,
  type RatePrior,
  type VisitContent,
} from '../../domain/recrawl/index.js';
import { addSignalTrust } from '../../storage/postgres/cheap-signal-repository.js';
import {
  type LockedUrlEvidence,
  type RecentObservations,
  hostChangeRates,
  hostChangeRatesOf,
  insertObservation,
  lockUrlEvidence,
  recentObservations,
  recentObservationsOf,
  recordObservation,
} from '../../storage/postgres/observation-repository.js';
import type { PoolClient } from '../../storage/postgres/pool.js';

const MS_PER_DAY = 86_400_000;

/** Observations per URL the estimate is computed from: enough to follow a page that changes its habits. */
export const OBSERVATION_WINDOW = 64;
/** Pages of the same host whose rates make the prior. */
const PRIOR_GROUP_LIMIT = 500;
/**
 * A host's prior is read at most this often per process once it stands on PRIOR_SETTLED_GROUP
 * pages: it moves slowly then, and reading it scans the host's URLs (LIMIT PRIOR_GROUP_LIMIT among
 * those compared at least once). Before, at most every PRIOR_UNSETTLED_TTL_MS: cached for five
 * minutes from a host's first comparisons, it was the fallback or one page's rate for the whole
 * of the live freshness benchmark's run (revisits seconds apart).
 */
const PRIOR_TTL_MS = 5 * 60_000;
const PRIOR_UNSETTLED_TTL_MS = 5_000;
const PRIOR_SETTLED_GROUP = 20;
const PRIOR_CACHE_MAX_HOSTS = 10_000;

export interface VisitReport {
  fingerprint: string;
  generation: number;
  crawlId: string;
  /** When the visit's request started, ms since epoch: the observation's time. */
  observedAtMs: number;
  content: VisitContent;
  /** Normalized text hash (hex) to keep on the URL record, for parsed documents. */
  normalizedHash?: string | null;
}

export interface VisitVerdict {
  verdict: 'changed' | 'unchanged' | 'baseline' | 'stale' | 'replayed' | 'unknown-url';
  ratePerDay?: number;
  nextFetchAtMs?: number;
}

/** What a caller read for a visit in its own statements, in this transaction, before recordVisit. */
export interface VisitLockedBefore {
  /** The URL's evidence as the caller locked it (lockUrlEvidence's answer). */
  evidence: LockedUrlEvidence | undefined;
  /** The URL's observation window, read after that lock (loadComparisonEvidence's); read here when absent. */
  recent?: RecentObservations | undefined;
}

/**
 * What the visits that may compare against an earlier one (their URL was observed before, and
 * this visit is not recorded yet) need for their estimates, in two statements where a parse
 * batch's pages would otherwise each read their own: the observation windows (returned), and the
 * group priors of their hosts (into hostPrior's cache). Run it after the visits' URLs are locked.
 */
export async function loadComparisonEvidence(client: PoolClient, visits: readonly { fingerprint: string; evidence: LockedUrlEvidence | undefined }[]): Promise<Map<string, RecentObservations>> {
  const comparing = visits.flatMap(({ fingerprint, evidence }) => (evidence !== undefined && !evidence.observed && evidence.evidence.lastObservedAtMs !== null ? [{ fingerprint, host: evidence.host }] : []));
  await prefetchHostPriors(client, comparing);
  return recentObservationsOf(
    client,
    comparing.map(({ fingerprint }) => fingerprint),
    OBSERVATION_WINDOW - 1,
  );
}

/**
 * Runs inside the caller's transaction (the parse's or the 304's), so the report and the record it
 * belongs to commit together. `lockedBefore`: what the caller read for this visit already.
 */
export async function recordVisit(client: PoolClient, report: VisitReport, lockedBefore?: VisitLockedBefore): Promise<VisitVerdict> {
  const locked = lockedBefore ? lockedBefore.evidence : await lockUrlEvidence(client, report.fingerprint, report.generation);
  if (!locked) return { verdict: 'unknown-url' };
  if (locked.observed) return { verdict: 'replayed' };

  const ageMs = report.content.kind === 'content' ? versionAgeMs(locked.visitDates, report.observedAtMs) : undefined;
  const observed = observeVisit(locked.evidence, report.observedAtMs, report.content, ageMs);
  const changeKey = report.content.kind === 'content' ? report.content.changeKey : null;
  if (observed.verdict === 'stale') {
    await insertObservation(client, {
      fingerprint: report.fingerprint,
      generation: report.generation,
      crawlId: report.crawlId,
      observedAt: new Date(report.observedAtMs),
      verdict: 'stale',
      source: report.content.kind === 'content' ? 'content' : 'not-modified',
      intervalDays: null,
      changeKey,
      ratePerDay: locked.ratePerDay,
    });
    return { verdict: 'stale' };
  }

  let ratePerDay: number;
  let rateMethod: string;
  if (observed.observation) {
    const recent = lockedBefore?.recent ?? (await recentObservations(client, report.fingerprint, OBSERVATION_WINDOW - 1));
    const recorded = [...recent.history, observed.observation];
    // The versions' ages count once this URL's dates have held up against its verdicts.
    const trusted = versionDatesTrusted(observed.evidence.versionDateChecks);
    const history = trusted ? recorded : recorded.map(withoutVersionAge);
    const prior = await hostPrior(client, locked.host, report.fingerprint, revisitIntervalRatePerDay(history));
    const estimate = estimateChangeRate(history, prior, { unchangedDaysBefore: trusted ? (recent.baselineVersionAgeDays ?? 0) : 0 });
    ratePerDay = estimate.ratePerDay;
    rateMethod = estimate.method;
  } else if (locked.rateMethod !== null && locked.rateMethod !== 'prior' && locked.ratePerDay !== null) {
    // A baseline adds no evidence: the page keeps its own estimate...
    ratePerDay = locked.ratePerDay;
    rateMethod = locked.rateMethod;
  } else {
    // ...or, with none, starts from the default. A discovery crawl is all baselines: it never pays
    // for the host's prior, which the first comparison will read.
    ratePerDay = DEFAULT_RATE_PRIOR.ratePerDay;
    rateMethod = 'prior';
  }
  const nextFetchAtMs = report.observedAtMs + nextRecrawlDelayDays(ratePerDay) * MS_PER_DAY;

  await recordObservation(
    client,
    {
      fingerprint: report.fingerprint,
      generation: report.generation,
      crawlId: report.crawlId,
      observedAt: new Date(report.observedAtMs),
      verdict: observed.verdict,
      source: report.content.kind === 'content' ? 'content' : 'not-modified',
      intervalDays: observed.observation?.intervalDays ?? null,
      changeKey,
      ratePerDay,
      versionAgeDays: observed.observation?.versionAgeDays ?? observed.baselineVersionAgeDays ?? null,
    },
    {
      fingerprint: report.fingerprint,
      evidence: observed.evidence,
      ratePerDay,
      rateMethod,
      nextFetchAt: new Date(nextFetchAtMs),
      normalizedHash: report.normalizedHash ?? null,
      listingDigestAtVisit: listingDigestAtVisit(locked.signals.listing, report.observedAtMs),
    },
  );
  // Reads only the evidence locked above and the origin's readings, not what was just written.
  if (observed.verdict === 'changed' || observed.verdict === 'unchanged') await checkSignalClaims(client, locked, report.observedAtMs, observed.verdict);
  return { verdict: observed.verdict, ratePerDay, nextFetchAtMs };
}

/**
 * A sitemap or listing page read before this visit made a claim about the copy of the previous
 * visit: the verdict confirms or refutes it, which is how an origin's signals of each source earn
 * (or lose) trust (docs/design.md, "Change model": signals count only when they are reliable).
 */
async function checkSignalClaims(client: PoolClient, locked: LockedUrlEvidence, observedAtMs: number, verdict: 'changed' | 'unchanged'): Promise<void> {
  // Only a reading taken before this visit made a claim this visit can check: of a listing's, the
  // latest such (a listing read again while this page was fetched may have committed first).
  const before = { ...locked.signals, listing: listingReadingAsOf(locked.signals.listing, observedAtMs) };
  const claims = claimsOf(before, locked.evidence.lastObservedAtMs ?? undefined);
  for (const source of SIGNAL_SOURCES) {
    const claim = (before[source]?.readAtMs ?? Infinity) <= observedAtMs ? claims[source] : undefined;
    if (claim !== undefined) await addSignalTrust(client, locked.origin, source, claimConfirmed(claim, verdict));
  }
}

function withoutVersionAge({ intervalDays, changed }: ChangeObservation): ChangeObservation {
  return { intervalDays, changed };
}

const priors = new Map<string, { group: GroupRates; loadedAtMs: number }>();

/** The geometric mean rate of a host's compared pages, and how many it stands on. */
interface GroupRates {
  ratePerDay: number | undefined;
  pages: number;
}

/**
 * The host's group prior (ratePriorFromGroup), its group cached per database and host (for
 * PRIOR_TTL_MS once settled); `fallbackRatePerDay` when no other page of the host has an estimate.
 */
async function hostPrior(client: PoolClient, host: string, fingerprint: string, fallbackRatePerDay: number): Promise<RatePrior> {
  const key = priorKeyOf(client, host);
  const nowMs = Date.now();
  const group = freshGroup(key, nowMs) ?? cacheGroup(key, await hostChangeRates(client, host, fingerprint, PRIOR_GROUP_LIMIT), nowMs);
  return { ratePerDay: group.ratePerDay ?? fallbackRatePerDay, logSpread: DEFAULT_RATE_LOG_SPREAD };
}

/**
 * Loads into the cache, in one statement, the groups of the hosts these visits will ask hostPrior
 * for and the cache lacks: a parse batch's pages would otherwise each read their host's. Each
 * host's group leaves out the first of its visits here, as hostPrior's read for that visit would.
 */
async function prefetchHostPriors(client: PoolClient, visits: readonly { fingerprint: string; host: string }[]): Promise<void> {
  const nowMs = Date.now();
  const wanted = new Map<string, { host: string; excludeFingerprint: string }>();
  for (const { fingerprint, host } of visits) {
    const key = priorKeyOf(client, host);
    if (!wanted.has(key) && freshGroup(key, nowMs) === undefined) wanted.set(key, { host, excludeFingerprint: fingerprint });
  }
  const rates = await hostChangeRatesOf(client, [...wanted.values()], PRIOR_GROUP_LIMIT);
  [...wanted.keys()].forEach((key, i) => cacheGroup(key, rates[i] ?? [], nowMs));
}

function priorKeyOf(client: PoolClient, host: string): string {
  const { database, host: server, port } = client as unknown as { database?: string; host?: string; port?: number };
  return `${server ?? ''}:${port ?? ''}/${database ?? ''} ${host}`;
}

function freshGroup(key: string, nowMs: number): GroupRates | undefined {
  const cached = priors.get(key);
  const ttlMs = (cached?.group.pages ?? 0) >= PRIOR_SETTLED_GROUP ? PRIOR_TTL_MS : PRIOR_UNSETTLED_TTL_MS;
  return cached && nowMs - cached.loadedAtMs < ttlMs ? cached.group : undefined;
}

function cacheGroup(key: string, rates: readonly number[], nowMs: number): GroupRates {
  const group = { ratePerDay: rates.length > 0 ? ratePriorFromGroup([...rates]).ratePerDay : undefined, pages: rates.length };
  priors.delete(key);
  priors.set(key, { group, loadedAtMs: nowMs });
  if (priors.size > PRIOR_CACHE_MAX_HOSTS) priors.delete(priors.keys().next().value!);
  return group;
}
