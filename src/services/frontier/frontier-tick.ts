/**
 * The frontier workflow's scheduler tick in the store: the crawl's counts, the admission decision
 * (backpressure from parsing and from the workers), waking idle hosts with work, relinking pages a
 * shorter path reached, and what the crawl waits for. Whether the crawl is finished.
 */
import { admissionDecision, hostClaimCap, hostWakeRoom, type AdmissionDecision } from '../../domain/frontier/index.js';
import { errorsByType, frontierCounts, parseBacklog, publishCrawlControl, reconcileInFlight, type CrawlRecordState } from '../../storage/postgres/crawl-repository.js';
import { crawlWaits } from '../../storage/postgres/crawl-waits-repository.js';
import { idleHostsWithWork } from '../../storage/postgres/frontier-claims.js';
import { countStaleLinkPages } from '../../storage/postgres/frontier-depths.js';
import { crawlHostCounts, hostStartQueue } from '../../storage/postgres/host-repository.js';
import { pagesAwaitingRenders } from '../../storage/postgres/render-repository.js';
import type { FrontierTickInput, FrontierTickResult } from '../../contracts/activities.js';
import type { ActivityDeps } from '../deps.js';
import { crawlRenderStatus } from '../rendering/render-status.js';
import type { CrawlContextCache } from './crawl-context.js';
import { relinkStalePages } from './depth-relaxation.js';
import type { HostWaker } from './host-waker.js';

/** Parse throughput is measured over this window for backpressure. */
const BACKLOG_WINDOW_SECONDS = 30;

/** The workers' pace is the host runs they began over this window. */
const HOST_START_WINDOW_SECONDS = 10;
/** A host woken longer ago than this, not begun, no longer holds wakes back (a lost run awaiting its reaper). */
const HOST_AWAITING_WINDOW_SECONDS = 300;

/** Pages whose links are registered again per tick (depth-relaxation.ts): one short transaction each. */
const STALE_LINK_PAGES_PER_TICK = 50;

export async function frontierTick(deps: ActivityDeps, crawls: CrawlContextCache, waker: HostWaker, input: FrontierTickInput): Promise<FrontierTickResult> {
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
  const { decision, claimCap } = await admitAndPublish(deps, input, counts, maxPages, backlog, hosts.withWork, nowMs);

  const hostsWoken = decision.admit > 0 && counts.queued > 0 ? await wakeHosts(deps, waker, input, decision.admit) : 0;
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

/** The tick's admission decision, published on the crawl's record where claims read it. */
async function admitAndPublish(
  deps: ActivityDeps,
  input: FrontierTickInput,
  counts: { inFlight: number; admitted: number },
  maxPages: number,
  backlog: { backlogItems: number; parsedInWindow: number; oldestAgeSeconds: number },
  hostsWithWork: number,
  nowMs: number,
): Promise<{ decision: AdmissionDecision; claimCap: number }> {
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
  const claimCap = hostClaimCap({ maxInFlight: input.control.maxInFlight, throttleFactor: decision.throttleFactor, hostsWithWork });
  await publishCrawlControl(deps.pool, {
    id: input.crawlId,
    state: crawlState,
    maxInFlight: input.control.maxInFlight,
    admitFactor: decision.throttleFactor,
    hostClaimCap: claimCap,
  });
  return { decision, claimCap };
}

/** Backpressure from the workers: no more hosts woken than they begin in a few seconds. */
async function wakeHosts(deps: ActivityDeps, waker: HostWaker, input: FrontierTickInput, admit: number): Promise<number> {
  const startQueue = await hostStartQueue(deps.pool, { awaitingWindowSeconds: HOST_AWAITING_WINDOW_SECONDS, startWindowSeconds: HOST_START_WINDOW_SECONDS });
  const room = hostWakeRoom({ ...startQueue, startWindowSeconds: HOST_START_WINDOW_SECONDS });
  const hosts = await idleHostsWithWork(deps.pool, input.crawlId, Math.min(input.maxHostsToWake, admit, room));
  return waker.wake(hosts, input.crawlId, input.taskQueue);
}
