/**
 * What a running crawl waits for (migration 0013): its hosts' long waits, as their workflows
 * report them, and the object store's failures, as its fetches meet them. Read by the frontier
 * tick (the progress line, the Temporal UI) and by `crawler status`.
 */
import type { CrawlWaits, HostWaitGroup, HostWaitReason, StorageHealth } from '../../contracts/status.js';
import { wokenNotBegun } from './host-repository.js';
import type { Queryable } from './sql-codec.js';

/** Longest error text kept: an error may quote a whole response. */
const MAX_ERROR_CHARS = 500;

export async function recordStorageFailure(db: Queryable, input: { crawlId: string; error: string; failingSinceMs: number }): Promise<void> {
  await db.query(
    `INSERT INTO crawl_storage_health AS h (crawl_id, failures, failing_since, last_error, last_failure_at)
     VALUES ($1, 1, $2, $3, now())
     ON CONFLICT (crawl_id) DO UPDATE SET failures = h.failures + 1, failing_since = COALESCE(h.failing_since, EXCLUDED.failing_since),
                                          last_error = EXCLUDED.last_error, last_failure_at = EXCLUDED.last_failure_at`,
    [input.crawlId, new Date(input.failingSinceMs), input.error.slice(0, MAX_ERROR_CHARS)],
  );
}

/** A body that waited for the store was stored: the crawl's store is no longer failing. */
export async function recordStorageRecovered(db: Queryable, crawlId: string): Promise<void> {
  await db.query(`UPDATE crawl_storage_health SET failing_since = NULL WHERE crawl_id = $1 AND failing_since IS NOT NULL`, [crawlId]);
}

export async function recordHostWait(db: Queryable, input: { host: string; reason: HostWaitReason; sinceMs: number; untilMs: number }): Promise<void> {
  await db.query(
    `INSERT INTO host_waits (host, reason, since, until) VALUES ($1, $2, $3, $4)
     ON CONFLICT (host) DO UPDATE SET reason = EXCLUDED.reason, since = EXCLUDED.since, until = EXCLUDED.until`,
    [input.host, input.reason, new Date(input.sinceMs), new Date(input.untilMs)],
  );
}

/**
 * A woken host's run ordinarily begins its work within a second of the wake; one that has not
 * begun after this long waits in Temporal's task queue for a worker.
 */
export const WAITING_FOR_WORKER_AFTER_SECONDS = 10;

/**
 * The crawl's waits now: hosts with work of this crawl in a long wait, by reason; hosts woken for
 * it whose runs have not begun (waiting for a worker); its store's health. One statement.
 */
export async function crawlWaits(db: Queryable, crawlId: string): Promise<CrawlWaits> {
  const result = await db.query<{
    hosts: { reason: HostWaitReason; hosts: number; next_ends_at: string; last_ends_at: string; since: string }[] | null;
    unstarted: number;
    unstarted_since: Date | null;
    failures: string | null;
    failing_since: Date | null;
    last_error: string | null;
    last_failure_at: Date | null;
  }>(
    `SELECT (SELECT json_agg(g ORDER BY g.reason) FROM (
               SELECT w.reason, count(*)::int AS hosts, min(w.until) AS next_ends_at, max(w.until) AS last_ends_at, min(w.since) AS since
               FROM host_waits w
               WHERE w.until > now()
                 AND EXISTS (SELECT 1 FROM frontier f WHERE f.crawl_id = $1 AND f.host = w.host
                               AND (f.state IN ('queued', 'dispatched') OR (w.reason = 'render-worker' AND f.state = 'fetched')))
               GROUP BY w.reason) g) AS hosts,
            u.unstarted, u.unstarted_since,
            h.failures, h.failing_since, h.last_error, h.last_failure_at
     FROM (SELECT 1) one
     CROSS JOIN (SELECT count(*)::int AS unstarted, min(o.woken_at) AS unstarted_since FROM hosts o
                 WHERE ${wokenNotBegun('o')} AND o.woken_at < now() - make_interval(secs => $2)
                   AND EXISTS (SELECT 1 FROM frontier f WHERE f.host = o.host AND f.state = 'queued' AND f.crawl_id = $1)) u
     LEFT JOIN crawl_storage_health h ON h.crawl_id = $1`,
    [crawlId, WAITING_FOR_WORKER_AFTER_SECONDS],
  );
  const row = result.rows[0];
  const hosts: HostWaitGroup[] = (row?.hosts ?? []).map((group) => ({
    reason: group.reason,
    hosts: group.hosts,
    sinceMs: Date.parse(group.since),
    nextEndsAtMs: Date.parse(group.next_ends_at),
    lastEndsAtMs: Date.parse(group.last_ends_at),
  }));
  const storage: StorageHealth = {
    failures: Number(row?.failures ?? 0),
    failingSinceMs: row?.failing_since?.getTime() ?? null,
    lastError: row?.last_error ?? null,
    lastFailureAtMs: row?.last_failure_at?.getTime() ?? null,
  };
  const unstarted = row?.unstarted ?? 0;
  return { hosts, ...(unstarted > 0 && row?.unstarted_since ? { waitingForWorker: { hosts: unstarted, sinceMs: row.unstarted_since.getTime() } } : {}), storage };
}
