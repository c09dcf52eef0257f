/**
 * The gate every request of a render's browser goes through (docs/rendering.md). The main document
 * is answered from the body the crawl already fetched: no page is requested twice. Every other
 * request is classified (blocked types and origins), checked against its origin's robots.txt
 * (read from the shared cache, refreshed as a request of its own in the host's politeness),
 * answered from the shared subresource cache while fresh, or fetched through the crawler's HTTP
 * client (its private-network guard and limits) in its host's turn. Redirects are followed here,
 * each hop gated again: a route only ever sees a redirect's first URL. Every request is recorded.
 */
import { createHash } from 'node:crypto';
import { gzipSync } from 'node:zlib';
import type { CrawlConfig } from '../../config/crawl-config.js';
import { renderConfigOf } from '../../config/render-config.js';
import { classifyTransportError } from '../../domain/failures/index.js';
import { hostDownloadMs, hostOutcomeOfFailure, hostOutcomeOfRobotsRefresh, type HostOutcome } from '../../domain/politeness/index.js';
import {
  DEFAULT_BLOCKED_SUBRESOURCE_TYPES,
  classifySubresource,
  isSubresourceFresh,
  subresourceCacheDecision,
  subresourceTypeOf,
  type SubresourcePolicy,
} from '../../domain/render/index.js';
import { isRobotsFresh, productTokenOf, robotsVerdictFor, type RobotsCacheEntry } from '../../domain/robots/index.js';
import { canonicalizeUrl } from '../../domain/url/index.js';
import type { BrowserAnswer, BrowserRequest, RequestHandler } from '../../browser/index.js';
import { HttpFetchError, type BodySink } from '../../http/index.js';
import { getRobotsEntry } from '../../storage/postgres/robots-repository.js';
import { readCachedSubresource, saveCachedSubresource, touchCachedSubresource, type CachedSubresource } from '../../storage/postgres/subresource-repository.js';
import type { SubresourceRow } from '../../storage/postgres/render-repository.js';
import type { ActivityDeps } from '../deps.js';
import type { RefreshRobotsResult } from '../../contracts/activities.js';
import type { HostTurnPacer, PacingRefusal, RequestPacer } from './request-pacers.js';
import type { PacedHosts } from './paced-hosts.js';

/** Redirect hops a subresource may take, as for robots.txt (RFC 9309 §2.3.1.2). */
export const MAX_SUBRESOURCE_REDIRECTS = 5;
/** A subresource's wire and decoded size limits, at most: a render needs scripts and data, not archives. */
const MAX_SUBRESOURCE_BYTES = 16 * 1024 * 1024;
const MAX_SUBRESOURCE_DECODED_BYTES = 32 * 1024 * 1024;
/** Response headers handed to the browser: what it needs to use the body (type, CORS), never the transfer's own. */
const PASSED_HEADERS = /^(content-type|content-language|x-content-type-options|access-control-[a-z-]+|timing-allow-origin)$/;

/** What the gate answers with its robots.txt lookups: a refresher, as fetch bursts use (robots-activity.ts). */
export type GateRobotsRefresher = (input: { origin: string; crawlId: string }, callId: string) => Promise<RefreshRobotsResult>;

export interface SubresourceGateInput {
  crawlId: string;
  config: CrawlConfig;
  /** The page as fetched: its URL, the body's key and type. */
  page: { url: string; finalUrl: string; bodyKey: string; contentType: string | undefined };
  /** The page host's turn, held by the render. */
  hostTurn: HostTurnPacer;
  /** The ledger's hosts: a request to the page's host reserves there too when the host is one. */
  pacedHosts?: PacedHosts;
  /** The page host's delay, for its ledger reservations. */
  pageHostDelayMs?: number;
  /** The pacer of another host (an allowed origin's). */
  ledgerPacerFor: (host: string) => RequestPacer;
  /** Names this render's robots refreshes in their lease. */
  callId: string;
  /** Aborted when the render ends. */
  signal?: AbortSignal;
}

export interface SubresourceGate {
  handler: RequestHandler;
  /** Every request, in the order they came, with what the gate did. */
  readonly rows: SubresourceRow[];
  /** The stored body the main document was answered with, once it was asked for. */
  readonly mainDocument: Buffer | undefined;
}

type Deps = Pick<ActivityDeps, 'pool' | 'bodies' | 'http' | 'now' | 'metrics'> & { refreshRobots: GateRobotsRefresher };

/** A response the gate received or took from the cache. */
interface Received {
  status: number;
  headers: Record<string, string>;
  body: Buffer;
}

export function createSubresourceGate(deps: Deps, input: SubresourceGateInput): SubresourceGate {
  const render = renderConfigOf(input.config);
  const policy: SubresourcePolicy = { blockedTypes: DEFAULT_BLOCKED_SUBRESOURCE_TYPES, allowedOrigins: render.allowOrigins };
  const token = productTokenOf(input.config.userAgent);
  const pageHost = new URL(input.page.finalUrl).hostname;
  const rows: SubresourceRow[] = [];
  const robotsByOrigin = new Map<string, Promise<RobotsCacheEntry | undefined>>();
  const ledgers = new Map<string, RequestPacer>();
  let mainDocument: Buffer | undefined;
  let refreshes = 0;

  const paced = input.pacedHosts;
  // The page's host in its turn, and in the ledger's too when another crawl's renders reach it as an origin.
  const pagePacer: RequestPacer =
    paced === undefined
      ? input.hostTurn
      : {
          run: (send) => input.hostTurn.run(() => paced.run(pageHost, input.pageHostDelayMs ?? 0, send, (sent) => (sent.outcome.kind === 'not-sent' ? undefined : sent.outcome.finishedAtMs))),
          raiseCrawlDelay: (crawlDelayMs) => input.hostTurn.raiseCrawlDelay(crawlDelayMs),
        };
  const pacerFor = (host: string): RequestPacer => {
    if (host === pageHost) return pagePacer;
    let pacer = ledgers.get(host);
    if (!pacer) ledgers.set(host, (pacer = input.ledgerPacerFor(host)));
    return pacer;
  };

  const record = (row: Omit<SubresourceRow, 'seq'>): void => {
    rows.push({ seq: rows.length + 1, ...row });
    deps.metrics?.renderSubresource?.(row.outcome);
  };

  async function handler(request: BrowserRequest): Promise<BrowserAnswer> {
    const requestedAtMs = deps.now();
    const type = subresourceTypeOf(request.resourceType);
    if (request.isMainDocument) {
      mainDocument ??= await deps.bodies.getBody(input.page.bodyKey);
      record({ method: request.method, url: request.url, resourceType: type, outcome: 'stored-page', status: 200, bytes: mainDocument.length, bodyKey: input.page.bodyKey, requestedAtMs });
      return { kind: 'fulfil', status: 200, headers: { 'content-type': input.page.contentType ?? 'text/html' }, body: mainDocument };
    }
    let url = request.url;
    for (let hop = 0; hop <= MAX_SUBRESOURCE_REDIRECTS; hop += 1) {
      const startedAtMs = deps.now();
      const row = (fields: Omit<SubresourceRow, 'seq' | 'method' | 'url' | 'resourceType' | 'requestedAtMs'>): void =>
        record({ method: request.method, url, resourceType: type, requestedAtMs: startedAtMs, ...fields });
      const verdict = classifySubresource({ url, method: request.method, type, isMainDocument: false }, input.page.finalUrl, policy);
      if (verdict.kind !== 'allowed') {
        row({ outcome: verdict.kind });
        return { kind: 'abort', errorCode: 'blockedbyclient' };
      }
      let pathAndQuery: string;
      try {
        pathAndQuery = canonicalizeUrl(url).pathAndQuery;
      } catch {
        row({ outcome: 'blocked-scheme' });
        return { kind: 'abort', errorCode: 'blockedbyclient' };
      }
      const pacer = pacerFor(verdict.host);
      const rules = await robotsOf(verdict.origin, pacer);
      if (rules === undefined || rules.policy.kind === 'disallow-all') {
        row({ outcome: rules === undefined || rules.unreachableSinceMs !== undefined ? 'robots-unreachable' : 'robots-disallowed' });
        return { kind: 'abort', errorCode: 'accessdenied' };
      }
      if (!robotsVerdictFor(rules, token, pathAndQuery).allowed) {
        row({ outcome: 'robots-disallowed' });
        return { kind: 'abort', errorCode: 'accessdenied' };
      }
      const cached = await readCachedSubresource(deps.pool, url).catch(() => undefined);
      if (cached && isSubresourceFresh(cached, deps.now())) {
        const body = await deps.bodies.getBody(cached.bodyKey).catch(() => undefined);
        if (body !== undefined) {
          await touchCachedSubresource(deps.pool, url).catch(() => undefined);
          row({ outcome: 'cached', status: cached.status, bytes: body.length, bodyKey: cached.bodyKey, ...(cached.contentType ? { contentType: cached.contentType } : {}), durationMs: deps.now() - startedAtMs });
          return fulfil({ status: cached.status, headers: cached.headers, body });
        }
      }
      const conditional: Record<string, string> = {};
      if (cached?.etag) conditional['if-none-match'] = cached.etag;
      if (cached?.lastModified) conditional['if-modified-since'] = cached.lastModified;
      const sent = await pacer.run(() => fetchOnce(url, conditional, request));
      if (isRefusal(sent)) {
        row({ outcome: sent.refused });
        return { kind: 'abort', errorCode: 'blockedbyclient' };
      }
      if (sent.kind === 'failed') {
        row({ outcome: 'failed', durationMs: deps.now() - startedAtMs });
        return { kind: 'abort', errorCode: 'failed' };
      }
      const response = sent.response;
      const durationMs = deps.now() - startedAtMs;
      if (response.status === 304 && cached) {
        const body = await deps.bodies.getBody(cached.bodyKey);
        const fresh = subresourceCacheDecision({ status: cached.status, ...cacheFactsOf(response.headers) }, deps.now());
        await touchCachedSubresource(deps.pool, url, fresh.storable ? fresh.freshUntilMs : undefined).catch(() => undefined);
        row({ outcome: 'revalidated', status: 304, bytes: body.length, bodyKey: cached.bodyKey, durationMs });
        return fulfil({ status: cached.status, headers: cached.headers, body });
      }
      if ([301, 302, 303, 307, 308].includes(response.status) && response.headers['location']) {
        let next: string;
        try {
          next = new URL(response.headers['location'], url).href;
        } catch {
          row({ outcome: 'failed', status: response.status, durationMs });
          return { kind: 'abort', errorCode: 'failed' };
        }
        row({ outcome: 'redirect', status: response.status, bytes: response.body.length, durationMs });
        url = next;
        continue;
      }
      const stored = await storeInCache(url, response).catch(() => undefined);
      row({ outcome: 'fetched', status: response.status, bytes: response.body.length, ...(stored ? { bodyKey: stored } : {}), ...(response.headers['content-type'] ? { contentType: response.headers['content-type'] } : {}), durationMs });
      return fulfil({ status: response.status, headers: passedHeaders(response.headers), body: response.body });
    }
    record({ method: request.method, url, resourceType: type, requestedAtMs: deps.now(), outcome: 'failed' });
    return { kind: 'abort', errorCode: 'failed' };
  }

  /** The origin's robots.txt from the shared cache; a stale or unknown one is refreshed first, as a request in its host's turn. */
  function robotsOf(origin: string, pacer: RequestPacer): Promise<RobotsCacheEntry | undefined> {
    let rules = robotsByOrigin.get(origin);
    if (!rules) {
      rules = (async () => {
        const cached = await getRobotsEntry(deps.pool, origin);
        if (cached && isRobotsFresh(cached, deps.now())) return cached;
        const refreshed = await pacer.run(async () => {
          const result = await deps.refreshRobots({ origin, crawlId: input.crawlId }, `${input.callId}/robots/${(refreshes += 1)}`);
          // Its Crawl-delay counts from this very request, before the next is paced.
          if (result.crawlDelayMs !== undefined) pacer.raiseCrawlDelay?.(result.crawlDelayMs);
          return { result, outcome: hostOutcomeOfRobotsRefresh(result) };
        });
        if (isRefusal(refreshed)) return undefined;
        return getRobotsEntry(deps.pool, origin);
      })();
      robotsByOrigin.set(origin, rules);
    }
    return rules;
  }

  /** One GET (our User-Agent, the crawl's limits and network guard), the body kept in memory. */
  async function fetchOnce(url: string, conditional: Record<string, string>, request: BrowserRequest): Promise<{ result: { kind: 'response'; response: Received } | { kind: 'failed' }; outcome: HostOutcome; cutByUs?: boolean }> {
    const http = deps.http({ userAgent: input.config.userAgent, allowPrivateNetworks: input.config.allowPrivateNetworks });
    const startedAtMs = deps.now();
    const chunks: Buffer[] = [];
    const sink: BodySink = { write: (chunk) => void chunks.push(Buffer.from(chunk)), end: () => undefined, abort: () => void chunks.splice(0) };
    try {
      const fetched = await http.fetch(
        {
          url,
          headers: { ...conditional, ...(request.resourceType === 'script' ? { accept: '*/*' } : {}) },
          maxBodyBytes: Math.min(input.config.maxBodyBytes, MAX_SUBRESOURCE_BYTES),
          maxDecompressedBytes: Math.min(input.config.maxDecompressedBytes, MAX_SUBRESOURCE_DECODED_BYTES),
          connectTimeoutMs: input.config.connectTimeoutMs,
          firstByteTimeoutMs: Math.min(input.config.firstByteTimeoutMs, 20_000),
          bodyTimeoutMs: Math.min(input.config.bodyTimeoutMs, 20_000),
          ...(input.signal ? { signal: input.signal } : {}),
        },
        () => sink,
      );
      const finishedAtMs = deps.now();
      const responseMs = hostDownloadMs(fetched.body);
      return {
        result: { kind: 'response', response: { status: fetched.head.status, headers: fetched.head.headers, body: Buffer.concat(chunks) } },
        outcome: { kind: 'response', startedAtMs, finishedAtMs, status: fetched.head.status, responseMs },
      };
    } catch (error) {
      if (input.signal?.aborted) {
        // The render ended with this request open (a long poll): it reached the host, and ends now.
        return { result: { kind: 'failed' }, outcome: { kind: 'response', startedAtMs, finishedAtMs: deps.now(), status: 200 }, cutByUs: true };
      }
      if (!(error instanceof HttpFetchError)) throw error;
      const type = classifyTransportError(error.code);
      const requested = !['dns-not-found', 'dns-temporary-failure', 'private-network-refused'].includes(error.code);
      return { result: { kind: 'failed' }, outcome: hostOutcomeOfFailure(type, { startedAtMs, finishedAtMs: deps.now(), requested, ...(error.partial?.status === undefined ? {} : { status: error.partial.status }) }, deps.now()) };
    }
  }

  /** A storable response goes to the shared cache (body in the object store); returns its body key. */
  async function storeInCache(url: string, response: Received): Promise<string | undefined> {
    const decision = subresourceCacheDecision({ status: response.status, ...cacheFactsOf(response.headers) }, deps.now());
    if (!decision.storable) return undefined;
    const sha256 = createHash('sha256').update(response.body).digest('hex');
    const bodyKey = await deps.bodies.putRenderObjectIfAbsent('subresources', sha256, gzipSync(response.body));
    const entry: CachedSubresource = {
      url,
      status: response.status,
      contentType: response.headers['content-type'] ?? null,
      headers: passedHeaders(response.headers),
      bodyKey,
      bytes: response.body.length,
      etag: decision.etag ?? null,
      lastModified: decision.lastModified ?? null,
      freshUntilMs: decision.freshUntilMs,
    };
    await saveCachedSubresource(deps.pool, entry);
    return bodyKey;
  }

  return {
    handler,
    rows,
    get mainDocument() {
      return mainDocument;
    },
  };
}

function fulfil(response: Received): BrowserAnswer {
  return { kind: 'fulfil', status: response.status, headers: response.headers, body: response.body };
}

function passedHeaders(headers: Record<string, string>): Record<string, string> {
  return Object.fromEntries(Object.entries(headers).filter(([name]) => PASSED_HEADERS.test(name)));
}

function cacheFactsOf(headers: Record<string, string>): { cacheControl?: string; expires?: string; lastModified?: string; etag?: string; date?: string; age?: string; vary?: string } {
  const pick = (name: string): Record<string, string> => {
    const value = headers[name];
    return value === undefined ? {} : { [name.replace(/-([a-z])/g, (_, letter: string) => letter.toUpperCase())]: value };
  };
  return { ...pick('cache-control'), ...pick('expires'), ...pick('last-modified'), ...pick('etag'), ...pick('date'), ...pick('age'), ...pick('vary') };
}

function isRefusal<T>(value: T | PacingRefusal): value is PacingRefusal {
  return typeof value === 'object' && value !== null && 'refused' in value;
}
