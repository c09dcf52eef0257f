/**
 * One render, end to end (docs/rendering.md): a browser from the pool, every request through the
 * gate in the host's turn, the DOM read when the page settles (or at the settle cap), stored as
 * its own object beside the HTTP body, analyzed like an HTTP page and recorded with its browser
 * requests; a page sampled both ways trains its template's verdict. What its requests did to the
 * host's politeness goes back to the host workflow, whether the render succeeded or not.
 */
import { createHash } from 'node:crypto';
import { gzipSync } from 'node:zlib';
import { BrowserError, measuredRender, renderPage, type BrowserLease, type BrowserPool, type RenderedPage } from '../../browser/index.js';
import { renderConfigOf } from '../../config/render-config.js';
import { hostPolicyOverridesOf } from '../../config/politeness-config.js';
import { DEFAULT_HOST_POLITENESS_POLICY, type HostPolitenessState } from '../../domain/politeness/index.js';
import { MAX_SUBRESOURCE_WAIT_MS, compareRenderSample, hashRoutesOf, pathTemplateOf, renderRuleFor, type PageYield, type SampleComparison } from '../../domain/render/index.js';
import { productTokenOf } from '../../domain/robots/index.js';
import { decodeCharset } from '../../http/index.js';
import { extractHtmlDocument } from '../../parse/html-document.js';
import { trainRenderVerdict, type RenderTaskRow } from '../../storage/postgres/render-repository.js';
import { ledgerJoin } from '../../storage/postgres/subresource-repository.js';
import type { RenderPageInput, RenderPageResult, RenderWanted } from '../../contracts/activities.js';
import type { ActivityDeps } from '../deps.js';
import type { CrawlContext, CrawlContextCache } from '../frontier/crawl-context.js';
import type { CrawlConfig } from '../../config/crawl-config.js';
import { analyzePage } from '../documents/page-analysis.js';
import { recordRenderedPage } from '../documents/record-rendered.js';
import { HostTurnPacer, LedgerPacer, type RequestPacer } from './request-pacers.js';
import { createSubresourceGate, type GateRobotsRefresher, type SubresourceGate } from './subresource-gate.js';
import type { RenderVerdictCache } from './render-decisions.js';
import type { PacedHosts } from './paced-hosts.js';

/**
 * After a host joins the pacing ledger, renders take no turn of it for this long while its own
 * workflow fetches it: a fetch burst of the host that began before it joined (bursts span 10 s at
 * most) sees the ledger only at its next request.
 */
export const LEDGER_JOIN_SETTLE_MS = 15_000;
/** The same for a host nobody was fetching when it joined: every process sees the ledger's hosts within 2 s. */
export const LEDGER_JOIN_IDLE_SETTLE_MS = 3000;

export type RenderFailureType = 'RenderCrashed' | 'RenderTimeout' | 'BrowserUnavailable';

/** A render that failed: its type (FAILURE_POLICIES), and the host's politeness its requests left. */
export class RenderFailedError extends Error {
  override readonly name = 'RenderFailedError';
  constructor(
    readonly failureType: RenderFailureType,
    message: string,
    readonly politeness: HostPolitenessState,
    readonly requestsStarted: number,
  ) {
    super(message);
  }
}

export interface RenderRuntime {
  /** Called every few seconds while the render runs (the activity's heartbeat). */
  heartbeat: () => void;
  /** Aborted when the activity is cancelled or the worker stops. */
  signal: AbortSignal;
  /** Unique per activity call, stable across its retries: names its robots leases. */
  callId: string;
}

export interface RenderServiceParts {
  /** The worker's browsers; absent on a worker without render slots (every render fails as BrowserUnavailable). */
  browsers: BrowserPool | undefined;
  crawls: CrawlContextCache;
  refreshRobots: GateRobotsRefresher;
  verdicts: RenderVerdictCache;
  /** The pacing ledger's hosts: the page's host may be one (another crawl allows it as an origin). */
  pacedHosts?: PacedHosts;
}

const HEARTBEAT_EVERY_MS = 5000;

export function createRenderService(deps: ActivityDeps, parts: RenderServiceParts) {
  return async function render(input: RenderPageInput, runtime: RenderRuntime): Promise<RenderPageResult> {
    const { task } = input;
    const startedAtMs = deps.now();
    deps.metrics?.renderQueueWaited?.(Math.max(0, startedAtMs - input.scheduledAtMs));
    const hostTurn = new HostTurnPacer(input.politeness, input.policy, { now: deps.now, sleepMs: sleepMs, until: runtime.signal });
    const fail = (type: RenderFailureType, message: string): RenderFailedError => {
      deps.metrics?.renderEnded?.(task.reason, type, 0, 0);
      return new RenderFailedError(type, message, hostTurn.politeness, hostTurn.requestsStarted);
    };
    if (!parts.browsers) throw fail('BrowserUnavailable', 'this worker has no browser slots (crawler worker --render-slots N)');
    const context = await parts.crawls.get(task.crawlId);
    const crawlState = context.record.state;
    if (crawlState === 'stopping' || crawlState === 'stopped' || crawlState === 'finished') {
      // The crawl ends without its renders: no browser, no request (finishCrawl ends the render's row).
      return { state: 'skipped', politeness: input.politeness, requestsStarted: 0, routes: [], summary: `skipped: the crawl is ${crawlState}`, cpuMs: 0, peakPssBytes: 0, linksFound: 0, linksRegistered: 0, textLength: 0, subresources: {} };
    }
    let lease: BrowserLease;
    try {
      lease = await parts.browsers.acquire();
    } catch (error) {
      throw fail('BrowserUnavailable', error instanceof Error ? error.message : String(error));
    }
    const drawn = await drawInBrowser(deps, parts, { task, runtime, config: context.record.config, lease, hostTurn });
    return recordRender(deps, parts, { task, context, drawn, hostTurn, startedAtMs });
  };
}

const sleepMs = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

interface DrawnPage {
  rendered: RenderedPage;
  cost: { cpuMs: number; peakPssBytes: number };
  gate: SubresourceGate;
}

/** The page drawn by the leased browser, every request of it through the gate; the lease given back (replaced after a failure). */
async function drawInBrowser(
  deps: ActivityDeps,
  parts: RenderServiceParts,
  { task, runtime, config, lease, hostTurn }: { task: RenderPageInput['task']; runtime: RenderRuntime; config: CrawlConfig; lease: BrowserLease; hostTurn: HostTurnPacer },
): Promise<DrawnPage> {
  const render = renderConfigOf(config);
  const ledgerPolicy = { ...DEFAULT_HOST_POLITENESS_POLICY, ...hostPolicyOverridesOf(task.politeness), minDelayMs: task.minHostDelayMs };
  const ledgerPacerFor = (host: string): RequestPacer => new LedgerPacer(deps.pool, host, ledgerPolicy, { now: deps.now, sleepMs, until: runtime.signal });
  const ends = new AbortController();
  const onCancel = (): void => ends.abort();
  runtime.signal.addEventListener('abort', onCancel, { once: true });
  const gate = createSubresourceGate(
    { ...deps, refreshRobots: parts.refreshRobots },
    {
      crawlId: task.crawlId,
      config,
      page: { url: task.url, finalUrl: task.finalUrl, bodyKey: task.bodyKey, contentType: task.contentType },
      hostTurn,
      ...(parts.pacedHosts ? { pacedHosts: parts.pacedHosts, pageHostDelayMs: task.minHostDelayMs } : {}),
      ledgerPacerFor: (host) => joinedLedgerPacer(deps, host, ledgerPacerFor),
      callId: runtime.callId,
      signal: ends.signal,
    },
  );
  const beats = setInterval(runtime.heartbeat, HEARTBEAT_EVERY_MS);
  let replace = false;
  try {
    const measured = await measuredRender(lease.process, () =>
      renderPage(lease.process.browser, task.finalUrl + task.routeKey, gate.handler, { userAgent: config.userAgent, navigationTimeoutMs: render.navigationTimeoutMs, settleMs: render.settleMs }, ends.signal),
    );
    const cost = measured.cost;
    if (measured.outcome.status === 'rejected') {
      const error = measured.outcome.reason as unknown;
      replace = true;
      const type: RenderFailureType = error instanceof BrowserError && error.code === 'BROWSER_RENDER_TIMEOUT' ? 'RenderTimeout' : 'RenderCrashed';
      deps.metrics?.renderEnded?.(task.reason, type, cost.cpuMs, cost.peakPssBytes);
      throw new RenderFailedError(type, error instanceof Error ? error.message : String(error), hostTurn.politeness, hostTurn.requestsStarted);
    }
    return { rendered: measured.outcome.value, cost, gate };
  } finally {
    clearInterval(beats);
    ends.abort();
    runtime.signal.removeEventListener('abort', onCancel);
    await lease.release({ replace: replace || !lease.process.alive });
  }
}

/**
 * The drawn page recorded: its DOM stored as its own object beside the HTTP body, analyzed like an
 * HTTP page, recorded with its browser requests and the hash routes it drew; a page sampled both
 * ways trains its template's verdict.
 */
async function recordRender(
  deps: ActivityDeps,
  parts: RenderServiceParts,
  { task, context, drawn, hostTurn, startedAtMs }: { task: RenderPageInput['task']; context: CrawlContext; drawn: DrawnPage; hostTurn: HostTurnPacer; startedAtMs: number },
): Promise<RenderPageResult> {
  const { rendered, cost, gate } = drawn;
  const config = context.record.config;
  const render = renderConfigOf(config);
  const dom = Buffer.from(rendered.html, 'utf8');
  const domSha256 = createHash('sha256').update(dom).digest('hex');
  const domBodyKey = await deps.bodies.putRenderObjectIfAbsent('renders', domSha256, gzipSync(dom));
  const page = await analyzePage(
    deps,
    context,
    {
      crawlId: task.crawlId,
      fingerprint: task.fingerprint,
      generation: task.generation,
      url: task.url,
      finalUrl: task.finalUrl,
      depth: task.depth,
      bodyKey: domBodyKey,
      contentType: 'text/html; charset=utf-8',
      ...(task.fetchedAtMs === undefined ? {} : { fetchedAtMs: task.fetchedAtMs }),
      ...(task.xRobotsTag === undefined ? {} : { xRobotsTag: task.xRobotsTag }),
    },
    { heldBody: dom },
  );
  const state: RenderPageResult['state'] = rendered.ended === 'quiet' ? 'rendered' : 'partial';
  const comparison: SampleComparison | undefined = task.sampleBothWays ? compareRenderSample(httpYieldOf(gate.mainDocument, task, config.userAgent), { links: page.links.map((link) => link.absoluteUrl), textLength: page.textLength }) : undefined;
  // An allowlisted application's hash routes, found in what it drew.
  const routeKeys = renderRuleFor({ allow: render.allow, deny: render.deny }, task.finalUrl) === 'allow' ? hashRoutesOf(extractHrefs(rendered.html, task.finalUrl, config.userAgent), task.finalUrl, task.routeKey) : [];
  const host = new URL(task.url).hostname;
  const pathTemplate = pathTemplateOf(task.finalUrl);
  const routes: RenderTaskRow[] = routeKeys.map((routeKey) => ({ crawlId: task.crawlId, fingerprint: task.fingerprint, generation: task.generation, routeKey, host, url: task.url, pathTemplate, reason: 'hash-route', sampleBothWays: false }));
  const subresources = gate.rows;
  const byOutcome: Record<string, number> = {};
  for (const row of subresources) byOutcome[row.outcome] = (byOutcome[row.outcome] ?? 0) + 1;
  const recorded = await recordRenderedPage(deps, {
    key: { crawlId: task.crawlId, fingerprint: task.fingerprint, generation: task.generation, routeKey: task.routeKey },
    page,
    result: {
      state,
      ended: rendered.ended,
      attempts: 1,
      domBodyKey,
      domSha256,
      domBytes: dom.length,
      cpuMs: cost.cpuMs,
      peakPssBytes: cost.peakPssBytes,
      durationMs: deps.now() - startedAtMs,
      textLength: page.textLength,
      linksFound: page.linksFound,
      subresources: subresources.length,
      ...(comparison ? { comparison } : {}),
      startedAtMs,
    },
    subresources,
    routes,
    budget: render.budget,
  });
  if (comparison !== undefined && recorded.recorded) parts.verdicts.remember(host, pathTemplate, await trainRenderVerdict(deps.pool, host, pathTemplate, comparison));
  deps.metrics?.renderEnded?.(task.reason, state, cost.cpuMs, cost.peakPssBytes);
  const outcomes = Object.entries(byOutcome)
    .map(([outcome, n]) => `${n} ${outcome}`)
    .join(', ');
  return {
    state,
    politeness: hostTurn.politeness,
    requestsStarted: hostTurn.requestsStarted,
    routes: recorded.routesPending.map((routeKey): RenderWanted => ({ routeKey, reason: 'hash-route', sampleBothWays: false })),
    summary: `${state} (${rendered.ended}) in ${rendered.totalMs} ms, ${cost.cpuMs} ms browser CPU; ${page.linksFound} links (${recorded.linksRegistered} new), ${page.textLength} chars; requests: ${outcomes || 'none'}${comparison ? `; sampled both ways: ${comparison}` : ''}`,
    cpuMs: cost.cpuMs,
    peakPssBytes: cost.peakPssBytes,
    linksFound: page.linksFound,
    linksRegistered: recorded.linksRegistered,
    textLength: page.textLength,
    subresources: byOutcome,
  };
}

/** A ledger host's pacer that first waits until every fetch of a host that joined the ledger recently has seen it. */
function joinedLedgerPacer(deps: ActivityDeps, ledgerHost: string, make: (host: string) => RequestPacer): RequestPacer {
  const pacer = make(ledgerHost);
  return {
    raiseCrawlDelay: (crawlDelayMs) => pacer.raiseCrawlDelay?.(crawlDelayMs),
    run: async (send) => {
      const joined = await ledgerJoin(deps.pool, ledgerHost);
      if (joined === undefined) return { refused: 'politeness-refused', reason: `${ledgerHost} is not in the pacing ledger` };
      const settleUntilMs = joined.sinceMs + (joined.fetchedNow ? LEDGER_JOIN_SETTLE_MS : LEDGER_JOIN_IDLE_SETTLE_MS);
      const waitMs = settleUntilMs - deps.now();
      if (waitMs > MAX_SUBRESOURCE_WAIT_MS) return { refused: 'politeness-refused', reason: `${ledgerHost} joined the pacing ledger less than ${LEDGER_JOIN_SETTLE_MS} ms ago` };
      if (waitMs > 0) await sleepMs(waitMs);
      return pacer.run(send);
    },
  };
}

/** The HTTP page's yield (its links and text), for a comparison; undefined (inconclusive) when its body was never read. */
function httpYieldOf(body: Buffer | undefined, task: RenderPageInput['task'], userAgent: string): PageYield | undefined {
  if (body === undefined) return undefined;
  try {
    const document = extractHtmlDocument(decodeCharset(body, task.contentType).text, task.finalUrl, { productToken: productTokenOf(userAgent) });
    return { links: document.links.flatMap((link) => (link.absoluteUrl ? [link.absoluteUrl] : [])), textLength: document.mainText.length };
  } catch {
    return undefined;
  }
}

function extractHrefs(html: string, pageUrl: string, userAgent: string): string[] {
  try {
    return extractHtmlDocument(html, pageUrl, { productToken: productTokenOf(userAgent) }).links.map((link) => link.href);
  } catch {
    return [];
  }
}
