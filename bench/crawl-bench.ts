// Crawl benchmark (issues 2 and 5): our crawler on a generated loopback web on the real stack,
// and Crawlee's CheerioCrawler on the same web in the same run. Speed and memory figures live
// here, never in tests.
//
//   npm run bench                              every scenario (compare, then 10000x2)
//   npm run bench -- --scenario 200x25         ours on 200 hosts x 25 pages
//   npm run bench -- --scenario 10000x2        ours on 10,000 hosts x 2 pages
//   npm run bench -- --scenario compare        ours and Crawlee on 200 hosts x 25 pages
//   options: --json (use `npm run -s bench -- --json`: npm's banner goes to stdout)  --delay-ms 250  --max-in-flight 1000  --profile (worker CPU profile)
//            --split-worker (a 'workflows' and an 'activities' worker process instead of one 'all')
//            --fresh-stack  --keep-stack  --data-dir DIR  --timeout-s 1800
//            --max-concurrent-activities N  --max-cached-workflows N  --max-database-connections N (worker flags)
//            --worker-heap-mb N (the worker's V8 old-space limit, or with --scenario cli the `crawler crawl` process's:
//                                how much of its RSS is heap it would give back; a crawl that completes under it is bounded by it)
//            --adaptive-factor N (our crawl's Mercator factor: the next request waits N x the last response time; default the product's)
//            --hosts N --pages-per-host N (resize the scenario's web, e.g. for a quick try)
//            --rounds N (compare: ours and Crawlee's per-host mode N times, alternating, and the median of the N ratios)
//   npm run bench -- --scenario cli            the `crawler crawl` CLI as a user runs it (cold, then warm) beside
//                                              Crawlee (in memory and persistent) on webs of several shapes (bench/lib/cli-webs.ts)
//            --webs base,pages-2kb,...  (cli: which webs; default all)  --rounds N (cli: warm rounds per web)
//            --baseline DIR (cli: a checkout of an earlier commit, e.g. `git worktree add DIR <commit>` with node_modules linked; its CLI
//            runs warm after ours in every round, and the table gives ours / baseline: a change's before and after in one invocation)
//            --first-web-rounds N (cli: more rounds for the first web, whose ratio the target is)
//            --prime-webs (cli: crawl each web after the first once, unmeasured, so that every measured run of ours and the
//            baseline re-crawls known URLs, as the first web's warm runs do after its cold run)
//   npm run bench -- --scenario host-shapes    what a host's turn costs Temporal and the worker: a run per host
//                                              (the product's shape) against back-queue workflows serving hosts in turn
//            --hosts N (default 2000)  --rounds N  --back-queues N (default 16)  --hosts-per-run N (default 250)
//   npm run bench -- --scenario near-duplicates   what the near-duplicate lookup costs Postgres per page when the pages are
//                                              distinct, share a template passage, or share a small vocabulary (no crawl)
//            --hosts N --pages-per-host N (default the cli base web's 200 x 25)
//   npm run bench -- --scenario render         rendering: renders/s per slot, browser CPU per render
//                                              (p50/p95), peak PSS; a static web's pages/s with --render auto and never
//            --render-sites N (default 8)  --render-slots N (default 1)  --hosts N --pages-per-host N (the static web, default 40 x 20)  --rounds N
//   npm run bench -- --print report.json       the tables of a report saved with --json
// See bench/README.md for what each figure means.
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { projectRoot, stopStack } from '../src/stack/index.js';
import { printCliReport, runCliScenario, type CliScenarioReport } from './lib/cli-scenario.js';
import { CLI_WEBS, cliWebsNamed } from './lib/cli-webs.js';
import { printNearDuplicateReport, runNearDuplicateScenario, type NearDuplicateScenarioReport } from './lib/near-duplicate-scenario.js';
import { printHostShapesReport, runHostShapesScenario, type HostShapesReport } from './lib/host-shapes/scenario.js';
import { printRenderReport, runRenderScenario, type RenderScenarioReport } from './lib/render-scenario.js';
import { PRODUCT_TOKEN, type GenerateWebOptions } from '../test/support/test-web/index.js';
import { DEFAULT_USER_AGENT } from '../src/config/crawl-config.js';
import { defaultBenchDataDir, prepareBenchStack, type BenchStack } from './lib/bench-stack.js';
import { clientGaps } from './lib/client-gaps.js';
import { runCrawlee } from './lib/crawlee-run.js';
import { runOurCrawl } from './lib/our-crawl.js';
import type { ProcessFigures, TrackedProcess } from './lib/proc-sampler.js';
import { printReport, type BenchReport, type CrawlerResult, type ScenarioReport } from './lib/report.js';
import { quantile, ratioOf, round } from './lib/stats.js';
import type { WebFigures } from './lib/web-figures.js';
import { startWebProcess } from './lib/web-process.js';

type ScenarioName = '200x25' | '10000x2' | 'compare';
type CrawlerName = 'ours' | 'crawlee-per-host' | 'crawlee-stock';

interface Scenario {
  name: ScenarioName;
  web: GenerateWebOptions;
  crawlers: CrawlerName[];
}

const WEB_200X25: GenerateWebOptions = {
  hosts: 200,
  pagesPerHost: 25,
  linksPerPage: 4,
  crossHostLinkRatio: 0.2,
  seed: 2,
  base: '127.60.0.1',
  seedHosts: 200,
};

const SCENARIOS: Record<ScenarioName, Scenario> = {
  '200x25': { name: '200x25', web: WEB_200X25, crawlers: ['ours'] },
  compare: { name: 'compare', web: WEB_200X25, crawlers: ['ours', 'crawlee-per-host', 'crawlee-stock'] },
  '10000x2': {
    name: '10000x2',
    web: { hosts: 10_000, pagesPerHost: 2, linksPerPage: 2, crossHostLinkRatio: 0.3, seed: 5, base: '127.64.0.1', seedHosts: 10_000 },
    crawlers: ['ours'],
  },
};

const BENCH_OPTIONS = {
  scenario: { type: 'string', default: 'all' },
  json: { type: 'boolean', default: false },
  'delay-ms': { type: 'string', default: '250' },
  'max-in-flight': { type: 'string', default: '1000' },
  'max-concurrent-activities': { type: 'string' },
  'max-database-connections': { type: 'string' },
  'adaptive-factor': { type: 'string' },
  'max-cached-workflows': { type: 'string' },
  'split-worker': { type: 'boolean', default: false },
  profile: { type: 'boolean', default: false },
  'fresh-stack': { type: 'boolean', default: false },
  'keep-stack': { type: 'boolean', default: false },
  'prime-webs': { type: 'boolean', default: false },
  'data-dir': { type: 'string' },
  'timeout-s': { type: 'string', default: '1800' },
  hosts: { type: 'string' },
  'pages-per-host': { type: 'string' },
  rounds: { type: 'string', default: '1' },
  'worker-heap-mb': { type: 'string' },
  print: { type: 'string' },
  webs: { type: 'string' },
  'first-web-rounds': { type: 'string' },
  'back-queues': { type: 'string', default: '16' },
  'hosts-per-run': { type: 'string', default: '250' },
  'render-sites': { type: 'string', default: '8' },
  'render-slots': { type: 'string', default: '1' },
  baseline: { type: 'string' },
} as const;

function parseBenchArgs() {
  try {
    return parseArgs({ options: BENCH_OPTIONS }).values;
  } catch (error) {
    const flags = Object.keys(BENCH_OPTIONS).map((name) => `--${name}`).join(' ');
    console.error(`bench: ${error instanceof Error ? error.message : String(error)}\nthe options are: ${flags}\n(each is described at the top of bench/crawl-bench.ts; the figures in bench/README.md)`);
    process.exit(2);
  }
}
const values = parseBenchArgs();

if (values.print !== undefined) {
  // Prints the tables of a report saved with --json, without running anything.
  const saved = JSON.parse((await import('node:fs')).readFileSync(values.print, 'utf8')) as BenchReport | CliScenarioReport | HostShapesReport | NearDuplicateScenarioReport | RenderScenarioReport;
  if ('scenario' in saved && saved.scenario === 'render') printRenderReport(saved);
  else if ('scenario' in saved && saved.scenario === 'cli') printCliReport(saved);
  else if ('scenario' in saved && saved.scenario === 'host-shapes') printHostShapesReport(saved);
  else if ('scenario' in saved && saved.scenario === 'near-duplicates') printNearDuplicateReport(saved);
  else printReport(saved as BenchReport);
  process.exit(0);
}

function positiveInteger(name: string, value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (!Number.isInteger(n) || n < 0) {
    console.error(`--${name} must be a non-negative integer, got ${value}`);
    process.exit(2);
  }
  return n;
}

const scenarioNames: ScenarioName[] =
  values.scenario === 'all' ? ['compare', '10000x2'] : values.scenario in SCENARIOS ? [values.scenario as ScenarioName] : [];
if (scenarioNames.length === 0 && !['cli', 'host-shapes', 'near-duplicates', 'render'].includes(values.scenario)) {
  console.error(`--scenario must be 200x25, 10000x2, compare, cli, host-shapes, near-duplicates, render or all, got ${values.scenario}`);
  process.exit(2);
}
const delayMs = positiveInteger('delay-ms', values['delay-ms'])!;
const maxInFlight = positiveInteger('max-in-flight', values['max-in-flight'])!;
const maxConcurrentActivities = positiveInteger('max-concurrent-activities', values['max-concurrent-activities']);
const maxDatabaseConnections = positiveInteger('max-database-connections', values['max-database-connections']);
const adaptiveFactor = positiveInteger('adaptive-factor', values['adaptive-factor']);
const maxCachedWorkflows = positiveInteger('max-cached-workflows', values['max-cached-workflows']);
const workerHeapMb = positiveInteger('worker-heap-mb', values['worker-heap-mb']);
const timeoutMs = positiveInteger('timeout-s', values['timeout-s'])! * 1000;
const hostsOverride = positiveInteger('hosts', values.hosts);
const pagesOverride = positiveInteger('pages-per-host', values['pages-per-host']);
const rounds = positiveInteger('rounds', values.rounds)!;
if (rounds < 1) {
  console.error('--rounds must be at least 1');
  process.exit(2);
}

/**
 * The crawlers of a scenario in the order they run. With rounds, ours and Crawlee's per-host mode
 * alternate, so that each ratio compares two runs minutes apart on this shared machine; Crawlee's
 * stock mode (no per-host delay, a reference only) runs in the first round alone.
 */
function runOrder(scenario: Scenario): { crawler: CrawlerName; round: number }[] {
  const order: { crawler: CrawlerName; round: number }[] = [];
  for (let round = 1; round <= rounds; round++) {
    for (const crawler of scenario.crawlers) if (round === 1 || crawler !== 'crawlee-stock') order.push({ crawler, round });
  }
  return order;
}

/** The `cli` scenario: its own data folder (the CLI's, deleted first: the first run is cold), its own report. */
async function runCliBench(): Promise<void> {
  let webs;
  try {
    webs = cliWebsNamed(values.webs, log);
  } catch (error) {
    console.error(error instanceof Error ? error.message : String(error));
    process.exit(2);
  }
  const report = await runCliScenario({
    webs,
    delayMs,
    rounds,
    ...(values['first-web-rounds'] === undefined ? {} : { firstWebRounds: positiveInteger('first-web-rounds', values['first-web-rounds'])! }),
    dataDir: values['data-dir'] ?? join(projectRoot(), '.test-data', 'bench-cli'),
    keepStack: values['keep-stack'] === true,
    timeoutMs,
    profile: values.profile === true,
    ...(workerHeapMb === undefined ? {} : { crawlerHeapMb: workerHeapMb }),
    ...(values.baseline === undefined ? {} : { baselineDir: values.baseline }),
    primeWebs: values['prime-webs'] === true,
    log,
  });
  if (json) process.stdout.write(`${JSON.stringify({ startedAt: new Date().toISOString(), machine: { cores: (await import('node:os')).cpus().length, node: process.version }, ...report })}\n`);
  else printCliReport(report);
}

function resized(scenario: Scenario): Scenario {
  const web = { ...scenario.web };
  if (hostsOverride !== undefined) web.hosts = web.seedHosts = hostsOverride;
  if (pagesOverride !== undefined) web.pagesPerHost = pagesOverride;
  return { ...scenario, web };
}
const json = values.json === true;
const log = (line: string): void => void process.stderr.write(`[bench ${new Date().toISOString().slice(11, 19)}] ${line}\n`);
if (values.scenario === 'cli') {
  await runCliBench();
  process.exit(0);
}
if (values.scenario === 'near-duplicates') {
  // The base web of the cli scenario, its text varied: what a page's lookup costs when many pages are alike.
  const base = CLI_WEBS.find((web) => web.name === 'base')!.web as GenerateWebOptions;
  const report = await runNearDuplicateScenario({
    web: { ...base, ...(hostsOverride !== undefined ? { hosts: hostsOverride, seedHosts: hostsOverride } : {}), ...(pagesOverride !== undefined ? { pagesPerHost: pagesOverride } : {}) },
    shapes: ['distinct', 'templated', 'small-vocabulary'],
    batchPages: 32,
    dataDir: values['data-dir'] ?? defaultBenchDataDir(),
    log,
  });
  if (json) process.stdout.write(`${JSON.stringify({ startedAt: new Date().toISOString(), machine: { cores: (await import('node:os')).cpus().length, node: process.version }, ...report })}\n`);
  else printNearDuplicateReport(report);
  process.exit(0);
}
if (values.scenario === 'render') {
  const report = await runRenderScenario({
    renderSites: positiveInteger('render-sites', values['render-sites'])!,
    slots: Math.max(1, positiveInteger('render-slots', values['render-slots'])!),
    staticHosts: positiveInteger('hosts', values.hosts) ?? 40,
    staticPagesPerHost: positiveInteger('pages-per-host', values['pages-per-host']) ?? 20,
    rounds,
    delayMs: positiveInteger('delay-ms', values['delay-ms'])!,
    dataDir: values['data-dir'] ?? defaultBenchDataDir(),
    keepStack: values['keep-stack'] === true,
    log,
  });
  if (json) process.stdout.write(`${JSON.stringify({ startedAt: new Date().toISOString(), machine: { cores: (await import('node:os')).cpus().length, node: process.version }, ...report })}\n`);
  else printRenderReport(report);
  process.exit(0);
}
if (values.scenario === 'host-shapes') {
  const report = await runHostShapesScenario({
    hosts: positiveInteger('hosts', values.hosts) ?? 2000,
    rounds,
    backQueues: positiveInteger('back-queues', values['back-queues'])!,
    hostsPerRun: positiveInteger('hosts-per-run', values['hosts-per-run'])!,
    dataDir: values['data-dir'] ?? defaultBenchDataDir(),
    keepStack: values['keep-stack'] === true,
    log,
  });
  if (json) process.stdout.write(`${JSON.stringify({ startedAt: new Date().toISOString(), machine: { cores: (await import('node:os')).cpus().length, node: process.version }, ...report })}\n`);
  else printHostShapesReport(report);
  process.exit(0);
}

function stackProcesses(stack: BenchStack): TrackedProcess[] {
  const tracked: TrackedProcess[] = [];
  const { temporal, postgres, s3 } = stack.status;
  if (temporal.pid !== undefined) tracked.push({ name: 'Temporal', pid: temporal.pid });
  if (postgres.pid !== undefined) tracked.push({ name: 'Postgres', pid: postgres.pid, tree: true });
  if (s3.pid !== undefined) tracked.push({ name: 'MinIO', pid: s3.pid });
  return tracked;
}

/** Ours over Crawlee's per-host mode in each round, and their median (nearest rank: the lower middle of an even count). */
function roundRatios(results: readonly CrawlerResult[]): NonNullable<ScenarioReport['rounds']> {
  const ratios: number[] = [];
  for (let n = 1; n <= rounds; n++) {
    const ours = results.find((result) => result.crawler === 'ours' && result.round === n);
    const crawlee = results.find((result) => result.crawler === 'crawlee-per-host' && result.round === n);
    if (ours && crawlee) ratios.push(ratioOf(ours.pagesPerSecond, crawlee.pagesPerSecond));
  }
  return { ratios, medianRatio: quantile(ratios, 0.5) };
}

function pagesPerSecond(pages: number, seconds: number): number {
  return seconds > 0 ? round(pages / seconds, 1) : 0;
}

async function runScenario(stack: BenchStack, scenario: Scenario): Promise<ScenarioReport> {
  log(`${scenario.name}: generating and serving ${scenario.web.hosts} hosts x ${scenario.web.pagesPerHost} pages`);
  const web = await startWebProcess(scenario.web);
  const webTracked: TrackedProcess = { name: 'test web', pid: web.pid };
  const politenessLimit = scenario.web.hosts / (delayMs / 1000);
  const results: CrawlerResult[] = [];
  try {
    for (const { crawler, round: runRound } of runOrder(scenario)) {
      await web.clearLog();
      let pages: number;
      let seconds: number;
      let processes: ProcessFigures[];
      let details: CrawlerResult['details'];
      let complete: boolean;
      if (crawler === 'ours') {
        const run = await runOurCrawl(
          stack,
          {
            label: scenario.name,
            seeds: web.ready.seeds,
            expectedPages: web.ready.expected,
            delayMs,
            maxInFlight,
            ...(maxConcurrentActivities === undefined ? {} : { maxConcurrentActivities }),
            ...(maxDatabaseConnections === undefined ? {} : { maxDatabaseConnections }),
            ...(adaptiveFactor === undefined ? {} : { adaptiveFactor }),
            ...(maxCachedWorkflows === undefined ? {} : { maxCachedWorkflows }),
            ...(workerHeapMb === undefined ? {} : { workerHeapMb }),
            splitWorker: values['split-worker'] === true,
            cpuProfile: values.profile === true,
            maxHistoriesRead: 300,
            timeoutMs,
            log,
          },
          [webTracked, ...stackProcesses(stack)],
        );
        pages = run.summary.pagesFetched;
        seconds = run.wallSeconds;
        processes = run.processes;
        complete = !run.timedOut && run.summary.state === 'finished';
        details = { kind: 'ours', run };
      } else {
        log(`${scenario.name}: Crawlee CheerioCrawler (${crawler})`);
        const run = await runCrawlee(
          {
            mode: crawler === 'crawlee-per-host' ? 'per-host' : 'stock',
            seeds: web.ready.seeds,
            delayMs,
            maxConcurrency: maxInFlight,
            maxRequestsPerCrawl: web.ready.pages * 2 + 100,
            userAgent: DEFAULT_USER_AGENT,
            productToken: PRODUCT_TOKEN,
            timeoutMs,
          },
          join(stack.dataDir, 'crawlee'),
          [webTracked],
        );
        pages = run.result.pagesHandled;
        seconds = run.result.durationMs / 1000;
        processes = run.processes;
        complete = !run.result.timedOut;
        details = { kind: 'crawlee', run: run.result };
      }
      const webFigures: WebFigures = await web.figures(delayMs);
      const gapSamples = webFigures.politeness.violationSamples;
      const gaps = details.kind === 'ours' && gapSamples.length > 0 ? await clientGaps(details.run.databaseUrl, gapSamples, web.ready.port) : undefined;
      const pps = pagesPerSecond(pages, seconds);
      results.push({
        crawler,
        ...(rounds > 1 ? { round: runRound } : {}),
        pages,
        seconds: round(seconds, 2),
        pagesPerSecond: pps,
        serverPagesPerSecond: pagesPerSecond(webFigures.pageRequests, webFigures.activeSeconds),
        politenessLimitShare: round(pps / politenessLimit, 3),
        complete,
        web: webFigures,
        ...(gaps ? { clientGaps: gaps } : {}),
        processes,
        details,
      });
      log(`${scenario.name}: ${crawler} ${pages} pages in ${seconds.toFixed(1)} s = ${pps} pages/s; politeness violations ${webFigures.politeness.endToStartViolations}`);
    }
  } finally {
    await web.close();
  }
  return {
    scenario: scenario.name,
    web: { ...scenario.web, pagesGenerated: web.ready.pages, expectedReachable: web.ready.expected, disallowed: web.ready.disallowed },
    delayMs,
    maxInFlight,
    ...(adaptiveFactor === undefined ? {} : { adaptiveFactor }),
    ...(maxDatabaseConnections === undefined ? {} : { maxDatabaseConnections }),
    politenessLimitPagesPerSecond: round(politenessLimit, 1),
    results,
    ...(rounds > 1 ? { rounds: roundRatios(results) } : {}),
  };
}

const dataDir = values['data-dir'] ?? defaultBenchDataDir();
log(`stack under ${dataDir}`);
const stack = await prepareBenchStack({ dataDir, fresh: values['fresh-stack'] === true, log });
const report: BenchReport = {
  startedAt: new Date().toISOString(),
  machine: { cores: (await import('node:os')).cpus().length, node: process.version },
  stack: { temporal: stack.endpoints.temporal.address, statementStats: stack.statementStats },
  scenarios: [],
};
try {
  for (const name of scenarioNames) report.scenarios.push(await runScenario(stack, resized(SCENARIOS[name])));
} finally {
  if (stack.startedHere && values['keep-stack'] !== true) {
    log('stopping the bench stack (it was started by this run; --keep-stack leaves it up)');
    await stopStack({ dataDir });
  }
}
if (json) process.stdout.write(`${JSON.stringify(report)}\n`);
else printReport(report);
