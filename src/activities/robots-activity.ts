/**
 * Refreshes one origin's robots.txt in the shared Postgres cache, under a lease so that two
 * workers never fetch the same file at once (docs/design.md, "robots.txt"). The host workflow calls it in a
 * politeness slot: a robots.txt request is a request to the host like any other.
 */
import { Context } from '@temporalio/activity';
import {
  crawlDelayMs,
  DEFAULT_ROBOTS_MAX_BYTES,
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
import { HttpFetchError, type FetchResponseHead, type HttpClient } from '../http/index.js';
import { getRobotsEntry, readRobotsTakingLease, releaseRobotsLease, saveRobotsEntry } from '../storage/postgres/robots-repository.js';
import type { CrawlContextCache } from '../services/frontier/crawl-context.js';
import type { RefreshRobotsInput, RefreshRobotsResult } from '../contracts/activities.js';
import { activityCallToken } from './support/activity-call-token.js';
import type { PacedHosts } from '../services/rendering/paced-hosts.js';
import type { ActivityDeps } from '../services/deps.js';

/**
 * Bytes of robots.txt we keep: what the parser reads (512 KiB; RFC 9309 §2.5 asks for at least
 * 500 KiB) and one more, so that it sees whether its limit cuts a line and drops that line.
 */
const ROBOTS_KEEP_BYTES = DEFAULT_ROBOTS_MAX_BYTES + 1;
/**
 * Wire (and decoded) bytes a robots.txt response may have. Every body is cut at ROBOTS_KEEP_BYTES
 * decoded, so this only bounds one that decodes to little (compressed padding); a larger declared
 * Content-Length is refused unread, and then the host is unreachable.
 */
const ROBOTS_MAX_WIRE_BYTES = 64 * 1024 * 1024;
const LEASE_MS = 60_000;
const WAIT_FOR_OTHER_REFRESHER_MS = 45_000;

/** Thrown by the body sink once it holds ROBOTS_KEEP_BYTES: ends the transfer, and the refresh obeys what it has. */
class RobotsCapReached extends Error {
  override readonly name = 'RobotsCapReached';
}

/** `body` without the line the transfer cut through: half a rule could widen an Allow. */
function wholeLines(body: Buffer): Buffer {
  const lastBreak = Math.max(body.lastIndexOf(0x0a), body.lastIndexOf(0x0d));
  return body.subarray(0, lastBreak + 1);
}

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

/** `pacedHosts`: a robots.txt of a host in the pacing ledger reserves its start there, as any request to it (docs/rendering.md). */
export function createRobotsRefresher(deps: ActivityDeps, crawls: CrawlContextCache, pacedHosts?: PacedHosts): RobotsRefresher {
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
      const { outcome, headers, status, transportFailure, responseMs } = pacedHosts ? await pacedHosts.run(new URL(input.origin).hostname, config.minHostDelayMs, fetch, () => undefined) : await fetch();
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
export async function fetchRobots(http: HttpClient, origin: string, cached: RobotsCacheEntry | undefined): Promise<RobotsResponse> {
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
    let cut = false;
    let head: FetchResponseHead | undefined;
    let responseMs: number | undefined;
    try {
      const response = await http.fetch(
        {
          url,
          headers: { ...conditional, accept: 'text/plain,*/*;q=0.5' },
          maxBodyBytes: ROBOTS_MAX_WIRE_BYTES,
          maxDecompressedBytes: ROBOTS_MAX_WIRE_BYTES,
          firstByteTimeoutMs: 20_000,
          bodyTimeoutMs: 30_000,
        },
        (responseHead) => {
          head = responseHead;
          const obeyed = responseHead.status >= 200 && responseHead.status < 300;
          return {
            write(chunk) {
              // Keep what the parser reads (only a 2xx body is ever read), then stop the transfer.
              const slice = chunk.subarray(0, ROBOTS_KEEP_BYTES - kept);
              if (obeyed) chunks.push(slice);
              kept += slice.length;
              if (kept >= ROBOTS_KEEP_BYTES) throw new RobotsCapReached(`robots.txt response over ${DEFAULT_ROBOTS_MAX_BYTES} bytes`);
            },
            end() {},
            abort() {},
          };
        },
      );
      responseMs = hostDownloadMs(response.body);
    } catch (error) {
      // Over the keep limit (or, with padding that decodes to nothing, the wire bound first): a huge
      // robots.txt is obeyed for its first 512 KiB (RFC 9309 §2.5), without the line the cut went through.
      const overCap = error instanceof RobotsCapReached || (error instanceof HttpFetchError && (error.code === 'HTTP_BODY_TOO_LARGE' || error.code === 'HTTP_DECOMPRESSED_TOO_LARGE') && kept > 0);
      if (!overCap || head === undefined) {
        // A transport failure means unreachable (disallow all); anything else is our bug: fail loudly.
        if (!(error instanceof HttpFetchError)) throw error;
        return { outcome: { kind: 'unreachable', reason: error.code }, headers: undefined, status: undefined, transportFailure: classifyTransportError(error.code) };
      }
      cut = true;
    }
    if (head === undefined) throw new Error(`fetch of ${url} resolved without a response head`);
    const status = head.status;
    const headers = validatorsOf(head);
    if ([301, 302, 303, 307, 308].includes(status)) {
      const decision = decideRedirect({ location: head.headers['location'], fromUrl: url, chainFingerprints: chain });
      if (decision.kind !== 'follow') {
        return { outcome: { kind: 'unreachable', reason: `robots.txt redirect ${decision.kind}` }, headers, status, ...(responseMs === undefined ? {} : { responseMs }) };
      }
      chain.push(decision.fingerprint);
      url = decision.target.url;
      continue;
    }
    const body = Buffer.concat(chunks);
    return { outcome: robotsFetchOutcomeOf(status, cut ? wholeLines(body) : body), headers, status, ...(responseMs === undefined ? {} : { responseMs }) };
  }
  return { outcome: { kind: 'unreachable', reason: `more than ${MAX_ROBOTS_REDIRECTS} redirects` }, headers: undefined, status: undefined };
}

/** The caching and validator headers of a robots.txt response. */
function validatorsOf(head: FetchResponseHead): NonNullable<RobotsResponse['headers']> {
  return {
    cacheControl: head.headers['cache-control'],
    expires: head.headers['expires'],
    etag: head.headers['etag'],
    lastModified: head.headers['last-modified'],
  };
}
