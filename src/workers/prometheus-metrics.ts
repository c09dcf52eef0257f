/**
 * The worker's metrics in the Prometheus text format: our crawl metrics, counted with
 * prom-client, and the Temporal SDK's own worker metrics (its runtime's Prometheus exporter, on a
 * loopback port of its own), served together on one endpoint, `/metrics`.
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import { request } from 'undici';
import type { FrontierTickResult, RecrawlCycleSummary } from '../contracts/activities.js';
import type { StalenessReport } from '../contracts/status.js';
import type { CrawlMetricsSink } from '../services/metrics/crawl-metrics-sink.js';

/** Seconds; fetches take from milliseconds to the activity's timeouts. */
const FETCH_SECONDS_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60];
/** How long a staleness read serves scrapes. */
const STALENESS_TTL_MS = 30_000;

interface StalenessCacheEntry {
  atMs: number;
  report: Promise<StalenessReport | undefined>;
  /** The report once read; null when the read failed. */
  settled?: StalenessReport | null;
}

function isEmpty(report: StalenessReport | null): boolean {
  return report === null || (report.bySla.length === 0 && report.byTier.every((tier) => tier.urls === 0));
}

/** Seconds; politeness waits are the host's delay, from tens of ms to a long Crawl-delay. */
const WAIT_SECONDS_BUCKETS = [0.01, 0.05, 0.1, 0.25, 0.5, 1, 2, 5, 10, 30, 60, 300];
/** Seconds of browser CPU per render: capacity plans assume about 2 s (docs/design.md, "Rendering"). */
const RENDER_CPU_SECONDS_BUCKETS = [0.05, 0.1, 0.25, 0.5, 1, 2, 4, 8, 16, 32, 64];
/** Bytes; a headless browser holds a hundred to a few hundred MB (plans assume 300 MB: docs/design.md, "Rendering"). */
const PSS_BYTES_BUCKETS = [32, 64, 128, 192, 256, 384, 512, 768, 1024, 2048].map((mib) => mib * 1024 * 1024);

export class PrometheusCrawlMetrics implements CrawlMetricsSink {
  readonly registry = new Registry();
  private readonly fetches = new Counter({ name: 'crawler_fetches_total', help: 'Fetches ended, by outcome (fetched, not-modified, redirect, skipped:<reason>, or the failure type).', labelNames: ['outcome'], registers: [this.registry] });
  private readonly fetchedBytes = new Counter({ name: 'crawler_fetched_bytes_total', help: 'Decoded body bytes of fetched pages.', registers: [this.registry] });
  private readonly storedBytes = new Counter({ name: 'crawler_stored_bytes_total', help: 'Gzipped body bytes this worker stored in the object store.', registers: [this.registry] });
  private readonly storageFailures = new Counter({ name: 'crawler_storage_failures_total', help: 'Tries that failed to store a body (each is tried again while the store is down).', registers: [this.registry] });
  private readonly fetchSeconds = new Histogram({ name: 'crawler_fetch_duration_seconds', help: 'Time of one fetch, request to stored body.', buckets: FETCH_SECONDS_BUCKETS, registers: [this.registry] });
  private readonly politenessWaitSeconds = new Histogram({ name: 'crawler_politeness_wait_seconds', help: "Time a request waited for its host's politeness slot.", buckets: WAIT_SECONDS_BUCKETS, registers: [this.registry] });
  private readonly robots = new Counter({ name: 'crawler_robots_fetches_total', help: 'robots.txt requests by outcome: rules, allow-all, disallow-all, unreachable.', labelNames: ['outcome'], registers: [this.registry] });
  private readonly frontier = new Gauge({ name: 'crawler_frontier_urls', help: "A crawl's URLs by frontier state (queued, in_flight, done, failed, dead, dropped).", labelNames: ['crawl', 'state'], registers: [this.registry] });
  private readonly queuedByTier = new Gauge({ name: 'crawler_frontier_queued_urls', help: "A crawl's queued URLs by priority tier (front queues).", labelNames: ['crawl', 'tier'], registers: [this.registry] });
  private readonly crawlFigures = new Gauge({ name: 'crawler_crawl_urls', help: "A crawl's URLs discovered, admitted and fetched so far.", labelNames: ['crawl', 'figure'], registers: [this.registry] });
  private readonly backlogSeconds = new Gauge({ name: 'crawler_parse_backlog_seconds', help: "A crawl's parse backlog in seconds of work (backpressure).", labelNames: ['crawl'], registers: [this.registry] });
  private readonly admitFactor = new Gauge({ name: 'crawler_admit_factor', help: "A crawl's admission factor: 1 full speed, 0 closed.", labelNames: ['crawl'], registers: [this.registry] });
  private readonly refused = new Gauge({ name: 'crawler_urls_refused', help: 'URLs a crawl refused to register, by reason (scope, traps, budget).', labelNames: ['crawl', 'reason'], registers: [this.registry] });
  private readonly recrawlCycles = new Counter({ name: 'crawler_recrawl_cycles_total', help: 'Recrawl cycles ended, by state (finished, stopped, empty).', labelNames: ['state'], registers: [this.registry] });
  private readonly recrawlChangesPerRequest = new Gauge({ name: 'crawler_recrawl_changes_per_request', help: "The last recrawl cycle's changes detected per request (freshness bought per unit of cost).", registers: [this.registry] });
  private readonly recrawlBudgetUsed = new Gauge({ name: 'crawler_recrawl_budget_used_ratio', help: 'Requests of the last recrawl cycle over the URLs it planned.', registers: [this.registry] });
  private readonly recrawlNotModified = new Counter({ name: 'crawler_recrawl_not_modified_total', help: 'Recrawl visits answered 304 (confirmed fresh for a few hundred bytes).', registers: [this.registry] });
  private readonly recrawlChanged = new Counter({ name: 'crawler_recrawl_changed_total', help: 'Recrawl visits that found the content changed.', registers: [this.registry] });
  private readonly recrawlCostPerChange = new Gauge({
    name: 'crawler_recrawl_cost_per_change',
    help: "The last recrawl cycle's cost per detected change, in bytes on the wire, requests, and the cost model's currency (unit amount, when it has a price).",
    labelNames: ['unit'],
    registers: [this.registry],
  });
  private readonly recrawlWasted = new Counter({ name: 'crawler_recrawl_wasted_fetches_total', help: 'Recrawl requests that found no change (304s, unchanged copies, redirects, failures).', registers: [this.registry] });
  private readonly recrawlTransferBytes = new Counter({ name: 'crawler_recrawl_transfer_bytes_total', help: 'Bytes recrawl cycles put on the wire and took off it, failed requests included.', registers: [this.registry] });
  private readonly recrawlAmount = new Counter({ name: 'crawler_recrawl_cost_amount_total', help: "What recrawl cycles cost under their cost model, in its currency (0 without a price).", registers: [this.registry] });
  private readonly slaShortfall = new Gauge({
    name: 'crawler_sla_shortfall_urls',
    help: "URLs due under a freshness SLA that the last recrawl cycle's budget could not take, by SLA id (`crawler sla list`).",
    labelNames: ['sla'],
    registers: [this.registry],
  });
  private readonly transferBytes = new Counter({
    name: 'crawler_transfer_bytes_total',
    help: 'Bytes page requests put on the wire (direction sent) and took off it (received), heads, TLS and proxy CONNECTs included, by whether the fetch succeeded: what a gateway billing by the byte counts.',
    labelNames: ['direction', 'result'],
    registers: [this.registry],
  });
  private readonly renders = new Counter({ name: 'crawler_renders_total', help: 'Renders ended, by why the page was rendered (reason) and how it ended (rendered, partial, or the failure type).', labelNames: ['reason', 'outcome'], registers: [this.registry] });
  private readonly renderCpuSeconds = new Histogram({ name: 'crawler_render_cpu_seconds', help: "Browser CPU of one render, summed over the browser's processes.", buckets: RENDER_CPU_SECONDS_BUCKETS, registers: [this.registry] });
  private readonly renderPeakPss = new Histogram({ name: 'crawler_render_peak_pss_bytes', help: "The most memory (PSS, sampled) the browser's processes held during one render.", buckets: PSS_BYTES_BUCKETS, registers: [this.registry] });
  private readonly renderQueueWait = new Histogram({ name: 'crawler_render_queue_wait_seconds', help: 'Time from a render scheduled to its start on the render task queue.', buckets: WAIT_SECONDS_BUCKETS, registers: [this.registry] });
  private readonly renderSubresources = new Counter({ name: 'crawler_render_subresources_total', help: "Requests of renders' browsers by what the gate did (fetched, cached, revalidated, blocked-type, blocked-origin, robots-disallowed, politeness-refused, ...).", labelNames: ['outcome'], registers: [this.registry] });
  private readonly hostsWaiting = new Gauge({ name: 'crawler_hosts_waiting', help: "Hosts with work of a crawl in a long wait, by reason ('worker': woken, their runs not begun for want of a worker).", labelNames: ['crawl', 'reason'], registers: [this.registry] });

  private readonly stalenessGauge: Gauge = new Gauge({
    name: 'crawler_staleness_seconds',
    help: "Staleness (now - last successful fetch) of the URLs under a freshness SLA (scope sla, name its id) and of each value tier's (scope tier), stat p50, p95 or max; for an SLA also its promise (stat limit). Read from Postgres at most every 30 s.",
    labelNames: ['scope', 'name', 'stat'],
    registers: [this.registry],
    collect: () => this.collectStaleness(),
  });

  private async collectStaleness(): Promise<void> {
    const report = await this.staleness();
    const gauge = this.stalenessGauge;
    gauge.reset();
    if (report === undefined) return;
    const put = (scope: string, name: string, figures: { p50Ms: number | null; p95Ms: number | null; maxMs: number | null }): void => {
      for (const [stat, ms] of [['p50', figures.p50Ms], ['p95', figures.p95Ms], ['max', figures.maxMs]] as const) if (ms !== null) gauge.set({ scope, name, stat }, ms / 1000);
    };
    for (const sla of report.bySla) {
      put('sla', String(sla.slaId), sla);
      gauge.set({ scope: 'sla', name: String(sla.slaId), stat: 'limit' }, sla.maxStalenessMs / 1000);
    }
    for (const tier of report.byTier) put('tier', String(tier.tier), tier);
  }

  /** Where staleness comes from (Postgres, in a worker); none: the staleness gauge has no samples. */
  private stalenessSource: (() => Promise<StalenessReport>) | undefined;
  private stalenessCache: StalenessCacheEntry | undefined;

  constructor() {
    collectDefaultMetrics({ register: this.registry, prefix: 'crawler_process_' });
  }

  /** Staleness is read from `source`, at most every STALENESS_TTL_MS (each read scans the URLs of every tier). */
  provideStaleness(source: () => Promise<StalenessReport>): void {
    this.stalenessSource = source;
  }

  private staleness(): Promise<StalenessReport | undefined> {
    const source = this.stalenessSource;
    if (source === undefined) return Promise.resolve(undefined);
    const nowMs = Date.now();
    const cache = this.stalenessCache;
    if (cache !== undefined && nowMs - cache.atMs <= STALENESS_TTL_MS && !(cache.settled !== undefined && isEmpty(cache.settled))) return cache.report;
    // A failed read leaves the gauge empty for one scrape, never fails the scrape; an empty one
    // (nothing fetched yet, a failure) is read again at the next scrape: it cost nothing to read.
    const report = source().catch(() => undefined);
    const entry: StalenessCacheEntry = { atMs: nowMs, report };
    void report.then((settled) => (entry.settled = settled ?? null));
    this.stalenessCache = entry;
    return report;
  }

  fetchEnded(outcome: string, durationMs: number, bytes: number): void {
    this.fetches.inc({ outcome });
    this.fetchSeconds.observe(durationMs / 1000);
    if (bytes > 0) this.fetchedBytes.inc(bytes);
  }

  bodyStored(storedBytes: number): void {
    this.storedBytes.inc(storedBytes);
  }

  storageFailed(): void {
    this.storageFailures.inc();
  }

  robotsRefreshed(outcome: string): void {
    this.robots.inc({ outcome });
  }

  politenessWaited(ms: number): void {
    this.politenessWaitSeconds.observe(ms / 1000);
  }

  renderEnded(reason: string, outcome: string, cpuMs: number, peakPssBytes: number): void {
    this.renders.inc({ reason, outcome });
    if (cpuMs > 0) this.renderCpuSeconds.observe(cpuMs / 1000);
    if (peakPssBytes > 0) this.renderPeakPss.observe(peakPssBytes);
  }

  renderQueueWaited(ms: number): void {
    this.renderQueueWait.observe(ms / 1000);
  }

  renderSubresource(outcome: string): void {
    this.renderSubresources.inc({ outcome });
  }

  recrawlCycleFinished(summary: RecrawlCycleSummary): void {
    this.recrawlCycles.inc({ state: summary.state });
    this.recrawlChangesPerRequest.set(summary.changesPerRequest);
    this.recrawlBudgetUsed.set(summary.planned.total === 0 ? 0 : summary.requests / summary.planned.total);
    this.recrawlNotModified.inc(summary.notModified);
    this.recrawlChanged.inc(summary.changed);
    this.slaShortfall.reset();
    for (const shortfall of summary.slaShortfalls ?? []) this.slaShortfall.set({ sla: String(shortfall.slaId) }, shortfall.unplannedUrls);
    const cost = summary.cost?.totals;
    if (cost !== undefined) {
      this.recrawlWasted.inc(cost.wasted);
      this.recrawlTransferBytes.inc(cost.transferBytes);
      if (cost.amount !== null) this.recrawlAmount.inc(cost.amount);
      // No change, no cost per change: the gauges keep the last cycle that found one.
      if (cost.perChange !== null) {
        this.recrawlCostPerChange.set({ unit: 'bytes' }, cost.perChange.transferBytes);
        this.recrawlCostPerChange.set({ unit: 'requests' }, cost.perChange.requests);
        if (cost.perChange.amount !== null) this.recrawlCostPerChange.set({ unit: 'amount' }, cost.perChange.amount);
      }
    }
  }

  requestTransferred(result: 'ok' | 'failed', bytes: { sentBytes: number; receivedBytes: number }): void {
    if (bytes.sentBytes > 0) this.transferBytes.inc({ direction: 'sent', result }, bytes.sentBytes);
    if (bytes.receivedBytes > 0) this.transferBytes.inc({ direction: 'received', result }, bytes.receivedBytes);
  }

  frontierTicked(crawl: string, tick: FrontierTickResult, refusedByReason: Record<string, number>): void {
    for (const [reason, n] of Object.entries(refusedByReason)) this.refused.set({ crawl, reason }, n);
    const { counts } = tick;
    const states: Record<string, number> = { queued: counts.queued, in_flight: counts.inFlight, done: counts.done, failed: counts.failed, dead: counts.dead, dropped: counts.dropped };
    for (const [state, n] of Object.entries(states)) this.frontier.set({ crawl, state }, n);
    counts.queuedByTier.forEach((n, tier) => this.queuedByTier.set({ crawl, tier: String(tier) }, n));
    this.crawlFigures.set({ crawl, figure: 'discovered' }, counts.discovered);
    this.crawlFigures.set({ crawl, figure: 'admitted' }, counts.admitted);
    this.crawlFigures.set({ crawl, figure: 'fetched' }, counts.fetched);
    this.backlogSeconds.set({ crawl }, Math.max(0, tick.admission.backlogSeconds));
    this.admitFactor.set({ crawl }, tick.admission.admitFactor);
    for (const reason of ['retry-after', 'circuit-open', 'robots-unreachable', 'retry-backoff', 'crawl-delay', 'render-worker']) {
      this.hostsWaiting.set({ crawl, reason }, tick.waits.hosts.find((group) => group.reason === reason)?.hosts ?? 0);
    }
    this.hostsWaiting.set({ crawl, reason: 'worker' }, tick.waits.waitingForWorker?.hosts ?? 0);
  }
}

export interface MetricsServerOptions {
  /** Port to serve /metrics on; 0 picks a free one. */
  port: number;
  /** Default 127.0.0.1: metrics are not for the world unless asked. */
  host?: string;
  metrics: PrometheusCrawlMetrics;
  /** The Temporal runtime's own Prometheus exporter, appended to ours. */
  sdkMetricsUrl?: string;
  /** A scrape must send `Authorization: Bearer <token>`; others get 401. Default none: whoever reaches the port may scrape. */
  bearerToken?: string;
  /**
   * Connections served at once; more are closed as they arrive. Default 16: a scraper needs one,
   * and every connection held is a descriptor the worker's fetches, Postgres and Temporal lack.
   */
  maxConnections?: number;
  /** Milliseconds a client has to send its request headers, and (twice that) its whole request. Default 5_000. */
  headersTimeoutMs?: number;
  /** Milliseconds a scrape's text is served again to other scrapes, so that scrapes never pile up. Default 1_000. */
  scrapeCacheMs?: number;
  /** Where a warning goes (metrics bound beyond loopback). Default: stderr. */
  warn?: (line: string) => void;
}

export interface MetricsServer {
  url: string;
  close(): Promise<void>;
}

/** Whether `host` is a loopback address or name, which only this machine reaches. */
export function isLoopbackHost(host: string): boolean {
  const bare = host.replace(/^\[|\]$/g, '').toLowerCase();
  return bare === 'localhost' || bare === '::1' || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(bare) || /^::ffff:127\./.test(bare);
}

/** True when `header` is `Bearer <token>`, compared in constant time. */
function bearerMatches(header: string | undefined, token: string): boolean {
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header ?? '');
  if (match === null) return false;
  const digest = (text: string): Buffer => createHash('sha256').update(text).digest();
  return timingSafeEqual(digest(match[1]!), digest(token));
}

export async function startMetricsServer(options: MetricsServerOptions): Promise<MetricsServer> {
  const host = options.host ?? '127.0.0.1';
  const headersTimeoutMs = options.headersTimeoutMs ?? 5_000;
  const scrapeOnce = sharedScrape(options, options.scrapeCacheMs ?? 1_000);
  const server: Server = createServer(
    {
      headersTimeout: headersTimeoutMs,
      requestTimeout: 2 * headersTimeoutMs,
      keepAliveTimeout: headersTimeoutMs,
      // Node checks the two timeouts above on this interval (30 s by default): a held connection goes within a second of its deadline.
      connectionsCheckingInterval: 1_000,
      maxHeaderSize: 8 * 1024,
    },
    (req, res) => {
      if (req.method !== 'GET' || (req.url ?? '/').split('?')[0] !== '/metrics') {
        res.writeHead(404, { 'content-type': 'text/plain' }).end('metrics are at /metrics\n');
        return;
      }
      if (options.bearerToken !== undefined && !bearerMatches(req.headers.authorization, options.bearerToken)) {
        res.writeHead(401, { 'content-type': 'text/plain', 'www-authenticate': 'Bearer realm="metrics"' }).end('a bearer token is required\n');
        return;
      }
      void scrapeOnce().then(
        (text) => res.writeHead(200, { 'content-type': options.metrics.registry.contentType }).end(text),
        (error: unknown) => res.writeHead(500, { 'content-type': 'text/plain' }).end(`metrics failed: ${String(error)}\n`),
      );
    },
  );
  server.maxConnections = options.maxConnections ?? 16;
  // A connection idle this long (no request under way) is closed.
  server.setTimeout(2 * headersTimeoutMs);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, host, () => resolve());
  });
  const address = server.address() as AddressInfo;
  const shownHost = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  const url = `http://${shownHost}:${address.port}/metrics`;
  if (!isLoopbackHost(address.address)) {
    const warn = options.warn ?? ((line: string) => void process.stderr.write(`${line}\n`));
    warn(
      `metrics at ${url} listen beyond loopback: whoever reaches that address may read this worker's metrics` +
        (options.bearerToken === undefined ? '; give --metrics-token-file so that only a scraper holding the token can, or keep the port on a private network' : ' with the token'),
    );
  }
  return {
    url,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

/**
 * One scrape at a time, its text served again for `cacheMs`: however many scrapers ask at once,
 * the worker gathers its metrics (and asks the SDK's exporter) once.
 */
function sharedScrape(options: MetricsServerOptions, cacheMs: number): () => Promise<string> {
  let last: { atMs: number; text: string } | undefined;
  let running: Promise<string> | undefined;
  return () => {
    if (running !== undefined) return running;
    if (last !== undefined && performance.now() - last.atMs < cacheMs) return Promise.resolve(last.text);
    running = scrape(options)
      .then((text) => {
        last = { atMs: performance.now(), text };
        return text;
      })
      .finally(() => {
        running = undefined;
      });
    return running;
  };
}

async function scrape(options: MetricsServerOptions): Promise<string> {
  const ours = await options.metrics.registry.metrics();
  if (options.sdkMetricsUrl === undefined) return ours;
  // The SDK's exporter may not have answered yet at start: ours are served regardless.
  const sdk = await request(options.sdkMetricsUrl, { headersTimeout: 2_000, bodyTimeout: 2_000 })
    .then(async (response) => (response.statusCode === 200 ? response.body.text() : (await response.body.dump(), '')))
    .catch(() => '');
  return sdk === '' ? ours : `${ours.trimEnd()}\n${sdk}`;
}
