/**
 * Activities of the frontier workflow: registering seeds, the scheduler tick (admission,
 * backpressure, waking hosts) and closing the crawl.
 */
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
import { finishCrawl as closeCrawl } from '../services/frontier/crawl-finish.js';
import { frontierTick as tickFrontier } from '../services/frontier/frontier-tick.js';
import { registerSeedBatch } from '../services/frontier/seed-registration.js';
import { HostWaker } from '../services/frontier/host-waker.js';

export function createCrawlActivities(deps: ActivityDeps, crawls: CrawlContextCache) {
  const waker = new HostWaker(deps);

  async function registerSeeds(input: RegisterSeedsInput): Promise<RegisterSeedsResult> {
    return registerSeedBatch(deps.pool, input);
  }

  async function frontierTick(input: FrontierTickInput): Promise<FrontierTickResult> {
    return tickFrontier(deps, crawls, waker, input);
  }

  async function finishCrawl(input: FinishCrawlInput): Promise<FinishCrawlResult> {
    return closeCrawl(deps, input);
  }

  return { registerSeeds, frontierTick, finishCrawl };
}
