/**
 * Fetches one URL: robots verdict from the shared cache, one HTTP request through undici (no
 * retries, no redirects followed there), the body spooled gzipped (in memory, or on disk past a
 * limit: body-spool.ts) and stored once in MinIO (a small one in a pack with others:
 * body-packer.ts), and the outcome recorded in Postgres under (fingerprint, generation).
 * Every failure leaves as an ApplicationFailure of one named type; Temporal owns the retries.
 */
import { ApplicationFailure, Context } from '@temporalio/activity';
import {
  FAILURE_POLICIES,
  POISON_ATTEMPT_LIMIT,
  classifyHttpStatus,
  classifyTransportError,
  countsTowardPoison,
  retryDelayMs,
  type FetchFailureType,
} from '../domain/failures/index.js';
import { retryDelayScaleOf } from '../config/politeness-config.js';
import { hostDownloadMs, parseRetryAfter, type HostOutcome } from '../domain/politeness/index.js';
import { changeKey } from '../domain/recrawl/index.js';
import { isRobotsFresh, productTokenOf, robotsVerdictFor } from '../domain/robots/index.js';
import { SITEMAP_MAX_UNCOMPRESSED_BYTES } from '../domain/sitemap/index.js';
import { DEFAULT_ACCEPTED_CONTENT_TYPES, SITEMAP_CONTENT_TYPES, canonicalFromLinkHeader, canonicalizeUrl, decideRedirect, isSkippedContentType, redactCredentials } from '../domain/url/index.js';
import { neutralizeText } from '../domain/text/index.js';
import { HttpFetchError, type FetchResponseHead, type TransferBytes } from '../http/index.js';
import { keepBodyStored } from '../storage/body-retention.js';
import { PinnedPacks } from '../storage/object-store/pinned-packs.js';
import { bodyKeyFor } from '../storage/object-store/body-key.js';
import type { BodyPacker } from '../storage/object-store/body-packer.js';
import { attemptsSinceLastSuccess, recordAttempt } from '../storage/postgres/attempt-repository.js';
import {
  readFetchPreflight,
  recordFetch,
  recordFetchedBody,
  updateUrlAfterFetch,
  type FetchedBodyRecords,
  type FetchPreflight,
  type FetchRecord,
} from '../storage/postgres/fetch-repository.js';
import { getFrontierEntry } from '../storage/postgres/frontier-registration.js';
import { getRobotsEntry } from '../storage/postgres/robots-repository.js';
import { inTransaction } from '../storage/postgres/pool.js';
import { recordStorageFailure, recordStorageRecovered } from '../storage/postgres/crawl-waits-repository.js';
import { DEFAULT_STORE_OUTAGE, storeThroughOutage } from '../services/fetching/store-through-outage.js';
import { BodySpool } from '../services/fetching/body-spool.js';
import type { HeldBody, HeldBodyBudget } from '../services/fetching/held-bodies.js';
import type { CrawlContext, CrawlContextCache } from '../services/frontier/crawl-context.js';
import { isReadAsSitemap, type FetchFailureDetails, type FetchUrlInput, type FetchUrlResult } from '../contracts/activities.js';
import type { ActivityDeps } from '../services/deps.js';
import { recordVisit } from '../services/documents/change-detection.js';
import { registerDiscoveredUrls, type RegistrationGate } from '../services/frontier/link-registration.js';
import { SitemapRoots } from '../services/frontier/sitemap-roots.js';
import { settleCanonicalHints } from '../services/documents/canonical-hints.js';
import type { PacedHosts } from '../services/rendering/paced-hosts.js';

/** Response headers kept with the fetch record (docs/design.md, "Storage model": selected headers). */
const KEPT_HEADERS = ['link', 'content-type', 'content-length', 'content-encoding', 'etag', 'last-modified', 'cache-control', 'expires', 'location', 'retry-after', 'x-robots-tag', 'content-language', 'server', 'date'];
const HEARTBEAT_EVERY_MS = 5_000;

/**
 * The fetch of one URL, for the fetch activity and for fetch bursts. `attemptNumber` is this
 * try's number under the failure type's policy (1 for the first): it keys the attempt record and
 * decides whether the policy retries. Runs inside an activity (cancellation, heartbeats).
 */
export type UrlFetcher = (input: FetchUrlInput, attemptNumber: number, options?: UrlFetchOptions) => Promise<FetchUrlResult>;

/** What a fetch burst hands the fetch of one of its URLs. */
export interface UrlFetchOptions {
  /** Keep the decoded body of a page to parse, for the burst's own parse. */
  holding?: BodyHolding;
  /** The URL's preflight, read with the burst's others in one statement; used when its origin is the URL's. */
  preflight?: { origin: string; read: Promise<FetchPreflight> };
  /**
   * For a page to parse: hand its records to the burst's parse, which writes them in its own
   * transaction (a round trip fewer per page), instead of writing them here. The prune's grace
   * period covers an object this fetch uploaded until its record commits. A body found already
   * stored (a recrawl's unchanged page) is deferred only when held in memory, with `keepStored`:
   * the caller must run it once the records commit, to make sure the object still exists then
   * (body-retention.ts), and take the body's key from it. A body in a file is recorded here.
   */
  deferRecord?: (records: FetchedBodyRecords, keepStored?: () => Promise<string>) => void;
  /**
   * Called when a 2xx body to keep has arrived whole, before it is stored and recorded, with what
   * the response tells the host's politeness (as hostOutcomeOfResult of the result would): a burst
   * starts its next request meanwhile. What fails after it is the store, not the host.
   */
  onStoring?: (hostOutcome: HostOutcome) => void;
  /**
   * The caller refreshes a stale robots.txt itself (a burst given refreshRobots): an unreachable
   * file whose retry time has passed is then stale (`robots-stale`), not a RobotsUnreachable
   * failure, so that it is asked for again before the URL, not after the URL's next retry.
   */
  refreshesRobots?: boolean;
  /**
   * Called with true when this fetch's body found the object store failing and waits for it
   * (store-through-outage.ts), and with false once it is stored or given up: a burst sends no
   * request meanwhile, so it fetches nothing it could not keep.
   */
  onStoreWaiting?: (waiting: boolean) => void;
}

/** A fetch burst's request to keep the decoded body of a page it will parse (held-bodies.ts). */
export interface BodyHolding {
  budget: HeldBodyBudget;
  /** Called with the held body of a stored page to parse; the taker releases it. */
  take(held: HeldBody): void;
}

export function createFetchActivities(fetchUrlAttempt: UrlFetcher) {
  /** One URL per activity: Temporal's retries are the policy's, counted on from any burst try. */
  async function fetchUrl(input: FetchUrlInput): Promise<FetchUrlResult> {
    return fetchUrlAttempt(input, (input.priorAttempts ?? 0) + Context.current().info.attempt);
  }
  return { fetchUrl };
}

/** A body spooled in memory goes into a pack; one spooled to a file is large and stored on its own. */
/**
 * `pacedHosts`: hosts renders reach as other origins share a pacing ledger with the host's own
 * fetches (docs/rendering.md); a fetch to one of them reserves its start there too.
 */
export function createUrlFetcher(deps: ActivityDeps, crawls: CrawlContextCache, bodyPacker: BodyPacker, pacedHosts?: PacedHosts): UrlFetcher {
  // A recrawl's unchanged pages point into packs checked once each, not once a page.
  const keepingDeps = { pool: deps.pool, bodies: deps.bodies, pinnedPacks: new PinnedPacks() };
  const sitemapRoots = new SitemapRoots(deps.pool);
  return fetchUrlAttempt;

  async function fetchUrlAttempt(input: FetchUrlInput, attemptNumber: number, options: UrlFetchOptions = {}): Promise<FetchUrlResult> {
    const holding = options.holding;
    const context = await crawls.get(input.crawlId);
    const crawlState = context.record.state;
    if (crawlState === 'stopping' || crawlState === 'stopped' || crawlState === 'finished') {
      return { kind: 'skipped', reason: 'crawl-stopping', atMs: deps.now() };
    }
    if (crawlState === 'paused') return { kind: 'skipped', reason: 'crawl-paused', atMs: deps.now() };

    const url = canonicalizeUrl(input.url, context.canonicalizeOptions);
    const preflight =
      options.preflight?.origin === url.origin
        ? await options.preflight.read
        : await readFetchPreflight(deps.pool, { fingerprint: input.fingerprint, generation: input.generation, origin: url.origin });
    // Redelivered after the work was done: answer from the record, fetch nothing.
    if (preflight.recorded) return resultFromRecord(preflight.recorded, input);
    const robots = preflight.robots;
    // An unreachable robots.txt still disallows when its retry time has passed: the URL waits
    // (RobotsUnreachable) and the host workflow refreshes the file before the URL's next attempt;
    // or, for a caller that refreshes it itself, the file is stale and refreshed first.
    const stillUnreachable = robots?.policy.kind === 'disallow-all' && robots.unreachableSinceMs !== undefined;
    if (!robots || (!isRobotsFresh(robots, deps.now()) && (!stillUnreachable || options.refreshesRobots === true))) return { kind: 'robots-stale', atMs: deps.now() };
    // The first fetch of a crawl from an origin, its robots.txt in hand: the sitemaps it declares join the frontier.
    if (robots.policy.kind !== 'disallow-all') await sitemapRoots.registerOnce(context, url.origin, robots);
    const verdict = robotsVerdictFor(robots, productTokenOf(context.record.config.userAgent), url.pathAndQuery);
    if (!verdict.allowed && stillUnreachable) {
      // RFC 9309 §2.3.1.4: an unreachable robots.txt disallows everything *for now*. The URL is
      // not dropped: it waits (host-level retry) until the file may be fetched again.
      const atMs = deps.now();
      const reason = robots.policy.kind === 'disallow-all' ? robots.policy.reason : 'robots.txt unreachable';
      throw await failure(input, attemptNumber, 'RobotsUnreachable', `${reason}; nothing but robots.txt is fetched from ${url.origin}`, {
        startedAtMs: atMs,
        finishedAtMs: atMs,
        requested: false,
        retryAfterAtMs: Math.max(atMs, robots.expiresAtMs),
      });
    }
    if (!verdict.allowed) return { kind: 'robots-disallowed', atMs: deps.now() };

    // A sitemap is always read whole: a 304 would leave the recrawl planner without a reading
    // dated after its last visits, and 'unchanged' signals need one (signalClaim).
    const readAsSitemap = isReadAsSitemap(input.purpose);
    const validators = readAsSitemap ? { etag: null, lastModified: null } : preflight.validators;
    const conditional: Record<string, string> = {};
    if (validators.etag) conditional['if-none-match'] = validators.etag;
    if (validators.lastModified) conditional['if-modified-since'] = validators.lastModified;

    const config = context.record.config;
    const http = deps.http({ userAgent: config.userAgent, allowPrivateNetworks: config.allowPrivateNetworks, ...(config.proxy === undefined ? {} : { proxy: config.proxy }) });
    // The first beat after HEARTBEAT_EVERY_MS, not at the first chunk: a short body needs none (each is a write on the Temporal server).
    let lastHeartbeatMs = Date.now();
    // A sitemap is read by its own reader, from the store.
    const bodyHolding = readAsSitemap ? undefined : holding;
    const deferRecord = options.deferRecord;
    const spool = new BodySpool({
      dir: deps.spoolDir,
      keepDecodedUpToBytes: bodyHolding?.budget.roomForOneBody() ?? 0,
      onChunk: () => {
        const now = Date.now();
        if (now - lastHeartbeatMs > HEARTBEAT_EVERY_MS) {
          lastHeartbeatMs = now;
          Context.current().heartbeat();
        }
      },
    });
    const acceptedTypes = readAsSitemap ? SITEMAP_CONTENT_TYPES : DEFAULT_ACCEPTED_CONTENT_TYPES;
    const startedAtMs = deps.now();
    let head: FetchResponseHead;
    let body;
    let transfer: TransferBytes;
    // Connect and first-byte deadlines can add up past the heartbeat timeout with no body bytes to
    // report: beat on a clock while the request is open, so only the HTTP deadlines end it.
    const activity = Context.current();
    const heartbeats = setInterval(() => activity.heartbeat(), HEARTBEAT_EVERY_MS);
    try {
      const send = () =>
        http.fetch(
          {
            url: url.url,
            headers: conditional,
            // sitemaps.org allows 50 MiB uncompressed: a sitemap is read to that size whatever a page may be.
            maxBodyBytes: readAsSitemap ? Math.max(config.maxBodyBytes, SITEMAP_MAX_UNCOMPRESSED_BYTES) : config.maxBodyBytes,
            maxDecompressedBytes: readAsSitemap ? Math.max(config.maxDecompressedBytes, SITEMAP_MAX_UNCOMPRESSED_BYTES) : config.maxDecompressedBytes,
            // Absent in crawls stored before these knobs existed: the HTTP layer's defaults apply.
            connectTimeoutMs: config.connectTimeoutMs,
            firstByteTimeoutMs: config.firstByteTimeoutMs,
            bodyTimeoutMs: config.bodyTimeoutMs,
            signal: activity.cancellationSignal,
          },
          (responseHead) => {
            const status = classifyHttpStatus(responseHead.status);
            if (status.kind !== 'success') return undefined;
            if (isSkippedContentType(responseHead.headers['content-type'] ?? '', acceptedTypes)) return undefined;
            return spool.sink();
          },
        );
      const response = pacedHosts ? await pacedHosts.run(url.host, input.hostDelayMs, send, (fetched) => fetched.body.finishedAtMs) : await send();
      head = response.head;
      body = response.body;
      transfer = response.transfer;
    } catch (error) {
      await spool.discard();
      if (error instanceof HttpFetchError) {
        const type = classifyTransportError(error.code);
        throw await failure(input, attemptNumber, type, error.message, {
          startedAtMs,
          finishedAtMs: deps.now(),
          requested: !['HTTP_DNS_NOT_FOUND', 'HTTP_DNS_TEMPORARY_FAILURE', 'HTTP_PRIVATE_NETWORK_REFUSED'].includes(error.code),
          ...(error.partial?.status === undefined ? {} : { status: error.partial.status }),
          ...(error.transfer === undefined ? {} : error.transfer),
        });
      }
      throw error;
    } finally {
      clearInterval(heartbeats);
    }
    const finishedAtMs = deps.now();
    // What the host took: to the last byte, less our own event loop's recent lag (adaptive politeness).
    const responseMs = hostDownloadMs(body);
    const timing = { startedAtMs, finishedAtMs, responseMs, requested: true } as const;
    // A response's cost, carried by its failure when it is one (4xx, 5xx, a type not crawled).
    const cost = { sentBytes: transfer.sentBytes, receivedBytes: transfer.receivedBytes };
    const status = classifyHttpStatus(head.status);

    if (status.kind === 'failure') {
      await spool.discard();
      const retryAfterAtMs = parseRetryAfter(head.headers['retry-after'], finishedAtMs);
      throw await failure(input, attemptNumber, status.type, `HTTP ${head.status} from ${url.url}`, {
        ...timing,
        ...cost,
        status: head.status,
        ...(retryAfterAtMs === undefined ? {} : { retryAfterAtMs }),
      });
    }

    const baseRecord = {
      fingerprint: input.fingerprint,
      generation: input.generation,
      crawlId: input.crawlId,
      url: input.url,
      finalUrl: url.url,
      fetchedAt: new Date(startedAtMs),
      status: head.status,
      contentType: head.headers['content-type'] ?? null,
      headers: keptHeaders(head.headers),
      requestHeaders: head.requestHeaders,
      wireBytes: body.wireBytes,
      timings: { connectMs: head.timings.connectMs ?? -1, firstByteMs: head.timings.firstByteMs, lastByteMs: body.lastByteMs, loopLagMs: body.loopLagMs, totalMs: body.totalMs },
      ...cost,
    };

    if (status.kind === 'not-modified') {
      deps.metrics?.requestTransferred('ok', cost);
      await spool.discard();
      await inTransaction(deps.pool, async (client) => {
        await recordFetch(client, { ...baseRecord, outcome: 'not-modified', rawHash: null, bodyKey: null, bytes: 0, redirectLocation: null });
        await updateUrlAfterFetch(client, { fingerprint: input.fingerprint, state: 'not-modified', status: 304, fetchedAt: new Date(startedAtMs), success: true, etag: head.headers['etag'], lastModified: head.headers['last-modified'] });
        // A 304 is an observed "unchanged" at almost no cost (docs/design.md, "Recrawl").
        await recordVisit(client, { fingerprint: input.fingerprint, generation: input.generation, crawlId: input.crawlId, observedAtMs: startedAtMs, content: { kind: 'not-modified' } });
      });
      return { kind: 'not-modified', status: 304, startedAtMs, finishedAtMs, responseMs };
    }

    if (status.kind === 'redirect') {
      deps.metrics?.requestTransferred('ok', cost);
      await spool.discard();
      return handleRedirect(context, input, attemptNumber, head, baseRecord, timing);
    }

    // 2xx
    const contentType = head.headers['content-type'];
    if (!spool.used) {
      throw await failure(input, attemptNumber, 'UnsupportedContentType', `content type ${contentType === undefined ? '(none)' : neutralizeText(contentType)} is not crawled`, { ...timing, ...cost, status: head.status });
    }
    deps.metrics?.requestTransferred('ok', cost);
    const storedBytes = spool.size;
    const stored = spool.contents();
    const parse = isParsed(input.purpose, contentType);
    options.onStoring?.({ kind: 'response', startedAtMs, finishedAtMs, status: head.status, responseMs });
    const fetchedResult = (bodyKey: string): FetchUrlResult => ({
      kind: 'fetched',
      status: head.status,
      bodyKey,
      rawHash: body.sha256,
      bytes: body.bytes,
      contentType,
      parse,
      finalUrl: url.url,
      startedAtMs,
      finishedAtMs,
      responseMs,
      ...xRobotsTagOf(baseRecord.headers),
      ...linkCanonicalOf(baseRecord.headers, url.url),
    });
    try {
      const { key, created } = await storeWaitingOutOutages(input, options, `the body of ${input.url}`, () =>
        'bytes' in stored ? bodyPacker.add(body.sha256, stored.bytes) : deps.bodies.putGzipIfAbsent(body.sha256, stored),
      );
      if (created) deps.metrics?.bodyStored(storedBytes);
      const records: FetchedBodyRecords = {
        body: { sha256: body.sha256, objectKey: key, bytes: body.bytes, storedBytes },
        fetch: { ...baseRecord, outcome: 'ok', rawHash: body.sha256, bodyKey: key, bytes: body.bytes, redirectLocation: null },
        url: {
          fingerprint: input.fingerprint,
          state: 'ok',
          status: head.status,
          fetchedAt: new Date(startedAtMs),
          success: true,
          etag: head.headers['etag'] ?? null,
          lastModified: head.headers['last-modified'] ?? null,
          rawHash: body.sha256,
          bytes: body.bytes,
        },
        frontier: { crawlId: input.crawlId, fingerprint: input.fingerprint, generation: input.generation },
      };
      // Held before the records are written: a stored body whose record is deferred must be parsed
      // from memory, as its object is only known to exist once that record commits.
      const held = bodyHolding && parse ? holdDecoded(spool, bodyHolding) : false;
      const keepStored = (): Promise<string> =>
        storeWaitingOutOutages(input, options, `the body of ${input.url}`, () => keepBodyStored(keepingDeps, { sha256: body.sha256, key, body: stored }));
      if (parse && deferRecord !== undefined && created) {
        // A burst's page: its parse writes these records in its transaction (it records the visit too).
        deferRecord(records);
      } else if (parse && deferRecord !== undefined && held && 'bytes' in stored) {
        // A recrawl's unchanged page: the same, and the object is checked after that commit.
        deferRecord(records, keepStored);
        return fetchedResult(key);
      } else if (parse) {
        // The common case of the one-URL path, one round trip: the parse records the page's visit.
        await recordFetchedBody(deps.pool, records);
      } else {
        await inTransaction(deps.pool, async (client) => {
          await recordFetchedBody(client, records);
          // Nothing parses this body: its bytes are its content.
          await recordVisit(client, { fingerprint: input.fingerprint, generation: input.generation, crawlId: input.crawlId, observedAtMs: startedAtMs, content: { kind: 'content', changeKey: changeKey('r', body.sha256) } });
        });
      }
      // The body was stored before our reference committed: `crawler bodies prune` may have deleted
      // it in between (it deletes under the lock recordFetchedBody takes), so it must exist now.
      return fetchedResult(created ? key : await keepStored());
    } finally {
      await spool.discard();
    }
  }

  /**
   * A store step that waits out an object store outage with the body in hand; the crawl's storage
   * health records each failed try and the recovery (what the progress line and status show).
   */
  async function storeWaitingOutOutages<T>(input: FetchUrlInput, options: UrlFetchOptions, what: string, store: () => Promise<T>): Promise<T> {
    const context = Context.current();
    let waiting = false;
    // Half the activity's time at most: the fetch before it took some, and a retry needs the rest.
    const patienceMs = Math.min(DEFAULT_STORE_OUTAGE.patienceMs, context.info.startToCloseTimeoutMs / 2);
    try {
      return await storeThroughOutage(what, store, { ...DEFAULT_STORE_OUTAGE, patienceMs }, {
        nowMs: deps.now,
        sleepMs: (ms) => context.sleep(ms),
        heartbeat: () => context.heartbeat(),
        onFailure: (error, failingSinceMs) => {
          if (!waiting) {
            waiting = true;
            options.onStoreWaiting?.(true);
          }
          deps.metrics?.storageFailed();
          const text = redactCredentials(error instanceof Error ? error.message : String(error));
          // Bookkeeping: a Postgres that fails too must not fail the store's wait.
          recordStorageFailure(deps.pool, { crawlId: input.crawlId, error: text, failingSinceMs }).catch(() => undefined);
        },
        onRecovered: () => void recordStorageRecovered(deps.pool, input.crawlId).catch(() => undefined),
      });
    } finally {
      if (waiting) options.onStoreWaiting?.(false);
    }
  }

  async function handleRedirect(
    context: CrawlContext,
    input: FetchUrlInput,
    attemptNumber: number,
    head: FetchResponseHead,
    baseRecord: Omit<FetchRecord, 'outcome' | 'rawHash' | 'bodyKey' | 'bytes' | 'redirectLocation'>,
    timing: { startedAtMs: number; finishedAtMs: number; responseMs: number },
  ): Promise<FetchUrlResult> {
    const { startedAtMs, finishedAtMs, responseMs } = timing;
    const location = head.headers['location'] ?? null;
    const entry = await getFrontierEntry(deps.pool, input.crawlId, input.fingerprint);
    const chain = [...(entry?.redirectChain ?? []), input.fingerprint];
    const decision = decideRedirect({
      location: location ?? undefined,
      fromUrl: input.url,
      chainFingerprints: chain,
      options: context.canonicalizeOptions,
    });
    let outcomeDecision: Extract<FetchUrlResult, { kind: 'redirect' }>['decision'] = decision.kind === 'follow' ? 'follow' : decision.kind;
    let targetUrl: string | undefined;
    let refusal: string | undefined;
    // Robots rules apply to the target, not only the source: with the target origin's rules at
    // hand, a target they disallow is not followed (and never enters the frontier).
    const gate = decision.kind === 'follow' ? await robotsGate(context, decision.target.origin, input.url) : undefined;
    await inTransaction(deps.pool, async (client) => {
      if (decision.kind === 'follow') {
        targetUrl = decision.target.url;
        // The target is its own URL record (scope, depth and traps apply to it); the hop is a 'redirect' edge.
        const registration = await registerDiscoveredUrls(client, context, {
          sourceFingerprint: input.fingerprint,
          depth: input.depth,
          urls: [{ absoluteUrl: decision.target.url }],
          kind: 'redirect',
          redirect: { hops: chain.length, chain },
          nowMs: finishedAtMs,
          ...(gate ? { gate } : {}),
          ...(isReadAsSitemap(input.purpose) ? { purpose: input.purpose } : {}),
        });
        const fate = registration.outcomes[0]?.fate;
        if (fate?.kind === 'rejected') {
          outcomeDecision = fate.code.startsWith('out-of-scope') ? 'out-of-scope' : fate.code === 'robots-disallowed' ? 'robots-disallowed' : 'rejected';
          refusal = `${fate.code}: ${fate.reason}`;
        }
      }
      await recordFetch(client, {
        ...baseRecord,
        outcome: decision.kind === 'follow' ? 'redirect' : decision.kind === 'loop' ? 'RedirectLoop' : decision.kind === 'too-many-hops' ? 'TooManyRedirects' : 'redirect-invalid',
        rawHash: null,
        bodyKey: null,
        bytes: 0,
        redirectLocation: location,
      });
      await updateUrlAfterFetch(client, { fingerprint: input.fingerprint, state: 'redirect', status: head.status, fetchedAt: new Date(startedAtMs), success: false });
      // A canonical hint that named this URL is kept as evidence: it redirects, it is no page of its own.
      await settleCanonicalHints(client, context, [{ fingerprint: input.fingerprint, depth: input.depth, canonicalHint: null }]);
    });
    if (decision.kind === 'loop' || decision.kind === 'too-many-hops') {
      // A loop or an endless chain is a terminal failure of this URL (docs/design.md, "Crawler traps").
      throw await failure(input, attemptNumber, decision.kind === 'loop' ? 'RedirectLoop' : 'TooManyRedirects', `redirect ${decision.kind} at ${input.url}`, {
        startedAtMs,
        finishedAtMs,
        responseMs,
        requested: true,
        status: head.status,
      });
    }
    return {
      kind: 'redirect',
      status: head.status,
      location,
      decision: outcomeDecision,
      ...(targetUrl ? { targetUrl } : {}),
      ...(refusal ? { reason: refusal } : {}),
      startedAtMs,
      finishedAtMs,
      responseMs,
    };
  }

  /**
   * Refuses redirect targets the target origin's cached, fresh robots rules disallow. Without such
   * rules (another origin not fetched yet, an unreachable robots.txt) the target is registered and
   * the fetch-time check decides, as for any URL.
   */
  async function robotsGate(context: CrawlContext, origin: string, fromUrl: string): Promise<RegistrationGate | undefined> {
    const robots = await getRobotsEntry(deps.pool, origin);
    if (!robots || !isRobotsFresh(robots, deps.now())) return undefined;
    const token = productTokenOf(context.record.config.userAgent);
    return (url) => {
      const verdict = robotsVerdictFor(robots, token, url.pathAndQuery);
      if (verdict.allowed || verdict.policyKind !== 'rules') return undefined;
      return { code: 'robots-disallowed', reason: `robots.txt of ${origin} disallows ${url.pathAndQuery}; the redirect from ${fromUrl} is not followed` };
    };
  }

  /**
   * Records the attempt, then builds the typed failure with its policy's retry decision. A URL whose
   * counted failures at the fetch stage reach POISON_ATTEMPT_LIMIT is not retried: the workflow
   * settles it and it is dead-lettered (docs/design.md, "Poison URLs").
   */
  async function failure(input: FetchUrlInput, attemptNumber: number, type: FetchFailureType, message: string, details: FetchFailureDetails): Promise<ApplicationFailure> {
    await recordAttempt(deps.pool, {
      fingerprint: input.fingerprint,
      stage: 'fetch',
      attemptKey: `${input.generation}/${input.attempt}/${attemptNumber}`,
      crawlId: input.crawlId,
      failureType: type,
      message,
      ...(details.sentBytes === undefined || details.receivedBytes === undefined ? {} : { transfer: { sentBytes: details.sentBytes, receivedBytes: details.receivedBytes } }),
    });
    if (details.sentBytes !== undefined && details.receivedBytes !== undefined) deps.metrics?.requestTransferred('failed', { sentBytes: details.sentBytes, receivedBytes: details.receivedBytes });
    if (countsTowardPoison(type)) {
      const attempts = await attemptsSinceLastSuccess(deps.pool, input.fingerprint, 'fetch');
      details.poisonCount = attempts.filter((attempt) => countsTowardPoison(attempt.failureType)).length;
    }
    const poisoned = (details.poisonCount ?? 0) >= POISON_ATTEMPT_LIMIT;
    const policy = FAILURE_POLICIES[type];
    const retryableHere = policy.retryLayer === 'activity' && !poisoned;
    const nextDelayMs = retryableHere
      ? retryDelayMs(type, attemptNumber, Math.random, {
          floorMs: input.hostDelayMs,
          nowMs: details.finishedAtMs,
          scale: retryDelayScaleOf(input.politeness),
          ...(details.retryAfterAtMs === undefined ? {} : { retryAfterAtMs: details.retryAfterAtMs }),
        })
      : undefined;
    return ApplicationFailure.create({
      type,
      message,
      nonRetryable: nextDelayMs === undefined,
      ...(nextDelayMs === undefined ? {} : { nextRetryDelay: nextDelayMs }),
      details: [details],
    });
  }
}

function resultFromRecord(record: FetchRecord, input: FetchUrlInput): FetchUrlResult {
  const atMs = record.fetchedAt.getTime();
  const finishedAtMs = atMs + (record.timings['totalMs'] ?? 0);
  // Records from before lastByteMs was kept answer without it (politeness then uses the elapsed time).
  const lastByteMs = record.timings['lastByteMs'];
  const responseMs = lastByteMs === undefined ? {} : { responseMs: hostDownloadMs({ lastByteMs, loopLagMs: record.timings['loopLagMs'] ?? 0 }) };
  switch (record.outcome) {
    case 'ok':
      return {
        kind: 'fetched',
        status: record.status ?? 200,
        bodyKey: record.bodyKey ?? bodyKeyFor(record.rawHash ?? ''),
        rawHash: record.rawHash ?? '',
        bytes: record.bytes ?? 0,
        contentType: record.contentType ?? undefined,
        parse: isParsed(input.purpose, record.contentType ?? undefined),
        finalUrl: record.finalUrl,
        startedAtMs: atMs,
        finishedAtMs,
        ...responseMs,
        ...xRobotsTagOf(record.headers),
        ...linkCanonicalOf(record.headers, record.finalUrl),
      };
    case 'not-modified':
      return { kind: 'not-modified', status: 304, startedAtMs: atMs, finishedAtMs, ...responseMs };
    default:
      // A loop or an endless chain also kept its Location, but it is a terminal failure: answered below.
      if (record.outcome === 'redirect' || record.outcome === 'redirect-invalid') {
        const decision = record.outcome === 'redirect' ? 'follow' : 'invalid';
        return { kind: 'redirect', status: record.status ?? 301, location: record.redirectLocation, decision, startedAtMs: atMs, finishedAtMs, ...responseMs };
      }
      // A failure recorded at settlement: report it again, without a new request.
      throw ApplicationFailure.create({
        type: record.outcome,
        message: `already settled as ${record.outcome} for generation ${input.generation}`,
        nonRetryable: true,
        details: [{ startedAtMs: atMs, finishedAtMs, requested: false, ...(record.status === null ? {} : { status: record.status }) } satisfies FetchFailureDetails],
      });
  }
}

/** The kept X-Robots-Tag header, carried to the parse so it need not read the fetch record. */
function xRobotsTagOf(headers: Record<string, string>): { xRobotsTag?: string } {
  const value = headers['x-robots-tag'];
  return value === undefined ? {} : { xRobotsTag: value };
}

/** The Link header's rel=canonical target, carried to the parse like X-Robots-Tag. */
function linkCanonicalOf(headers: Record<string, string>, pageUrl: string): { linkCanonical?: string } {
  const target = canonicalFromLinkHeader(headers['link'], pageUrl);
  return target === undefined ? {} : { linkCanonical: target };
}

/** A sitemap or feed is always read (the reader judges its body); a page, when it is HTML. */
function isParsed(purpose: string, contentType: string | undefined): boolean {
  return isReadAsSitemap(purpose) || isHtml(contentType);
}

function isHtml(contentType: string | undefined): boolean {
  const type = (contentType ?? '').split(';')[0]!.trim().toLowerCase();
  return type === 'text/html' || type === 'application/xhtml+xml' || type === '';
}

function keptHeaders(headers: Record<string, string>): Record<string, string> {
  const kept: Record<string, string> = {};
  for (const name of KEPT_HEADERS) {
    const value = headers[name];
    if (value !== undefined) kept[name] = value.slice(0, 1000);
  }
  return kept;
}

/** Hands the holding the decoded body of a page to parse, if the spool kept it and the budget has room for it. */
function holdDecoded(spool: BodySpool, holding: BodyHolding): boolean {
  const decoded = spool.decoded();
  const held = decoded && holding.budget.hold(decoded);
  if (!held) return false;
  holding.take(held);
  return true;
}
