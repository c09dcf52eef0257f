/**
 * Activities of the frontier workflow: registering seeds, the scheduler tick (admission,
 * backpressure, waking hosts) and closing the crawl.
 */
import { admissionDecision, crawlEndOf, hostClaimCap, hostWakeRoom } from '../domain/frontier/index.js';
import { crawlEndReport } from '../contracts/describe-crawl-end.js';
import {
  deferredByReason,
  discoveryBySource,
  errorsByType,
  frontierCounts,
  getCrawl,
  reconcileInFlight,
  markCrawlFinished,
  parseBacklog,
  publishCrawlControl,
  type CrawlRecordState,
} from '../storage/postgres/crawl-repository.js';
import { idleHostsWithWork } from '../storage/postgres/frontier-claims.js';
import { countStaleLinkPages } from '../storage/postgres/frontier-depths.js';
import { crawlHostCounts, hostStartQueue } from '../storage/postgres/host-repository.js';
import { crawlWaits } from '../storage/postgres/crawl-waits-repository.js';
import { DEPTH_REFUSAL, DISCOVERY_BUDGET_REFUSAL, standingRefusalCount, standingRefusals } from '../storage/postgres/rejection-repository.js';
import { foldHostCosts } from '../storage/postgres/cost-repository.js';
import { refreshPlannerStatistics } from '../storage/postgres/planner-statistics.js';
import type {
  FinishCrawlInput,
  FinishCrawlResult,
  FrontierTickInput,
  FrontierTickResult,
  RegisterSeedsInput,
  RegisterSeedsResult,
} from '../contracts/activities.js';
import type { CrawlContextCache } from '../services/frontier/crawl-context.js';
import type { ActivityDeps } from '../services/deps.js';
import { relinkStalePages } from '../services/frontier/depth-relaxation.js';
import { registerSeedBatch } from '../services/frontier/seed-registration.js';
import { HostWaker } from '../services/frontier/host-waker.js';
import { crawlRenderStatus } from '../services/rendering/render-status.js';
import { endPendingRenders, pagesAwaitingRenders } from '../storage/postgres/render-repository.js';

/** Parse throughput is measured over this window for backpressure. */
const BACKLOG_WINDOW_SECONDS = 30;

/** The workers' pace is the host runs they began over this window. */
const HOST_START_WINDOW_SECONDS = 10;
/** A host woken longer ago than this, not begun, no longer holds wakes back (a lost run awaiting its reaper). */
const HOST_AWAITING_WINDOW_SECONDS = 300;

/** Pages whose links are registered again per tick (depth-relaxation.ts): one short transaction each. */
const STALE_LINK_PAGES_PER_TICK = 50;

export function createCrawlActivities(deps: ActivityDeps, crawls: CrawlContextCache) {
  const waker = new HostWaker(deps);

  async function registerSeeds(input: RegisterSeedsInput): Promise<RegisterSeedsResult> {
    return registerSeedBatch(deps.pool, input);
  }

  async function frontierTick(input: FrontierTickInput): Promise<FrontierTickResult> {
    const nowMs = deps.now();
    const [{ maxPages, accountedInFlight, ...counts }, backlog, hosts, staleLinkPages] = await Promise.all([
      frontierCounts(deps.pool, input.crawlId),
      parseBacklog(deps.pool, input.crawlId, BACKLOG_WINDOW_SECONDS),
      crawlHostCounts(deps.pool, input.crawlId),
      countStaleLinkPages(deps.pool, input.crawlId),
    ]);
    // Claims size their room by the counters; if a crash ever left them off the frontier's rows,
    // they are put right here, or the crawl would admit less, or never end.
    if (accountedInFlight !== counts.inFlight) await reconcileInFlight(deps.pool, input.crawlId);
    const crawlState: CrawlRecordState = input.control.stopping ? 'stopping' : input.control.paused ? 'paused' : 'running';
    const decision = admissionDecision({
      inFlight: counts.inFlight,
      maxInFlight: input.control.maxInFlight,
      budgetRemaining: Math.max(0, maxPages - counts.admitted),
      downstream: {
        backlogItems: backlog.backlogItems,
        consumeRatePerSecond: backlog.parsedInWindow / BACKLOG_WINDOW_SECONDS,
        oldestItemAgeSeconds: backlog.oldestAgeSeconds,
      },
      nowMs,
      paused: input.control.paused,
      stopping: input.control.stopping,
    });
    const claimCap = hostClaimCap({ maxInFlight: input.control.maxInFlight, throttleFactor: decision.throttleFactor, hostsWithWork: hosts.withWork });
    await publishCrawlControl(deps.pool, {
      id: input.crawlId,
      state: crawlState,
      maxInFlight: input.control.maxInFlight,
      admitFactor: decision.throttleFactor,
      hostClaimCap: claimCap,
    });

    let hostsWoken = 0;
    if (decision.admit > 0 && counts.queued > 0) {
      // Backpressure from the workers: no more woken than they begin in a few seconds.
      const startQueue = await hostStartQueue(deps.pool, { awaitingWindowSeconds: HOST_AWAITING_WINDOW_SECONDS, startWindowSeconds: HOST_START_WINDOW_SECONDS });
      const room = hostWakeRoom({ ...startQueue, startWindowSeconds: HOST_START_WINDOW_SECONDS });
      const hosts = await idleHostsWithWork(deps.pool, input.crawlId, Math.min(input.maxHostsToWake, decision.admit, room));
      hostsWoken = await waker.wake(hosts, input.crawlId, input.taskQueue);
    }
    await waker.reapLostHosts(input.crawlId);
    // Pages a shorter path reached after they were parsed: what their links admit is woken next tick.
    if (staleLinkPages > 0 && !input.control.stopping) {
      await relinkStalePages(deps.pool, await crawls.get(input.crawlId), STALE_LINK_PAGES_PER_TICK, nowMs);
    }

    const [errors, waits, renders] = await Promise.all([
      errorsByType(deps.pool, input.crawlId),
      crawlWaits(deps.pool, input.crawlId),
      crawls.get(input.crawlId).then((context) => crawlRenderStatus(deps, input.crawlId, context.record.config, input.taskQueue)),
    ]);
    const budgetSpent = counts.admitted >= maxPages;
    // A stopping crawl does not wait for renders (their pages keep their HTTP result): finishCrawl ends them.
    const awaitingRenders = input.control.stopping && counts.inFlight > 0 ? await pagesAwaitingRenders(deps.pool, input.crawlId) : 0;
    const finished = counts.inFlight - awaitingRenders === 0 && ((counts.queued === 0 && staleLinkPages === 0) || budgetSpent || input.control.stopping);
    return {
      counts,
      admission: {
        maxInFlight: input.control.maxInFlight,
        admitFactor: decision.throttleFactor,
        // Infinity (nothing drains yet) does not survive JSON: report it as -1.
        backlogSeconds: Number.isFinite(decision.backlogSeconds) ? decision.backlogSeconds : -1,
        reason: decision.reason,
        hostClaimCap: claimCap,
      },
      activeHosts: hosts.active,
      hostsWoken,
      errorsByType: errors,
      waits,
      ...(renders === undefined ? {} : { renders }),
      finished,
      nowMs,
    };
  }

  async function finishCrawl(input: FinishCrawlInput): Promise<FinishCrawlResult> {
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

  return { registerSeeds, frontierTick, finishCrawl };
}
