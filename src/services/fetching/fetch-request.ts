import { bodyLimitsOf, keepsBodyOf } from '../../domain/fetching/index.js';
import type { CanonicalUrl } from '../../domain/url/index.js';
import type { FetchResult, HttpClient } from '../../http/index.js';
import type { CrawlConfig } from '../../config/crawl-config.js';
import type { PacedHosts } from '../rendering/paced-hosts.js';
import type { ActivityScope } from './activity-scope.js';
import { BodySpool } from './body-spool.js';

/** Heartbeats while a request is open or its body arrives: well inside the activity's heartbeat timeout. */
const HEARTBEAT_EVERY_MS = 5_000;

/**
 * A spool for one response's body that beats the heartbeat as chunks arrive. The first beat comes
 * after HEARTBEAT_EVERY_MS, not at the first chunk: a short body needs none (each is a write on
 * the Temporal server). `keepDecodedUpToBytes`: room for the decoded body a burst parses from memory.
 */
export function heartbeatingSpool(spoolDir: string, scope: ActivityScope, keepDecodedUpToBytes: number): BodySpool {
  let lastHeartbeatMs = Date.now();
  return new BodySpool({
    dir: spoolDir,
    keepDecodedUpToBytes,
    onChunk: () => {
      const now = Date.now();
      if (now - lastHeartbeatMs > HEARTBEAT_EVERY_MS) {
        lastHeartbeatMs = now;
        scope.heartbeat();
      }
    },
  });
}

/** One GET of a URL whose robots rules allow it. */
export interface PageRequest {
  url: CanonicalUrl;
  /** Conditional headers (conditionalHeadersOf). */
  headers: Record<string, string>;
  readAsSitemap: boolean;
  /** Content types whose bodies are kept; any other is drained unread. */
  acceptedTypes: readonly string[];
  /** The host's delay, ms: a paced host's ledger reserves the request's start with it. */
  hostDelayMs: number;
}

/**
 * Sends the request (no retries, no redirects followed), a kept body into `spool`. Connect and
 * first-byte deadlines can add up past the heartbeat timeout with no body bytes to report: it
 * beats on a clock while the request is open, so only the HTTP deadlines end it. Throws the HTTP
 * layer's HttpFetchError for a failure below HTTP.
 */
export async function sendPageRequest(
  http: HttpClient,
  config: CrawlConfig,
  spool: BodySpool,
  request: PageRequest,
  scope: ActivityScope,
  pacedHosts: PacedHosts | undefined,
): Promise<FetchResult> {
  const heartbeats = setInterval(() => scope.heartbeat(), HEARTBEAT_EVERY_MS);
  try {
    const send = () =>
      http.fetch(
        {
          url: request.url.url,
          headers: request.headers,
          ...bodyLimitsOf(config, request.readAsSitemap),
          // Absent in crawls stored before these knobs existed: the HTTP layer's defaults apply.
          connectTimeoutMs: config.connectTimeoutMs,
          firstByteTimeoutMs: config.firstByteTimeoutMs,
          bodyTimeoutMs: config.bodyTimeoutMs,
          signal: scope.cancellationSignal,
        },
        (head) => (keepsBodyOf(head.status, head.headers['content-type'], request.acceptedTypes) ? spool.sink() : undefined),
      );
    return pacedHosts ? await pacedHosts.run(request.url.host, request.hostDelayMs, send, (fetched) => fetched.body.finishedAtMs) : await send();
  } finally {
    clearInterval(heartbeats);
  }
}
