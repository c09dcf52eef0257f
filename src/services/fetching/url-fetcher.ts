/**
 * Fetches one URL: robots verdict from the shared cache, one HTTP request through undici (no
 * retries, no redirects followed there), the body spooled gzipped (in memory, or on disk past a
 * limit: body-spool.ts) and stored once in MinIO (a small one in a pack with others:
 * body-packer.ts), and the outcome recorded in Postgres under (fingerprint, generation). Every
 * failure leaves as an ApplicationFailure of one named type; Temporal owns the retries. The
 * decisions are the domain's (domain/fetching): this module does the I/O around them.
 */
import { conditionalHeadersOf, crawlSkipReasonOf, fetchResponseOutcomeOf, isParsedBody, keptHeadersOf, robotsGateOf, transportFailureOf } from '../../domain/fetching/index.js';
import { hostDownloadMs, parseRetryAfter } from '../../domain/politeness/index.js';
import { productTokenOf } from '../../domain/robots/index.js';
import { DEFAULT_ACCEPTED_CONTENT_TYPES, SITEMAP_CONTENT_TYPES, canonicalizeUrl } from '../../domain/url/index.js';
import { neutralizeText } from '../../domain/text/index.js';
import { HttpFetchError, type FetchResult } from '../../http/index.js';
import type { BodyPacker } from '../../storage/object-store/body-packer.js';
import { PinnedPacks } from '../../storage/object-store/pinned-packs.js';
import { readFetchPreflight, recordFetch, updateUrlAfterFetch } from '../../storage/postgres/fetch-repository.js';
import { inTransaction } from '../../storage/postgres/pool.js';
import { isReadAsSitemap, type FetchUrlInput, type FetchUrlResult } from '../../contracts/activities.js';
import type { ActivityDeps } from '../deps.js';
import { recordVisit } from '../documents/change-detection.js';
import type { CrawlContextCache } from '../frontier/crawl-context.js';
import { SitemapRoots } from '../frontier/sitemap-roots.js';
import type { PacedHosts } from '../rendering/paced-hosts.js';
import type { ActivityScope } from './activity-scope.js';
import type { BodySpool } from './body-spool.js';
import { handleRedirect } from './fetch-redirect.js';
import { fetchFailure } from './fetch-failure.js';
import { heartbeatingSpool, sendPageRequest } from './fetch-request.js';
import { storeFetchedBody, type BodyStorage } from './fetched-body-store.js';
import { resultFromRecord } from './recorded-result.js';
import { baseFetchRecordOf, type UrlFetchStep } from './url-fetch-step.js';
import type { UrlFetcher, UrlFetchOptions } from './url-fetch-types.js';

export type { BodyHolding, UrlFetcher, UrlFetchOptions } from './url-fetch-types.js';

/** What the URL fetcher works with besides the activity dependencies. */
export interface UrlFetcherParts {
  crawls: CrawlContextCache;
  /** One packer per worker process: the more fetches share it, the fewer objects a page costs. */
  bodyPacker: BodyPacker;
  /** The running activity's scope, read at each fetch's start. */
  scopeOf: () => ActivityScope;
  /**
   * Hosts renders reach as other origins share a pacing ledger with the host's own fetches
   * (docs/rendering.md); a fetch to one of them reserves its start there too.
   */
  pacedHosts?: PacedHosts;
}

interface UrlFetcherState extends UrlFetcherParts {
  deps: ActivityDeps;
  storage: BodyStorage;
  sitemapRoots: SitemapRoots;
}

export function createUrlFetcher(deps: ActivityDeps, parts: UrlFetcherParts): UrlFetcher {
  // A recrawl's unchanged pages point into packs checked once each, not once a page.
  const state: UrlFetcherState = { ...parts, deps, storage: { packer: parts.bodyPacker, pinnedPacks: new PinnedPacks() }, sitemapRoots: new SitemapRoots(deps.pool) };
  return (input, attemptNumber, options = {}) => fetchUrlAttempt(state, input, attemptNumber, options);
}

/** The crawl's state, the URL's record and its origin's robots rules decide whether a request goes out. */
async function fetchUrlAttempt(state: UrlFetcherState, input: FetchUrlInput, attemptNumber: number, options: UrlFetchOptions): Promise<FetchUrlResult> {
  const { deps } = state;
  const context = await state.crawls.get(input.crawlId);
  const skip = crawlSkipReasonOf(context.record.state);
  if (skip !== undefined) return { kind: 'skipped', reason: skip, atMs: deps.now() };
  const url = canonicalizeUrl(input.url, context.canonicalizeOptions);
  const preflight =
    options.preflight?.origin === url.origin
      ? await options.preflight.read
      : await readFetchPreflight(deps.pool, { fingerprint: input.fingerprint, generation: input.generation, origin: url.origin });
  // Redelivered after the work was done: answer from the record, fetch nothing.
  if (preflight.recorded) return resultFromRecord(preflight.recorded, input);
  const robots = preflight.robots;
  const productToken = productTokenOf(context.record.config.userAgent);
  const gate = robotsGateOf({ robots, nowMs: deps.now(), refreshesRobots: options.refreshesRobots === true, productToken, pathAndQuery: url.pathAndQuery });
  if (gate.kind === 'stale') return { kind: 'robots-stale', atMs: deps.now() };
  // The first fetch of a crawl from an origin, its robots.txt in hand: the sitemaps it declares join the frontier.
  if (gate.registersSitemaps && robots) await state.sitemapRoots.registerOnce(context, url.origin, robots);
  if (gate.kind === 'unreachable') {
    // RFC 9309 §2.3.1.4: an unreachable robots.txt disallows everything *for now*. The URL is
    // not dropped: it waits (host-level retry) until the file may be fetched again.
    const atMs = deps.now();
    const message = `${gate.reason}; nothing but robots.txt is fetched from ${url.origin}`;
    throw await fetchFailure(deps, input, attemptNumber, 'RobotsUnreachable', message, { startedAtMs: atMs, finishedAtMs: atMs, requested: false, retryAfterAtMs: Math.max(atMs, gate.retryAfterAtMs) });
  }
  if (gate.kind === 'disallowed') return { kind: 'robots-disallowed', atMs: deps.now() };
  const step: UrlFetchStep = { deps, scope: state.scopeOf(), context, input, attemptNumber, options, url };
  return fetchAllowed(state, step, preflight.validators);
}

/** The request of a URL its robots rules allow, and what its response leads to. */
async function fetchAllowed(state: UrlFetcherState, step: UrlFetchStep, validators: { etag: string | null; lastModified: string | null }): Promise<FetchUrlResult> {
  const { deps, input, context } = step;
  const config = context.record.config;
  const readAsSitemap = isReadAsSitemap(input.purpose);
  // A sitemap is read by its own reader, from the store.
  const holding = readAsSitemap ? undefined : step.options.holding;
  const spool = heartbeatingSpool(deps.spoolDir, step.scope, holding?.budget.roomForOneBody() ?? 0);
  const http = deps.http({ userAgent: config.userAgent, allowPrivateNetworks: config.allowPrivateNetworks, ...(config.proxy === undefined ? {} : { proxy: config.proxy }) });
  const startedAtMs = deps.now();
  let response: FetchResult;
  try {
    response = await sendPageRequest(http, config, spool, {
      url: step.url,
      headers: conditionalHeadersOf(validators, readAsSitemap),
      readAsSitemap,
      acceptedTypes: readAsSitemap ? SITEMAP_CONTENT_TYPES : DEFAULT_ACCEPTED_CONTENT_TYPES,
      hostDelayMs: input.hostDelayMs,
    }, step.scope, state.pacedHosts);
  } catch (error) {
    await spool.discard();
    if (!(error instanceof HttpFetchError)) throw error;
    const { type, requested } = transportFailureOf(error.code);
    throw await fetchFailure(deps, input, step.attemptNumber, type, error.message, {
      startedAtMs,
      finishedAtMs: deps.now(),
      requested,
      ...(error.partial?.status === undefined ? {} : { status: error.partial.status }),
      ...(error.transfer === undefined ? {} : error.transfer),
    });
  }
  try {
    return await handleResponse(state, step, spool, response, startedAtMs, holding);
  } finally {
    await spool.discard();
  }
}

/** A response's outcome (fetchResponseOutcomeOf): a typed failure, a 304, a redirect, or a body to store. */
async function handleResponse(state: UrlFetcherState, step: UrlFetchStep, spool: BodySpool, response: FetchResult, startedAtMs: number, holding: UrlFetchOptions['holding']): Promise<FetchUrlResult> {
  const { deps, input } = step;
  const { head, body, transfer } = response;
  const finishedAtMs = deps.now();
  // What the host took: to the last byte, less our own event loop's recent lag (adaptive politeness).
  const timing = { startedAtMs, finishedAtMs, responseMs: hostDownloadMs(body) };
  // A response's cost, carried by its failure when it is one (4xx, 5xx, a type not crawled).
  const cost = { sentBytes: transfer.sentBytes, receivedBytes: transfer.receivedBytes };
  const outcome = fetchResponseOutcomeOf(head.status, spool.used);
  if (outcome.kind === 'failure') {
    const contentType = head.headers['content-type'];
    const retryAfterAtMs = outcome.type === 'UnsupportedContentType' ? undefined : parseRetryAfter(head.headers['retry-after'], finishedAtMs);
    const message = outcome.type === 'UnsupportedContentType' ? `content type ${contentType === undefined ? '(none)' : neutralizeText(contentType)} is not crawled` : `HTTP ${head.status} from ${step.url.url}`;
    throw await fetchFailure(deps, input, step.attemptNumber, outcome.type, message, { ...timing, requested: true, ...cost, status: head.status, ...(retryAfterAtMs === undefined ? {} : { retryAfterAtMs }) });
  }
  deps.metrics?.requestTransferred('ok', cost);
  const baseRecord = baseFetchRecordOf(step, head, body, startedAtMs, cost, keptHeadersOf(head.headers));
  if (outcome.kind === 'redirect') return handleRedirect(step, head, baseRecord, timing);
  if (outcome.kind === 'not-modified') {
    await inTransaction(deps.pool, async (client) => {
      await recordFetch(client, { ...baseRecord, outcome: 'not-modified', rawHash: null, bodyKey: null, bytes: 0, redirectLocation: null });
      await updateUrlAfterFetch(client, { fingerprint: input.fingerprint, state: 'not-modified', status: 304, fetchedAt: new Date(startedAtMs), success: true, etag: head.headers['etag'], lastModified: head.headers['last-modified'] });
      // A 304 is an observed "unchanged" at almost no cost (docs/design.md, "Recrawl").
      await recordVisit(client, { fingerprint: input.fingerprint, generation: input.generation, crawlId: input.crawlId, observedAtMs: startedAtMs, content: { kind: 'not-modified' } });
    });
    return { kind: 'not-modified', status: 304, ...timing };
  }
  const parse = isParsedBody(isReadAsSitemap(input.purpose), head.headers['content-type']);
  step.options.onStoring?.({ kind: 'response', ...timing, status: head.status });
  return storeFetchedBody(step, state.storage, { head, body, spool, baseRecord, timing, parse, holding });
}
