import { describe, expect, it } from 'vitest';
import type { FrontierTickResult, RecrawlCycleSummary } from '../../../src/contracts/activities.js';
import type { StalenessReport } from '../../../src/contracts/status.js';
import { PrometheusCrawlMetrics } from '../../../src/workers/prometheus-metrics.js';

const line = (text: string, prefix: string): string | undefined => text.split('\n').find((candidate) => candidate.startsWith(prefix));

describe('PrometheusCrawlMetrics', () => {
  it("sets a crawl's frontier gauges, refusals and waiting hosts from a tick", async () => {
    const metrics = new PrometheusCrawlMetrics();
    const tick = {
      counts: { queuedByTier: [3, 1], queued: 4, inFlight: 2, done: 7, failed: 1, dead: 0, dropped: 0, discovered: 14, admitted: 10, fetched: 6, notModified: 0 },
      admission: { maxInFlight: 10, admitFactor: 0.5, backlogSeconds: 2.5, reason: 'backlog' },
      activeHosts: 2,
      hostsWoken: 0,
      errorsByType: {},
      waits: { hosts: [{ reason: 'circuit-open', hosts: 2, sinceMs: 0, nextEndsAtMs: 1, lastEndsAtMs: 2 }], waitingForWorker: { hosts: 7, sinceMs: 0 }, storage: { failures: 0, failingSinceMs: null, lastError: null, lastFailureAtMs: null } },
      finished: false,
      nowMs: 0,
    } satisfies FrontierTickResult;
    metrics.frontierTicked('c1', tick, { 'out-of-scope': 5 });
    const text = await metrics.registry.metrics();
    expect(line(text, 'crawler_frontier_urls{crawl="c1",state="in_flight"}')).toBe('crawler_frontier_urls{crawl="c1",state="in_flight"} 2');
    expect(line(text, 'crawler_frontier_queued_urls{crawl="c1",tier="1"}')).toBe('crawler_frontier_queued_urls{crawl="c1",tier="1"} 1');
    expect(line(text, 'crawler_urls_refused{crawl="c1",reason="out-of-scope"}')).toBe('crawler_urls_refused{crawl="c1",reason="out-of-scope"} 5');
    expect(line(text, 'crawler_hosts_waiting{crawl="c1",reason="circuit-open"}')).toBe('crawler_hosts_waiting{crawl="c1",reason="circuit-open"} 2');
    expect(line(text, 'crawler_hosts_waiting{crawl="c1",reason="worker"}')).toBe('crawler_hosts_waiting{crawl="c1",reason="worker"} 7');
    expect(line(text, 'crawler_parse_backlog_seconds{crawl="c1"}')).toBe('crawler_parse_backlog_seconds{crawl="c1"} 2.5');
  });

  it('counts renders by reason and outcome, their browser CPU and peak PSS, the render-queue age and the subresources by outcome', async () => {
    const metrics = new PrometheusCrawlMetrics();
    metrics.renderEnded('empty-app-root', 'rendered', 1500, 200 * 1024 * 1024);
    metrics.renderEnded('empty-app-root', 'RenderCrashed', 0, 0);
    metrics.renderQueueWaited(250);
    metrics.renderSubresource('cached');
    metrics.renderSubresource('cached');
    metrics.renderSubresource('robots-disallowed');
    const text = await metrics.registry.metrics();
    expect(line(text, 'crawler_renders_total{reason="empty-app-root",outcome="rendered"}')).toBe('crawler_renders_total{reason="empty-app-root",outcome="rendered"} 1');
    expect(line(text, 'crawler_renders_total{reason="empty-app-root",outcome="RenderCrashed"}')).toBe('crawler_renders_total{reason="empty-app-root",outcome="RenderCrashed"} 1');
    // A failure without figures observes none: the histograms count the render that had them.
    expect(line(text, 'crawler_render_cpu_seconds_count')).toBe('crawler_render_cpu_seconds_count 1');
    expect(line(text, 'crawler_render_cpu_seconds_bucket{le="2"}')).toBe('crawler_render_cpu_seconds_bucket{le="2"} 1');
    expect(line(text, 'crawler_render_peak_pss_bytes_count')).toBe('crawler_render_peak_pss_bytes_count 1');
    expect(line(text, 'crawler_render_queue_wait_seconds_count')).toBe('crawler_render_queue_wait_seconds_count 1');
    expect(line(text, 'crawler_render_subresources_total{outcome="cached"}')).toBe('crawler_render_subresources_total{outcome="cached"} 2');
  });

  it("counts a recrawl cycle's state, changes, 304s and budget use", async () => {
    const metrics = new PrometheusCrawlMetrics();
    const summary = {
      crawlId: 'r1',
      planned: { recrawl: 8, reestimation: 1, verification: 1, tombstone: 0, total: 10 },
      requests: 8,
      notModified: 5,
      fullFetches: 3,
      failed: 0,
      changed: 2,
      unchanged: 6,
      baselines: 0,
      bytes: 1000,
      wireBytes: 1200,
      newBodies: 2,
      changesPerRequest: 0.25,
      wireBytesPerChange: 600,
      byPurpose: {},
      state: 'finished',
    } satisfies RecrawlCycleSummary;
    metrics.recrawlCycleFinished(summary);
    metrics.recrawlCycleFinished(summary);
    const text = await metrics.registry.metrics();
    expect(line(text, 'crawler_recrawl_cycles_total{state="finished"}')).toBe('crawler_recrawl_cycles_total{state="finished"} 2');
    expect(line(text, 'crawler_recrawl_budget_used_ratio ')).toBe('crawler_recrawl_budget_used_ratio 0.8');
    expect(line(text, 'crawler_recrawl_changes_per_request ')).toBe('crawler_recrawl_changes_per_request 0.25');
    expect(line(text, 'crawler_recrawl_not_modified_total ')).toBe('crawler_recrawl_not_modified_total 10');
  });

  it("reports a cycle's cost per change, wasted fetches and bytes, and every request's bytes, without host labels", async () => {
    const metrics = new PrometheusCrawlMetrics();
    const totals = { requests: 10, successfulRequests: 9, failedRequests: 1, transferBytes: 50_000, failedTransferBytes: 30_200, changes: 2, wasted: 8, amount: 0.4, perChange: { transferBytes: 25_000, requests: 5, amount: 0.2 } };
    const cost = { model: { kind: 'gateway-bytes' as const, price: 8 }, totals, byHost: [{ key: '127.0.0.1', ...totals }], byPageType: [] };
    metrics.recrawlCycleFinished({
      crawlId: 'r1',
      planned: { recrawl: 10, reestimation: 0, verification: 0, tombstone: 0, total: 10 },
      requests: 10,
      notModified: 5,
      fullFetches: 4,
      failed: 1,
      changed: 2,
      unchanged: 7,
      baselines: 0,
      bytes: 1000,
      wireBytes: 1200,
      newBodies: 2,
      changesPerRequest: 0.2,
      wireBytesPerChange: 600,
      byPurpose: {},
      state: 'finished',
      cost,
    });
    metrics.requestTransferred('ok', { sentBytes: 300, receivedBytes: 4_000 });
    metrics.requestTransferred('failed', { sentBytes: 200, receivedBytes: 30_000 });
    const text = await metrics.registry.metrics();
    expect(line(text, 'crawler_recrawl_cost_per_change{unit="bytes"}')).toBe('crawler_recrawl_cost_per_change{unit="bytes"} 25000');
    expect(line(text, 'crawler_recrawl_cost_per_change{unit="amount"}')).toBe('crawler_recrawl_cost_per_change{unit="amount"} 0.2');
    expect(line(text, 'crawler_recrawl_wasted_fetches_total ')).toBe('crawler_recrawl_wasted_fetches_total 8');
    expect(line(text, 'crawler_recrawl_transfer_bytes_total ')).toBe('crawler_recrawl_transfer_bytes_total 50000');
    expect(line(text, 'crawler_transfer_bytes_total{direction="received",result="failed"}')).toBe('crawler_transfer_bytes_total{direction="received",result="failed"} 30000');
    expect(line(text, 'crawler_transfer_bytes_total{direction="sent",result="ok"}')).toBe('crawler_transfer_bytes_total{direction="sent",result="ok"} 300');
    expect(text).not.toContain('127.0.0.1');
  });

  it('serves staleness per SLA (by id, with its promise) and per tier, read at most every 30 s once there is something to read', async () => {
    const metrics = new PrometheusCrawlMetrics();
    let reads = 0;
    let report: StalenessReport = { atMs: 0, bySla: [], byTier: [], tiersSampled: false };
    metrics.provideStaleness(async () => {
      reads += 1;
      return report;
    });
    expect(await metrics.registry.metrics()).not.toContain('crawler_staleness_seconds{');
    report = {
      atMs: 0,
      bySla: [{ slaId: 3, prefix: 'https://shop.example/prices/', maxStalenessMs: 3_600_000, urls: 10, neverFetched: 0, p50Ms: 600_000, p95Ms: 3_000_000, maxMs: 3_700_000, breaching: 1 }],
      byTier: [{ tier: 2, urls: 100, neverFetched: 5, p50Ms: 86_400_000, p95Ms: 172_800_000, maxMs: 259_200_000 }],
      tiersSampled: false,
    };
    // The empty read is not kept: this scrape reads again.
    const text = await metrics.registry.metrics();
    expect(line(text, 'crawler_staleness_seconds{scope="sla",name="3",stat="p95"}')).toBe('crawler_staleness_seconds{scope="sla",name="3",stat="p95"} 3000');
    expect(line(text, 'crawler_staleness_seconds{scope="sla",name="3",stat="limit"}')).toBe('crawler_staleness_seconds{scope="sla",name="3",stat="limit"} 3600');
    expect(line(text, 'crawler_staleness_seconds{scope="tier",name="2",stat="max"}')).toBe('crawler_staleness_seconds{scope="tier",name="2",stat="max"} 259200');
    expect(text).not.toContain('shop.example');
    await metrics.registry.metrics();
    expect(reads).toBe(2);
  });
});
