// Freshness benchmark (issue 6): our recrawl scheduler against uniform, proportional and the
// Cho & Garcia-Molina optimum, on the same simulated web and the same fetch budget.
//
//   npm run bench:freshness                      table
//   npm run bench:freshness -- --json            one JSON object { scheduler, uniform, proportional, optimum }
//   npm run bench:freshness -- --sweep           table, then the scheduler/optimum ratio over budgets and seeds
//   options: --pages N --visits-per-day N --days N --seed N
//            --dated                             the web dates its versions (a truthful Last-Modified)
//
//   npm run bench:freshness -- --live            the same question end to end (issue 25): a live web
//                                                scores the crawler run by a Temporal Schedule
//   live options: --hosts N --pages-per-host N --seconds-per-day S --every-s S --budget N --run-s S
//                 --min-host-delay-ms MS --min-page-bytes B --max-page-bytes B --seed N --json --record FILE --keep-stack --data-dir DIR
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { parseArgs } from 'node:util';
import {
  averageFreshness,
  optimalVisitFrequencies,
  proportionalVisitFrequencies,
  simulateFreshness,
  syntheticRates,
  uniformVisitFrequencies,
  DEFAULT_RATE_MIX,
  type FreshnessPolicy,
  type FreshnessSimulationResult,
} from '../src/domain/recrawl/index.js';
import { stopStack } from '../src/stack/index.js';
import { defaultBenchDataDir, prepareBenchStack } from './lib/bench-stack.js';
import { runLiveFreshnessBench, type LiveFreshnessBenchReport } from './lib/live-freshness-bench.js';

const POLICIES: readonly FreshnessPolicy[] = ['scheduler', 'uniform', 'proportional', 'optimum'];

const { values } = parseArgs({
  options: {
    json: { type: 'boolean', default: false },
    sweep: { type: 'boolean', default: false },
    dated: { type: 'boolean', default: false },
    pages: { type: 'string', default: '1000' },
    'visits-per-day': { type: 'string', default: '250' },
    days: { type: 'string', default: '120' },
    seed: { type: 'string', default: '1' },
    live: { type: 'boolean', default: false },
    hosts: { type: 'string', default: '30' },
    'pages-per-host': { type: 'string', default: '10' },
    'seconds-per-day': { type: 'string', default: '40' },
    'every-s': { type: 'string', default: '5' },
    budget: { type: 'string', default: '60' },
    'run-s': { type: 'string', default: '240' },
    'min-host-delay-ms': { type: 'string', default: '100' },
    'min-page-bytes': { type: 'string', default: '2000' },
    'max-page-bytes': { type: 'string', default: '120000' },
    record: { type: 'string' },
    'keep-stack': { type: 'boolean', default: false },
    'data-dir': { type: 'string' },
  },
});

if (values.live) {
  await runLive();
  process.exit(0);
}

const scenario = {
  pages: positiveInteger('pages', values.pages),
  visitsPerDay: positiveInteger('visits-per-day', values['visits-per-day']),
  days: positiveInteger('days', values.days),
  seed: positiveInteger('seed', values.seed),
  scheduler: { datedChanges: values.dated },
};

const results = new Map<FreshnessPolicy, FreshnessSimulationResult & { ms: number }>();
for (const policy of POLICIES) {
  const started = performance.now();
  const result = simulateFreshness({ ...scenario, policy });
  results.set(policy, { ...result, ms: performance.now() - started });
}

if (values.json) {
  const summary = Object.fromEntries(
    POLICIES.map((policy) => {
      const r = results.get(policy);
      return [policy, { freshness: round(r?.freshness ?? 0), changesPerFetch: round(r?.changesPerFetch ?? 0) }];
    }),
  );
  process.stdout.write(`${JSON.stringify(summary)}\n`);
} else {
  printTable();
  if (values.sweep) printSweep();
}

function printTable(): void {
  // The steady state the fixed-interval policies converge to, from the same true rates: the
  // simulation starts with every page fresh, which flatters policies that neglect slow pages.
  const rates = syntheticRates(scenario.pages, DEFAULT_RATE_MIX, 2, 0);
  const steady: Partial<Record<FreshnessPolicy, number>> = {
    uniform: averageFreshness(rates, uniformVisitFrequencies(rates, scenario.visitsPerDay)),
    proportional: averageFreshness(rates, proportionalVisitFrequencies(rates, scenario.visitsPerDay)),
    optimum: averageFreshness(rates, optimalVisitFrequencies(rates, scenario.visitsPerDay)),
  };
  const { pages, visitsPerDay, days, seed } = scenario;
  const dating = scenario.scheduler.datedChanges ? ', versions dated by Last-Modified' : '';
  console.log(`Freshness simulation: ${pages} pages (the freshness-gain rate mix), ${visitsPerDay} fetches/day, ${days} days (first ${days / 4} are warm-up), seed ${seed}${dating}`);
  console.log('');
  console.log('policy        freshness  changes/fetch  fetches  steady-state*  time');
  for (const policy of POLICIES) {
    const r = results.get(policy);
    if (!r) continue;
    const s = steady[policy];
    console.log(
      `${policy.padEnd(12)}  ${r.freshness.toFixed(4).padStart(9)}  ${r.changesPerFetch.toFixed(3).padStart(13)}  ${String(r.fetches).padStart(7)}  ${(s === undefined ? '-' : s.toFixed(4)).padStart(13)}  ${(r.ms / 1000).toFixed(1)}s`,
    );
  }
  const ratio = (results.get('scheduler')?.freshness ?? 0) / (results.get('optimum')?.freshness ?? 1);
  console.log('');
  console.log(`scheduler / optimum freshness: ${ratio.toFixed(3)} (target >= 0.95)`);
  console.log('* analytic long-run freshness of the fixed-interval policy on a web drawn from the same mix');
}

function printSweep(): void {
  console.log('');
  console.log('scheduler / optimum by budget (fetches/day) and seed');
  const budgets = [scenario.visitsPerDay * 0.4, scenario.visitsPerDay, scenario.visitsPerDay * 2].map(Math.round);
  console.log(`budget  ${[1, 2, 3].map((s) => `seed ${s}`.padStart(7)).join('  ')}`);
  for (const visitsPerDay of budgets) {
    const cells = [1, 2, 3].map((seed) => {
      const run = (policy: FreshnessPolicy) => simulateFreshness({ ...scenario, visitsPerDay, seed, policy }).freshness;
      return (run('scheduler') / run('optimum')).toFixed(3).padStart(7);
    });
    console.log(`${String(visitsPerDay).padStart(6)}  ${cells.join('  ')}`);
  }
}

async function runLive(): Promise<void> {
  const log = (line: string): void => void process.stderr.write(`${line}\n`);
  const dataDir = values['data-dir'] ?? defaultBenchDataDir();
  const stack = await prepareBenchStack({ dataDir, fresh: false, log });
  const startedAt = new Date().toISOString();
  let report: LiveFreshnessBenchReport;
  try {
    report = await runLiveFreshnessBench(stack, {
      web: {
        hosts: positiveInteger('hosts', values.hosts),
        pagesPerHost: positiveInteger('pages-per-host', values['pages-per-host']),
        secondsPerDay: positiveInteger('seconds-per-day', values['seconds-per-day']),
        base: '127.91.0.1',
        seed: positiveInteger('seed', values.seed),
        minPageBytes: positiveInteger('min-page-bytes', values['min-page-bytes']),
        maxPageBytes: positiveInteger('max-page-bytes', values['max-page-bytes']),
      },
      everySeconds: positiveInteger('every-s', values['every-s']),
      budget: positiveInteger('budget', values.budget),
      runSeconds: positiveInteger('run-s', values['run-s']),
      minHostDelayMs: positiveInteger('min-host-delay-ms', values['min-host-delay-ms']),
      log,
    });
  } finally {
    if (stack.startedHere && !values['keep-stack']) await stopStack({ dataDir });
  }
  const record = { startedAt, machine: { cores: (await import('node:os')).cpus().length, node: process.version }, live: report };
  if (values.record) {
    mkdirSync(dirname(values.record), { recursive: true });
    writeFileSync(values.record, `${JSON.stringify(record, null, 2)}\n`);
  }
  if (values.json) {
    process.stdout.write(`${JSON.stringify(record)}\n`);
    return;
  }
  printLive(report);
}

function printLive(report: LiveFreshnessBenchReport): void {
  const { web, policies, crawlerRatio, schedule } = report;
  console.log(
    `Live freshness: ${web.pages} pages on ${web.hosts} hosts (${web.sitemapPages} in sitemaps), a table day is ${web.secondsPerDay} s; ` +
      `Schedule every ${report.everySeconds} s, budget ${report.budget}, ${report.runSeconds} s; ${schedule.actionsTaken} cycles (${schedule.skippedForOverlap} skipped for overlap)`,
  );
  console.log(`discovery: ${report.discovery.pagesFetched} pages in ${report.discovery.seconds.toFixed(1)} s; sitemap reads in the window: ${report.signalFetches} (${report.signalBytes} bytes)`);
  console.log('');
  console.log('policy        freshness  expected*  fetches  changes/fetch  body MB  freshness/MB');
  for (const name of ['crawler', 'uniform', 'proportional', 'optimum'] as const) {
    const p = policies[name];
    console.log(
      `${name.padEnd(12)}  ${p.freshness.toFixed(4).padStart(9)}  ${(p.expectedFreshness === undefined ? '-' : p.expectedFreshness.toFixed(4)).padStart(9)}  ${String(p.fetches).padStart(7)}  ${p.changesPerFetch.toFixed(3).padStart(13)}  ${(p.bytes / 1e6).toFixed(2).padStart(7)}  ${p.freshnessPerMegabyte.toFixed(3).padStart(12)}`,
    );
  }
  console.log('');
  console.log(`crawler / optimum ${crawlerRatio.optimum.toFixed(3)} (target >= 0.95), / uniform ${crawlerRatio.uniform.toFixed(3)}, / proportional ${crawlerRatio.proportional.toFixed(3)}`);
  console.log('');
  console.log('changes per table day  pages  fetches/page  optimum fetches/page  freshness');
  for (const row of report.fetchesByRateClass) {
    console.log(
      `${row.changesPerTableDay.padEnd(21)}  ${String(row.pages).padStart(5)}  ${row.meanFetches.toFixed(1).padStart(12)}  ${row.meanOptimumFetches.toFixed(1).padStart(20)}  ${row.meanFreshness.toFixed(3).padStart(9)}`,
    );
  }
  console.log('* long-run expectation of the fixed-interval policy (Cho & Garcia-Molina); the measured figure replays it on the web\'s own change times');
}

function positiveInteger(name: string, text: string | undefined): number {
  const value = Number(text);
  if (!Number.isSafeInteger(value) || value <= 0) {
    console.error(`--${name} must be a positive integer, got ${JSON.stringify(text)}`);
    process.exit(2);
  }
  return value;
}

function round(value: number): number {
  return Math.round(value * 10_000) / 10_000;
}
