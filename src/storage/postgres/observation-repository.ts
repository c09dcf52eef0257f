/**
 * Change evidence on the URL record and the per-visit observations behind it (001). Callers run
 * these inside one transaction that first locks the URL row, so two reports about one URL never
 * interleave.
 */
import type { ChangeObservation, PageSignals, UrlChangeEvidence } from '../../domain/recrawl/index.js';
import { pageSignalsOf, SIGNAL_COLUMNS, type SignalColumns } from './cheap-signal-repository.js';
import { fingerprintToBytes } from './frontier-repository.js';
import type { PoolClient } from './pool.js';
import { FIGURE_ORDER, writeWithCommit } from './shared-figures.js';
import { composeStatement, type StatementPart } from './statement-composition.js';

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
  observed: boolean;
}

/**
 * The URL's evidence, with its row locked until the transaction ends, and whether this visit is
 * recorded already; undefined for an unknown URL. The look-up shares the statement's snapshot,
 * taken before any wait for the row: a report of the same visit committed during that wait is
 * missed here, and its insert then fails on the observation's key (the activity retries and finds
 * it). Callers serialize replays before this anyway (the document's or the fetch's own key).
 */
export async function lockUrlEvidence(client: PoolClient, fingerprint: string, generation: number): Promise<LockedUrlEvidence | undefined> {
  const part = lockUrlEvidencePart('evidence', fingerprint, generation);
  const result = await client.query<EvidenceRow>(part.sql, [...part.params]);
  return lockedEvidenceOf(result.rows[0]);
}

/** lockUrlEvidence's statement as a part of a composed one (composeStatement): a row per known URL, read with lockedEvidenceOf. */
export function lockUrlEvidencePart(name: string, fingerprint: string, generation: number): StatementPart {
  return {
    name,
    sql: `SELECT host, origin, ${SIGNAL_COLUMNS}, last_observed_at, last_change_key, change_observations, changes_observed, observed_days, change_streak,
            last_changed_at, change_rate_per_day, change_rate_method,
            EXISTS (SELECT 1 FROM url_observations o WHERE o.fingerprint = $1 AND o.generation = $2) AS observed
     FROM urls WHERE fingerprint = $1 FOR UPDATE`,
    params: [fingerprintToBytes(fingerprint), generation],
  };
}

/** The locked evidence of lockUrlEvidencePart's row; undefined for an unknown URL (no row). */
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
    },
    ratePerDay: row.change_rate_per_day,
    rateMethod: row.change_rate_method,
    observed: row.observed,
  };
}

/** The URL's most recent compared visits, oldest first: the window the rate is estimated from. */
export async function recentObservations(client: PoolClient, fingerprint: string, limit: number): Promise<ChangeObservation[]> {
  const result = await client.query<{ interval_days: number; verdict: string }>(
    `SELECT interval_days, verdict FROM url_observations
     WHERE fingerprint = $1 AND verdict IN ('changed', 'unchanged') AND interval_days > 0
     ORDER BY generation DESC LIMIT $2`,
    [fingerprintToBytes(fingerprint), limit],
  );
  return result.rows.reverse().map((row) => ({ intervalDays: row.interval_days, changed: row.verdict === 'changed' }));
}

/** Rate estimates of other pages of the host that have been compared at least once (the group for the prior). */
export async function hostChangeRates(client: PoolClient, host: string, excludeFingerprint: string, limit: number): Promise<number[]> {
  const result = await client.query<{ rate: number }>(
    `SELECT change_rate_per_day AS rate FROM urls
     WHERE host = $1 AND fingerprint <> $2 AND change_observations > 0 AND change_rate_per_day > 0
     LIMIT $3`,
    [host, fingerprintToBytes(excludeFingerprint), limit],
  );
  return result.rows.map((row) => row.rate);
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
}

/**
 * Records one visit's observation and writes the evidence, the estimate and the next due time
 * back to the URL record, in one statement (two tables; neither part reads the other's rows). A
 * repeat fails on the observation's key rather than count a visit twice (see lockUrlEvidence).
 * It goes with the transaction's COMMIT: the rows are the page's own, locked by lockUrlEvidence,
 * and nothing after it in a visit's transaction reads them.
 */
export async function recordObservation(client: PoolClient, row: ObservationRow, saved: SavedUrlEvidence): Promise<void> {
  const statement = composeStatement(
    [
      { name: 'observation', sql: INSERT_OBSERVATION_SQL, params: insertObservationParams(row) },
      { name: 'evidence', sql: SAVE_URL_EVIDENCE_SQL, params: saveUrlEvidenceParams(saved) },
    ],
    'SELECT 1',
  );
  await writeWithCommit(client, FIGURE_ORDER.pageRows, statement.text, statement.values);
}

const INSERT_OBSERVATION_SQL = `INSERT INTO url_observations (fingerprint, generation, crawl_id, observed_at, verdict, source, interval_days, change_key, rate_per_day)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)`;

function insertObservationParams(row: ObservationRow): unknown[] {
  return [fingerprintToBytes(row.fingerprint), row.generation, row.crawlId, row.observedAt, row.verdict, row.source, row.intervalDays, row.changeKey, row.ratePerDay];
}

const SAVE_URL_EVIDENCE_SQL = `UPDATE urls SET last_observed_at = $2, last_change_key = $3, change_observations = $4, changes_observed = $5,
       observed_days = $6, change_streak = $7, last_changed_at = $8, change_rate_per_day = $9, change_rate_method = $10,
       next_fetch_at = $11, last_normalized_hash = COALESCE($12, last_normalized_hash),
       -- The listing entry current at this visit: a later, different entry says the item changed since.
       listing_digest_at_visit = listing_digest
     WHERE fingerprint = $1`;

function saveUrlEvidenceParams(input: SavedUrlEvidence): unknown[] {
  const { evidence } = input;
  return [
    fingerprintToBytes(input.fingerprint),
    evidence.lastObservedAtMs === null ? null : new Date(evidence.lastObservedAtMs),
    evidence.lastChangeKey,
    evidence.observations,
    evidence.changes,
    evidence.observedDays,
    evidence.changeStreak,
    evidence.lastChangedAtMs === null ? null : new Date(evidence.lastChangedAtMs),
    input.ratePerDay,
    input.rateMethod,
    input.nextFetchAt,
    input.normalizedHash ? Buffer.from(input.normalizedHash, 'hex') : null,
  ];
}
