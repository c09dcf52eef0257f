// A worker with metrics on (`crawler worker --metrics-port N`): its endpoint serves the Prometheus
// text format during and after a crawl, with our crawl metrics and the Temporal SDK's own worker
// metrics, and its counters agree with the crawl's summary.
import type { ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { request } from 'undici';
import { findFreePorts } from '../../src/stack/free-port.js';
import { createHarness, type Harness } from '../support/crawler-harness.js';
import { spawnWorkerProcess, stopProcess } from '../support/crawler-process.js';
import { generateWeb, startTestWeb, type TestWeb } from '../support/test-web/index.js';
import { waitFor } from '../support/wait-for.js';

interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

/** The samples of a Prometheus text exposition; throws on a line that is not one. */
export function parsePrometheusText(text: string): Sample[] {
  const samples: Sample[] = [];
  for (const line of text.split('\n')) {
    if (line === '' || line.startsWith('#')) {
      if (line.startsWith('# TYPE ') && !/^# TYPE [a-zA-Z_:][a-zA-Z0-9_:]* (counter|gauge|histogram|summary|untyped)$/.test(line)) throw new Error(`bad TYPE line: ${line}`);
      continue;
    }
    const match = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (-?[0-9.eE+-]+|NaN|\+Inf|-Inf)(?: -?\d+)?$/.exec(line);
    if (!match) throw new Error(`not a Prometheus sample line: ${line}`);
    const labels: Record<string, string> = {};
    for (const pair of (match[2] ?? '').matchAll(/([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g)) labels[pair[1]!] = pair[2]!;
    samples.push({ name: match[1]!, labels, value: Number(match[3]) });
  }
  return samples;
}

const valueOf = (samples: Sample[], name: string, labels: Record<string, string> = {}): number =>
  samples.filter((sample) => sample.name === name && Object.entries(labels).every(([key, value]) => sample.labels[key] === value)).reduce((sum, sample) => sum + sample.value, 0);

describe('a worker serving Prometheus metrics', () => {
  let harness: Harness;
  let web: TestWeb;
  let worker: ChildProcess;
  let metricsUrl: string;
  const generated = generateWeb({ hosts: 3, pagesPerHost: 10, linksPerPage: 4, crossHostLinkRatio: 0.3, seed: 31, base: '127.75.0.1' });
  const crawlId = `e2e-metrics-${Date.now()}`;
  let during: Sample[] = [];
  let after: Sample[] = [];
  /** The metrics the worker declares (`# TYPE` lines): a labelled counter nothing has counted yet has no sample. */
  let declared = new Set<string>();
  let summary: Awaited<ReturnType<Harness['runCrawl']>>;
  const scrape = async (): Promise<string> => {
    const response = await request(metricsUrl);
    expect(response.statusCode).toBe(200);
    expect(String(response.headers['content-type'])).toContain('text/plain');
    return response.body.text();
  };

  beforeAll(async () => {
    web = await startTestWeb(generated.spec);
    harness = await createHarness('e2e-metrics');
    const [port] = await findFreePorts(1);
    metricsUrl = `http://127.0.0.1:${port}/metrics`;
    worker = spawnWorkerProcess(harness, { label: 'metrics worker', extraArgs: ['--metrics-port', String(port)] });
    await waitFor(() => scrape().then(() => true, () => false), (up) => up, { timeoutMs: 60_000, what: 'the metrics endpoint' });
    const crawl = await harness.startCrawl({ crawlId, seeds: generated.seeds(web.port), config: { minHostDelayMs: 100, maxDepth: 30 } });
    during = await waitFor(async () => parsePrometheusText(await scrape()), (samples) => valueOf(samples, 'crawler_fetches_total') > 0, { timeoutMs: 60_000, what: 'a fetch counted' });
    summary = await crawl.result();
    after = await waitFor(async () => parsePrometheusText(await scrape()), (samples) => valueOf(samples, 'crawler_frontier_urls', { crawl: crawlId, state: 'in_flight' }) === 0 && valueOf(samples, 'crawler_crawl_urls', { crawl: crawlId, figure: 'fetched' }) === summary.pagesFetched, { timeoutMs: 30_000, what: 'the last tick counted' });
    declared = new Set([...(await scrape()).matchAll(/^# TYPE (\S+) /gm)].map((match) => match[1]!));
  }, 240_000);

  afterAll(async () => {
    if (worker) await stopProcess(worker);
    await harness?.close();
    await web?.close();
  });

  it('serves the Prometheus text format during the crawl, ours and the SDK worker metrics', () => {
    expect(valueOf(during, 'crawler_fetches_total')).toBeGreaterThan(0);
    expect(during.some((sample) => sample.name.startsWith('temporal_'))).toBe(true);
    expect(during.some((sample) => sample.name.startsWith('crawler_process_'))).toBe(true);
  });

  it("counts what the crawl's summary says: pages fetched, failures by type, bytes", () => {
    expect(summary.state).toBe('finished');
    expect(valueOf(after, 'crawler_fetches_total', { outcome: 'fetched' })).toBe(summary.pagesFetched);
    for (const [type, n] of Object.entries(summary.errorsByType)) expect(valueOf(after, 'crawler_fetches_total', { outcome: type })).toBeGreaterThanOrEqual(n);
    expect(valueOf(after, 'crawler_fetched_bytes_total')).toBeGreaterThan(0);
    expect(valueOf(after, 'crawler_stored_bytes_total')).toBeGreaterThan(0);
    expect(valueOf(after, 'crawler_fetch_duration_seconds_count')).toBe(valueOf(after, 'crawler_fetches_total'));
    expect(valueOf(after, 'crawler_robots_fetches_total')).toBeGreaterThanOrEqual(generated.spec.hosts.length);
    expect(valueOf(after, 'crawler_politeness_wait_seconds_count')).toBeGreaterThan(0);
    expect(valueOf(after, 'crawler_crawl_urls', { crawl: crawlId, figure: 'discovered' })).toBe(summary.urlsDiscovered);
  });

  it('exports every metric the committed Grafana dashboard queries', () => {
    const dashboard = JSON.parse(readFileSync('deploy/grafana/dashboards/crawler.json', 'utf8')) as { panels: { targets: { expr: string }[] }[] };
    const queried = new Set(dashboard.panels.flatMap((panel) => panel.targets.flatMap((target) => target.expr.match(/\b(?:crawler|temporal)_[a-z_]+\b/g) ?? [])));
    expect(queried.size).toBeGreaterThan(10);
    // A histogram's series are name_bucket, name_sum and name_count; its TYPE line names it alone.
    const exported = (name: string): boolean => declared.has(name) || declared.has(name.replace(/_(bucket|sum|count)$/, ''));
    expect([...queried].filter((name) => !exported(name))).toEqual([]);
  });

  it('never labels a sample with a URL or a host', () => {
    for (const sample of after) {
      for (const value of Object.values(sample.labels)) expect(value).not.toMatch(/127\.75\.|https?:\/\//);
    }
  });
});
