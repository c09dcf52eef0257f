/**
 * Settling a claimed URL: it leaves flight for its next state (queued again, done, failed, dead,
 * dropped) and the crawl's counters count it in the same commit, alone or as a part of a composed
 * statement. Only a URL still in flight under its generation moves, so a repeated settlement moves
 * and counts nothing.
 */
import { addCrawlCounters, counterShardOf } from './crawl-counters.js';
import { isPool } from './pool.js';
import { fingerprintToBytes, type Queryable } from './sql-codec.js';
import type { StatementPart } from './statement-composition.js';

/** Where a URL stands in a crawl's frontier. */
export type FrontierState = 'queued' | 'dispatched' | 'fetched' | 'done' | 'failed' | 'dead' | 'dropped';

/** Moves one in-flight URL to $4 (with outcome $5 and attempts $6); settleFrontierParams orders them. */
export const SETTLE_FRONTIER_SQL = `UPDATE frontier SET state = $4, outcome = $5, attempts = GREATEST(attempts, $6), updated_at = now(),
            generation = CASE WHEN $4 = 'queued' THEN NULL ELSE generation END,
            claim_token = CASE WHEN $4 = 'queued' THEN NULL ELSE claim_token END
     WHERE crawl_id = $1 AND fingerprint = $2 AND generation = $3 AND state IN ('dispatched', 'fetched')
       AND NOT (state = $4)`;

function settleFrontierParams(input: { crawlId: string; fingerprint: string; generation: number; state: FrontierState; outcome: string; attempts?: number }): unknown[] {
  return [input.crawlId, fingerprintToBytes(input.fingerprint), input.generation, input.state, input.outcome, input.attempts ?? 0];
}

/**
 * SETTLE_FRONTIER_SQL and its counters in one statement, for a caller outside a transaction: a
 * process or a Postgres server dying between a move and its count would leave the crawl's
 * in-flight figure off for good, since a repeated settlement moves nothing and counts nothing.
 * $7 is the counter shard.
 */
const SETTLE_AND_COUNT_SQL = `WITH moved AS (${SETTLE_FRONTIER_SQL} RETURNING 1),
       counted AS (
         INSERT INTO crawl_counters AS c (crawl_id, shard, settled, returned, discovered)
         SELECT $1, $7, CASE WHEN $4 = 'queued' THEN 0 ELSE 1 END, CASE WHEN $4 = 'queued' THEN 1 ELSE 0 END, 0
         FROM moved WHERE $4 NOT IN ('dispatched', 'fetched')
         ON CONFLICT (crawl_id, shard) DO UPDATE SET settled = c.settled + EXCLUDED.settled, returned = c.returned + EXCLUDED.returned)
  SELECT count(*)::int AS moved FROM moved`;

/**
 * Moves a dispatched URL to its next state. Only a URL still in flight moves, so repeating a
 * settlement changes nothing; the move and its count commit together, so the crawl's in-flight
 * count stays exact whatever dies when.
 */
export async function settleFrontierEntry(db: Queryable, input: FrontierSettlement): Promise<boolean> {
  if (isPool(db)) {
    const result = await db.query<{ moved: number }>(SETTLE_AND_COUNT_SQL, [...settleFrontierParams(input), counterShardOf(input.fingerprint)]);
    return (result.rows[0]?.moved ?? 0) > 0;
  }
  // A lent client is inside its caller's transaction, which sends the counters with COMMIT.
  const result = await db.query(SETTLE_FRONTIER_SQL, settleFrontierParams(input));
  const changed = (result.rowCount ?? 0) > 0;
  await countSettlement(db, input, changed);
  return changed;
}

/** Where a URL in flight moves, and why. */
export interface FrontierSettlement {
  crawlId: string;
  fingerprint: string;
  generation: number;
  state: FrontierState;
  outcome: string;
  attempts?: number;
}

/**
 * Several settlements as a part of a composed statement (composeStatement): each entry still in
 * flight moves as settleFrontierEntry moves it, rows locked in fingerprint order; returns a row
 * (fingerprint, generation) per entry that moved. No two settlements of one entry.
 */
export function settleFrontierEntriesPart(name: string, settlements: readonly FrontierSettlement[]): StatementPart {
  return {
    name,
    sql: `UPDATE frontier f SET state = v.state, outcome = v.outcome, attempts = GREATEST(f.attempts, v.attempts), updated_at = now(),
            generation = CASE WHEN v.state = 'queued' THEN NULL ELSE f.generation END,
            claim_token = CASE WHEN v.state = 'queued' THEN NULL ELSE f.claim_token END
          FROM (SELECT v.* FROM unnest($1::text[], $2::bytea[], $3::int[], $4::text[], $5::text[], $6::int[]) AS v(crawl_id, fingerprint, generation, state, outcome, attempts)
                  JOIN frontier x ON x.crawl_id = v.crawl_id AND x.fingerprint = v.fingerprint AND x.generation = v.generation
                                 AND x.state IN ('dispatched', 'fetched') AND x.state <> v.state
                ORDER BY x.fingerprint FOR UPDATE OF x) AS v
          WHERE f.crawl_id = v.crawl_id AND f.fingerprint = v.fingerprint AND f.generation = v.generation
            AND f.state IN ('dispatched', 'fetched') AND NOT (f.state = v.state)
          RETURNING f.fingerprint, v.generation`,
    params: [
      settlements.map((settlement) => settlement.crawlId),
      settlements.map((settlement) => fingerprintToBytes(settlement.fingerprint)),
      settlements.map((settlement) => settlement.generation),
      settlements.map((settlement) => settlement.state),
      settlements.map((settlement) => settlement.outcome),
      settlements.map((settlement) => settlement.attempts ?? 0),
    ],
  };
}

/** The counters a settlement moves once its entry moved (`changed`): settleFrontierEntry's second half. */
export async function countSettlement(db: Queryable, input: FrontierSettlement, changed: boolean): Promise<void> {
  const leavingFlight = input.state !== 'dispatched' && input.state !== 'fetched';
  if (changed && leavingFlight) {
    // A URL returned to the queue gives its admission back; a settled one keeps counting against the budget.
    await addCrawlCounters(db, input.crawlId, counterShardOf(input.fingerprint), input.state === 'queued' ? { returned: 1 } : { settled: 1 });
  }
}
