import type { HostRecord } from '../../contracts/activities.js';
import { addCrawlCounters } from './crawl-counters.js';
import { inTransaction, isPool } from './pool.js';
import type { Queryable } from './sql-codec.js';

/** A host's saved record as a statement reads it (HOST_RECORD_COLUMNS). */
export interface HostRecordRow {
  politeness: unknown;
  delay_override_ms: number | null;
  paused: boolean;
  quarantined_reason: string | null;
}

/** The columns of the `hosts` row a run begins with: its saved record. */
export const HOST_RECORD_COLUMNS = 'politeness, delay_override_ms, paused, quarantined_reason';

/** A host's saved record; a host without a row has the defaults. */
export function hostRecordOf(row: HostRecordRow | undefined): HostRecord {
  return {
    politeness: row?.politeness ?? null,
    delayOverrideMs: row?.delay_override_ms ?? null,
    paused: row?.paused ?? false,
    quarantinedReason: row?.quarantined_reason ?? null,
  };
}

/**
 * A host's run begins its work: stamps `run_started_at` (a host woken since, and not begun, waits
 * for a worker: crawl-waits-repository.ts) and returns the host's saved record, in one statement.
 * A claim does the same in its own statement (frontier-claims.ts, `startRun`).
 */
export async function startHostRun(db: Queryable, host: string): Promise<HostRecord> {
  const result = await db.query<HostRecordRow>(`UPDATE hosts SET run_started_at = now() WHERE host = $1 RETURNING ${HOST_RECORD_COLUMNS}`, [host]);
  return hostRecordOf(result.rows[0]);
}

/**
 * SQL condition on the `hosts` row aliased `alias`: woken, and its run not begun since (its first
 * claim stamps `run_started_at`), so the run waits in Temporal's task queue for a worker. The one
 * definition for the crawl's waits and the wake's pace.
 */
export function wokenNotBegun(alias: string): string {
  return `${alias}.workflow_active AND (${alias}.run_started_at IS NULL OR ${alias}.run_started_at < ${alias}.woken_at)`;
}

/** The queue of woken hosts in front of the workers, and the workers' pace (src/domain/frontier/host-wake-room.ts). */
export interface HostStartQueue {
  /** Hosts woken in the last `awaitingWindowSeconds` whose runs have not begun since. */
  hostsAwaitingWorker: number;
  /** Hosts whose runs began in the last `startWindowSeconds`. */
  hostsBegunInWindow: number;
}

/**
 * Counted over every crawl: the task queue's workers serve them all. A host woken longer ago than
 * `awaitingWindowSeconds` no longer counts, so one whose run was lost (its reaper has not come
 * yet) cannot hold the wakes of every crawl. Both counts read an index (migrations 0018, 0019).
 */
export async function hostStartQueue(db: Queryable, options: { awaitingWindowSeconds: number; startWindowSeconds: number }): Promise<HostStartQueue> {
  const result = await db.query<{ awaiting: number; begun: number }>(
    `SELECT (SELECT count(*)::int FROM hosts h WHERE ${wokenNotBegun('h')} AND h.woken_at > now() - make_interval(secs => $1)) AS awaiting,
            (SELECT count(*)::int FROM hosts WHERE run_started_at > now() - make_interval(secs => $2)) AS begun`,
    [options.awaitingWindowSeconds, options.startWindowSeconds],
  );
  return { hostsAwaitingWorker: result.rows[0]?.awaiting ?? 0, hostsBegunInWindow: result.rows[0]?.begun ?? 0 };
}

/** Marks hosts as having a running workflow, before signalling it, so a tick wakes each once. */
export async function markHostsActive(db: Queryable, hosts: string[]): Promise<void> {
  if (hosts.length === 0) return;
  await db.query(
    `INSERT INTO hosts (host, workflow_active, woken_at) SELECT h, true, now() FROM unnest($1::text[]) AS h
     ON CONFLICT (host) DO UPDATE SET workflow_active = true, woken_at = now(), updated_at = now()`,
    [hosts],
  );
}

export async function markHostInactive(db: Queryable, host: string): Promise<void> {
  await db.query('UPDATE hosts SET workflow_active = false, updated_at = now() WHERE host = $1', [host]);
}

export async function markHostsInactive(db: Queryable, hosts: string[]): Promise<void> {
  if (hosts.length === 0) return;
  await db.query('UPDATE hosts SET workflow_active = false, updated_at = now() WHERE host = ANY($1::text[])', [hosts]);
}

/** What a released host keeps for its next run: its politeness state and the operator's settings. */
export interface HostRelease {
  politeness: unknown;
  paused: boolean;
  delayOverrideMs: number | null;
}

/**
 * The release of host `hostSql` with the values `valuesSql` (politeness as jsonb text, paused,
 * delay override), as a statement of its own or a claim's CTE (frontier-claims.ts): there only
 * when `whenSql` holds, and with `startRunSql` true it also stamps the run begun, so that a claim
 * that begins a run and releases the host writes the row once. With `keepsRecord`, the releasing
 * run has not read the host's record (its first claim): the saved record stays where the run
 * knows nothing, as the run would have adopted it (no politeness state, no override; paused if either is).
 */
export function releaseHostSql(hostSql: string, valuesSql: [string, string, string], options: { whenSql?: string; startRunSql?: string; keepsRecord?: boolean } = {}): string {
  const [politeness, paused, delayOverrideMs] = valuesSql;
  const keeps = options.keepsRecord === true;
  return `INSERT INTO hosts (host, workflow_active, politeness, paused, delay_override_ms)
     SELECT ${hostSql}, false, ${politeness}::jsonb, ${paused}::boolean, ${delayOverrideMs}::integer${options.whenSql === undefined ? '' : ` WHERE ${options.whenSql}`}
     ON CONFLICT (host) DO UPDATE SET workflow_active = false,
       politeness = ${keeps ? "COALESCE(NULLIF(EXCLUDED.politeness, 'null'::jsonb), hosts.politeness)" : 'EXCLUDED.politeness'},
       paused = ${keeps ? 'EXCLUDED.paused OR hosts.paused' : 'EXCLUDED.paused'},
       delay_override_ms = ${keeps ? 'COALESCE(EXCLUDED.delay_override_ms, hosts.delay_override_ms)' : 'EXCLUDED.delay_override_ms'}, updated_at = now(),
       run_started_at = CASE WHEN ${options.startRunSql ?? 'false'} THEN now() ELSE hosts.run_started_at END`;
}

/** The release's parameters for releaseHostSql's values. */
export function releaseHostParams(release: HostRelease): unknown[] {
  return [JSON.stringify(release.politeness ?? null), release.paused, release.delayOverrideMs];
}

/** The host's workflow is about to end: keep what its next run needs (`keepsRecord`: releaseHostSql). */
export async function releaseHost(db: Queryable, input: HostRelease & { host: string }, options: { keepsRecord?: boolean } = {}): Promise<void> {
  await db.query(releaseHostSql('$1::text', ['$2', '$3', '$4'], options), [input.host, ...releaseHostParams(input)]);
}

export async function setHostOperatorSettings(
  db: Queryable,
  input: { host: string; paused?: boolean; delayOverrideMs?: number | null },
): Promise<void> {
  await db.query(
    `INSERT INTO hosts (host, paused, delay_override_ms) VALUES ($1, COALESCE($2, false), $3)
     ON CONFLICT (host) DO UPDATE SET paused = COALESCE($2, hosts.paused),
       delay_override_ms = CASE WHEN $4 THEN $3 ELSE hosts.delay_override_ms END, updated_at = now()`,
    [input.host, input.paused ?? null, input.delayOverrideMs ?? null, input.delayOverrideMs !== undefined],
  );
}

export async function quarantineHost(db: Queryable, host: string, reason: string): Promise<void> {
  await db.query(
    `INSERT INTO hosts (host, quarantined_reason) VALUES ($1, $2)
     ON CONFLICT (host) DO UPDATE SET quarantined_reason = $2, updated_at = now()`,
    [host, reason],
  );
}

/** Hosts marked active that hold this crawl's work but were woken long ago: candidates to verify. */
export async function staleActiveHosts(db: Queryable, crawlId: string, olderThanSeconds: number, limit: number): Promise<string[]> {
  const result = await db.query<{ host: string }>(
    `SELECT DISTINCT f.host FROM frontier f JOIN hosts h ON h.host = f.host
     WHERE f.crawl_id = $1 AND f.state IN ('queued', 'dispatched') AND h.workflow_active
       AND h.woken_at < now() - make_interval(secs => $2)
     LIMIT $3`,
    [crawlId, olderThanSeconds, limit],
  );
  return result.rows.map((row) => row.host);
}

/** URLs a dead host workflow held: back to the queue, with their admission returned. */
export async function requeueOrphans(db: Queryable, crawlId: string, host: string): Promise<number> {
  // The move and its count commit together, or the crawl's in-flight figure drifts for good.
  if (isPool(db)) return inTransaction(db, (client) => requeueOrphans(client, crawlId, host));
  const result = await db.query(
    `UPDATE frontier SET state = 'queued', generation = NULL, claim_token = NULL, updated_at = now()
     WHERE crawl_id = $1 AND host = $2 AND state IN ('dispatched', 'fetched')`,
    [crawlId, host],
  );
  const n = result.rowCount ?? 0;
  await addCrawlCounters(db, crawlId, 0, { returned: n });
  return n;
}

/** Hosts of a crawl with URLs in flight (`active`), and with URLs queued or in flight (`withWork`). */
export async function crawlHostCounts(db: Queryable, crawlId: string): Promise<{ active: number; withWork: number }> {
  const result = await db.query<{ active: number; with_work: number }>(
    `SELECT count(DISTINCT host) FILTER (WHERE state IN ('dispatched', 'fetched'))::int AS active,
            count(DISTINCT host)::int AS with_work
     FROM frontier WHERE crawl_id = $1 AND state IN ('queued', 'dispatched', 'fetched')`,
    [crawlId],
  );
  return { active: result.rows[0]?.active ?? 0, withWork: result.rows[0]?.with_work ?? 0 };
}

/** What Postgres holds of one host: what `crawler status --host` shows when the host's workflow cannot answer. */
export interface SavedHostRecord {
  workflowActive: boolean;
  wokenAt: Date | null;
  runStartedAt: Date | null;
  /** From the politeness state saved when the host was last released; null before that. */
  nextFetchAtMs: number | null;
  paused: boolean;
  delayOverrideMs: number | null;
  quarantinedReason: string | null;
  /** URLs of the host queued in Postgres, every crawl's, not yet claimed by its workflow. */
  queued: number;
}

/** The host's saved record, or undefined when no crawl has met the host. */
export async function readSavedHostRecord(db: Queryable, host: string): Promise<SavedHostRecord | undefined> {
  const result = await db.query<{
    workflow_active: boolean;
    woken_at: Date | null;
    run_started_at: Date | null;
    politeness: { nextFetchAtMs?: unknown } | null;
    paused: boolean;
    delay_override_ms: number | null;
    quarantined_reason: string | null;
    queued: number;
  }>(
    `SELECT h.workflow_active, h.woken_at, h.run_started_at, h.politeness, h.paused, h.delay_override_ms, h.quarantined_reason,
            (SELECT count(*)::int FROM frontier f WHERE f.host = h.host AND f.state = 'queued') AS queued
     FROM hosts h WHERE h.host = $1`,
    [host],
  );
  const row = result.rows[0];
  if (row === undefined) return undefined;
  const nextFetchAtMs = row.politeness?.nextFetchAtMs;
  return {
    workflowActive: row.workflow_active,
    wokenAt: row.woken_at,
    runStartedAt: row.run_started_at,
    nextFetchAtMs: typeof nextFetchAtMs === 'number' && Number.isFinite(nextFetchAtMs) ? nextFetchAtMs : null,
    paused: row.paused,
    delayOverrideMs: row.delay_override_ms,
    quarantinedReason: row.quarantined_reason,
    queued: row.queued,
  };
}

/**
 * The operator's importance of a host, 0..1, over the one its in-links give it (migration 0029);
 * null clears it. It weighs in the priority of the URLs crawls register on the host from then on.
 */
export async function setHostImportance(db: Queryable, host: string, importance: number | null): Promise<void> {
  await db.query(
    `INSERT INTO hosts (host, importance) VALUES ($1, $2)
     ON CONFLICT (host) DO UPDATE SET importance = EXCLUDED.importance, updated_at = now()`,
    [host, importance],
  );
}
