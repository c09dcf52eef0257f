// The `render` scenario: what rendering pages built by JavaScript costs, on the bench
// stack with an in-process worker holding browser slots (Debian's Chromium): renders per second
// per slot, the browser's CPU per render (p50/p95) and its peak PSS, from the render records;
// and what `--render auto` costs a static web against `--render never`, the same web crawled in
// turn by each, in one invocation (the auto mode reads each page's render features in the parse
// it gets anyway, and decides; no static page is rendered).
import { DefaultLogger, Runtime } from '@temporalio/worker';
import { resolveCrawlConfig, type CrawlConfig } from '../../src/config/crawl-config.js';
import { DEFAULT_RENDER_CONFIG } from '../../src/config/render-config.js';
import type { RenderMode } from '../../src/domain/render/index.js';
import { crawlWorkflowId } from '../../src/contracts/messages.js';
import type { CrawlSummary } from '../../src/contracts/status.js';
import { stopStack } from '../../src/stack/index.js';
import { createCrawlerWorker } from '../../src/workers/crawler-worker.js';
import type { CrawlWorkflowInput } from '../../src/workflows/crawl-workflow.js';
import { MIXED_SITE_KINDS, NEEDS_RENDER, mixedRenderWeb, startRenderWeb } from '../../test/support/render-web.js';
import { generateWeb, startTestWeb } from '../../test/support/test-web/index.js';
import { freshBucket, freshDatabase, prepareBenchStack, type BenchStack } from './bench-stack.js';
import { quantile, round } from './stats.js';

export interface RenderScenarioOptions {
  /** Sites built in the browser, 5 pages each. Default 8. */
  renderSites: number;
  /** Browser slots of the worker. Default 1. */
  slots: number;
  /** The static web: hosts x pages. Default 40 x 20. */
  staticHosts: number;
  staticPagesPerHost: number;
  /** Rounds of never and auto, alternating. Default 1. */
  rounds: number;
  delayMs: number;
  dataDir: string;
  keepStack: boolean;
  log: (line: string) => void;
}

export interface RenderScenarioReport {
  scenario: 'render';
  slots: number;
  renders: {
    count: number;
    rendered: number;
    partial: number;
    failed: number;
    wallSeconds: number;
    /** Renders over the crawl's wall time, per slot (the crawl's own fetches and parses included). */
    rendersPerSecondPerSlot: number;
    /** One render, from its start in a slot to its records committed. */
    durationMsP50: number;
    durationMsP95: number;
    cpuMsP50: number;
    cpuMsP95: number;
    peakPssMbP50: number;
    peakPssMbP95: number;
    peakPssMbMax: number;
  };
  staticWeb: {
    hosts: number;
    pagesPerHost: number;
    runs: { mode: RenderMode; round: number; pages: number; seconds: number; pagesPerSecond: number; renders: number }[];
    /** Median pages/s of auto over never's: 1 means auto costs the static web nothing. */
    autoOverNever: number;
  };
}

export async function runRenderScenario(options: RenderScenarioOptions): Promise<RenderScenarioReport> {
  Runtime.install({ logger: new DefaultLogger('ERROR'), telemetryOptions: { logging: { filter: { core: 'ERROR', other: 'ERROR' }, forward: {} } } });
  const stack = await prepareBenchStack({ dataDir: options.dataDir, fresh: false, log: options.log });
  try {
    const renders = await renderPart(stack, options);
    const staticWeb = await staticPart(stack, options);
    return { scenario: 'render', slots: options.slots, renders, staticWeb };
  } finally {
    if (!options.keepStack && stack.startedHere) await stopStack({ dataDir: options.dataDir });
  }
}

/** One crawl with its own database, bucket and worker, to its end. */
async function crawlOnce(stack: BenchStack, name: string, seeds: string[], config: Partial<CrawlConfig>, slots: number): Promise<{ summary: CrawlSummary; seconds: number; databaseUrl: string }> {
  const stamp = `${name}-${Date.now()}`;
  const [databaseUrl, s3] = await Promise.all([freshDatabase(stack, `bench_${stamp}`), freshBucket(stack, `bench-${stamp}`)]);
  const taskQueue = `bench-${stamp}`;
  const worker = await createCrawlerWorker({ temporal: stack.endpoints.temporal, databaseUrl, s3, dataDir: stack.dataDir, taskQueue, renderSlots: slots, logLevel: 'ERROR' });
  const running = worker.run();
  try {
    const input: CrawlWorkflowInput = {
      crawlId: stamp,
      seeds,
      taskQueue,
      config: resolveCrawlConfig({ allowPrivateNetworks: true, scope: { mode: 'any', allowPrefixes: [], denyPrefixes: [] }, ...config }),
      options: { tickIntervalMs: 500 },
    };
    const startedAt = performance.now();
    const handle = await worker.client.workflow.start('crawlWorkflow', { workflowId: crawlWorkflowId(stamp), taskQueue, args: [input] });
    const summary = (await handle.result()) as CrawlSummary;
    return { summary, seconds: (performance.now() - startedAt) / 1000, databaseUrl };
  } finally {
    await worker.shutdown();
    await running;
  }
}

async function renderPart(stack: BenchStack, options: RenderScenarioOptions): Promise<RenderScenarioReport['renders']> {
  // mixedRenderWeb builds a site's kind from its index among all kinds: the other kinds' places get addresses too, unserved.
  const addresses: string[] = [];
  for (let i = 0, renderable = 0; renderable < options.renderSites; i++) {
    addresses.push(`127.76.${Math.floor(i / 250)}.${(i % 250) + 1}`);
    if (NEEDS_RENDER.has(MIXED_SITE_KINDS[i % MIXED_SITE_KINDS.length]!)) renderable += 1;
  }
  const { hosts, sites } = mixedRenderWeb(addresses, 5);
  const renderSites = sites.filter((site) => NEEDS_RENDER.has(site.kind));
  const web = await startRenderWeb(hosts.filter((host) => renderSites.some((site) => site.address === host.address)));
  try {
    options.log(`render: ${renderSites.length} sites built in the browser x 5 pages, ${options.slots} slot(s)`);
    const { summary, seconds, databaseUrl } = await crawlOnce(
      stack,
      'render',
      renderSites.map((site) => `${web.origin(site.address)}/`),
      { minHostDelayMs: options.delayMs, maxPages: 1000, render: { ...DEFAULT_RENDER_CONFIG, mode: 'auto' } },
      options.slots,
    );
    const { default: pg } = await import('pg');
    const client = new pg.Client({ connectionString: databaseUrl });
    await client.connect();
    const rows = (await client.query<{ state: string; cpu_ms: number | null; peak_pss_bytes: string | null; duration_ms: number | null }>(`SELECT state, cpu_ms, peak_pss_bytes, duration_ms FROM renders WHERE crawl_id = $1`, [summary.crawlId])).rows;
    await client.end();
    const ended = rows.filter((row) => row.state === 'rendered' || row.state === 'partial');
    const cpu = ended.map((row) => row.cpu_ms ?? 0);
    const pss = ended.map((row) => Number(row.peak_pss_bytes ?? 0) / (1024 * 1024));
    const durations = ended.map((row) => row.duration_ms ?? 0);
    const report = {
      count: rows.length,
      rendered: rows.filter((row) => row.state === 'rendered').length,
      partial: rows.filter((row) => row.state === 'partial').length,
      failed: rows.filter((row) => row.state === 'failed' || row.state === 'dead').length,
      wallSeconds: round(seconds, 1),
      rendersPerSecondPerSlot: round(ended.length / seconds / options.slots, 2),
      durationMsP50: quantile(durations, 0.5),
      durationMsP95: quantile(durations, 0.95),
      cpuMsP50: quantile(cpu, 0.5),
      cpuMsP95: quantile(cpu, 0.95),
      peakPssMbP50: round(quantile(pss, 0.5), 0),
      peakPssMbP95: round(quantile(pss, 0.95), 0),
      peakPssMbMax: round(Math.max(...pss), 0),
    };
    options.log(`render: ${report.count} renders in ${report.wallSeconds} s: ${report.rendersPerSecondPerSlot} renders/s per slot; CPU ${report.cpuMsP50}/${report.cpuMsP95} ms (p50/p95); peak PSS ${report.peakPssMbP50}/${report.peakPssMbP95} MB`);
    return report;
  } finally {
    await web.close();
  }
}

async function staticPart(stack: BenchStack, options: RenderScenarioOptions): Promise<RenderScenarioReport['staticWeb']> {
  const generated = generateWeb({ hosts: options.staticHosts, pagesPerHost: options.staticPagesPerHost, linksPerPage: 4, crossHostLinkRatio: 0.2, seed: 7, base: '127.78.0.1', seedHosts: options.staticHosts });
  const web = await startTestWeb(generated.spec);
  const runs: RenderScenarioReport['staticWeb']['runs'] = [];
  try {
    for (let round = 1; round <= options.rounds; round++) {
      for (const mode of ['never', 'auto'] as const) {
        options.log(`render: static web ${options.staticHosts} x ${options.staticPagesPerHost}, --render ${mode}, round ${round}`);
        const { summary, seconds } = await crawlOnce(
          stack,
          `static-${mode}`,
          generated.seeds(web.port),
          { minHostDelayMs: options.delayMs, maxPages: options.staticHosts * options.staticPagesPerHost * 2, render: { ...DEFAULT_RENDER_CONFIG, mode } },
          mode === 'auto' ? options.slots : 0,
        );
        const pagesPerSecond = round2(summary.pagesFetched / seconds);
        runs.push({ mode, round, pages: summary.pagesFetched, seconds: round2(seconds), pagesPerSecond, renders: summary.renders?.renders ?? 0 });
        options.log(`render: --render ${mode}: ${summary.pagesFetched} pages in ${round2(seconds)} s = ${pagesPerSecond} pages/s, ${summary.renders?.renders ?? 0} renders`);
      }
    }
  } finally {
    await web.close();
  }
  const ratios = Array.from({ length: options.rounds }, (_, i) => {
    const never = runs.find((run) => run.mode === 'never' && run.round === i + 1)!;
    const auto = runs.find((run) => run.mode === 'auto' && run.round === i + 1)!;
    return auto.pagesPerSecond / never.pagesPerSecond;
  });
  return { hosts: options.staticHosts, pagesPerHost: options.staticPagesPerHost, runs, autoOverNever: round2(quantile(ratios, 0.5)) };
}

function round2(value: number): number {
  return round(value, 2);
}

export function printRenderReport(report: RenderScenarioReport): void {
  const r = report.renders;
  console.log(`render scenario (${report.slots} browser slot(s))`);
  console.log(`  renders: ${r.count} (${r.rendered} rendered, ${r.partial} partial, ${r.failed} failed) in ${r.wallSeconds} s: ${r.rendersPerSecondPerSlot} renders/s per slot`);
  console.log(`  one render: ${r.durationMsP50} ms p50, ${r.durationMsP95} ms p95; browser CPU ${r.cpuMsP50} ms p50, ${r.cpuMsP95} ms p95`);
  console.log(`  peak PSS of a browser: ${r.peakPssMbP50} MB p50, ${r.peakPssMbP95} MB p95, ${r.peakPssMbMax} MB max`);
  console.log(`  static web ${report.staticWeb.hosts} x ${report.staticWeb.pagesPerHost}:`);
  for (const run of report.staticWeb.runs) console.log(`    --render ${run.mode.padEnd(5)} round ${run.round}: ${run.pages} pages in ${run.seconds} s = ${run.pagesPerSecond} pages/s (${run.renders} renders)`);
  console.log(`    auto / never: ${report.staticWeb.autoOverNever}`);
}
