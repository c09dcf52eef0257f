/**
 * Closing a crawl in the store: its record's final state, renders a stopped crawl leaves pending,
 * the hosts' costs folded for the plans to come, and the crawl's end report.
 */
import { crawlEndOf } from '../../domain/frontier/index.js';
import { crawlEndReport } from '../../contracts/describe-crawl-end.js';
import { deferredByReason, discoveryBySource, errorsByType, frontierCounts, getCrawl, markCrawlFinished } from '../../storage/postgres/crawl-repository.js';
import { crawlWaits } from '../../storage/postgres/crawl-waits-repository.js';
import { foldHostCosts } from '../../storage/postgres/cost-repository.js';
import { refreshPlannerStatistics } from '../../storage/postgres/planner-statistics.js';
import { DEPTH_REFUSAL, DISCOVERY_BUDGET_REFUSAL, standingRefusalCount, standingRefusals } from '../../storage/postgres/rejection-repository.js';
import { endPendingRenders } from '../../storage/postgres/render-repository.js';
import type { FinishCrawlInput, FinishCrawlResult } from '../../contracts/activities.js';
import type { ActivityDeps } from '../deps.js';
import { crawlRenderStatus } from '../rendering/render-status.js';

export async function finishCrawl(deps: ActivityDeps, input: FinishCrawlInput): Promise<FinishCrawlResult> {
  const state = input.stopped ? 'stopped' : 'finished';
  await markCrawlFinished(deps.pool, input.crawlId, state);
  if (input.stopped) await endPendingRenders(deps.pool, input.crawlId);
  // What the crawl's 304s cost and whether its hosts honoured their validators, for the plans to come.
  await foldHostCosts(deps.pool, input.crawlId);
  const [{ maxPages, accountedInFlight: _accounted, ...counts }, errors, deferred, waits, record, refusals, discovery] = await Promise.all([
    frontierCounts(deps.pool, input.crawlId),
    errorsByType(deps.pool, input.crawlId),
    deferredByReason(deps.pool, input.crawlId),
    crawlWaits(deps.pool, input.crawlId),
    getCrawl(deps.pool, input.crawlId),
    standingRefusals(deps.pool, input.crawlId, [DISCOVERY_BUDGET_REFUSAL, DEPTH_REFUSAL]),
    discoveryBySource(deps.pool, input.crawlId),
    // Statistics for the next crawl's plans; the crawl's outcome does not depend on them.
    refreshPlannerStatistics(deps.pool).catch(() => undefined),
  ]);
  const renders = record ? await crawlRenderStatus(deps, input.crawlId, record.config, undefined) : undefined;
  const end = crawlEndOf({
    stopped: input.stopped,
    queued: counts.queued,
    admitted: counts.admitted,
    maxPages,
    maxDiscoveredUrls: record?.config.maxDiscoveredUrls ?? 0,
    maxDepth: record?.config.maxDepth ?? 0,
    refusedOverDiscoveryBudget: standingRefusalCount(refusals[DISCOVERY_BUDGET_REFUSAL]),
    refusedBeyondDepth: standingRefusalCount(refusals[DEPTH_REFUSAL]),
  });
  const finishedAtMs = deps.now();
  return {
    crawlId: input.crawlId,
    state,
    pagesFetched: counts.fetched,
    pagesNotModified: counts.notModified,
    urlsDiscovered: counts.discovered,
    errorsByType: errors,
    deferred,
    storageFailures: waits.storage.failures,
    end: crawlEndReport(end),
    discovery,
    ...(renders === undefined ? {} : { renders }),
    durationMs: finishedAtMs - input.startedAtMs,
    startedAtMs: input.startedAtMs,
    finishedAtMs,
  };
}
