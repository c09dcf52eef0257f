/**
 * Refreshes one origin's robots.txt in the shared Postgres cache, under a lease so that two
 * workers never fetch the same file at once (000 §5.2). The host workflow calls it in a
 * politeness slot: a robots.txt request is a request to the host like any other.
 */
import { Context } from '@temporalio/activity';
import {
  crawlDelayMs,
  isRobotsFresh,
  MAX_ROBOTS_REDIRECTS,
  nextRobotsCacheEntry,
  productTokenOf,
  robotsFetchOutcomeOf,
  type RobotsCacheEntry,
  type RobotsFetchOutcome,
} from '../domain/robots/index.js';
import { classifyTransportError, type FetchFailureType } from '../domain/failures/index.js';
import { hostDownloadMs } from '../domain/politeness/index.js';
import { decideRedirect, urlFingerprint } from '../domain/url/index.js';
import { robotsUnreachableRetryMsOf } from '../config/politeness-config.js';
import { HttpFetchError, type HttpClient } from '../http/index.js';
import { getRobotsEntry, releaseRobotsLease, saveRobotsEntry, tryAcquireRobotsLease } from '../storage/postgres/robots-repository.js';
import type { CrawlContextCache } from '../services/frontier/crawl-context.js';
import type { RefreshRobotsInput, RefreshRobotsResult } from '../contracts/activities.js';
import { activityCallToken } from './activity-call-token.js';
import type { ActivityDeps } from '../services/deps.js';

/** Bytes of robots.txt we read; RFC 9309 asks for at least 500 KiB, the parser keeps 512 KiB. */
const ROBOTS_MAX_BYTES = 512 * 1024;
const LEASE_MS = 60_000;
const WAIT_FOR_OTHER_REFRESHER_MS = 45_000;

/**
 * Refreshes an origin's robots.txt unless the cache holds it fresh. `callId` names the caller in the
 * refresh lease (unique per call, stable across its retries). Heartbeats while it waits for another
 * worker's refresh, so it runs inside an activity.
 */
export type RobotsRefresher = (input: RefreshRobotsInput, callId: string) => Promise<RefreshRobotsResult>;

export function createRobotsActivities(refresher: RobotsRefresher) {
  /** One origin per activity: the host workflow's refresh, in a politeness slot of its own. */
  async function refreshRobots(input: RefreshRobotsInput): Promise<RefreshRobotsResult> {
    return refresher(input, activityCallToken());
  }
  return { refreshRobots };
}

export function createRobotsRefresher(deps: ActivityDeps, crawls: CrawlContextCache): RobotsRefresher {
  return async function refreshRobots(input: RefreshRobotsInput, callId: string): Promise<RefreshRobotsResult> {
    const context = await crawls.get(input.crawlId);
    const config = context.record.config;
    const token = productTokenOf(config.userAgent);
    const cached = await getRobotsEntry(deps.pool, input.origin);
    if (cached && isRobotsFresh(cached, deps.now())) return summary(cached, token, false, deps.now(), deps.now());

    const owner = `${deps.workerId}/${callId}`;
    if (!(await tryAcquireRobotsLease(deps.pool, { origin: input.origin, owner, leaseMs: LEASE_MS }))) {
      // Another worker is refreshing this origin: use its result instead of asking the host twice.
      const entry = await waitForOtherRefresher(input.origin);
      if (entry) return summary(entry, token, false, deps.now(), deps.now());
    }
    try {
      const http = deps.http({ userAgent: config.userAgent, allowPrivateNetworks: config.allowPrivateNetworks });
      const startedAtMs = deps.now();
      const { outcome, headers, status, transportFailure, responseMs } = await fetchRobots(http, input.origin, cached);
      const finishedAtMs = deps.now();
      const entry = nextRobotsCacheEntry(outcome, cached, finishedAtMs, headers, { unreachableRetryMs: robotsUnreachableRetryMsOf(config.politeness) });
      const sitemaps = entry.policy.kind === 'rules' ? entry.policy.rules.sitemaps : [];
      await saveRobotsEntry(deps.pool, { origin: input.origin, owner, entry, sitemaps });
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
      Context.current().heartbeat();
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

interface RobotsResponse {
  outcome: RobotsFetchOutcome;
  headers: { cacheControl?: string; expires?: string; etag?: string; lastModified?: string } | undefined;
  status: number | undefined;
  /** Set when the request failed below HTTP: a TLS or DNS failure holds the whole host, not only its robots.txt. */
  transportFailure?: FetchFailureType;
  /** The last response's download time, ms (request to last byte). */
  responseMs?: number;
}

/** GET /robots.txt, following at most five redirects (RFC 9309 §2.3.1.2); conditional when we hold validators. */
async function fetchRobots(http: HttpClient, origin: string, cached: RobotsCacheEntry | undefined): Promise<RobotsResponse> {
  let url = `${origin}/robots.txt`;
  const chain: string[] = [urlFingerprint(url)];
  for (let hop = 0; hop <= MAX_ROBOTS_REDIRECTS; hop += 1) {
    const conditional: Record<string, string> = {};
    if (hop === 0 && cached?.lastGoodRules) {
      if (cached.etag) conditional['if-none-match'] = cached.etag;
      if (cached.lastModified) conditional['if-modified-since'] = cached.lastModified;
    }
    const chunks: Uint8Array[] = [];
    let kept = 0;
    let head;
    let responseMs: number;
    try {
      const response = await http.fetch(
        { url, headers: { ...conditional, accept: 'text/plain,*/*;q=0.5' }, maxBodyBytes: 4 * ROBOTS_MAX_BYTES, firstByteTimeoutMs: 20_000, bodyTimeoutMs: 30_000 },
        (responseHead) =>
          responseHead.status >= 200 && responseHead.status < 300
            ? {
                write(chunk) {
                  // Keep what the parser reads; the rest is drained and ignored.
                  if (kept < ROBOTS_MAX_BYTES) {
                    const slice = chunk.subarray(0, ROBOTS_MAX_BYTES - kept);
                    chunks.push(slice);
                    kept += slice.length;
                  }
                },
                end() {},
                abort() {},
              }
            : undefined,
      );
      head = response.head;
      responseMs = hostDownloadMs(response.body);
    } catch (error) {
      if (error instanceof HttpFetchError && error.code === 'body-too-large' && kept > 0) {
        // A huge robots.txt: obey its first 512 KiB, as the RFC allows.
        return { outcome: { kind: 'ok', status: error.partial?.status ?? 200, body: Buffer.concat(chunks) }, headers: undefined, status: error.partial?.status };
      }
      // A transport failure means unreachable (disallow all); anything else is our bug: fail loudly.
      if (!(error instanceof HttpFetchError)) throw error;
      return { outcome: { kind: 'unreachable', reason: error.code }, headers: undefined, status: undefined, transportFailure: classifyTransportError(error.code) };
    }
    const status = head.status;
    const headers = {
      cacheControl: head.headers['cache-control'],
      expires: head.headers['expires'],
      etag: head.headers['etag'],
      lastModified: head.headers['last-modified'],
    };
    if ([301, 302, 303, 307, 308].includes(status)) {
      const decision = decideRedirect({ location: head.headers['location'], fromUrl: url, chainFingerprints: chain });
      if (decision.kind !== 'follow') {
        return { outcome: { kind: 'unreachable', reason: `robots.txt redirect ${decision.kind}` }, headers, status, responseMs };
      }
      chain.push(decision.fingerprint);
      url = decision.target.url;
      continue;
    }
    return { outcome: robotsFetchOutcomeOf(status, Buffer.concat(chunks)), headers, status, responseMs };
  }
  return { outcome: { kind: 'unreachable', reason: `more than ${MAX_ROBOTS_REDIRECTS} redirects` }, headers: undefined, status: undefined };
}
