/**
 * What activities tell the worker's metrics: every fetch's outcome, its time and bytes,
 * robots.txt outcomes, politeness waits, storage failures, and the frontier's figures at each
 * tick. An interface, so that activities do not depend on a metrics library; the worker wires the
 * Prometheus one (src/workers/prometheus-metrics.ts) when metrics are on, else nothing counts.
 * Labels stay bounded: outcome and failure type names, robots policy kinds, crawl ids for gauges;
 * never a URL or a host.
 */
import type { FrontierTickResult, RecrawlCycleSummary } from '../../contracts/activities.js';

export interface CrawlMetricsSink {
  /** A fetch ended: `outcome` is fetched, not-modified, redirect, a skip reason, or the failure type. */
  fetchEnded(outcome: string, durationMs: number, bytes: number): void;
  /** A body went to the object store (its gzipped size). */
  bodyStored(storedBytes: number): void;
  storageFailed(): void;
  /** A robots.txt refresh: rules, allow-all, disallow-all (answered), or unreachable. */
  robotsRefreshed(outcome: string): void;
  /** A request waited this long for its host's politeness slot. */
  politenessWaited(ms: number): void;
  /** The frontier's figures at a tick of a crawl, with the URLs it refused so far by reason. */
  frontierTicked(crawlId: string, tick: FrontierTickResult, refusedByReason: Record<string, number>): void;
  /** A recrawl cycle ended: its freshness work and how much of its budget it used. */
  recrawlCycleFinished(summary: RecrawlCycleSummary): void;
  /** A page request's bytes on the wire, heads included: of a fetch that succeeded, or of one that failed (a reset mid-body costs what came before it). */
  requestTransferred(result: 'ok' | 'failed', bytes: { sentBytes: number; receivedBytes: number }): void;
  /** A render's browser request: what the gate did (fetched, cached, blocked-type, robots-disallowed, ...). Optional: sinks from before rendering. */
  renderSubresource?(outcome: string): void;
  /** A render ended: why it was rendered, how (rendered, partial, a failure type), its browser CPU and peak PSS. */
  renderEnded?(reason: string, outcome: string, cpuMs: number, peakPssBytes: number): void;
  /** A render waited this long between its scheduling and its start on the render queue. */
  renderQueueWaited?(ms: number): void;
}
