/**
 * Planning a recrawl cycle (docs/design.md, "Cost per detected change"): which known URLs to
 * revisit, by purpose, under the budget split, registered as a crawl of kind 'recrawl' that the
 * ordinary frontier and host workflows then run. The reads and writes are here; the decisions are
 * the recrawl domain's (planSlaVisits, recrawlCandidateOf, planRecrawlCycle).
 */
import { randomBytes } from 'node:crypto';
import type { CrawlConfig } from '../../config/crawl-config.js';
import { DEFAULT_BUDGET_SHARES, splitBudget, type BudgetSplit } from '../../domain/frontier/index.js';
import {
  allottedRevisitDelayDays,
  DEFAULT_RECRAWL_CYCLE_OPTIONS,
  DEFAULT_VALUE_TIERS,
  hostHealthScore,
  isDatedRateMethod,
  costUnitOf,
  notModifiedBytesOf,
  validatorHonourRate,
  planSlaVisits,
  slaDueHorizonMs,
  planRecrawlCycle,
  ratePriorFromGroup,
  recrawlCandidateOf,
  claimsOf,
  combineSignals,
  SIGNAL_SOURCES,
  signalTrustLevel,
  trustedSignal,
  type HostHealthSignals,
  type RecrawlCandidate,
} from '../../domain/recrawl/index.js';
import { createCrawl } from '../../storage/postgres/crawl-repository.js';
import { registerFrontierEntries, type NewFrontierEntry } from '../../storage/postgres/frontier-registration.js';
import { inTransaction } from '../../storage/postgres/pool.js';
import {
  dueTombstones,
  getRecrawlCycle,
  hostHealthRows,
  insertRecrawlCycle,
  recrawlCandidatePool,
  recrawlableUrlCount,
  recrawlUrlRows,
  setAllottedNextFetches,
  type RecrawlUrlRow,
} from '../../storage/postgres/recrawl-repository.js';
import { signalTrustOf, trustKey } from '../../storage/postgres/cheap-signal-repository.js';
import { hostValidatorRecords } from '../../storage/postgres/cost-repository.js';
import { dueSlaUrls, listSlas } from '../../storage/postgres/freshness-repository.js';
import { costModelOf } from '../costs/crawl-cost-report.js';
import type { PlanRecrawlInput, PlanRecrawlResult, RecrawlPlanCounts } from '../../contracts/activities.js';
import type { ActivityDeps } from '../deps.js';

const MS_PER_DAY = 86_400_000;
/** Candidates read per planned visit from the most-overdue pool (at least MIN_DUE_POOL). */
const DUE_POOL_PER_VISIT = 20;
const MIN_DUE_POOL = 1000;
/** Candidates read per reserved re-estimation or verification visit. */
const RESERVED_POOL_PER_VISIT = 4;
const DEFAULT_TOMBSTONE_SHARE = 0.1;
/**
 * Share of the recrawl pool reserved for probes: a page whose last visits all found a change is
 * revisited one cycle after its last visit, the shortest interval a cycle can look at. Without
 * it, a page changing every few minutes and one changing daily look alike to a crawl that
 * revisits daily (a visit sees at most one change), and the cycles keep buying the first, which
 * no affordable revisit keeps fresh (bench/README.md, "Figures behind the defaults").
 */
const PROBE_SHARE = 0.05;
/** Recrawl pool (visits) below which a cycle plans no probe. */
const MIN_POOL_FOR_PROBES = 10;
/** Changed visits in a row that make a page censored, eligible for a probe. */
const PROBE_STREAK = 2;

/** Frontier purposes of a cycle's URLs: the purpose a fetch was made for stays on its frontier row. */
export type RecrawlPurpose = 'sla' | 'recrawl' | 'reestimation' | 'verification' | 'probe' | 'tombstone';

type SlaPlan = ReturnType<typeof planSlaVisits>;
type CyclePlan = ReturnType<typeof planRecrawlCycle>;

/** One cycle's visits in the plan's order, each with the purpose it is made for. */
type ChosenVisits = { row: RecrawlUrlRow; purpose: RecrawlPurpose }[];

/** Plans the cycle and registers it as a recrawl crawl; a retry after the plan committed answers from the record. */
export async function planRecrawl(deps: ActivityDeps, input: PlanRecrawlInput): Promise<PlanRecrawlResult> {
  const existing = await getRecrawlCycle(deps.pool, input.crawlId);
  if (existing) return existing.plan as unknown as PlanRecrawlResult;

  const nowMs = deps.now();
  const { settings } = input;
  const total = settings.budget;
  const { slaPlan, slaRows } = await slaVisitsOf(deps, settings, total, nowMs);
  const slaChosen = new Set(slaRows.map((row) => row.fingerprint));
  const split = splitBudget(total - slaRows.length, settings.shares ?? DEFAULT_BUDGET_SHARES);
  const tombstoneShare = settings.tombstoneShare ?? DEFAULT_TOMBSTONE_SHARE;
  const tombstoneRows = await dueTombstones(deps.pool, nowMs, Math.floor(split.recrawl * tombstoneShare));
  const candidatePool = await recrawlCandidatePool(deps.pool, {
    due: Math.max(MIN_DUE_POOL, DUE_POOL_PER_VISIT * total),
    static: RESERVED_POOL_PER_VISIT * split.reestimation,
    staticRatePerDay: DEFAULT_RECRAWL_CYCLE_OPTIONS.staticRateThresholdPerDay,
    sample: RESERVED_POOL_PER_VISIT * split.verification,
    sampleStart: randomBytes(16).toString('hex'),
    signalled: Math.max(MIN_DUE_POOL, DUE_POOL_PER_VISIT * total),
  });
  const pool = candidatePool.filter((row) => !slaChosen.has(row.fingerprint));
  const { candidates, signals, intervalDays, cycleDays } = await candidatesOf(deps, input, pool, split, nowMs);

  const recrawlPool = Math.max(0, split.recrawl - tombstoneRows.length);
  // At least one probe a cycle once the pool is large enough to spare it: a small budget still learns.
  const probe = recrawlPool >= MIN_POOL_FOR_PROBES ? Math.max(1, Math.floor(recrawlPool * PROBE_SHARE)) : 0;
  const plan = planRecrawlCycle(
    candidates,
    { recrawl: recrawlPool - probe, reestimation: split.reestimation, verification: split.verification, probe },
    cycleDays,
    Math.random,
    { probeStreak: PROBE_STREAK, minProbeDays: cycleDays },
  );
  const chosen = chosenVisitsOf(pool, slaRows, slaPlan, plan, tombstoneRows);
  // The crawl may fetch the plan plus the discovery share, and register that many URLs: links
  // found on revisited pages lead to URLs never fetched (link registration keeps known ones out).
  const pages = Math.max(1, chosen.length + split.discovery);
  const config: CrawlConfig = { ...input.config, maxPages: pages, maxDiscoveredUrls: pages };
  const result: PlanRecrawlResult = {
    crawlId: input.crawlId,
    config,
    budget: { total, ...(slaPlan === undefined ? {} : { sla: slaRows.length }), ...split },
    planned: plannedCountsOf(chosen, slaPlan === undefined ? undefined : slaRows.length, plan, tombstoneRows.length),
    ...(slaPlan === undefined
      ? {}
      : { sla: { due: Object.values(slaPlan.dueBySla).reduce((sum, n) => sum + n, 0), planned: slaRows.length, shortfalls: slaPlan.shortfalls } }),
    candidates: candidates.length,
    intervalDays,
    plannedAtMs: nowMs,
    cheapSignals: {
      changed: [...signals.values()].filter((signal) => signal === 'changed').length,
      unchanged: [...signals.values()].filter((signal) => signal === 'unchanged').length,
    },
  };
  await registerCycle(deps, input, chosen, result, nowMs);
  await setAllottedNextFetchesOf(deps, pool, plan);
  return result;
}

/**
 * Freshness promises first (docs/storage-and-recrawl.md, "Freshness SLAs and value tiers"): the
 * URLs an SLA needs this cycle, closest to breaching first; the budget they leave is split by the
 * shares as before.
 */
async function slaVisitsOf(
  deps: ActivityDeps,
  settings: PlanRecrawlInput['settings'],
  total: number,
  nowMs: number,
): Promise<{ slaPlan: SlaPlan | undefined; slaRows: RecrawlUrlRow[] }> {
  const slas = await listSlas(deps.pool);
  const slaDue = slas.length === 0 ? undefined : await dueSlaUrls(deps.pool, { dueBeforeMs: slaDueHorizonMs(nowMs, settings.everyMs), limit: Math.max(MIN_DUE_POOL, DUE_POOL_PER_VISIT * total) });
  const slaPlan = slaDue === undefined ? undefined : planSlaVisits(slaDue.urls, slaDue.counts, slas, total, nowMs);
  const slaRows = await recrawlUrlRows(deps.pool, slaPlan?.chosen ?? []);
  return { slaPlan, slaRows };
}

/** The pool's rows as the planner's candidates, with what they need read: host health, validators, cheap signals, the revisit interval the budget affords. */
async function candidatesOf(
  deps: ActivityDeps,
  input: PlanRecrawlInput,
  pool: readonly RecrawlUrlRow[],
  split: BudgetSplit,
  nowMs: number,
): Promise<{ candidates: RecrawlCandidate[]; signals: Map<string, 'changed' | 'unchanged'>; intervalDays: number; cycleDays: number }> {
  const { settings } = input;
  const health = await healthByHost(deps, pool.map((row) => row.host), nowMs);
  // Each host's own validators and 304s, as measured (host_costs), not an assumed 1,000-byte 304 every time.
  const validators = await hostValidatorRecords(deps.pool, pool.map((row) => row.host));
  const costUnit = costUnitOf(costModelOf(input.config));
  const signals = await cheapSignalsOf(deps, pool);
  // The mean revisit interval this budget affords, never shorter than the cycle itself: reported
  // with the plan. The plan allocates the cycle's visits a day (recrawl slots every cycleDays).
  const cycleDays = settings.everyMs / MS_PER_DAY;
  const visitsPerCycle = Math.max(1, split.recrawl + split.reestimation + split.verification);
  const intervalDays = Math.max(cycleDays, ((await recrawlableUrlCount(deps.pool)) / visitsPerCycle) * cycleDays);
  const valueTiers = settings.valueTiers ?? DEFAULT_VALUE_TIERS.map((tier) => tier.value);
  // A page not compared yet is taken to change as its compared peers do (their geometric mean),
  // or, with none, once per revisit interval: a fixed default (weekly) is static where cycles
  // come seconds apart, and such pages were never planned again.
  const defaultRatePerDay = ratePriorFromGroup(
    pool.flatMap((row) => (row.ratePerDay === null ? [] : [row.ratePerDay])),
    1 / intervalDays,
  ).ratePerDay;
  const candidates: RecrawlCandidate[] = pool.map((row) =>
    recrawlCandidateOf(
      {
        ...(signals.has(row.fingerprint) ? { cheapSignal: signals.get(row.fingerprint)! } : {}),
        id: row.fingerprint,
        valueTier: row.valueTier,
        ratePerDay: row.ratePerDay,
        lastVisitAtMs: row.lastObservedAtMs ?? row.lastSuccessAtMs,
        expectedBytes: row.lastBytes,
        lastTransferBytes: row.lastTransferBytes,
        hostValidatorHonourRate: validatorHonourRate(validators.get(row.host)),
        hostNotModifiedBytes: notModifiedBytesOf(validators.get(row.host)),
        hasValidators: row.hasValidators,
        hostHealth: health.get(row.host) ?? 1,
        changeStreak: row.changeStreak,
        rateDated: isDatedRateMethod(row.rateMethod),
        nearDuplicate: row.nearDuplicate,
      },
      nowMs,
      { valueTiers, defaultRatePerDay, cost: { unit: costUnit } },
    ),
  );
  return { candidates, signals, intervalDays, cycleDays };
}

/** The cycle's visits in the plan's order: SLA visits (closest to breaching first), reserved ones, probes, the recrawl pool, tombstones. */
function chosenVisitsOf(pool: readonly RecrawlUrlRow[], slaRows: readonly RecrawlUrlRow[], slaPlan: SlaPlan | undefined, plan: CyclePlan, tombstoneRows: readonly RecrawlUrlRow[]): ChosenVisits {
  const rows = new Map(pool.map((row) => [row.fingerprint, row]));
  const slaOrder = new Map((slaPlan?.chosen ?? []).map((id, rank) => [id, rank]));
  return [
    ...[...slaRows].sort((a, b) => slaOrder.get(a.fingerprint)! - slaOrder.get(b.fingerprint)!).map((row) => ({ row, purpose: 'sla' as const })),
    ...plan.verification.map((id) => ({ row: rows.get(id)!, purpose: 'verification' as const })),
    ...plan.reestimation.map((id) => ({ row: rows.get(id)!, purpose: 'reestimation' as const })),
    ...(plan.probe ?? []).map((id) => ({ row: rows.get(id)!, purpose: 'probe' as const })),
    ...plan.recrawl.map((id) => ({ row: rows.get(id)!, purpose: 'recrawl' as const })),
    ...tombstoneRows.map((row) => ({ row, purpose: 'tombstone' as const })),
  ];
}

function plannedCountsOf(chosen: ChosenVisits, sla: number | undefined, plan: CyclePlan, tombstones: number): RecrawlPlanCounts {
  return {
    ...(sla === undefined ? {} : { sla }),
    recrawl: plan.recrawl.length,
    reestimation: plan.reestimation.length,
    verification: plan.verification.length,
    probe: plan.probe?.length ?? 0,
    tombstone: tombstones,
    total: chosen.length,
  };
}

/** The cycle's crawl, its frontier entries and its record, in one transaction. */
async function registerCycle(deps: ActivityDeps, input: PlanRecrawlInput, chosen: ChosenVisits, result: PlanRecrawlResult, nowMs: number): Promise<void> {
  const entries: NewFrontierEntry[] = chosen.map(({ row, purpose }, rank) => ({
    fingerprint: row.fingerprint,
    url: row.url,
    host: row.host,
    origin: row.origin,
    canonicalizationVersion: row.canonicalizationVersion,
    depth: 0,
    // The plan's order, within each host's back queue: reserved visits, then by recrawl priority.
    priority: 1 - rank / (chosen.length + 1),
    tier: 0,
    purpose,
  }));
  await inTransaction(deps.pool, async (client) => {
    await createCrawl(client, { id: input.crawlId, kind: 'recrawl', config: result.config, seedHosts: [...new Set(entries.map((entry) => entry.host))] });
    await registerFrontierEntries(client, input.crawlId, entries, { respectDiscoveryBudget: false, includeFetched: true });
    await insertRecrawlCycle(client, {
      crawlId: input.crawlId,
      workflowId: input.workflowId,
      scheduleId: input.scheduleId ?? null,
      plannedAt: new Date(nowMs),
      budget: result.budget,
      plan: result,
    });
  });
}

/**
 * The most-overdue pool of later cycles follows the allocation, not ln 2 / rate: a page allotted
 * nothing would otherwise be due at once after every visit, and fill the pool.
 */
async function setAllottedNextFetchesOf(deps: ActivityDeps, pool: readonly RecrawlUrlRow[], plan: CyclePlan): Promise<void> {
  await setAllottedNextFetches(
    deps.pool,
    pool.flatMap((row) => {
      const lastVisitAtMs = row.lastObservedAtMs ?? row.lastSuccessAtMs;
      const visitsPerDay = plan.allottedVisitsPerDay.get(row.fingerprint);
      return lastVisitAtMs === null || visitsPerDay === undefined ? [] : [{ fingerprint: row.fingerprint, nextFetchAtMs: lastVisitAtMs + allottedRevisitDelayDays(visitsPerDay) * MS_PER_DAY }];
    }),
  );
}

/** Cheap signals the planner may act on: each source's claim, weighed by its origin's record of claims from that source. */
async function cheapSignalsOf(deps: ActivityDeps, pool: readonly RecrawlUrlRow[]): Promise<Map<string, 'changed' | 'unchanged'>> {
  const signalled = pool.filter((row) => Object.keys(row.signals).length > 0);
  const trust = await signalTrustOf(deps.pool, signalled.map((row) => row.origin));
  const signals = new Map<string, 'changed' | 'unchanged'>();
  for (const row of signalled) {
    const lastVisitAtMs = row.lastObservedAtMs ?? row.lastSuccessAtMs ?? undefined;
    const claims = claimsOf(row.signals, lastVisitAtMs);
    const signal = combineSignals(
      SIGNAL_SOURCES.map((source) => trustedSignal(claims[source], signalTrustLevel(trust.get(trustKey(row.origin, source)) ?? { confirmed: 0, refuted: 0 }))),
    );
    if (signal !== undefined) signals.set(row.fingerprint, signal);
  }
  return signals;
}

async function healthByHost(deps: ActivityDeps, hosts: string[], nowMs: number): Promise<Map<string, number>> {
  const rows = await hostHealthRows(deps.pool, [...new Set(hosts)]);
  return new Map(rows.map((row) => [row.host, hostHealthScore({ ...(row.politeness as HostHealthSignals | null), quarantined: row.quarantined }, nowMs)]));
}
