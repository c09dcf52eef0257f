/**
 * The gate every request of a render's browser goes through (docs/rendering.md). The main document
 * is answered from the body the crawl already fetched: no page is requested twice. Every other
 * request is classified (blocked types and origins), checked against its origin's robots.txt
 * (read from the shared cache, refreshed as a request of its own in the host's politeness),
 * answered from the shared subresource cache while fresh, or fetched through the crawler's HTTP
 * client (its private-network guard and limits) in its host's turn. Redirects are followed here,
 * each hop gated again: a route only ever sees a redirect's first URL. Every request is recorded.
 */
import { conditionalHeadersOf } from '../../domain/fetching/index.js';
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
  type SubresourceType,
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

/** What the gate answers with its robots.txt lookups: a refresher, as fetch bursts use (robots-refresher.ts). */
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
  return new GatedRequests(deps, input);
}

/** What one hop of a request came to: an answer for the browser, or a redirect to gate next. */
type HopResult = { answer: BrowserAnswer } | { redirectTo: string };

class GatedRequests implements SubresourceGate {
  readonly rows: SubresourceRow[] = [];
  mainDocument: Buffer | undefined;
  readonly handler: RequestHandler = (request) => this.answer(request);
  private readonly policy: SubresourcePolicy;
  private readonly token: string;
  private readonly pageHost: string;
  private readonly pagePacer: RequestPacer;
  private readonly robotsByOrigin = new Map<string, Promise<RobotsCacheEntry | undefined>>();
  private readonly ledgers = new Map<string, RequestPacer>();
  private refreshes = 0;

  constructor(
    private readonly deps: Deps,
    private readonly input: SubresourceGateInput,
  ) {
    const render = renderConfigOf(input.config);
    this.policy = { blockedTypes: DEFAULT_BLOCKED_SUBRESOURCE_TYPES, allowedOrigins: render.allowOrigins };
    this.token = productTokenOf(input.config.userAgent);
    this.pageHost = new URL(input.page.finalUrl).hostname;
    const paced = input.pacedHosts;
    const pageHost = this.pageHost;
    // The page's host in its turn, and in the ledger's too when another crawl's renders reach it as an origin.
    this.pagePacer =
      paced === undefined
        ? input.hostTurn
        : {
            run: (send) => input.hostTurn.run(() => paced.run(pageHost, input.pageHostDelayMs ?? 0, send, (sent) => (sent.outcome.kind === 'not-sent' ? undefined : sent.outcome.finishedAtMs))),
            raiseCrawlDelay: (crawlDelayMs) => input.hostTurn.raiseCrawlDelay(crawlDelayMs),
          };
  }

  private pacerFor(host: string): RequestPacer {
    if (host === this.pageHost) return this.pagePacer;
    let pacer = this.ledgers.get(host);
    if (!pacer) this.ledgers.set(host, (pacer = this.input.ledgerPacerFor(host)));
    return pacer;
  }

  private record(row: Omit<SubresourceRow, 'seq'>): void {
    this.rows.push({ seq: this.rows.length + 1, ...row });
    this.deps.metrics?.renderSubresource?.(row.outcome);
  }

  private async answer(request: BrowserRequest): Promise<BrowserAnswer> {
    const type = subresourceTypeOf(request.resourceType);
    if (request.isMainDocument) {
      const requestedAtMs = this.deps.now();
      this.mainDocument ??= await this.deps.bodies.getBody(this.input.page.bodyKey);
      this.record({ method: request.method, url: request.url, resourceType: type, outcome: 'stored-page', status: 200, bytes: this.mainDocument.length, bodyKey: this.input.page.bodyKey, requestedAtMs });
      return { kind: 'fulfil', status: 200, headers: { 'content-type': this.input.page.contentType ?? 'text/html' }, body: this.mainDocument };
    }
    let url = request.url;
    for (let hop = 0; hop <= MAX_SUBRESOURCE_REDIRECTS; hop += 1) {
      const result = await this.hop(request, type, url);
      if ('answer' in result) return result.answer;
      url = result.redirectTo;
    }
    this.record({ method: request.method, url, resourceType: type, requestedAtMs: this.deps.now(), outcome: 'failed' });
    return { kind: 'abort', errorCode: 'failed' };
  }

  /** One URL of a request: classified, checked against robots.txt, answered from the cache or fetched in its host's turn. */
  private async hop(request: BrowserRequest, type: SubresourceType, url: string): Promise<HopResult> {
    const startedAtMs = this.deps.now();
    const row = (fields: Omit<SubresourceRow, 'seq' | 'method' | 'url' | 'resourceType' | 'requestedAtMs'>): void =>
      this.record({ method: request.method, url, resourceType: type, requestedAtMs: startedAtMs, ...fields });
    const abort = (errorCode: Extract<BrowserAnswer, { kind: 'abort' }>['errorCode']): HopResult => ({ answer: { kind: 'abort', errorCode } });
    const verdict = classifySubresource({ url, method: request.method, type, isMainDocument: false }, this.input.page.finalUrl, this.policy);
    if (verdict.kind !== 'allowed') {
      row({ outcome: verdict.kind });
      return abort('blockedbyclient');
    }
    let pathAndQuery: string;
    try {
      pathAndQuery = canonicalizeUrl(url).pathAndQuery;
    } catch {
      row({ outcome: 'blocked-scheme' });
      return abort('blockedbyclient');
    }
    const pacer = this.pacerFor(verdict.host);
    const rules = await this.robotsOf(verdict.origin, pacer);
    if (rules === undefined || rules.policy.kind === 'disallow-all') {
      row({ outcome: rules === undefined || rules.unreachableSinceMs !== undefined ? 'robots-unreachable' : 'robots-disallowed' });
      return abort('accessdenied');
    }
    if (!robotsVerdictFor(rules, this.token, pathAndQuery).allowed) {
      row({ outcome: 'robots-disallowed' });
      return abort('accessdenied');
    }
    const cached = await readCachedSubresource(this.deps.pool, url).catch(() => undefined);
    if (cached && isSubresourceFresh(cached, this.deps.now())) {
      const body = await this.deps.bodies.getBody(cached.bodyKey).catch(() => undefined);
      if (body !== undefined) {
        await touchCachedSubresource(this.deps.pool, url).catch(() => undefined);
        row({ outcome: 'cached', status: cached.status, bytes: body.length, bodyKey: cached.bodyKey, ...(cached.contentType ? { contentType: cached.contentType } : {}), durationMs: this.deps.now() - startedAtMs });
        return { answer: fulfil({ status: cached.status, headers: cached.headers, body }) };
      }
    }
    const conditional = cached ? conditionalHeadersOf(cached, false) : {};
    const sent = await pacer.run(() => this.fetchOnce(url, conditional, request));
    if (isRefusal(sent)) {
      row({ outcome: sent.refused });
      return abort('blockedbyclient');
    }
    if (sent.kind === 'failed') {
      row({ outcome: 'failed', durationMs: this.deps.now() - startedAtMs });
      return abort('failed');
    }
    return this.received(url, sent.response, cached, startedAtMs, row);
  }

  /** A response to one hop: a 304 answered from the cache, a redirect to follow, or a body passed on (and cached when it may be). */
  private async received(
    url: string,
    response: Received,
    cached: CachedSubresource | undefined,
    startedAtMs: number,
    row: (fields: Omit<SubresourceRow, 'seq' | 'method' | 'url' | 'resourceType' | 'requestedAtMs'>) => void,
  ): Promise<HopResult> {
    const durationMs = this.deps.now() - startedAtMs;
    if (response.status === 304 && cached) {
      const body = await this.deps.bodies.getBody(cached.bodyKey);
      const fresh = subresourceCacheDecision({ status: cached.status, ...cacheFactsOf(response.headers) }, this.deps.now());
      await touchCachedSubresource(this.deps.pool, url, fresh.storable ? fresh.freshUntilMs : undefined).catch(() => undefined);
      row({ outcome: 'revalidated', status: 304, bytes: body.length, bodyKey: cached.bodyKey, durationMs });
      return { answer: fulfil({ status: cached.status, headers: cached.headers, body }) };
    }
    if ([301, 302, 303, 307, 308].includes(response.status) && response.headers['location']) {
      let next: string;
      try {
        next = new URL(response.headers['location'], url).href;
      } catch {
        row({ outcome: 'failed', status: response.status, durationMs });
        return { answer: { kind: 'abort', errorCode: 'failed' } };
      }
      row({ outcome: 'redirect', status: response.status, bytes: response.body.length, durationMs });
      return { redirectTo: next };
    }
    const stored = await this.storeInCache(url, response).catch(() => undefined);
    row({ outcome: 'fetched', status: response.status, bytes: response.body.length, ...(stored ? { bodyKey: stored } : {}), ...(response.headers['content-type'] ? { contentType: response.headers['content-type'] } : {}), durationMs });
    return { answer: fulfil({ status: response.status, headers: passedHeaders(response.headers), body: response.body }) };
  }

  /** The origin's robots.txt from the shared cache; a stale or unknown one is refreshed first, as a request in its host's turn. */
  private robotsOf(origin: string, pacer: RequestPacer): Promise<RobotsCacheEntry | undefined> {
    let rules = this.robotsByOrigin.get(origin);
    if (!rules) {
      rules = (async () => {
        const cached = await getRobotsEntry(this.deps.pool, origin);
        if (cached && isRobotsFresh(cached, this.deps.now())) return cached;
        const refreshed = await pacer.run(async () => {
          const result = await this.deps.refreshRobots({ origin, crawlId: this.input.crawlId }, `${this.input.callId}/robots/${(this.refreshes += 1)}`);
          // Its Crawl-delay counts from this very request, before the next is paced.
          if (result.crawlDelayMs !== undefined) pacer.raiseCrawlDelay?.(result.crawlDelayMs);
          return { result, outcome: hostOutcomeOfRobotsRefresh(result) };
        });
        if (isRefusal(refreshed)) return undefined;
        return getRobotsEntry(this.deps.pool, origin);
      })();
      this.robotsByOrigin.set(origin, rules);
    }
    return rules;
  }

  /** One GET (our User-Agent, the crawl's limits and network guard), the body kept in memory. */
  private async fetchOnce(url: string, conditional: Record<string, string>, request: BrowserRequest): Promise<{ result: { kind: 'response'; response: Received } | { kind: 'failed' }; outcome: HostOutcome; cutByUs?: boolean }> {
    const http = this.deps.http({ userAgent: this.input.config.userAgent, allowPrivateNetworks: this.input.config.allowPrivateNetworks });
    const startedAtMs = this.deps.now();
    const chunks: Buffer[] = [];
    const sink: BodySink = { write: (chunk) => void chunks.push(Buffer.from(chunk)), end: () => undefined, abort: () => void chunks.splice(0) };
    try {
      const fetched = await http.fetch(
        {
          url,
          headers: { ...conditional, ...(request.resourceType === 'script' ? { accept: '*/*' } : {}) },
          maxBodyBytes: Math.min(this.input.config.maxBodyBytes, MAX_SUBRESOURCE_BYTES),
          maxDecompressedBytes: Math.min(this.input.config.maxDecompressedBytes, MAX_SUBRESOURCE_DECODED_BYTES),
          connectTimeoutMs: this.input.config.connectTimeoutMs,
          firstByteTimeoutMs: Math.min(this.input.config.firstByteTimeoutMs, 20_000),
          bodyTimeoutMs: Math.min(this.input.config.bodyTimeoutMs, 20_000),
          ...(this.input.signal ? { signal: this.input.signal } : {}),
        },
        () => sink,
      );
      const finishedAtMs = this.deps.now();
      const responseMs = hostDownloadMs(fetched.body);
      return {
        result: { kind: 'response', response: { status: fetched.head.status, headers: fetched.head.headers, body: Buffer.concat(chunks) } },
        outcome: { kind: 'response', startedAtMs, finishedAtMs, status: fetched.head.status, responseMs },
      };
    } catch (error) {
      if (this.input.signal?.aborted) {
        // The render ended with this request open (a long poll): it reached the host, and ends now.
        return { result: { kind: 'failed' }, outcome: { kind: 'response', startedAtMs, finishedAtMs: this.deps.now(), status: 200 }, cutByUs: true };
      }
      if (!(error instanceof HttpFetchError)) throw error;
      const type = classifyTransportError(error.code);
      const requested = !['HTTP_DNS_NOT_FOUND', 'HTTP_DNS_TEMPORARY_FAILURE', 'HTTP_PRIVATE_NETWORK_REFUSED'].includes(error.code);
      return { result: { kind: 'failed' }, outcome: hostOutcomeOfFailure(type, { startedAtMs, finishedAtMs: this.deps.now(), requested, ...(error.partial?.status === undefined ? {} : { status: error.partial.status }) }, this.deps.now()) };
    }
  }

  /** A storable response goes to the shared cache (body in the object store); returns its body key. */
  private async storeInCache(url: string, response: Received): Promise<string | undefined> {
    const decision = subresourceCacheDecision({ status: response.status, ...cacheFactsOf(response.headers) }, this.deps.now());
    if (!decision.storable) return undefined;
    const sha256 = createHash('sha256').update(response.body).digest('hex');
    const bodyKey = await this.deps.bodies.putRenderObjectIfAbsent('subresources', sha256, gzipSync(response.body));
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
    await saveCachedSubresource(this.deps.pool, entry);
    return bodyKey;
  }
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
