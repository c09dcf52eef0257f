/**
 * All activities, created from injected dependencies (the worker wires real clients; tests may
 * wire their own). Workflows import the *type* of this factory's result only.
 */
import { createCrawlActivities } from './crawl-activities.js';
import { CrawlContextCache } from '../services/frontier/crawl-context.js';
import type { ActivityDeps } from '../services/deps.js';
import { createFetchActivities } from './fetch-activity.js';
import { createUrlFetcher } from '../services/fetching/url-fetcher.js';
import { currentActivityScope } from './support/activity-scope.js';
import { createFetchBurstActivities } from './fetch-burst-activity.js';
import { createHostActivities } from './host-activities.js';
import { HeldBodyBudget } from '../services/fetching/held-bodies.js';
import { createParseActivities } from './parse-activity.js';
import { createPageParser, createSignalReadingCheck } from '../services/documents/page-parser.js';
import { createRecrawlActivities } from './recrawl-activities.js';
import { createRobotsActivities } from './robots-activity.js';
import { createRobotsRefresher } from '../services/fetching/robots-refresher.js';
import { createSignalSweepActivities } from './signal-sweep-activities.js';
import { workerBodyPacker } from '../services/fetching/worker-body-packer.js';
import { refusalsOf, instrumentFetcher, instrumentFrontierTick, instrumentRecrawlFinish, instrumentRobotsRefresher } from '../services/metrics/instrument.js';
import { createRenderActivities } from './render-activity.js';
import { createRenderService } from '../services/rendering/render-service.js';
import { RenderVerdictCache } from '../services/rendering/render-decisions.js';
import { PacedHosts } from '../services/rendering/paced-hosts.js';

export type { ActivityDeps } from '../services/deps.js';

export function createActivities(deps: ActivityDeps) {
  const crawls = new CrawlContextCache(deps.pool, deps.now);
  // One packer per worker process: the more fetches share it, the fewer objects a page costs.
  const bodyPacker = workerBodyPacker(deps);
  // Hosts renders reach as other origins: every request to them reserves its start in the pacing ledger.
  const pacedHosts = new PacedHosts(deps.pool, deps.now);
  const fetchUrlAttempt = instrumentFetcher(createUrlFetcher(deps, { crawls, bodyPacker, pacedHosts, scopeOf: currentActivityScope }), deps.metrics);
  const parsePage = createPageParser(deps, crawls);
  const parseActivities = createParseActivities(parsePage, crawls);
  const hostActivities = createHostActivities(deps, crawls);
  const refreshRobots = instrumentRobotsRefresher(createRobotsRefresher(deps, { crawls, pacedHosts, scopeOf: currentActivityScope }), deps.metrics);
  const crawlActivities = createCrawlActivities(deps, crawls);
  const recrawlActivities = createRecrawlActivities(deps);
  return {
    ...crawlActivities,
    frontierTick: instrumentFrontierTick(crawlActivities.frontierTick, refusalsOf(deps.pool), deps.metrics),
    ...hostActivities,
    ...createRobotsActivities(refreshRobots),
    ...createFetchActivities(fetchUrlAttempt),
    ...createFetchBurstActivities(deps, {
      fetchUrlAttempt,
      parseBatch: parseActivities.parseBatch,
      parsePage,
      settleUrl: hostActivities.settleUrl,
      readsSignals: createSignalReadingCheck(crawls),
      refreshRobots,
      heldBodies: new HeldBodyBudget(),
    }),
    ...parseActivities,
    ...recrawlActivities,
    finishRecrawlCycle: instrumentRecrawlFinish(recrawlActivities.finishRecrawlCycle, deps.metrics),
    ...createSignalSweepActivities(deps),
    ...createRenderActivities(createRenderService(deps, {
        browsers: deps.browsers,
        crawls,
        // The render's pacers reserve its robots.txt requests in the ledger themselves.
        refreshRobots: instrumentRobotsRefresher(createRobotsRefresher(deps, { crawls, scopeOf: currentActivityScope }), deps.metrics),
        verdicts: new RenderVerdictCache(deps.pool, deps.now), pacedHosts })),
  };
}

export type CrawlerActivities = ReturnType<typeof createActivities>;
