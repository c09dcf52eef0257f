/** Figures the workflows report through queries, memos and the CLI. Plain JSON. */
import type { CrawlEnd } from '../domain/frontier/index.js';
import type { CostModel, StalenessFigures } from '../domain/recrawl/index.js';

export type CrawlState = 'starting' | 'running' | 'paused' | 'stopping' | 'finished' | 'stopped';

export interface FrontierCounts {
  /** Queued URLs by priority tier (front queues), tier 0 first. */
  queuedByTier: number[];
  queued: number;
  /** Handed to host queues and not yet settled. */
  inFlight: number;
  done: number;
  failed: number;
  dead: number;
  dropped: number;
  /** URLs registered in this crawl (the discovery budget spent). */
  discovered: number;
  /** URLs handed out so far (counts against maxPages). */
  admitted: number;
  /** Pages fetched with a response body stored. */
  fetched: number;
  /** Pages the server answered 304 Not Modified: unchanged since an earlier crawl, not downloaded again. */
  notModified: number;
}

export interface AdmissionStatus {
  maxInFlight: number;
  /** 1 full speed, 0 closed: the backpressure factor (docs/design.md, "Backpressure"). */
  admitFactor: number;
  /** Downstream lag in seconds of work: parse backlog / parse rate. */
  backlogSeconds: number;
  reason: string;
  /** Most URLs one host claim may take: the in-flight limit shared over the hosts with work. Absent before the first tick. */
  hostClaimCap?: number;
}

/**
 * Why a host's workflow waits longer than its usual delay: a throttle after 429/503 (the server's
 * Retry-After, else our backoff), its circuit breaker open, its robots.txt unreachable (nothing
 * but robots.txt is fetched until it answers), a host-level retry's backoff, a long Crawl-delay, a
 * render that no render worker took (no `crawler worker --render-slots N` polls the render queue).
 */
export type HostWaitReason = 'retry-after' | 'circuit-open' | 'robots-unreachable' | 'retry-backoff' | 'crawl-delay' | 'render-worker';

export interface HostWaitGroup {
  reason: HostWaitReason;
  /** Hosts with work of the crawl waiting for this reason now. */
  hosts: number;
  /** The earliest of their waits began at, ms since the epoch. */
  sinceMs: number;
  /** The first of their waits ends at, ms since the epoch... */
  nextEndsAtMs: number;
  /** ...and the last. */
  lastEndsAtMs: number;
}

/** The object store as the crawl's fetches met it. */
export interface StorageHealth {
  /** Tries that failed to store a body (each is tried again while the store is down). */
  failures: number;
  /** Failing since, ms since the epoch; null while bodies are being stored. */
  failingSinceMs: number | null;
  lastError: string | null;
  lastFailureAtMs: number | null;
}

/**
 * Hosts woken for the crawl whose workflow runs have not begun their work for a while: their first
 * workflow task waits in Temporal's task queue (every worker slot busy, or no worker polling it).
 * No end is known: a worker takes them as its slots free.
 */
export interface WaitingForWorker {
  hosts: number;
  /** The earliest of them was woken at, ms since the epoch. */
  sinceMs: number;
}

/** A crawl's rendering (docs/rendering.md): its renders by state, what it spent of its budget. */
export interface CrawlRenderStatus {
  /** Renders scheduled and not ended (waiting for their host's turn or a render worker, or running). */
  pending: number;
  rendered: number;
  /** Kept with what loaded: the page never settled, or missed DOMContentLoaded. */
  partial: number;
  /** Failed for good (the page kept its HTTP result); dead-lettered ones included. */
  failed: number;
  /** Those by failure type (RenderCrashed, RenderTimeout, BrowserUnavailable; crawl-ended). Absent in statuses from before it was kept. */
  failedByType?: Record<string, number>;
  /** Past the budget: the page kept its HTTP result (render-deferred). */
  deferred: number;
  /** Renders the budget counted, and browser CPU spent, seconds. */
  renders: number;
  cpuSeconds: number;
  budget: { maxRenders: number; maxCpuSeconds: number; maxRendersPerHost: number };
  /** The oldest pending render was scheduled at, ms since epoch; null when none is pending. */
  oldestPendingAtMs: number | null;
  /** Pending renders and no worker polls the render task queue (none runs with --render-slots). */
  noRenderWorker: boolean;
}

/** What a running crawl waits for, besides its hosts' ordinary politeness delays. */
export interface CrawlWaits {
  hosts: HostWaitGroup[];
  /** Absent when no host waits for a worker. */
  waitingForWorker?: WaitingForWorker;
  storage: StorageHealth;
}

export interface CrawlStatus {
  crawlId: string;
  state: CrawlState;
  counts: FrontierCounts;
  admission: AdmissionStatus;
  /** Host workflows currently holding work for this crawl. */
  activeHosts: number;
  errorsByType: Record<string, number>;
  /** What the crawl waits for; absent before its first tick. */
  waits?: CrawlWaits;
  /** Its rendering; absent when the crawl renders nothing. */
  renders?: CrawlRenderStatus;
  startedAtMs: number;
  updatedAtMs: number;
}

/** Pages a crawl discovered and fetched by how it found them, and the sitemaps and feeds it read (discoveryBySource). */
export interface DiscoveryReport {
  /** By frontier.source (seed, link, redirect, sitemap, feed, canonical; 'planned' for a recrawl's visits): URLs registered, pages fetched. */
  bySource: Record<string, { discovered: number; fetched: number }>;
  /** Sitemap files: registered, read, failed (missing, an error), disallowed by their robots.txt (never requested). */
  sitemaps: DiscoveredDocuments;
  feeds: DiscoveredDocuments;
}

export interface DiscoveredDocuments {
  registered: number;
  read: number;
  failed: number;
  /** Absent in reports made before it was counted apart from `failed`. */
  disallowed?: number;
}

export interface CrawlSummary {
  crawlId: string;
  state: 'finished' | 'stopped';
  pagesFetched: number;
  /** Pages unchanged since an earlier crawl (304 Not Modified): not downloaded again, their stored links followed. */
  pagesNotModified: number;
  urlsDiscovered: number;
  errorsByType: Record<string, number>;
  /** URLs left for a later crawl, by reason (robots-unreachable: robots.txt stayed unreachable past the crawl's patience). Never fetched. */
  deferred: Record<string, number>;
  /** Tries that failed to store a body while the object store was down (each body waited and was tried again). */
  storageFailures: number;
  /**
   * Why the crawl ended (a limit, nothing left, the operator), the URLs it left queued, and the
   * flag that raises the limit. Absent from summaries of crawls that ended before it was reported.
   */
  end?: CrawlEndReport;
  /** How the crawl found its pages (links, sitemaps, feeds, redirects, seeds...). Absent from summaries of crawls from before it was reported. */
  discovery?: DiscoveryReport;
  /** Its rendering; absent when it rendered nothing. */
  renders?: CrawlRenderStatus;
  durationMs: number;
  startedAtMs: number;
  finishedAtMs: number;
}

/** A crawl's end as its summary reports it: crawlEndOf's verdict and, for a limit, the `crawler crawl` flag that raises it. */
export interface CrawlEndReport extends CrawlEnd {
  /** e.g. `--max-pages`; absent when no limit ended the crawl. */
  flag?: string;
}

export interface HostStatus {
  host: string;
  queueLength: number;
  inFlight: number;
  pendingParses: number;
  nextFetchAtMs: number;
  paused: boolean;
  delayOverrideMs: number | null;
  quarantinedReason: string | null;
  fetchesThisRun: number;
  run: number;
  /** Renders queued or running in the host's turn; absent when none. */
  rendersQueued?: number;
}

/** What a set of requests cost and found (docs/design.md, "Cost per detected change": the unit is the detected change, not the fetch). */
export interface CostFigures {
  requests: number;
  /** Answered with a response the crawler could use (2xx, 304, 3xx): what API credits bill. */
  successfulRequests: number;
  failedRequests: number;
  /** Bytes sent and received on the wire, heads included, failed requests' too: what a gateway bills. */
  transferBytes: number;
  /** Of those, the failed requests' (a reset after 30 KB cost 30 KB). */
  failedTransferBytes: number;
  /** Visits that saw the content change. */
  changes: number;
  /** Requests that found no change: 304s, unchanged copies, redirects and failures (first visits are not counted). */
  wasted: number;
  /** The bill under the cost model; null when it has no price. */
  amount: number | null;
  /** Cost per detected change; null when nothing changed. */
  perChange: { transferBytes: number; requests: number; amount: number | null } | null;
}

/** One host's or page type's share of a crawl's cost. */
export interface CostBreakdownRow extends CostFigures {
  /** The host, or the page type (pageTypeOfPath: 'listing', '/product/*', '/page-#'). */
  key: string;
  /** A host's validator honour rate (share of conditional requests to unchanged content answered 304), when measured; absent for page types. */
  validatorsHonoured?: number | null;
}

/** A crawl's bill, and where it went: the hosts and page types that cost the most (top N; host labels stay out of Prometheus). */
export interface CrawlCostReport {
  model: CostModel;
  totals: CostFigures;
  byHost: CostBreakdownRow[];
  byPageType: CostBreakdownRow[];
  /** What rendering cost, apart from the page requests above; absent when the crawl rendered nothing. */
  rendering?: RenderingCostFigures;
  /**
   * The crawl's robots.txt requests, their own line item and part of `totals` (not of the hosts'
   * and page types' rows); absent from reports made before they were billed.
   */
  robots?: RobotsCostFigures;
}

/** A crawl's robots.txt requests priced under its model: each redirect hop, failure and 304 is a request on the wire. */
export interface RobotsCostFigures {
  requests: number;
  /** Answered 2xx, 3xx or 304: what API credits bill. */
  successfulRequests: number;
  failedRequests: number;
  /** Bytes sent and received on the wire, heads included, failed requests' too. */
  transferBytes: number;
  failedTransferBytes: number;
  /** The robots.txt requests priced by the crawl's model; null without a price. */
  amount: number | null;
}

/**
 * A crawl's renders, priced apart from its page requests: the browser's CPU, and the requests its
 * subresources sent to the network (those served from the shared cache or refused by the gate
 * sent none). Subresource bytes are response bodies as received, without headers.
 */
export interface RenderingCostFigures {
  /** Renders that ran (rendered, partial, failed or dead-lettered; not those deferred or pending). */
  renders: number;
  browserCpuSeconds: number;
  /** Subresource requests sent to the network, and how many of them succeeded (2xx or 304). */
  subresourceRequests: number;
  successfulSubresourceRequests: number;
  subresourceBytes: number;
  /** Subresources served from the shared cache: requests a render did not send. */
  cachedSubresources: number;
  /** The subresource requests priced by the crawl's model; null without a price. */
  amount: number | null;
}

/** Staleness (now - last successful fetch) of one SLA's URLs. */
export interface SlaStaleness extends StalenessFigures {
  slaId: number;
  prefix: string;
  maxStalenessMs: number;
  /** URLs staler than the promise now. */
  breaching: number;
}

export interface TierStaleness extends StalenessFigures {
  tier: number;
}

/** Staleness per freshness SLA and per value tier, at one moment (a p95 staleness above the promise is a failure signal: docs/design.md, "Failure signals"). */
export interface StalenessReport {
  atMs: number;
  bySla: SlaStaleness[];
  byTier: TierStaleness[];
  /** The tiers' figures come from a sample of the URLs (a large table): their max is the sample's. */
  tiersSampled: boolean;
}
