/**
 * Freshness SLAs and value tiers by URL prefix (migration 0030): the rules, their application to
 * the URLs known under a prefix (new URLs take them from a trigger), the URLs an SLA needs visited
 * this cycle, and staleness (now - last successful fetch) per SLA and per tier.
 */
import type { StalenessReport } from '../../contracts/status.js';
import type { FreshnessSla, SlaUrl, StalenessFigures } from '../../domain/recrawl/index.js';
import { fingerprintFromBytes, type Queryable } from './sql-codec.js';
import { inTransaction, type Pool } from './pool.js';


export interface StoredSla extends FreshnessSla {
  tier: number | null;
}

export interface TierRule {
  prefix: string;
  tier: number;
}

/** The tier a URL has when no rule speaks for it (urls.value_tier's default). */
export const DEFAULT_VALUE_TIER = 2;

/** URLs a recrawl may revisit, as recrawl-repository's RECRAWLABLE (sitemaps aside: they carry no SLA), of `urls u`. */
const FETCHED = `u.last_success_at IS NOT NULL AND u.state NOT IN ('gone', 'dead', 'redirect')`;
/** URLs an SLA or a tier speaks for, of `urls u`: not gone, dead or a redirect. */
const LIVE = `u.state NOT IN ('gone', 'dead', 'redirect')`;

export async function listSlas(db: Queryable): Promise<StoredSla[]> {
  const result = await db.query<{ id: number; prefix: string; max_staleness_ms: string; tier: number | null }>('SELECT id, prefix, max_staleness_ms, tier FROM freshness_slas ORDER BY prefix');
  return result.rows.map((row) => ({ id: row.id, prefix: row.prefix, maxStalenessMs: Number(row.max_staleness_ms), tier: row.tier }));
}

export async function listTierRules(db: Queryable): Promise<TierRule[]> {
  const result = await db.query<{ prefix: string; tier: number }>('SELECT prefix, tier FROM value_tier_rules ORDER BY prefix');
  return result.rows;
}

/** Creates or changes the SLA of `prefix` and applies it to the URLs known under it; returns it and how many URLs it now covers. */
export async function setSla(pool: Pool, input: { prefix: string; maxStalenessMs: number; tier?: number }): Promise<{ sla: StoredSla; urls: number }> {
  return inTransaction(pool, async (client) => {
    const previous = await client.query<{ tier: number | null }>('SELECT tier FROM freshness_slas WHERE prefix = $1', [input.prefix]);
    const result = await client.query<{ id: number }>(
      `INSERT INTO freshness_slas (prefix, max_staleness_ms, tier) VALUES ($1, $2, $3)
       ON CONFLICT (prefix) DO UPDATE SET max_staleness_ms = EXCLUDED.max_staleness_ms, tier = EXCLUDED.tier, updated_at = now()
       RETURNING id`,
      [input.prefix, input.maxStalenessMs, input.tier ?? null],
    );
    const tiers = input.tier !== undefined || (previous.rows[0]?.tier ?? null) !== null;
    const urls = await applyPrefixRules(client, input.prefix, { sla: true, tier: tiers });
    return { sla: { id: result.rows[0]!.id, prefix: input.prefix, maxStalenessMs: input.maxStalenessMs, tier: input.tier ?? null }, urls };
  });
}

/** Removes the SLA of `prefix`; its URLs fall under a shorter SLA's prefix, or none. False when there was none. */
export async function deleteSla(pool: Pool, prefix: string): Promise<boolean> {
  return inTransaction(pool, async (client) => {
    const deleted = await client.query<{ tier: number | null }>('DELETE FROM freshness_slas WHERE prefix = $1 RETURNING tier', [prefix]);
    if (deleted.rows.length === 0) return false;
    await applyPrefixRules(client, prefix, { sla: true, tier: deleted.rows[0]!.tier !== null });
    return true;
  });
}

/** Sets the value tier of the URLs under `prefix`, known and future; returns how many known URLs it covers. */
export async function setTierRule(pool: Pool, input: TierRule): Promise<number> {
  return inTransaction(pool, async (client) => {
    await client.query(
      `INSERT INTO value_tier_rules (prefix, tier) VALUES ($1, $2) ON CONFLICT (prefix) DO UPDATE SET tier = EXCLUDED.tier, updated_at = now()`,
      [input.prefix, input.tier],
    );
    return applyPrefixRules(client, input.prefix, { sla: false, tier: true });
  });
}

/** Removes the tier rule of `prefix`; its URLs take the next rule's tier, or the default. False when there was none. */
export async function deleteTierRule(pool: Pool, prefix: string): Promise<boolean> {
  return inTransaction(pool, async (client) => {
    const deleted = await client.query('DELETE FROM value_tier_rules WHERE prefix = $1', [prefix]);
    if ((deleted.rowCount ?? 0) === 0) return false;
    await applyPrefixRules(client, prefix, { sla: false, tier: true });
    return true;
  });
}

/**
 * Re-derives the SLA and/or the tier of every URL known under `prefix` from the rules, rows locked
 * in fingerprint order as crawls lock them. Reads every URL once (no index on the URL text): an
 * operator's command, not a crawl's. Returns the URLs under the prefix.
 */
async function applyPrefixRules(db: Queryable, prefix: string, what: { sla: boolean; tier: boolean }): Promise<number> {
  const sets = [...(what.sla ? ['sla_prefix = url_sla_prefix(u.url)'] : []), ...(what.tier ? [`value_tier = COALESCE(url_rule_tier(u.url), ${DEFAULT_VALUE_TIER})`] : [])];
  const result = await db.query(
    `UPDATE urls u SET ${sets.join(', ')}
     FROM (SELECT fingerprint FROM urls WHERE starts_with(url, $1) ORDER BY fingerprint FOR UPDATE) s
     WHERE u.fingerprint = s.fingerprint`,
    [prefix],
  );
  return result.rowCount ?? 0;
}

/**
 * The URLs of every SLA due before `dueBeforeMs` (last success + max staleness earlier than it),
 * the `limit` closest to breaching first, and each SLA's due URLs counted.
 */
export async function dueSlaUrls(db: Queryable, input: { dueBeforeMs: number; limit: number }): Promise<{ urls: (SlaUrl & { fingerprint: string })[]; counts: Record<number, number> }> {
  const due = `FROM urls u JOIN freshness_slas s ON s.prefix = u.sla_prefix
     WHERE u.sla_prefix IS NOT NULL AND ${FETCHED}
       AND u.last_success_at + s.max_staleness_ms * interval '1 millisecond' < to_timestamp($1 / 1000.0)`;
  const [rows, counts] = await Promise.all([
    db.query<{ fingerprint: Buffer; sla_id: number; last_success_ms: number }>(
      `SELECT u.fingerprint, s.id AS sla_id, extract(epoch FROM u.last_success_at) * 1000 AS last_success_ms ${due}
       ORDER BY u.last_success_at + s.max_staleness_ms * interval '1 millisecond', u.fingerprint LIMIT $2`,
      [input.dueBeforeMs, input.limit],
    ),
    db.query<{ sla_id: number; n: string }>(`SELECT s.id AS sla_id, count(*) AS n ${due} GROUP BY s.id`, [input.dueBeforeMs]),
  ]);
  return {
    urls: rows.rows.map((row) => ({ id: fingerprintFromBytes(row.fingerprint), fingerprint: fingerprintFromBytes(row.fingerprint), slaId: row.sla_id, lastSuccessAtMs: Number(row.last_success_ms) })),
    counts: Object.fromEntries(counts.rows.map((row) => [row.sla_id, Number(row.n)])),
  };
}


/** Past this many URLs (the planner's estimate), tier staleness reads a sample of about this many. */
export const SAMPLE_ABOVE_URLS = 1_000_000;

/**
 * Staleness (now - last successful fetch) per SLA, exact, through the SLA index; and per value tier
 * over every URL a recrawl may revisit, from a block sample of about SAMPLE_ABOVE_URLS URLs when
 * the table holds more. URLs never fetched count apart.
 */
export async function stalenessReport(db: Queryable, nowMs: number): Promise<StalenessReport> {
  // count(u.fingerprint), not count(*): an SLA without URLs joins one row of NULLs.
  const figures = (column: string) => `count(u.fingerprint) FILTER (WHERE u.last_success_at IS NOT NULL) AS urls,
       count(u.fingerprint) FILTER (WHERE u.last_success_at IS NULL) AS never_fetched,
       percentile_cont(0.5) WITHIN GROUP (ORDER BY ${column}) AS p50,
       percentile_cont(0.95) WITHIN GROUP (ORDER BY ${column}) AS p95,
       max(${column}) AS max`;
  const staleness = `($1 - extract(epoch FROM u.last_success_at) * 1000)`;
  const estimate = await db.query<{ n: number }>(`SELECT reltuples AS n FROM pg_class WHERE oid = 'urls'::regclass`);
  const estimated = Number(estimate.rows[0]?.n ?? 0);
  const sample = estimated > SAMPLE_ABOVE_URLS ? ` TABLESAMPLE SYSTEM (${Math.max(0.01, Math.min(100, (100 * SAMPLE_ABOVE_URLS) / estimated)).toFixed(4)})` : '';
  const [slas, tiers] = await Promise.all([
    db.query<FigureRow & { sla_id: number; prefix: string; max_staleness_ms: string; breaching: string }>(
      `SELECT s.id AS sla_id, s.prefix, s.max_staleness_ms, ${figures(staleness)},
              count(*) FILTER (WHERE ${staleness} > s.max_staleness_ms) AS breaching
       FROM freshness_slas s LEFT JOIN urls u ON u.sla_prefix = s.prefix AND ${LIVE}
       GROUP BY s.id, s.prefix, s.max_staleness_ms ORDER BY s.prefix`,
      [nowMs],
    ),
    db.query<FigureRow & { tier: number }>(`SELECT u.value_tier AS tier, ${figures(staleness)} FROM urls u${sample} WHERE ${LIVE} GROUP BY u.value_tier ORDER BY u.value_tier`, [nowMs]),
  ]);
  return {
    atMs: nowMs,
    bySla: slas.rows.map((row) => ({ slaId: row.sla_id, prefix: row.prefix, maxStalenessMs: Number(row.max_staleness_ms), breaching: Number(row.breaching), ...figuresOf(row) })),
    byTier: tiers.rows.map((row) => ({ tier: row.tier, ...figuresOf(row) })),
    tiersSampled: sample !== '',
  };
}

interface FigureRow {
  urls: string;
  never_fetched: string;
  p50: number | null;
  p95: number | null;
  max: number | null;
}

function figuresOf(row: FigureRow): StalenessFigures {
  const ms = (value: number | null): number | null => (value === null ? null : Math.round(Number(value)));
  return { urls: Number(row.urls), neverFetched: Number(row.never_fetched), p50Ms: ms(row.p50), p95Ms: ms(row.p95), maxMs: ms(row.max) };
}
