/**
 * Inputs and outputs of every activity: the contract between workflows (which import these
 * types only) and the implementations in this folder. Plain JSON, small: bodies never travel
 * through Temporal, only their object keys (temporal-facts: payload limits).
 */
import type { CrawlConfig } from '../config/crawl-config.js';
import type { CrawlPolitenessConfig } from '../config/politeness-config.js';
import type { FetchFailureType } from '../domain/failures/index.js';
import type { FetchBurstLimits, HostPolitenessPolicy, HostPolitenessState } from '../domain/politeness/index.js';
import type { AddSeedsResult } from './messages.js';
import type { CrawlRenderStatus, CrawlSummary, CrawlWaits, FrontierCounts, AdmissionStatus, HostWaitReason, CrawlCostReport, StalenessReport } from './status.js';
import type { SlaShortfall } from '../domain/recrawl/index.js';

/**
 * Frontier purposes whose bodies the sitemap reader reads, not the page parser: sitemaps (those
 * robots.txt declares, a seed origin's /sitemap.xml, an index's children) and RSS or Atom feeds
 * pages link to. They are fetched whole (no conditional request) and never held for a page parse.
 */
export const SITEMAP_READ_PURPOSES: readonly string[] = ['sitemap', 'feed'];

/** Whether a frontier entry of this purpose is a sitemap or feed for the sitemap reader. */
export function isReadAsSitemap(purpose: string | undefined): boolean {
  return purpose !== undefined && SITEMAP_READ_PURPOSES.includes(purpose);
}

/** One URL in a host's back queue. */
export interface HostWorkItem {
  crawlId: string;
  /** 32 hex chars. */
  fingerprint: string;
  url: string;
  origin: string;
  depth: number;
  generation: number;
  /** Host-level attempts already made for this generation (429/5xx requeues). */
  attempt: number;
  purpose: string;
  /** The crawl's politeness settings that travel with its URLs. */
  minHostDelayMs: number;
  maxConcurrentFetches: number;
  /** The crawl's other politeness and retry knobs (absent: every default). */
  politeness?: CrawlPolitenessConfig;
  /** A host-level retry waits until this time, ms since epoch (the failure type's backoff); absent: ready now. */
  notBeforeMs?: number;
  /**
   * Activity-level attempts already made for this host attempt outside the fetch activity's own
   * retries (a fetch burst's try): the fetch activity counts on from there. Absent: none.
   */
  priorAttempts?: number;
  /** Since when this URL has waited for its origin's unreachable robots.txt, ms since epoch; absent: it has not. */
  heldByRobotsSinceMs?: number;
}

/** Why a URL was deferred to a later crawl (frontier outcome `deferred:<reason>`, CrawlSummary.deferred). */
export type DeferralReason = 'robots-unreachable';

export interface RegisterSeedsInput {
  crawlId: string;
  config: CrawlConfig;
  seeds: string[];
  /** True for the crawl's first registration: creates the crawl record. */
  createCrawl: boolean;
}
export type RegisterSeedsResult = AddSeedsResult;

export interface FrontierControl {
  paused: boolean;
  stopping: boolean;
  maxInFlight: number;
}

export interface FrontierTickInput {
  crawlId: string;
  control: FrontierControl;
  /** At most this many idle hosts are woken per tick. */
  maxHostsToWake: number;
  taskQueue: string;
}

/** A host workflow's long wait, as it begins (host_waits; the crawl's progress line shows it). */
export interface HostWaitReport {
  host: string;
  reason: HostWaitReason;
  /** This run of waits for the reason began at, ms since the epoch. */
  sinceMs: number;
  /** The wait ends at, ms since the epoch (sooner on a signal). */
  untilMs: number;
}

export interface FrontierTickResult {
  counts: FrontierCounts;
  admission: AdmissionStatus;
  activeHosts: number;
  hostsWoken: number;
  errorsByType: Record<string, number>;
  waits: CrawlWaits;
  /** Its rendering; absent when the crawl renders nothing. */
  renders?: CrawlRenderStatus;
  /** Nothing queued and nothing in flight (or the budget is spent and nothing is in flight). */
  finished: boolean;
  nowMs: number;
}

export interface FinishCrawlInput {
  crawlId: string;
  stopped: boolean;
  startedAtMs: number;
}
export type FinishCrawlResult = CrawlSummary;

export interface HostRecord {
  /** The politeness state the host's previous run left, if any. */
  politeness: unknown;
  delayOverrideMs: number | null;
  paused: boolean;
  quarantinedReason: string | null;
}

export interface ClaimHostWorkInput {
  host: string;
  maxItems: number;
  /** When nothing can be claimed, mark the host idle (its workflow is about to end). */
  releaseIfEmpty: boolean;
  /** Saved with the host when it is released, so its next run keeps its politeness and operator settings. */
  politeness: unknown;
  paused: boolean;
  delayOverrideMs: number | null;
  taskQueue: string;
  /** Recovers the claim a failed fetch burst made under this token; default: a token of this call. */
  claimToken?: string;
  /**
   * Read the host's saved record into the result: a run's first claim needs it, later ones do not.
   * Default true. Reading it also marks the run begun (hosts.run_started_at).
   */
  withHostRecord?: boolean;
  /** Mark the run begun without the record: its first claim after a wake kept it from ending. Default false. */
  markRunStarted?: boolean;
}
export interface ClaimHostWorkResult {
  items: HostWorkItem[];
  released: boolean;
  /** The host's saved record, unless the input said it was not wanted. */
  host?: HostRecord;
  /**
   * Set by a worker that runs fetch bursts as well as workflows (role 'all'): the claim ran there
   * as a local activity, so the host's first burst may too (LOCAL_BURST in host-loop.ts).
   */
  localBursts?: true;
}

export interface RefreshRobotsInput {
  origin: string;
  /** The crawl whose URL needs the rules: its User-Agent and network policy are used. */
  crawlId: string;
}
export interface RefreshRobotsResult {
  /** A request went to the host (politeness must count it). */
  requested: boolean;
  startedAtMs: number;
  finishedAtMs: number;
  status?: number;
  /** With a response: its download time, ms (request to last byte), which adaptive politeness uses. */
  responseMs?: number;
  policyKind: 'rules' | 'allow-all' | 'disallow-all';
  freshUntilMs: number;
  crawlDelayMs?: number;
  /** The robots.txt request failed below HTTP (DNS, connect, TLS): its failure type, for the host's politeness state. */
  transportFailure?: FetchFailureType;
}

export interface FetchUrlInput extends HostWorkItem {
  /** The host's current politeness delay: activity-level retries never come sooner. */
  hostDelayMs: number;
}

export type FetchUrlResult =
  | {
      kind: 'fetched';
      status: number;
      bodyKey: string;
      rawHash: string;
      bytes: number;
      contentType: string | undefined;
      /** Worth parsing (HTML). */
      parse: boolean;
      finalUrl: string;
      startedAtMs: number;
      finishedAtMs: number;
      /** The host's download time, ms: request to last byte (politeness adapts to it). Absent in results from before it was kept. */
      responseMs?: number;
      /** The response's X-Robots-Tag (as kept with the fetch record), for the parse. */
      xRobotsTag?: string;
      /** The rel=canonical target of the response's Link header, resolved, for the parse. */
      linkCanonical?: string;
    }
  | { kind: 'not-modified'; status: 304; startedAtMs: number; finishedAtMs: number; responseMs?: number }
  | {
      kind: 'redirect';
      status: number;
      location: string | null;
      /**
       * follow: the target is in the frontier (new or known); out-of-scope, robots-disallowed
       * (the target origin's rules) and rejected (depth, trap) are not followed; loop and
       * too-many-hops are terminal failures; invalid: no usable Location.
       */
      decision: 'follow' | 'loop' | 'too-many-hops' | 'invalid' | 'out-of-scope' | 'robots-disallowed' | 'rejected';
      targetUrl?: string;
      /** Why a target was not followed, for operators. */
      reason?: string;
      startedAtMs: number;
      finishedAtMs: number;
      /** The host's download time, ms: request to last byte (politeness adapts to it). Absent in results from before it was kept. */
      responseMs?: number;
    }
  | { kind: 'robots-disallowed'; atMs: number }
  | { kind: 'robots-stale'; atMs: number }
  | { kind: 'skipped'; reason: 'crawl-paused' | 'crawl-stopping' | 'host-quarantined'; atMs: number };

export interface FetchBurstInput {
  host: string;
  /** The host's URLs in fetch order; each is a first try (no notBeforeMs). */
  items: FetchUrlInput[];
  /** The host's politeness state before the burst's first request. */
  politeness: HostPolitenessState;
  policy: HostPolitenessPolicy;
  limits: FetchBurstLimits;
  /**
   * Refill the host's back queue while the burst runs (one activity instead of a claim of its
   * own). The workflow names the claim, so it can recover what was claimed if the burst fails.
   */
  claim?: BurstClaim;
  /** Bodies of the host's previous burst, parsed beside this burst's requests (as parseBatch would). */
  parse?: ParseDocumentInput[];
  /**
   * With a claim: once its URLs are fetched and parsed, the burst claims the
   * host's next ones (the links its parses found) and fetches them too, while its span stays within
   * limits.maxSpanMs and it has fetched fewer than maxUrls in all; one activity then takes a host
   * through several levels of its pages. Their outcomes come back in `extended`.
   */
  extendWithClaims?: { maxUrls: number };
}

export interface BurstClaim {
  maxItems: number;
  /** Unique per claim and stable across retries: a repeated claim returns what the first took. */
  claimToken: string;
  /**
   * The workflow has nothing of the host in flight besides this burst, and these are its operator
   * settings: when every URL of the burst ended in it (parsed or settled) and its claim finds
   * nothing, the burst releases the host as a claim with releaseIfEmpty would, saving its final
   * politeness state, and says so (`released`). A host whose work fits one burst then ends its
   * run without a claim of its own after the burst.
   */
  releaseIfDone?: { paused: boolean; delayOverrideMs: number | null };
}

/** One URL's end in a burst, in the order of the burst's items. */
export type FetchBurstOutcome =
  /** Fetched, or answered without a request (robots, a paused crawl, a finished fetch redelivered). */
  | {
      kind: 'done';
      result: FetchUrlResult;
      /** For a body to parse: parsed (and settled), or why not (the workflow hands it to parseDocument). */
      parsed?: ParseBatchOutcome;
      /** For a result that needs no parse or retry (plainSettlementOf): the burst settled the URL. */
      settled?: true;
    }
  /**
   * A typed fetch failure. retryDelayMs: its policy retries it at the activity layer after this
   * long (the workflow requeues it for the one-URL fetch activity, priorAttempts 1); absent: final.
   */
  | { kind: 'failed'; failureType: string; message: string; details?: FetchFailureDetails; retryDelayMs?: number }
  /** The burst ended before this URL (a failure, stale robots rules, a long wait): it goes back to the queue. */
  | { kind: 'not-attempted' };

export interface FetchBurstResult {
  outcomes: FetchBurstOutcome[];
  /** The host's politeness state after the burst's last outcome (nothing in flight). */
  politeness: HostPolitenessState;
  /** Requests the burst started, robots verdicts and redeliveries not counted. */
  requestsStarted: number;
  /** What the burst's claim took; absent when the claim failed (the workflow recovers it by its token). */
  claimed?: HostWorkItem[];
  /** With claim.releaseIfDone: every URL ended in the burst, its claim found nothing, and the host is released in Postgres. */
  released?: true;
  /** One per `parse` body, in order: parsed (and settled), or why not (the workflow hands it to parseDocument). */
  parseOutcomes?: ParseBatchOutcome[];
  /** With extendWithClaims: the URLs the burst claimed and fetched, in fetch order, with their outcomes (none not-attempted). */
  extended?: { item: HostWorkItem; outcome: FetchBurstOutcome }[];
  /** The origins whose robots.txt the burst refreshed, in order, with what each refresh found. */
  robots?: { origin: string; refreshed: RefreshRobotsResult }[];
  /** Where the burst's time went, for operators and the bench (the workflow ignores it). */
  stageMs?: BurstStageTimings;
}

/**
 * Milliseconds a burst spent, summed per stage: `waiting` out host delays, `fetching` (each request
 * to its recorded fetch), `parsing` its own bodies (beside the waits, so stages overlap), `claiming`,
 * and `finishing` from its last request to its return (the last parses and the claim); `total` from
 * start to return.
 */
export interface BurstStageTimings {
  waiting: number;
  fetching: number;
  parsing: number;
  claiming: number;
  finishing: number;
  total: number;
}

/** What a typed fetch failure carries to the workflow in ApplicationFailure details. */
export interface FetchFailureDetails {
  status?: number;
  retryAfterAtMs?: number;
  startedAtMs: number;
  finishedAtMs: number;
  /** With a response: the host's download time, ms, request to last byte. */
  responseMs?: number;
  /** A request reached the host (a response or a transport error after connecting). */
  requested: boolean;
  /** Counted failures of this URL at the fetch stage since its last success, this one included (poison budget). */
  poisonCount?: number;
  /** What the failed request cost on the wire, heads included (a reset after 30 KB cost 30 KB); absent when no request was sent. */
  sentBytes?: number;
  receivedBytes?: number;
}

export interface ParseDocumentInput {
  crawlId: string;
  fingerprint: string;
  generation: number;
  url: string;
  finalUrl: string;
  depth: number;
  bodyKey: string;
  contentType: string | undefined;
  /** The frontier entry's purpose: 'sitemap' and 'feed' bodies go to the sitemap reader (isReadAsSitemap). Absent: a page. */
  purpose?: string;
  /**
   * The fetch's start (its record's fetched_at) and X-Robots-Tag, from the fetch result, so the
   * parse need not read the fetch record. Absent in histories from before they were carried: the
   * parse reads the record then.
   */
  fetchedAtMs?: number;
  xRobotsTag?: string;
  /** The rel=canonical target of the response's Link header, resolved (the page's own <link> wins). */
  linkCanonical?: string;
}
export interface ParseBatchInput {
  /** Bodies of one host's burst, parsed side by side. */
  items: ParseDocumentInput[];
}

/** A render the parse of a page decided on (docs/rendering.md): the page itself, or one of its hash routes. */
export interface RenderWanted {
  /** '' for the page, '#/...' (or '#!/...') for a hash route of an allowlisted application. */
  routeKey: string;
  /** The decision's reason (RenderReason in src/domain/render). */
  reason: string;
  /** Compare the rendered result with the HTTP one and train the template's verdict. */
  sampleBothWays: boolean;
}

/** One per item, in order: parsed (and settled), or the error the parse activity's retries take on. */
export type ParseBatchOutcome =
  /** `renders`: the page waits for these renders (its frontier entry stays in flight); absent: none. */
  | { ok: true; renders?: RenderWanted[] }
  /**
   * failureType 'ParseBudgetExceeded': the page is over its parse budget, final, so the workflow
   * settles it at once rather than parsing it again in parseDocument. Absent: retried there.
   */
  | { ok: false; error: string; failureType?: 'ParseBudgetExceeded' };

export interface ParseBatchResult {
  outcomes: ParseBatchOutcome[];
}

export interface ParseDocumentResult {
  title: string | null;
  linksFound: number;
  linksRegistered: number;
  noindex: boolean;
  nofollow: boolean;
  /** Renders the page waits for (within the crawl's render budget); absent: none. */
  renders?: RenderWanted[];
}

/**
 * A render in a host's back queue: the page (or route) and what its host workflow needs to run it
 * in the host's turn. Built by the workflow from the fetched URL and the parse's RenderWanted.
 */
export interface RenderTask extends RenderWanted {
  crawlId: string;
  fingerprint: string;
  generation: number;
  /** The page's canonical URL (its frontier entry). */
  url: string;
  /** Where the page's body came from: the browser navigates there (with routeKey as its fragment). */
  finalUrl: string;
  origin: string;
  depth: number;
  bodyKey: string;
  contentType: string | undefined;
  fetchedAtMs?: number;
  xRobotsTag?: string;
  /** The crawl's politeness settings, as its URLs carry them (HostWorkItem). */
  minHostDelayMs: number;
  maxConcurrentFetches: number;
  politeness?: CrawlPolitenessConfig;
  /** Tries that found no render worker in time, so far. */
  unstartedTries?: number;
  /** Requeued after such a try: not before this time, ms since epoch. */
  notBeforeMs?: number;
}

export interface RenderPageInput {
  task: RenderTask;
  /** The host's politeness state: the render holds the host's turn, as a fetch burst does. */
  politeness: HostPolitenessState;
  policy: HostPolitenessPolicy;
  /** When the workflow scheduled it, ms since epoch (render-queue age). */
  scheduledAtMs: number;
}

export interface RenderPageResult {
  /**
   * 'partial': the page never settled (a long poll) or missed DOMContentLoaded; what loaded is kept,
   * not retried. 'skipped': the crawl is stopping or ended; nothing was rendered.
   */
  state: 'rendered' | 'partial' | 'skipped';
  /** The host's politeness state after the render's requests (nothing in flight). */
  politeness: HostPolitenessState;
  /** Requests the render sent to the page's host (robots.txt included). */
  requestsStarted: number;
  /** Hash routes the render found and recorded as render tasks of their own (allowlisted sites). */
  routes: RenderWanted[];
  /** One line for the Temporal UI and logs. */
  summary: string;
  cpuMs: number;
  peakPssBytes: number;
  linksFound: number;
  linksRegistered: number;
  textLength: number;
  /** The browser's requests by what the gate did. */
  subresources: Record<string, number>;
}

/** What a render's final failure carries to the workflow (ApplicationFailure details): the politeness its requests left. */
export interface RenderFailureDetails {
  politeness: HostPolitenessState;
  requestsStarted: number;
  /** The activity attempt that failed (the attempts the render had). */
  attempt?: number;
}

export type SettleOutcome =
  | { kind: 'not-modified' }
  | { kind: 'redirect' }
  | { kind: 'robots-disallowed' }
  | { kind: 'fetched-unparsed' }
  | { kind: 'returned'; reason: string } // back to the queued state (crawl paused)
  | { kind: 'dropped'; reason: string } // crawl stopping
  /** Not fetchable within this crawl (its robots.txt stayed unreachable past the crawl's patience): left for a later crawl. */
  | { kind: 'deferred'; reason: DeferralReason; message: string }
  /** Every render of the page ended (rendered, partial or failed, each recorded with its render): the page is done. */
  | { kind: 'rendered' }
  /**
   * A render failed for good (RenderCrashed after its attempts: a dead letter at the render stage;
   * BrowserUnavailable; RenderTimeout; no render worker). Its render row records it; the page keeps
   * its HTTP result, and is settled done when `settlesPage`.
   */
  | { kind: 'render-failed'; routeKey: string; failureType: string; message: string; attempts: number; settlesPage: boolean }
  | {
      kind: 'failed';
      failureType: string;
      message: string;
      stage: 'fetch' | 'parse';
      attempts: number;
      status?: number;
      /** The fetch activity already recorded this attempt (its failure carried details): settling must not count it twice. */
      recorded?: boolean;
    };

export interface SettleUrlInput {
  crawlId: string;
  fingerprint: string;
  generation: number;
  url: string;
  outcome: SettleOutcome;
}
export interface SettleUrlResult {
  deadLettered: boolean;
}

/** How one recrawl cycle spends its visits (docs/design.md, "Cost per detected change"). Plain JSON: it is the Schedule action's argument. */
export interface RecrawlSettings {
  /** Visits per cycle, all purposes (the Schedule's --budget). */
  budget: number;
  /** The cycle interval in ms (the Schedule's --every): the shortest horizon a fresh copy is credited for. */
  everyMs: number;
  /** Budget shares by purpose. Default DEFAULT_BUDGET_SHARES (discovery 0.3, recrawl 0.6, re-estimation 0.07, verification 0.03). */
  shares?: { discovery: number; recrawl: number; reestimation: number; verification: number };
  /** Value of each value tier, most valuable first. Default DEFAULT_VALUE_TIERS (16, 4, 1, 0.25). */
  valueTiers?: number[];
  /** Share of the recrawl pool that due 404/410 tombstones may take. Default 0.1. */
  tombstoneShare?: number;
  /**
   * Fetches the cycle's signal sweep may make before it plans: the sitemaps robots.txt declared for
   * the origins it may revisit (and those their indexes list), then the crawl's listing pages
   * (CrawlConfig.listingPages). Their lastmods and item summaries are cheap change signals.
   * Default max(10, budget / 10); 0 skips the sweep.
   */
  signalBudget?: number;
}

export interface PlanRecrawlInput {
  /** The crawl the cycle runs as (kind 'recrawl'); also the plan's idempotency key. */
  crawlId: string;
  workflowId: string;
  scheduleId?: string;
  config: CrawlConfig;
  settings: RecrawlSettings;
}

export interface RecrawlPlanCounts {
  /** Visits to keep freshness SLAs, planned before anything else (absent when no SLA exists). */
  sla?: number;
  recrawl: number;
  reestimation: number;
  verification: number;
  /** Short revisits of censored pages, taken from the recrawl share (absent in plans made before probes). */
  probe?: number;
  tombstone: number;
  total: number;
}

export interface PlanRecrawlResult {
  crawlId: string;
  /** The crawl's config with the cycle's page and discovery budgets. */
  config: CrawlConfig;
  /** The budget by purpose: SLA visits first (when SLAs exist), the shares split what they leave. */
  budget: { total: number; sla?: number; discovery: number; recrawl: number; reestimation: number; verification: number };
  planned: RecrawlPlanCounts;
  /**
   * The freshness SLAs' share (docs/storage-and-recrawl.md, "Freshness SLAs and value tiers"): their URLs due this cycle, those planned, and each SLA
   * whose due URLs the budget could not all take (how many were left, how far behind the stalest is).
   * Absent when no SLA exists.
   */
  sla?: { due: number; planned: number; shortfalls: SlaShortfall[] };
  /** URLs considered (the bounded candidate pools). */
  candidates: number;
  /** The mean revisit interval the budget affords (known pages / visits per cycle × cycle), in days: reported beside the plan. */
  intervalDays: number;
  plannedAtMs: number;
  /** Candidates a trusted sitemap lastmod or listing summary spoke for (cheap signals, docs/design.md, "Cost per detected change"), by what it said. */
  cheapSignals: { changed: number; unchanged: number };
}

export interface PlanSignalSweepInput {
  /** The crawl the sweep runs as (kind 'signals'); also its idempotency key. */
  crawlId: string;
  config: CrawlConfig;
  /** Fetches allowed: sitemaps first (index children included), listing pages with the rest. */
  maxFetches: number;
}

export interface PlanSignalSweepResult {
  crawlId: string;
  /** The crawl's config with the sweep's page and discovery budgets. */
  config: CrawlConfig;
  /** Sitemaps registered at the start (declared by robots.txt). */
  sitemaps: number;
  /** Known pages under the crawl's listing prefixes registered for a new reading. */
  listingPages: number;
}

/** What a cycle's signal sweep read. */
export interface SignalSweepSummary {
  crawlId: string;
  /** Fetches recorded: sitemaps (index children included) and listing pages. */
  requests: number;
  /** Entries accepted, and of those, URLs the crawler has a record of. */
  urls: number;
  knownUrls: number;
  /** Entries refused, by reason (out of the sitemap's scope, malformed, over the limits). */
  refused: Record<string, number>;
  /** Listing pages read, item summaries they showed, and of those, summaries that changed since the last reading. */
  listingPages: number;
  itemSummaries: number;
  changedSummaries: number;
}

export interface FinishRecrawlInput {
  crawlId: string;
  /** The crawl's own summary; absent when nothing was planned and no crawl ran. */
  crawl?: CrawlSummary;
}

export interface RecrawlCycleSummary {
  crawlId: string;
  planned: RecrawlPlanCounts;
  /** Requests recorded for the cycle (fetch records, including failures). */
  requests: number;
  /** 304 answers: an "unchanged" for a few hundred bytes of headers. */
  notModified: number;
  /** 2xx answers with a body. */
  fullFetches: number;
  failed: number;
  /** Visits that saw a change of the normalized content, those that did not, and first visits (baselines). */
  changed: number;
  unchanged: number;
  baselines: number;
  /** Decoded bytes of the bodies received, and bytes on the wire. */
  bytes: number;
  wireBytes: number;
  /** Bodies the object store did not have before this cycle. */
  newBodies: number;
  /** A schedule's cost (docs/design.md, "Cost per detected change"): changes detected per request, and wire bytes per change. */
  changesPerRequest: number;
  wireBytesPerChange: number | null;
  byPurpose: Record<string, { planned: number; requested: number; changed: number; notModified: number }>;
  state: 'finished' | 'stopped' | 'empty';
  /**
   * The cycle's bill under its cost model (bytes on the wire, failed requests' included, or
   * successful requests), its cost per detected change and its wasted fetches, with the hosts and
   * page types that cost the most. Absent in cycles summed up before costs were counted.
   */
  cost?: CrawlCostReport;
  /** Staleness (now - last successful fetch) per SLA and per value tier when the cycle ended. Absent in older summaries. */
  staleness?: StalenessReport;
  /** The SLAs this cycle's budget could not keep (its plan's shortfalls); absent when it kept them all. */
  slaShortfalls?: SlaShortfall[];
}
