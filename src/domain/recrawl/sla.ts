import { RecrawlInputError, requireNumber } from './errors.js';

/** A freshness promise (docs/storage-and-recrawl.md, "Freshness SLAs and value tiers"): every URL under `prefix` fetched successfully within `maxStalenessMs`. */
export interface FreshnessSla {
  id: number;
  prefix: string;
  maxStalenessMs: number;
}

/** A URL under an SLA, with when it was last fetched successfully. */
export interface SlaUrl {
  id: string;
  slaId: number;
  lastSuccessAtMs: number;
}

/** An SLA whose due URLs the cycle's budget could not all take. */
export interface SlaShortfall {
  slaId: number;
  prefix: string;
  maxStalenessMs: number;
  /** Its URLs due this cycle, and of those the ones not planned. */
  dueUrls: number;
  unplannedUrls: number;
  /** The stalest URL left unplanned: now - its last successful fetch, ms. */
  stalestUnplannedMs: number;
  /** How far past the promise that URL already is, ms (0 while it is still within it). */
  behindMs: number;
}

export interface SlaPlan {
  /** The URLs to visit first, closest to breaching first (most overdue against their SLA). */
  chosen: string[];
  /** Per SLA, its URLs due this cycle (counted, not only those read). */
  dueBySla: Record<number, number>;
  shortfalls: SlaShortfall[];
}

/**
 * The moment before which a URL under an SLA must be visited by this cycle, for `maxStalenessMs`:
 * a URL is due when its promise would lapse before the next cycle's visits can keep it, so when
 * lastSuccess + maxStaleness < now + 2 × cycle (the next cycle starts one interval on, and its
 * crawl takes up to another).
 */
export function slaDueHorizonMs(nowMs: number, cycleMs: number): number {
  requireNumber('RECRAWL_DAYS_INVALID', 'nowMs', nowMs, { min: 0 });
  requireNumber('RECRAWL_DAYS_INVALID', 'cycleMs', cycleMs, { min: 0, minExclusive: true });
  return nowMs + 2 * cycleMs;
}

/** Whether `url` is due this cycle under `sla` (slaDueHorizonMs). */
export function isSlaDue(url: Pick<SlaUrl, 'lastSuccessAtMs'>, sla: Pick<FreshnessSla, 'maxStalenessMs'>, nowMs: number, cycleMs: number): boolean {
  return url.lastSuccessAtMs + sla.maxStalenessMs < slaDueHorizonMs(nowMs, cycleMs);
}

/**
 * The SLA share of a cycle (SLA first, then value and change likelihood, then discovery):
 * of the due URLs, those whose deadline (last success + max staleness) comes first, up to
 * `budget`; and, for each SLA whose due URLs did not all fit, how many were left and how far
 * behind the stalest of them is, so that a budget too small for its promises says so.
 * `due` holds the due URLs read (any order); `dueCounts` every SLA's due URLs counted, which may be
 * more than were read. URLs of an SLA not in `slas` are refused.
 */
export function planSlaVisits(due: readonly SlaUrl[], dueCounts: Readonly<Record<number, number>>, slas: readonly FreshnessSla[], budget: number, nowMs: number): SlaPlan {
  requireNumber('RECRAWL_BUDGET_INVALID', 'budget', budget, { min: 0, integer: true });
  requireNumber('RECRAWL_DAYS_INVALID', 'nowMs', nowMs, { min: 0 });
  const byId = new Map(slas.map((sla) => [sla.id, sla]));
  const deadlineOf = (url: SlaUrl): number => {
    const sla = byId.get(url.slaId);
    if (sla === undefined) throw new RecrawlInputError('RECRAWL_CANDIDATE_INVALID', 'due[].slaId', url.slaId, 'pass the SLAs the due URLs are under');
    return url.lastSuccessAtMs + sla.maxStalenessMs;
  };
  const deadlines = new Map(due.map((url) => [url, deadlineOf(url)]));
  const ordered = [...due].sort((a, b) => deadlines.get(a)! - deadlines.get(b)! || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  const chosen = ordered.slice(0, budget);
  const left = ordered.slice(budget);
  const dueBySla: Record<number, number> = {};
  for (const sla of slas) dueBySla[sla.id] = Math.max(dueCounts[sla.id] ?? 0, due.filter((url) => url.slaId === sla.id).length);
  const shortfalls: SlaShortfall[] = [];
  for (const sla of slas) {
    const planned = chosen.filter((url) => url.slaId === sla.id).length;
    const unplannedUrls = (dueBySla[sla.id] ?? 0) - planned;
    if (unplannedUrls <= 0) continue;
    const stalest = left.filter((url) => url.slaId === sla.id).reduce((oldest, url) => Math.min(oldest, url.lastSuccessAtMs), Number.POSITIVE_INFINITY);
    // Due URLs not even read are no staler than the ones read and left: those were read most overdue first.
    const stalestUnplannedMs = Number.isFinite(stalest) ? nowMs - stalest : 0;
    shortfalls.push({
      slaId: sla.id,
      prefix: sla.prefix,
      maxStalenessMs: sla.maxStalenessMs,
      dueUrls: dueBySla[sla.id] ?? 0,
      unplannedUrls,
      stalestUnplannedMs,
      behindMs: Math.max(0, stalestUnplannedMs - sla.maxStalenessMs),
    });
  }
  return { chosen: chosen.map((url) => url.id), dueBySla, shortfalls };
}

/** Staleness figures of a set of URLs: now - last successful fetch, ms. */
export interface StalenessFigures {
  /** URLs fetched successfully at least once, and those never. */
  urls: number;
  neverFetched: number;
  p50Ms: number | null;
  p95Ms: number | null;
  maxMs: number | null;
}

/** The q-quantile of `values` (linear between closest ranks, as Postgres' percentile_cont); null when empty. */
export function quantile(values: readonly number[], q: number): number | null {
  requireNumber('RECRAWL_OPTIONS_INVALID', 'q', q, { min: 0, max: 1 });
  if (values.length === 0) return null;
  const sorted = [...values].sort((a, b) => a - b);
  const at = q * (sorted.length - 1);
  const low = Math.floor(at);
  const high = Math.ceil(at);
  return (sorted[low] as number) + ((sorted[high] as number) - (sorted[low] as number)) * (at - low);
}
