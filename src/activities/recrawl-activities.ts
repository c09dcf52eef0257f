/**
 * Activities of the recrawl-cycle workflow (docs/design.md, "Cost per detected change"): plan a cycle (which known URLs to revisit,
 * by purpose, under the budget split) and register it as a crawl of kind 'recrawl', which the
 * ordinary frontier and host workflows then run; afterwards, report what the cycle found and cost.
 */
import { randomBytes } from 'node:crypto';
import type { CrawlConfig } from '../config/crawl-config.js';
import { DEFAULT_BUDGET_SHARES, splitBudget } from '../domain/frontier/index.js';
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
} from '../domain/recrawl/index.js';
import { createCrawl, markCrawlFinished } from '../storage/postgres/crawl-repository.js';
import { registerFrontierEntries, type NewFrontierEntry } from '../storage/postgres/frontier-registration.js';
import { inTransaction } from '../storage/postgres/pool.js';
import {
  dueTombstones,
  getRecrawlCycle,
  hostHealthRows,
  insertRecrawlCycle,
  recrawlCandidatePool,
  recrawlableUrlCount,
  recrawlCycleFigures,
  recrawlUrlRows,
  saveRecrawlCycleSummary,
  setAllottedNextFetches,
  type RecrawlUrlRow,
} from '../storage/postgres/recrawl-repository.js';
import { signalTrustOf, trustKey } from '../storage/postgres/cheap-signal-repository.js';
import { hostValidatorRecords } from '../storage/postgres/cost-repository.js';
import { dueSlaUrls, listSlas, stalenessReport } from '../storage/postgres/freshness-repository.js';
import { costModelOf, crawlCostReport } from '../services/costs/crawl-cost-report.js';
import type { FinishRecrawlInput, PlanRecrawlInput, PlanRecrawlResult, RecrawlCycleSummary, RecrawlPlanCounts } from '../contracts/activities.js';
import type { ActivityDeps } from '../services/deps.js';

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

export function createRecrawlActivities(deps: ActivityDeps) {
  async function planRecrawl(input: PlanRecrawlInput): Promise<PlanRecrawlResult> {
    // Retried after the plan committed: answer from the record, plan nothing twice.
    const existing = await getRecrawlCycle(deps.pool, input.crawlId);
    if (existing) return existing.plan as unknown as PlanRecrawlResult;

    const nowMs = deps.now();
    const { settings } = input;
    const total = settings.budget;
    // Freshness promises first (docs/storage-and-recrawl.md, "Freshness SLAs and value tiers"): the URLs an SLA needs this cycle, closest to breaching
    // first; the budget they leave is split by the shares as before.
    const slas = await listSlas(deps.pool);
    const slaDue = slas.length === 0 ? undefined : await dueSlaUrls(deps.pool, { dueBeforeMs: slaDueHorizonMs(nowMs, settings.everyMs), limit: Math.max(MIN_DUE_POOL, DUE_POOL_PER_VISIT * total) });
    const slaPlan = slaDue === undefined ? undefined : planSlaVisits(slaDue.urls, slaDue.counts, slas, total, nowMs);
    const slaRows = await recrawlUrlRows(deps.pool, slaPlan?.chosen ?? []);
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
    const health = await healthByHost(pool.map((row) => row.host), nowMs);
    // Each host's own validators and 304s, as measured (host_costs), not an assumed 1,000-byte 304 every time.
    const validators = await hostValidatorRecords(deps.pool, pool.map((row) => row.host));
    const costUnit = costUnitOf(costModelOf(input.config));
    const signals = await cheapSignalsOf(pool);
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

    const rows = new Map(pool.map((row) => [row.fingerprint, row]));
    const slaOrder = new Map((slaPlan?.chosen ?? []).map((id, rank) => [id, rank]));
    const chosen: { row: RecrawlUrlRow; purpose: RecrawlPurpose }[] = [
      ...[...slaRows].sort((a, b) => slaOrder.get(a.fingerprint)! - slaOrder.get(b.fingerprint)!).map((row) => ({ row, purpose: 'sla' as const })),
      ...plan.verification.map((id) => ({ row: rows.get(id)!, purpose: 'verification' as const })),
      ...plan.reestimation.map((id) => ({ row: rows.get(id)!, purpose: 'reestimation' as const })),
      ...(plan.probe ?? []).map((id) => ({ row: rows.get(id)!, purpose: 'probe' as const })),
      ...plan.recrawl.map((id) => ({ row: rows.get(id)!, purpose: 'recrawl' as const })),
      ...tombstoneRows.map((row) => ({ row, purpose: 'tombstone' as const })),
    ];
    const planned: RecrawlPlanCounts = {
      ...(slaPlan === undefined ? {} : { sla: slaRows.length }),
      recrawl: plan.recrawl.length,
      reestimation: plan.reestimation.length,
      verification: plan.verification.length,
      probe: plan.probe?.length ?? 0,
      tombstone: tombstoneRows.length,
      total: chosen.length,
    };
    // The crawl may fetch the plan plus the discovery share, and register that many URLs: links
    // found on revisited pages lead to URLs never fetched (link registration keeps known ones out).
    const pages = Math.max(1, chosen.length + split.discovery);
    const config: CrawlConfig = { ...input.config, maxPages: pages, maxDiscoveredUrls: pages };
    const result: PlanRecrawlResult = {
      crawlId: input.crawlId,
      config,
      budget: { total, ...(slaPlan === undefined ? {} : { sla: slaRows.length }), ...split },
      planned,
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
      await createCrawl(client, { id: input.crawlId, kind: 'recrawl', config, seedHosts: [...new Set(entries.map((entry) => entry.host))] });
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
    // The most-overdue pool of later cycles follows the allocation, not ln 2 / rate: a page allotted
    // nothing would otherwise be due at once after every visit, and fill the pool.
    await setAllottedNextFetches(
      deps.pool,
      pool.flatMap((row) => {
        const lastVisitAtMs = row.lastObservedAtMs ?? row.lastSuccessAtMs;
        const visitsPerDay = plan.allottedVisitsPerDay.get(row.fingerprint);
        return lastVisitAtMs === null || visitsPerDay === undefined ? [] : [{ fingerprint: row.fingerprint, nextFetchAtMs: lastVisitAtMs + allottedRevisitDelayDays(visitsPerDay) * MS_PER_DAY }];
      }),
    );
    return result;
  }

  async function finishRecrawlCycle(input: FinishRecrawlInput): Promise<RecrawlCycleSummary> {
    // Nothing was planned, so no frontier workflow ran to close the crawl record.
    if (!input.crawl) await markCrawlFinished(deps.pool, input.crawlId, 'finished');
    const cycle = await getRecrawlCycle(deps.pool, input.crawlId);
    const plan = cycle?.plan as unknown as PlanRecrawlResult | undefined;
    const figures = await recrawlCycleFigures(deps.pool, input.crawlId);
    const changed = figures.verdicts['changed'] ?? 0;
    const summary: RecrawlCycleSummary = {
      crawlId: input.crawlId,
      planned: plan?.planned ?? { recrawl: 0, reestimation: 0, verification: 0, tombstone: 0, total: 0 },
      requests: figures.requests,
      notModified: figures.notModified,
      fullFetches: figures.fullFetches,
      failed: figures.failed,
      changed,
      unchanged: figures.verdicts['unchanged'] ?? 0,
      baselines: figures.verdicts['baseline'] ?? 0,
      bytes: figures.bytes,
      wireBytes: figures.wireBytes,
      newBodies: figures.newBodies,
      changesPerRequest: figures.requests > 0 ? changed / figures.requests : 0,
      wireBytesPerChange: changed > 0 ? figures.wireBytes / changed : null,
      byPurpose: figures.byPurpose,
      state: input.crawl?.state ?? 'empty',
      ...(plan === undefined ? {} : { cost: await crawlCostReport(deps.pool, input.crawlId, plan.config) }),
      staleness: await stalenessReport(deps.pool, deps.now()),
      ...(plan?.sla === undefined || plan.sla.shortfalls.length === 0 ? {} : { slaShortfalls: plan.sla.shortfalls }),
    };
    await saveRecrawlCycleSummary(deps.pool, input.crawlId, summary);
    return summary;
  }

  /** Cheap signals the planner may act on: each source's claim, weighed by its origin's record of claims from that source. */
  async function cheapSignalsOf(pool: readonly RecrawlUrlRow[]): Promise<Map<string, 'changed' | 'unchanged'>> {
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

  async function healthByHost(hosts: string[], nowMs: number): Promise<Map<string, number>> {
    const rows = await hostHealthRows(deps.pool, [...new Set(hosts)]);
    return new Map(rows.map((row) => [row.host, hostHealthScore({ ...(row.politeness as HostHealthSignals | null), quarantined: row.quarantined }, nowMs)]));
  }

  return { planRecrawl, finishRecrawlCycle };
}
