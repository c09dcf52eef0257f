// Freshness benchmark (issue 6): our recrawl scheduler against uniform, proportional and the
// Cho & Garcia-Molina optimum, on the same simulated web and the same fetch budget.
//
//   npm run bench:freshness                      table
//   npm run bench:freshness -- --json            one JSON object { scheduler, uniform, proportional, optimum }
//   npm run bench:freshness -- --sweep           table, then the scheduler/optimum ratio over budgets and seeds
//   options: --pages N --visits-per-day N --days N --seed N
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

const POLICIES: readonly FreshnessPolicy[] = ['scheduler', 'uniform', 'proportional', 'optimum'];

const { values } = parseArgs({
  options: {
    json: { type: 'boolean', default: false },
    sweep: { type: 'boolean', default: false },
    pages: { type: 'string', default: '1000' },
    'visits-per-day': { type: 'string', default: '250' },
    days: { type: 'string', default: '120' },
    seed: { type: 'string', default: '1' },
  },
});

const scenario = {
  pages: positiveInteger('pages', values.pages),
  visitsPerDay: positiveInteger('visits-per-day', values['visits-per-day']),
  days: positiveInteger('days', values.days),
  seed: positiveInteger('seed', values.seed),
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
  console.log(`Freshness simulation: ${pages} pages (001's rate mix), ${visitsPerDay} fetches/day, ${days} days (first ${days / 4} are warm-up), seed ${seed}`);
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
