/**
 * Change evidence on the URL record and the per-visit observations behind it (docs/design.md, "Change model"). Callers run
 * these inside one transaction that first locks the URL row, so two reports about one URL never
 * interleave.
 */
import type { ChangeObservation, PageSignals, UrlChangeEvidence, VersionDateHeaders } from '../../domain/recrawl/index.js';
import { pageSignalsOf, SIGNAL_COLUMNS, type SignalColumns } from './cheap-signal-repository.js';
import { fingerprintToBytes } from './sql-codec.js';
import type { PoolClient } from './pool.js';
import { FIGURE_ORDER, holdRows, type RowStatement } from './held-rows.js';
import type { StatementPart } from './statement-composition.js';

export interface LockedUrlEvidence {
  host: string;
  origin: string;
  /** What the sitemaps and listing pages last said about the URL. */
  signals: PageSignals;
  evidence: UrlChangeEvidence;
  ratePerDay: number | null;
  rateMethod: string | null;
  /** This visit (fingerprint, generation) is recorded already: a replay. */
  observed: boolean;
  /** The dating headers of this visit's fetch record (Last-Modified, Date); empty when it has none. */
  visitDates: VersionDateHeaders;
}

export interface EvidenceRow extends SignalColumns {
  host: string;
  origin: string;
  last_observed_at: Date | null;
  last_change_key: string | null;
  change_observations: number;
  changes_observed: number;
  observed_days: number;
  change_streak: number;
  last_changed_at: Date | null;
  change_rate_per_day: number | null;
  change_rate_method: string | null;
  version_dates_confirmed: number;
  version_dates_refuted: number;
  observed: boolean;
  visit_last_modified: string | null;
  visit_date: string | null;
}

/**
 * The URL's evidence, with its row locked until the transaction ends, and whether this visit is
 * recorded already; undefined for an unknown URL. The look-up shares the statement's snapshot,
 * taken before any wait for the row: a report of the same visit committed during that wait is
 * missed here, and its insert then fails on the observation's key (the activity retries and finds
 * it). Callers serialize replays before this anyway (the document's or the fetch's own key).
 */
export async function lockUrlEvidence(client: PoolClient, fingerprint: string, generation: number): Promise<LockedUrlEvidence | undefined> {
  const part = lockUrlEvidencesPart('evidence', [{ fingerprint, generation }]);
  const result = await client.query<EvidenceRow>(part.sql, [...part.params]);
  return lockedEvidenceOf(result.rows[0]);
}

/**
 * lockUrlEvidence's statement for several visits, as a part of a composed one (composeStatement): a
 * row per known URL (with its fingerprint), rows locked in fingerprint order; read each with
 * lockedEvidenceOf. Its parameters are the visits' fingerprints ($1) and generations ($2). The
 * visit's own fetch record (written before its visit is recorded) gives its dating headers.
 */
export function lockUrlEvidencesPart(name: string, visits: readonly { fingerprint: string; generation: number }[]): StatementPart {
  return {
    name,
    sql: `SELECT u.fingerprint, host, origin, ${SIGNAL_COLUMNS}, last_observed_at, last_change_key, change_observations, changes_observed, observed_days,
            change_streak, last_changed_at, change_rate_per_day, change_rate_method, version_dates_confirmed, version_dates_refuted,
            EXISTS (SELECT 1 FROM url_observations o WHERE o.fingerprint = u.fingerprint AND o.generation = v.generation) AS observed,
            f.headers->>'last-modified' AS visit_last_modified, f.headers->>'date' AS visit_date
     FROM unnest($1::bytea[], $2::int[]) AS v(fingerprint, generation) JOIN urls u ON u.fingerprint = v.fingerprint
     LEFT JOIN fetches f ON f.fingerprint = v.fingerprint AND f.generation = v.generation
     ORDER BY u.fingerprint FOR UPDATE OF u`,
    params: [visits.map((visit) => fingerprintToBytes(visit.fingerprint)), visits.map((visit) => visit.generation)],
  };
}

/** The locked evidence of a lockUrlEvidencesPart row; undefined for an unknown URL (no row). */
export function lockedEvidenceOf(row: EvidenceRow | undefined): LockedUrlEvidence | undefined {
  if (!row) return undefined;
  return {
    host: row.host,
    origin: row.origin,
    signals: pageSignalsOf(row),
    evidence: {
      lastObservedAtMs: row.last_observed_at?.getTime() ?? null,
      lastChangeKey: row.last_change_key,
      observations: row.change_observations,
      changes: row.changes_observed,
      observedDays: row.observed_days,
      changeStreak: row.change_streak,
      lastChangedAtMs: row.last_changed_at?.getTime() ?? null,
      versionDateChecks: { confirmed: row.version_dates_confirmed, refuted: row.version_dates_refuted },
    },
    ratePerDay: row.change_rate_per_day,
    rateMethod: row.change_rate_method,
    observed: row.observed,
    visitDates: { lastModified: row.visit_last_modified, date: row.visit_date },
  };
}

/** A URL's recent evidence for its rate estimate. */
export interface RecentObservations {
  /** The most recent compared visits, oldest first, with the versions' ages where dated. */
  history: ChangeObservation[];
  /**
   * The version age of the URL's first visit (its baseline) when that visit is older than every
   * compared one in the window: the time before the history known not to have changed. Null
   * otherwise (a later baseline, after a parser upgrade, overlaps visits already counted).
   */
  baselineVersionAgeDays: number | null;
}

/** The URL's most recent observations, `limit` at most: the window the rate is estimated from. */
export async function recentObservations(client: PoolClient, fingerprint: string, limit: number): Promise<RecentObservations> {
  return (await recentObservationsOf(client, [fingerprint], limit)).get(fingerprint) ?? recentObservationsFrom([]);
}

/**
 * recentObservations for several URLs in one statement (a parse batch's pages): a map by
 * fingerprint, with an entry for every fingerprint asked. Run it after the URLs' rows are locked,
 * so its snapshot sees every observation committed before the locks were granted.
 */
export async function recentObservationsOf(client: PoolClient, fingerprints: readonly string[], limit: number): Promise<Map<string, RecentObservations>> {
  if (fingerprints.length === 0) return new Map();
  const rowsOf: ObservationWindowRow[][] = fingerprints.map(() => []);
  const result = await client.query<ObservationWindowRow & { i: number }>(
    `SELECT v.i, o.interval_days, o.verdict, o.version_age_days
     FROM unnest($1::bytea[]) WITH ORDINALITY AS v(fingerprint, i)
     CROSS JOIN LATERAL (
       SELECT generation, interval_days, verdict, version_age_days FROM url_observations
       WHERE fingerprint = v.fingerprint AND (verdict IN ('changed', 'unchanged') AND interval_days > 0 OR verdict = 'baseline')
       ORDER BY generation DESC LIMIT $2) o
     ORDER BY v.i, o.generation`,
    [fingerprints.map(fingerprintToBytes), limit],
  );
  for (const row of result.rows) rowsOf[row.i - 1]?.push(row);
  return new Map(fingerprints.map((fingerprint, i) => [fingerprint, recentObservationsFrom(rowsOf[i]!)]));
}

interface ObservationWindowRow {
  interval_days: number | null;
  verdict: string;
  version_age_days: number | null;
}

/** A URL's window, its rows oldest first. */
function recentObservationsFrom(rows: readonly ObservationWindowRow[]): RecentObservations {
  const first = rows[0];
  const history = rows.flatMap((row) =>
    row.verdict === 'baseline' || row.interval_days === null
      ? []
      : [
          {
            intervalDays: row.interval_days,
            changed: row.verdict === 'changed',
            ...(row.version_age_days === null ? {} : { versionAgeDays: Math.min(row.version_age_days, row.interval_days) }),
          },
        ],
  );
  return { history, baselineVersionAgeDays: first?.verdict === 'baseline' ? first.version_age_days : null };
}

/** Rate estimates of other pages of the host that have been compared at least once (the group for the prior). */
export async function hostChangeRates(client: PoolClient, host: string, excludeFingerprint: string, limit: number): Promise<number[]> {
  return (await hostChangeRatesOf(client, [{ host, excludeFingerprint }], limit))[0] ?? [];
}

/** hostChangeRates for several hosts in one statement: one list per group asked, in order. */
export async function hostChangeRatesOf(client: PoolClient, groups: readonly { host: string; excludeFingerprint: string }[], limit: number): Promise<number[][]> {
  if (groups.length === 0) return [];
  const result = await client.query<{ rates: number[] }>(
    `SELECT ARRAY(SELECT change_rate_per_day FROM urls
                  WHERE host = g.host AND fingerprint <> g.exclude AND change_observations > 0 AND change_rate_per_day > 0
                  LIMIT $3) AS rates
     FROM unnest($1::text[], $2::bytea[]) WITH ORDINALITY AS g(host, exclude, i)
     ORDER BY g.i`,
    [groups.map((group) => group.host), groups.map((group) => fingerprintToBytes(group.excludeFingerprint)), limit],
  );
  return result.rows.map((row) => row.rates);
}

export interface ObservationRow {
  fingerprint: string;
  generation: number;
  crawlId: string;
  observedAt: Date;
  verdict: 'changed' | 'unchanged' | 'baseline' | 'stale';
  source: 'content' | 'not-modified';
  intervalDays: number | null;
  changeKey: string | null;
  ratePerDay: number | null;
  /** A changed visit's version age by its Last-Modified, when the date agreed with the verdict. */
  versionAgeDays?: number | null;
}

/** Records one visit's observation once per (fingerprint, generation); returns whether this call did. */
export async function insertObservation(client: PoolClient, row: ObservationRow): Promise<boolean> {
  const result = await client.query(`${INSERT_OBSERVATION_SQL} ON CONFLICT (fingerprint, generation) DO NOTHING`, insertObservationParams(row));
  return (result.rowCount ?? 0) > 0;
}

export interface SavedUrlEvidence {
  fingerprint: string;
  evidence: UrlChangeEvidence;
  ratePerDay: number;
  rateMethod: string;
  nextFetchAt: Date;
  normalizedHash?: string | null;
  /** The listing entry digest current at this visit (listingDigestAtVisit, over the locked row's readings); null with none. */
  listingDigestAtVisit: string | null;
}

const INSERT_OBSERVATION_SQL = `INSERT INTO url_observations (fingerprint, generation, crawl_id, observed_at, verdict, source, interval_days, change_key, rate_per_day, version_age_days)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)`;

function insertObservationParams(row: ObservationRow): unknown[] {
  return [
    fingerprintToBytes(row.fingerprint),
    row.generation,
    row.crawlId,
    row.observedAt,
    row.verdict,
    row.source,
    row.intervalDays,
    row.changeKey,
    row.ratePerDay,
    row.versionAgeDays ?? null,
  ];
}

/**
 * Records one visit's observation and writes the evidence, the estimate and the next due time
 * back to the URL record, in one statement (two tables; neither part reads the other's rows). A
 * repeat fails on the observation's key rather than count a visit twice (see lockUrlEvidence).
 * It goes with the transaction's COMMIT, one statement for every visit the transaction records:
 * the rows are each page's own, locked by lockUrlEvidence, and nothing after it reads them.
 */
export async function recordObservation(client: PoolClient, row: ObservationRow, saved: SavedUrlEvidence): Promise<void> {
  const { evidence } = saved;
  const isoOf = (ms: number | null): string | null => (ms === null ? null : new Date(ms).toISOString());
  await holdRows(client, OBSERVATION_ROWS, [
    [
      fingerprintToBytes(row.fingerprint),
      row.generation,
      row.crawlId,
      row.observedAt.toISOString(),
      row.verdict,
      row.source,
      row.intervalDays,
      row.changeKey,
      row.ratePerDay,
      isoOf(evidence.lastObservedAtMs),
      evidence.lastChangeKey,
      evidence.observations,
      evidence.changes,
      evidence.observedDays,
      evidence.changeStreak,
      isoOf(evidence.lastChangedAtMs),
      saved.ratePerDay,
      saved.rateMethod,
      saved.nextFetchAt.toISOString(),
      saved.normalizedHash ? Buffer.from(saved.normalizedHash, 'hex') : null,
      row.versionAgeDays ?? null,
      evidence.versionDateChecks.confirmed,
      evidence.versionDateChecks.refuted,
      saved.listingDigestAtVisit === null ? null : Buffer.from(saved.listingDigestAtVisit, 'hex'),
    ],
  ]);
}

const OBSERVATION_ROWS: RowStatement = {
  order: FIGURE_ORDER.pageRows,
  sql: `WITH v AS (
       SELECT * FROM unnest($1::bytea[], $2::int[], $3::text[], $4::timestamptz[], $5::text[], $6::text[], $7::float8[], $8::text[], $9::float8[],
                            $10::timestamptz[], $11::text[], $12::int[], $13::int[], $14::float8[], $15::int[], $16::timestamptz[], $17::float8[],
                            $18::text[], $19::timestamptz[], $20::bytea[], $21::float8[], $22::int[], $23::int[], $24::bytea[]) WITH ORDINALITY
         AS v(fingerprint, generation, crawl_id, observed_at, verdict, source, interval_days, change_key, rate_per_day,
              last_observed_at, last_change_key, change_observations, changes_observed, observed_days, change_streak, last_changed_at,
              change_rate_per_day, change_rate_method, next_fetch_at, normalized_hash, version_age_days, version_dates_confirmed,
              version_dates_refuted, listing_digest_at_visit, i)),
     observation AS (
       INSERT INTO url_observations (fingerprint, generation, crawl_id, observed_at, verdict, source, interval_days, change_key, rate_per_day, version_age_days)
       SELECT fingerprint, generation, crawl_id, observed_at, verdict, source, interval_days, change_key, rate_per_day, version_age_days FROM v ORDER BY i)
     UPDATE urls u SET last_observed_at = v.last_observed_at, last_change_key = v.last_change_key, change_observations = v.change_observations,
       changes_observed = v.changes_observed, observed_days = v.observed_days, change_streak = v.change_streak, last_changed_at = v.last_changed_at,
       change_rate_per_day = v.change_rate_per_day, change_rate_method = v.change_rate_method, next_fetch_at = v.next_fetch_at,
       version_dates_confirmed = v.version_dates_confirmed, version_dates_refuted = v.version_dates_refuted,
       last_normalized_hash = COALESCE(v.normalized_hash, u.last_normalized_hash),
       -- The listing entry current at this visit (listingDigestAtVisit): a later, different entry says the item changed since.
       listing_digest_at_visit = v.listing_digest_at_visit
     FROM v WHERE u.fingerprint = v.fingerprint`,
  keyColumns: 2,
};
