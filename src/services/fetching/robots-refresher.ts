/**
 * Refreshes one origin's robots.txt in the shared Postgres cache, under a lease so that two
 * workers never fetch the same file at once (docs/design.md, "robots.txt"). The host workflow asks
 * for it in a politeness slot: a robots.txt request is a request to the host like any other.
 */
import { crawlDelayMs, isRobotsFresh, nextRobotsCacheEntry, productTokenOf, type RobotsCacheEntry } from '../../domain/robots/index.js';
import { robotsUnreachableRetryMsOf } from '../../config/politeness-config.js';
import { getRobotsEntry, readRobotsTakingLease, releaseRobotsLease, saveRobotsEntry } from '../../storage/postgres/robots-repository.js';
import type { CrawlContextCache } from '../frontier/crawl-context.js';
import type { RefreshRobotsInput, RefreshRobotsResult } from '../../contracts/activities.js';
import type { PacedHosts } from '../rendering/paced-hosts.js';
import type { ActivityDeps } from '../deps.js';
import type { ActivityScope } from './activity-scope.js';
import { fetchRobots } from './robots-fetch.js';

const LEASE_MS = 60_000;
const WAIT_FOR_OTHER_REFRESHER_MS = 45_000;

/**
 * Refreshes an origin's robots.txt unless the cache holds it fresh. `callId` names the caller in the
 * refresh lease (unique per call, stable across its retries). Heartbeats while it waits for another
 * worker's refresh, so it runs inside an activity.
 */
export type RobotsRefresher = (input: RefreshRobotsInput, callId: string) => Promise<RefreshRobotsResult>;

/** What a robots refresher works with besides the activity dependencies. */
export interface RobotsRefresherParts {
  crawls: CrawlContextCache;
  /** The running activity's scope: it heartbeats while waiting for another worker's refresh. */
  scopeOf: () => ActivityScope;
  /** A robots.txt of a host in the pacing ledger reserves its start there, as any request to it (docs/rendering.md). */
  pacedHosts?: PacedHosts;
}

export function createRobotsRefresher(deps: ActivityDeps, parts: RobotsRefresherParts): RobotsRefresher {
  const { crawls, scopeOf, pacedHosts } = parts;
  return async function refreshRobots(input: RefreshRobotsInput, callId: string): Promise<RefreshRobotsResult> {
    const context = await crawls.get(input.crawlId);
    const config = context.record.config;
    const token = productTokenOf(config.userAgent);
    const owner = `${deps.workerId}/${callId}`;
    const { entry: cached, leased } = await readRobotsTakingLease(deps.pool, { origin: input.origin, owner, leaseMs: LEASE_MS });
    if (cached && isRobotsFresh(cached, deps.now())) {
      // Refreshed since the caller read it stale: nothing to fetch, and the lease goes back.
      if (leased) await releaseRobotsLease(deps.pool, input.origin, owner);
      return summary(cached, token, false, deps.now(), deps.now());
    }
    if (!leased) {
      // Another worker is refreshing this origin: use its result instead of asking the host twice.
      const entry = await waitForOtherRefresher(input.origin);
      if (entry) return summary(entry, token, false, deps.now(), deps.now());
    }
    try {
      const http = deps.http({ userAgent: config.userAgent, allowPrivateNetworks: config.allowPrivateNetworks, ...(config.proxy === undefined ? {} : { proxy: config.proxy }) });
      const startedAtMs = deps.now();
      const fetch = () => fetchRobots(http, input.origin, cached);
      const { outcome, headers, status, transportFailure, responseMs, requests } = pacedHosts ? await pacedHosts.run(new URL(input.origin).hostname, config.minHostDelayMs, fetch, () => undefined) : await fetch();
      const finishedAtMs = deps.now();
      const entry = nextRobotsCacheEntry(outcome, cached, finishedAtMs, headers, { unreachableRetryMs: robotsUnreachableRetryMsOf(config.politeness) });
      const sitemaps = entry.policy.kind === 'rules' ? entry.policy.rules.sitemaps : [];
      // The crawl whose refresh sent the requests pays for them; a retried attempt sent them again.
      const billed = { crawlId: input.crawlId, callId, attempt: scopeOf().attempt, origin: input.origin, requests };
      await saveRobotsEntry(deps.pool, { origin: input.origin, owner, entry, sitemaps, billed });
      return {
        ...summary(entry, token, true, startedAtMs, finishedAtMs),
        status,
        ...(transportFailure === undefined ? {} : { transportFailure }),
        ...(responseMs === undefined ? {} : { responseMs }),
      };
    } catch (error) {
      await releaseRobotsLease(deps.pool, input.origin, owner);
      throw error;
    }
  };

  async function waitForOtherRefresher(origin: string): Promise<RobotsCacheEntry | undefined> {
    const deadline = deps.now() + WAIT_FOR_OTHER_REFRESHER_MS;
    while (deps.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 500));
      scopeOf().heartbeat();
      const entry = await getRobotsEntry(deps.pool, origin);
      if (entry && isRobotsFresh(entry, deps.now())) return entry;
    }
    return undefined;
  }
}

function summary(entry: RobotsCacheEntry, token: string, requested: boolean, startedAtMs: number, finishedAtMs: number): RefreshRobotsResult {
  const delay = entry.policy.kind === 'rules' ? crawlDelayMs(entry.policy.rules, token) : undefined;
  return {
    requested,
    startedAtMs,
    finishedAtMs,
    policyKind: entry.policy.kind,
    freshUntilMs: Math.min(entry.expiresAtMs, entry.fetchedAtMs + 24 * 3600 * 1000),
    ...(delay === undefined ? {} : { crawlDelayMs: delay }),
  };
}

