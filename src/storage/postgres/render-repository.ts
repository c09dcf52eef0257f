/**
 * Render tasks, their subresources, the crawl's render spending and the per-template verdicts
 * (migration 0024, docs/rendering.md). Every write is keyed: a parse or a render replayed changes
 * nothing twice.
 */
import { nextRenderVerdict, renderBudgetVerdict, type RenderBudget, type RenderVerdict, type SampleComparison } from '../../domain/render/index.js';
import { fingerprintFromBytes, fingerprintToBytes, type Queryable } from './sql-codec.js';
import { inTransaction, type Pool, type PoolClient } from './pool.js';
import { addCrawlCounters } from './crawl-counters.js';

/** A page the parse decided to render (or a hash route of one): its row in `renders`. */
export interface RenderTaskRow {
  crawlId: string;
  fingerprint: string;
  generation: number;
  routeKey: string;
  host: string;
  url: string;
  pathTemplate: string;
  reason: string;
  sampleBothWays: boolean;
}

/** 'ended': recorded before and finished since (a parse replayed after its renders): nothing to do. */
export type RenderReservation = 'pending' | 'deferred' | 'ended';

/**
 * Reserves budget for render tasks of one crawl inside the caller's transaction: each becomes
 * 'pending' within the budget, or 'deferred' past it (the page keeps its HTTP result). A task
 * already recorded keeps its state (a replayed parse). The crawl's usage row is locked to the
 * transaction's end: parses that want renders take their budget one after another.
 */
export async function reserveRenders(client: PoolClient, tasks: readonly RenderTaskRow[], budget: RenderBudget): Promise<RenderReservation[]> {
  if (tasks.length === 0) return [];
  const crawlId = tasks[0]!.crawlId;
  const usage = await client.query<{ renders: number; cpu_ms: string }>(
    `INSERT INTO crawl_render_usage AS u (crawl_id) VALUES ($1)
     ON CONFLICT (crawl_id) DO UPDATE SET renders = u.renders RETURNING renders, cpu_ms`,
    [crawlId],
  );
  let renders = usage.rows[0]?.renders ?? 0;
  const cpuMs = Number(usage.rows[0]?.cpu_ms ?? 0);
  const reservations: RenderReservation[] = [];
  let added = 0;
  let deferred = 0;
  for (const task of tasks) {
    const existing = await client.query<{ state: string }>(
      'SELECT state FROM renders WHERE crawl_id = $1 AND fingerprint = $2 AND generation = $3 AND route_key = $4',
      [task.crawlId, fingerprintToBytes(task.fingerprint), task.generation, task.routeKey],
    );
    if (existing.rows[0]) {
      const state = existing.rows[0].state;
      reservations.push(state === 'deferred' ? 'deferred' : state === 'pending' ? 'pending' : 'ended');
      continue;
    }
    const hostRenders = await client.query<{ n: number }>(`SELECT count(*)::int AS n FROM renders WHERE crawl_id = $1 AND host = $2 AND state <> 'deferred'`, [task.crawlId, task.host]);
    const verdict = renderBudgetVerdict({ renders, cpuMs, hostRenders: hostRenders.rows[0]?.n ?? 0 }, budget);
    const state = verdict.within ? 'pending' : 'deferred';
    await client.query(
      `INSERT INTO renders (crawl_id, fingerprint, generation, route_key, host, url, path_template, reason, sample_both_ways, state, message)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11) ON CONFLICT DO NOTHING`,
      [task.crawlId, fingerprintToBytes(task.fingerprint), task.generation, task.routeKey, task.host, task.url, task.pathTemplate, task.reason, task.sampleBothWays, state, verdict.within ? null : `render budget spent: ${verdict.spent}`],
    );
    if (verdict.within) {
      renders += 1;
      added += 1;
    } else deferred += 1;
    reservations.push(state);
  }
  if (added > 0 || deferred > 0) await client.query('UPDATE crawl_render_usage SET renders = renders + $2, deferred = deferred + $3 WHERE crawl_id = $1', [crawlId, added, deferred]);
  return reservations;
}

/** Pages of a crawl still in flight only for their renders ('fetched', outcome 'render-pending'). */
export async function pagesAwaitingRenders(db: Queryable, crawlId: string): Promise<number> {
  const result = await db.query<{ n: number }>(`SELECT count(*)::int AS n FROM frontier WHERE crawl_id = $1 AND (state = 'fetched') IS TRUE AND outcome = 'render-pending'`, [crawlId]);
  return result.rows[0]?.n ?? 0;
}

/**
 * A crawl that ended (stopped) with renders pending: its pages keep their HTTP result and are
 * done, its pending renders end as failed, saying so. Returns the pages settled.
 */
export async function endPendingRenders(pool: Pool, crawlId: string): Promise<number> {
  return inTransaction(pool, async (client) => {
    await client.query(`UPDATE renders SET state = 'failed', message = 'the crawl ended before the render', finished_at = now() WHERE crawl_id = $1 AND state = 'pending'`, [crawlId]);
    const settled = await client.query(
      `UPDATE frontier SET state = 'done', outcome = 'ok', updated_at = now() WHERE crawl_id = $1 AND (state = 'fetched') IS TRUE AND outcome = 'render-pending'`,
      [crawlId],
    );
    const n = settled.rowCount ?? 0;
    if (n > 0) await addCrawlCounters(client, crawlId, 0, { settled: n });
    return n;
  });
}

/** A page's frontier row waits for its renders: still in flight ('fetched'), outcome 'render-pending'. */
export async function markRenderPending(client: PoolClient, crawlId: string, fingerprints: readonly { fingerprint: string; generation: number }[]): Promise<void> {
  if (fingerprints.length === 0) return;
  await client.query(
    `UPDATE frontier f SET outcome = 'render-pending', updated_at = now()
     FROM unnest($2::bytea[], $3::int[]) AS v(fingerprint, generation)
     WHERE f.crawl_id = $1 AND f.fingerprint = v.fingerprint AND f.generation = v.generation AND (f.state = 'fetched') IS TRUE`,
    [crawlId, fingerprints.map((page) => fingerprintToBytes(page.fingerprint)), fingerprints.map((page) => page.generation)],
  );
}

/** What a render ended with, for its row. */
export interface RenderResultRow {
  state: 'rendered' | 'partial' | 'failed' | 'dead';
  ended?: string;
  failureType?: string;
  message?: string;
  attempts: number;
  domBodyKey?: string;
  domSha256?: string;
  domBytes?: number;
  cpuMs: number;
  peakPssBytes: number;
  durationMs: number;
  textLength?: number;
  linksFound?: number;
  linksRegistered?: number;
  subresources: number;
  comparison?: SampleComparison;
  startedAtMs: number;
}

export interface RenderKey {
  crawlId: string;
  fingerprint: string;
  generation: number;
  routeKey: string;
}

/** Records a render's end once (a repeated record of a finished render changes nothing), and adds its CPU to the crawl's spending. */
export async function finishRender(db: Queryable, key: RenderKey, result: RenderResultRow): Promise<boolean> {
  const updated = await db.query(
    `WITH done AS (
       UPDATE renders SET state = $5, ended = $6, failure_type = $7, message = $8, attempts = GREATEST(attempts, $9), dom_body_key = $10, dom_sha256 = $11,
              dom_bytes = $12, cpu_ms = $13, peak_pss_bytes = $14, duration_ms = $15, text_length = $16, links_found = $17, links_registered = $18,
              subresources = $19, comparison = $20, started_at = to_timestamp($21::float8 / 1000), finished_at = now()
       WHERE crawl_id = $1 AND fingerprint = $2 AND generation = $3 AND route_key = $4 AND state = 'pending'
       RETURNING cpu_ms)
     UPDATE crawl_render_usage u SET cpu_ms = u.cpu_ms + d.cpu_ms FROM done d WHERE u.crawl_id = $1 RETURNING 1`,
    [
      key.crawlId,
      fingerprintToBytes(key.fingerprint),
      key.generation,
      key.routeKey,
      result.state,
      result.ended ?? null,
      result.failureType ?? null,
      result.message?.slice(0, 2000) ?? null,
      result.attempts,
      result.domBodyKey ?? null,
      result.domSha256 ? Buffer.from(result.domSha256, 'hex') : null,
      result.domBytes ?? null,
      result.cpuMs,
      result.peakPssBytes,
      result.durationMs,
      result.textLength ?? null,
      result.linksFound ?? null,
      result.linksRegistered ?? null,
      result.subresources,
      result.comparison ?? null,
      result.startedAtMs,
    ],
  );
  return (updated.rowCount ?? 0) > 0;
}

/** Hash routes found by a render, recorded as tasks of their own within the budget; returns those now pending (new ones only). */
export async function addRouteRenders(client: PoolClient, tasks: readonly RenderTaskRow[], budget: RenderBudget): Promise<string[]> {
  const fresh: RenderTaskRow[] = [];
  for (const task of tasks) {
    const existing = await client.query('SELECT 1 FROM renders WHERE crawl_id = $1 AND fingerprint = $2 AND generation = $3 AND route_key = $4', [task.crawlId, fingerprintToBytes(task.fingerprint), task.generation, task.routeKey]);
    if (existing.rowCount === 0) fresh.push(task);
  }
  const reservations = await reserveRenders(client, fresh, budget);
  return fresh.flatMap((task, i) => (reservations[i] === 'pending' ? [task.routeKey] : []));
}

/** One request of a render's browser. */
export interface SubresourceRow {
  seq: number;
  method: string;
  url: string;
  resourceType: string;
  outcome: string;
  status?: number;
  bytes?: number;
  bodyKey?: string;
  contentType?: string;
  requestedAtMs: number;
  durationMs?: number;
}

export async function recordSubresources(db: Queryable, key: RenderKey, rows: readonly SubresourceRow[]): Promise<void> {
  if (rows.length === 0) return;
  await db.query(
    `INSERT INTO render_subresources (crawl_id, fingerprint, generation, route_key, seq, method, url, resource_type, outcome, status, bytes, body_key, content_type, requested_at, duration_ms)
     SELECT $1, $2, $3, $4, r.seq, r.method, r.url, r.resource_type, r.outcome, r.status, r.bytes, r.body_key, r.content_type, to_timestamp(r.requested_at / 1000), r.duration_ms
     FROM unnest($5::int[], $6::text[], $7::text[], $8::text[], $9::text[], $10::int[], $11::int[], $12::text[], $13::text[], $14::float8[], $15::int[])
       AS r(seq, method, url, resource_type, outcome, status, bytes, body_key, content_type, requested_at, duration_ms)
     ON CONFLICT DO NOTHING`,
    [
      key.crawlId,
      fingerprintToBytes(key.fingerprint),
      key.generation,
      key.routeKey,
      rows.map((row) => row.seq),
      rows.map((row) => row.method),
      rows.map((row) => row.url.slice(0, 4000)),
      rows.map((row) => row.resourceType),
      rows.map((row) => row.outcome),
      rows.map((row) => row.status ?? null),
      rows.map((row) => row.bytes ?? null),
      rows.map((row) => row.bodyKey ?? null),
      rows.map((row) => row.contentType ?? null),
      rows.map((row) => row.requestedAtMs),
      rows.map((row) => row.durationMs ?? null),
    ],
  );
}

/** The verdict of a host and path template, if any. */
export async function readRenderVerdict(db: Queryable, host: string, pathTemplate: string): Promise<RenderVerdict | undefined> {
  const result = await db.query<{ verdict: string | null; needs_render: number; static_suffices: number }>(
    'SELECT verdict, needs_render, static_suffices FROM render_verdicts WHERE host = $1 AND path_template = $2',
    [host, pathTemplate],
  );
  const row = result.rows[0];
  if (!row) return undefined;
  return { ...(row.verdict === 'render' || row.verdict === 'static' ? { verdict: row.verdict } : {}), needsRender: row.needs_render, staticSuffices: row.static_suffices };
}

/** Trains a template's verdict with one sample under its row lock; an inconclusive sample changes nothing. */
export async function trainRenderVerdict(pool: Pool, host: string, pathTemplate: string, sample: SampleComparison): Promise<RenderVerdict | undefined> {
  if (sample === 'inconclusive') return readRenderVerdict(pool, host, pathTemplate);
  const client = await pool.connect();
  try {
    await client.query('BEGIN');
    await client.query('INSERT INTO render_verdicts (host, path_template) VALUES ($1, $2) ON CONFLICT DO NOTHING', [host, pathTemplate]);
    const current = await client.query<{ verdict: string | null; needs_render: number; static_suffices: number }>(
      'SELECT verdict, needs_render, static_suffices FROM render_verdicts WHERE host = $1 AND path_template = $2 FOR UPDATE',
      [host, pathTemplate],
    );
    const row = current.rows[0]!;
    const next = nextRenderVerdict({ ...(row.verdict === 'render' || row.verdict === 'static' ? { verdict: row.verdict } : {}), needsRender: row.needs_render, staticSuffices: row.static_suffices }, sample);
    await client.query('UPDATE render_verdicts SET verdict = $3, needs_render = $4, static_suffices = $5, updated_at = now() WHERE host = $1 AND path_template = $2', [
      host,
      pathTemplate,
      next.verdict ?? null,
      next.needsRender,
      next.staticSuffices,
    ]);
    await client.query('COMMIT');
    return next;
  } catch (error) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw error;
  } finally {
    client.release();
  }
}

/** A crawl's renders by state and reason, and its spending: for status and the summary. */
export interface CrawlRenderFigures {
  byState: Record<string, number>;
  byReason: Record<string, number>;
  /** Failed renders by failure type ('crawl-ended' for those the crawl's end cut). */
  failedByType: Record<string, number>;
  renders: number;
  cpuMs: number;
  deferred: number;
  /** When the oldest pending render was scheduled, ms since epoch. */
  oldestPendingAtMs: number | null;
}

export async function crawlRenderFigures(db: Queryable, crawlId: string): Promise<CrawlRenderFigures> {
  const [states, usage] = await Promise.all([
    db.query<{ state: string; reason: string; failure_type: string | null; n: number; oldest: Date | null }>(
      `SELECT state, reason, failure_type, count(*)::int AS n, min(scheduled_at) FILTER (WHERE state = 'pending') AS oldest FROM renders WHERE crawl_id = $1 GROUP BY state, reason, failure_type`,
      [crawlId],
    ),
    db.query<{ renders: number; cpu_ms: string; deferred: number }>('SELECT renders, cpu_ms, deferred FROM crawl_render_usage WHERE crawl_id = $1', [crawlId]),
  ]);
  const byState: Record<string, number> = {};
  const byReason: Record<string, number> = {};
  const failedByType: Record<string, number> = {};
  let oldest: number | null = null;
  for (const row of states.rows) {
    byState[row.state] = (byState[row.state] ?? 0) + row.n;
    byReason[row.reason] = (byReason[row.reason] ?? 0) + row.n;
    if (row.state === 'failed' || row.state === 'dead') failedByType[row.failure_type ?? 'crawl-ended'] = (failedByType[row.failure_type ?? 'crawl-ended'] ?? 0) + row.n;
    if (row.oldest) oldest = Math.min(oldest ?? Infinity, row.oldest.getTime());
  }
  const spent = usage.rows[0];
  return { byState, byReason, failedByType, renders: spent?.renders ?? 0, cpuMs: Number(spent?.cpu_ms ?? 0), deferred: spent?.deferred ?? 0, oldestPendingAtMs: oldest };
}

/** A render that stored its DOM, with the requests its browser made that reached a host, for the export. */
export interface RenderCapture {
  crawlId: string;
  fingerprint: string;
  generation: number;
  routeKey: string;
  url: string;
  domBodyKey: string;
  domSha256: string | null;
  finishedAt: Date;
  subresources: { seq: number; url: string; status: number | null; bytes: number | null; bodyKey: string | null; contentType: string | null; requestedAt: Date }[];
}

/** Renders with a stored DOM (of one crawl, or of all), in the order they ended, each with its fetched subresources. */
export async function* iterateRenderCaptures(db: Pool, crawlId: string | undefined, batch = 200): AsyncGenerator<RenderCapture> {
  let after: { finishedAt: Date; key: string } | undefined;
  for (;;) {
    const result = await db.query<{
      crawl_id: string; fingerprint: Buffer; generation: number; route_key: string; url: string; dom_body_key: string; dom_sha256: Buffer | null; finished_at: Date; k: string;
    }>(
      `SELECT crawl_id, fingerprint, generation, route_key, url, dom_body_key, dom_sha256, finished_at,
              crawl_id || '/' || encode(fingerprint, 'hex') || '/' || generation || '/' || route_key AS k
       FROM renders
       WHERE dom_body_key IS NOT NULL AND ($1::text IS NULL OR crawl_id = $1)
         AND ($2::timestamptz IS NULL OR (finished_at, crawl_id || '/' || encode(fingerprint, 'hex') || '/' || generation || '/' || route_key) > ($2, $3))
       ORDER BY finished_at, k LIMIT $4`,
      [crawlId ?? null, after?.finishedAt ?? null, after?.key ?? null, batch],
    );
    for (const row of result.rows) {
      const subresources = await db.query<{ seq: number; url: string; status: number | null; bytes: number | null; body_key: string | null; content_type: string | null; requested_at: Date }>(
        `SELECT seq, url, status, bytes, body_key, content_type, requested_at FROM render_subresources
         WHERE crawl_id = $1 AND fingerprint = $2 AND generation = $3 AND route_key = $4 AND outcome IN ('fetched', 'revalidated') ORDER BY seq`,
        [row.crawl_id, row.fingerprint, row.generation, row.route_key],
      );
      yield {
        crawlId: row.crawl_id,
        fingerprint: fingerprintFromBytes(row.fingerprint),
        generation: row.generation,
        routeKey: row.route_key,
        url: row.url,
        domBodyKey: row.dom_body_key,
        domSha256: row.dom_sha256?.toString('hex') ?? null,
        finishedAt: row.finished_at,
        subresources: subresources.rows.map((sub) => ({ seq: sub.seq, url: sub.url, status: sub.status, bytes: sub.bytes, bodyKey: sub.body_key, contentType: sub.content_type, requestedAt: sub.requested_at })),
      };
    }
    if (result.rows.length < batch) return;
    const last = result.rows.at(-1)!;
    after = { finishedAt: last.finished_at, key: last.k };
  }
}
