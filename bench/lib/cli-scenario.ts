// The `cli` scenario (issue 24): our crawler exactly as the README shows a user running it
// (`crawler crawl --seeds-file F --json`, the stack under its data folder), cold and then warm,
// beside Crawlee's CheerioCrawler (in memory, and with its default persistent storage) in the
// same invocation, on webs of several shapes. Both sides are timed from process spawn to exit.
import { spawnSync } from 'node:child_process';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Client, Connection } from '@temporalio/client';
import { DEFAULT_USER_AGENT } from '../../src/config/crawl-config.js';
import { stackStatus, stopStack, type StackEndpoints } from '../../src/stack/index.js';
import { PRODUCT_TOKEN } from '../../test/support/test-web/index.js';
import { adminQuery, prepareBenchStack } from './bench-stack.js';
import { childrenOf, serviceCpuSeconds } from './child-cpu.js';
import { runCliCrawl, type CliCrawlRun } from './cli-crawl.js';
import { describeWeb, type CliWeb } from './cli-webs.js';
import { runCrawlee } from './crawlee-run.js';
import { quantile, ratioOf, round } from './stats.js';
import { startWebProcess } from './web-process.js';

export interface CliScenarioOptions {
  webs: readonly CliWeb[];
  /** Per-host delay of both crawlers, ms. */
  delayMs: number;
  /** Warm rounds per web (ours and Crawlee in memory alternating; Crawlee persistent in round 1 of the first web). */
  rounds: number;
  /** Warm rounds of the first web, when it should have more than the others (its ratio is the target's). Default rounds. */
  firstWebRounds?: number;
  /** Our CLI's data folder: deleted first, so the first run starts every service (cold). */
  dataDir: string;
  /** Leave the stack the CLI started running at the end. */
  keepStack: boolean;
  timeoutMs: number;
  /** `node --cpu-prof` on the warm runs of our CLI, profiles under the data folder's logs/. */
  profile: boolean;
  /** Our CLI's V8 old-space limit, MB (`--max-old-space-size`): a crawl that completes under it holds at most that much heap. Default Node's. */
  crawlerHeapMb?: number;
  /**
   * A checkout of an earlier commit (a git worktree): its CLI runs warm on the same stack and web
   * after ours in every round, so that a change's before and after are measured in one invocation.
   */
  baselineDir?: string;
  /**
   * Crawl each web after the first once with ours before its measured runs, unmeasured in the
   * ratios ('ours-first'). The first web's warm runs re-crawl URLs its cold run put in the
   * database; without this, another web's first warm run is its URLs' first crawl (every URL,
   * link and index row written, not found), and that web pays a cost the first does not.
   * Default false.
   */
  primeWebs?: boolean;
  log: (line: string) => void;
}

export type CliCrawlerName = 'ours-cold' | 'ours-first' | 'ours-warm' | 'baseline-warm' | 'crawlee-memory' | 'crawlee-persistent';

export interface CliRunFigures {
  crawler: CliCrawlerName;
  round: number;
  pages: number;
  /** Spawn to exit, seconds. */
  wallSeconds: number;
  /** pages / wallSeconds. */
  pagesPerSecond: number;
  /** The crawl itself (ours: the workflow's duration; Crawlee: run()), seconds. */
  crawlSeconds: number;
  /** pagesPerSecond / (hosts / delay). */
  politenessCeilingShare: number;
  /** CPU ms per page by process: ours 'crawler crawl', Temporal, Postgres, MinIO; Crawlee its one process. */
  cpuMsPerPage: Record<string, number>;
  peakRssMb?: number;
  /** Ours: history events of the workflow runs started during the crawl, per page. */
  historyEventsPerPage?: number;
  /** Ours, warm: pg_stat_statements calls in the crawler's database, per page. */
  statementsPerPage?: number;
  /** Ours, warm: Postgres's planning time per page, in milliseconds (pg_stat_statements.track_planning). */
  planningMsPerPage?: number;
  /** Ours: spawn to crawl start, and crawl end to exit, seconds. */
  startupSeconds?: number;
  shutdownSeconds?: number;
  startupLines?: CliCrawlRun['startupLines'];
  exitCode?: number | null;
  complete: boolean;
  /** From the test web's log: gaps under the delay from a response's end to the next request, and pages asked twice. */
  politenessViolations: number;
  /** Of those, the ones under the delay even by the clock read before the response's last write. */
  certainViolations: number;
  requestedTwice: number;
  expectedMissing: number;
}

export interface CliWebReport {
  name: string;
  varies: string;
  hosts: number;
  pagesGenerated: number;
  expectedReachable: number;
  politenessCeilingPagesPerSecond: number;
  runs: CliRunFigures[];
  /** Median over rounds of ours-warm / crawlee-memory pages per second. */
  medianRatioToMemory: number;
  /** ours-warm (median round) / crawlee-persistent. */
  ratioToPersistent: number;
  /** ours-cold / crawlee-memory of the first round, when this web ran cold. */
  coldRatioToMemory?: number;
  /** Median over rounds of ours-warm / baseline-warm pages per second, with --baseline. */
  medianRatioToBaseline?: number;
}

export interface CliScenarioReport {
  scenario: 'cli';
  delayMs: number;
  rounds: number;
  /** The baseline checkout's commit, with --baseline. */
  baseline?: { dir: string; commit: string };
  webs: CliWebReport[];
}

interface Services {
  endpoints: StackEndpoints;
  temporal: Client;
  connection: Connection;
}

/** CPU seconds of the stack's three services so far (Postgres: the postmaster, its reaped and living backends). */
async function servicesCpu(dataDir: string): Promise<Record<string, number>> {
  const status = await stackStatus({ dataDir });
  return {
    Temporal: serviceCpuSeconds(status.temporal.pid),
    Postgres: serviceCpuSeconds(status.postgres.pid, childrenOf(status.postgres.pid)),
    MinIO: serviceCpuSeconds(status.s3.pid),
  };
}

/** Statements run and milliseconds spent planning them (pg_stat_statements.track_planning) in the crawler's database. */
async function statementFigures(url: string): Promise<{ calls: number; planMs: number }> {
  const rows = await adminQuery<{ calls: string | null; plan_ms: string | null }>(
    url,
    'SELECT sum(calls)::text AS calls, sum(total_plan_time)::text AS plan_ms FROM pg_stat_statements WHERE dbid = (SELECT oid FROM pg_database WHERE datname = current_database())',
  );
  return { calls: Number(rows[0]?.calls ?? 0), planMs: Number(rows[0]?.plan_ms ?? 0) };
}

async function historyEventsSince(client: Client, sinceIso: string): Promise<number> {
  let events = 0;
  for await (const info of client.workflow.list({ query: `StartTime >= '${sinceIso}'` })) events += info.historyLength;
  return events;
}

async function connectServices(dataDir: string, log: (line: string) => void): Promise<Services> {
  // The CLI left the stack running; pg_stat_statements costs one restart of it, once per data folder.
  const stack = await prepareBenchStack({ dataDir, fresh: false, log });
  if (stack.statementStats) await adminQuery(stack.endpoints.postgres.url, 'CREATE EXTENSION IF NOT EXISTS pg_stat_statements');
  const connection = await Connection.connect({ address: stack.endpoints.temporal.address });
  return { endpoints: stack.endpoints, connection, temporal: new Client({ connection, namespace: stack.endpoints.temporal.namespace }) };
}

function perPage(seconds: number, pages: number): number {
  return pages > 0 ? round((seconds * 1000) / pages, 2) : 0;
}

/** As the quick start does: the CLI runs dist/ while it is compiled from the current sources (bin/compiled-entry.js). */
function buildLikeTheQuickStart(log: (line: string) => void, cwd?: string): void {
  if (process.env.CRAWLER_RUN_SOURCES === '1') return log('cli: CRAWLER_RUN_SOURCES=1: the CLI runs the TypeScript sources through tsx');
  const { status } = spawnSync('npm', ['run', '-s', 'build', '--', '--if-stale'], { stdio: 'inherit', ...(cwd === undefined ? {} : { cwd }) });
  if (status !== 0) throw new Error(`npm run build failed${cwd === undefined ? '' : ` in ${cwd}`}: the bench measures the CLI as the quick start leaves it`);
}

/** The baseline checkout's commit, built as the quick start builds it. */
function prepareBaseline(dir: string, log: (line: string) => void): { dir: string; commit: string } {
  const head = spawnSync('git', ['-C', dir, 'rev-parse', '--short', 'HEAD'], { encoding: 'utf8' });
  if (head.status !== 0) throw new Error(`--baseline ${dir}: not a git checkout (${head.stderr.trim()}); make one with \`git worktree add DIR COMMIT\` and link node_modules into it`);
  buildLikeTheQuickStart(log, dir);
  log(`cli: baseline ${head.stdout.trim()} in ${dir}: its CLI runs warm after ours in every round`);
  return { dir, commit: head.stdout.trim() };
}

export async function runCliScenario(options: CliScenarioOptions): Promise<CliScenarioReport> {
  const { log, delayMs } = options;
  buildLikeTheQuickStart(log);
  const baseline = options.baselineDir === undefined ? undefined : prepareBaseline(options.baselineDir, log);
  await stopStack({ dataDir: options.dataDir }).catch(() => undefined);
  rmSync(options.dataDir, { recursive: true, force: true });
  const logDir = join(options.dataDir, '..', `${options.dataDir.split('/').pop() ?? 'cli'}-logs`);
  mkdirSync(logDir, { recursive: true });
  let services: Services | undefined;
  const webs: CliWebReport[] = [];
  try {
    for (const [index, shape] of options.webs.entries()) {
      log(`cli ${shape.name}: generating and serving ${describeWeb(shape.web)} (${shape.varies})`);
      const web = await startWebProcess(shape.web);
      const ceiling = web.ready.hosts / (delayMs / 1000);
      const seedsFile = join(logDir, `${shape.name}-seeds.txt`);
      writeFileSync(seedsFile, `${web.ready.seeds.join('\n')}\n`);
      const maxPages = web.ready.pages * 2 + 100;
      const runs: CliRunFigures[] = [];
      try {
        const order: { crawler: CliCrawlerName; round: number }[] = [];
        if (index === 0) order.push({ crawler: 'ours-cold', round: 1 });
        else if (shape.oursOnly === true) order.push({ crawler: 'ours-warm', round: 1 });
        else if (options.primeWebs === true) order.push({ crawler: 'ours-first', round: 0 });
        const rounds = shape.oursOnly === true ? 0 : index === 0 ? (options.firstWebRounds ?? options.rounds) : options.rounds;
        for (let round = 1; round <= rounds; round++) {
          order.push({ crawler: 'ours-warm', round }, ...(baseline ? [{ crawler: 'baseline-warm' as const, round }] : []), { crawler: 'crawlee-memory', round });
          // Crawlee's persistent storage is the second reference of the first web only: a minute or more a web.
          if (round === 1 && index === 0) order.push({ crawler: 'crawlee-persistent', round });
        }
        for (const { crawler, round: runRound } of order) {
          await web.clearLog();
          const label = `${shape.name}-${crawler}-${runRound}`;
          let figures: Omit<CliRunFigures, 'politenessViolations' | 'certainViolations' | 'requestedTwice' | 'expectedMissing' | 'politenessCeilingShare'>;
          if (crawler === 'ours-cold' || crawler === 'ours-first' || crawler === 'ours-warm' || crawler === 'baseline-warm') {
            const cold = crawler === 'ours-cold';
            const cpuBefore = cold ? { Temporal: 0, Postgres: 0, MinIO: 0 } : await servicesCpu(options.dataDir);
            if (services && !cold) await adminQuery(services.endpoints.postgres.url, 'SELECT pg_stat_statements_reset()').catch(() => undefined);
            const startedIso = new Date(Date.now() - 1000).toISOString();
            log(`cli ${shape.name}: ${crawler === 'baseline-warm' ? `baseline ${baseline?.commit}` : 'ours'} (${cold ? 'cold: the CLI starts the stack' : crawler === 'ours-first' ? 'warm stack, the web\'s first crawl, unmeasured' : 'warm stack'}), round ${runRound}`);
            const run = await runCliCrawl({
              seedsFile,
              dataDir: options.dataDir,
              delayMs,
              maxPages,
              userAgent: DEFAULT_USER_AGENT,
              logFile: join(logDir, `${label}.log`),
              timeoutMs: options.timeoutMs,
              ...(shape.seedHostsOnly === true ? { extraArgs: ['--scope', 'same-host'] } : {}),
              ...(crawler === 'baseline-warm' && baseline ? { crawlerBin: join(baseline.dir, 'bin', 'crawler.js') } : {}),
              nodeArgs: [
                ...(options.profile && !cold ? ['--cpu-prof', `--cpu-prof-dir=${join(logDir, `${label}-profile`)}`] : []),
                ...(options.crawlerHeapMb === undefined ? [] : [`--max-old-space-size=${options.crawlerHeapMb}`]),
              ],
            });
            const cpuAfter = await servicesCpu(options.dataDir);
            services ??= await connectServices(options.dataDir, log);
            const pages = run.summary?.pagesFetched ?? 0;
            const statements = !cold ? await statementFigures(services.endpoints.postgres.url).catch(() => undefined) : undefined;
            const events = await historyEventsSince(services.temporal, startedIso);
            const cpuMsPerPage: Record<string, number> = { 'crawler crawl': perPage(run.cpuSeconds, pages) };
            for (const name of ['Temporal', 'Postgres', 'MinIO'] as const) cpuMsPerPage[name] = perPage((cpuAfter[name] ?? 0) - (cpuBefore[name] ?? 0), pages);
            figures = {
              crawler,
              round: runRound,
              pages,
              wallSeconds: round(run.wallSeconds, 2),
              pagesPerSecond: run.wallSeconds > 0 ? round(pages / run.wallSeconds, 1) : 0,
              crawlSeconds: round(run.crawlSeconds, 2),
              cpuMsPerPage,
              peakRssMb: run.peakRssMb,
              historyEventsPerPage: pages > 0 ? round(events / pages, 2) : 0,
              ...(statements !== undefined ? { statementsPerPage: round(statements.calls / Math.max(1, pages), 2), planningMsPerPage: round(statements.planMs / Math.max(1, pages), 3) } : {}),
              startupSeconds: round(run.startupSeconds, 2),
              shutdownSeconds: round(run.shutdownSeconds, 2),
              startupLines: run.startupLines.slice(0, 40),
              exitCode: run.exitCode,
              complete: run.exitCode === 0 && !run.timedOut && run.summary?.state === 'finished',
            };
            if (run.exitCode !== 0) log(`cli ${shape.name}: ours exited ${run.exitCode}; stderr ends:\n${run.stderrTail.slice(-1500)}`);
          } else {
            const persistent = crawler === 'crawlee-persistent';
            log(`cli ${shape.name}: Crawlee CheerioCrawler (${persistent ? 'default persistent storage' : 'in-memory storage'}), round ${runRound}`);
            const run = await runCrawlee(
              {
                mode: 'per-host',
                seeds: web.ready.seeds,
                delayMs,
                maxConcurrency: 1000,
                maxRequestsPerCrawl: maxPages,
                userAgent: DEFAULT_USER_AGENT,
                productToken: PRODUCT_TOKEN,
                timeoutMs: options.timeoutMs,
                persistStorage: persistent,
                ...(shape.seedHostsOnly === true ? { sameHostname: true } : {}),
              },
              join(logDir, `crawlee-storage-${label}`),
              [],
            );
            rmSync(join(logDir, `crawlee-storage-${label}`), { recursive: true, force: true });
            rmSync(join(logDir, `crawlee-storage-${label}.options.json`), { force: true });
            const pages = run.result.pagesHandled;
            figures = {
              crawler,
              round: runRound,
              pages,
              wallSeconds: round(run.processWallSeconds, 2),
              pagesPerSecond: run.processWallSeconds > 0 ? round(pages / run.processWallSeconds, 1) : 0,
              crawlSeconds: round(run.result.durationMs / 1000, 2),
              cpuMsPerPage: { crawlee: perPage(run.cpuSeconds, pages) },
              peakRssMb: run.processes[0]?.hwmMb ?? 0,
              complete: !run.result.timedOut,
            };
          }
          const webFigures = await web.figures(delayMs);
          const result: CliRunFigures = {
            ...figures,
            politenessCeilingShare: round(figures.pagesPerSecond / ceiling, 3),
            politenessViolations: webFigures.politeness.endToStartViolations,
            certainViolations: webFigures.politeness.endToStartCertainViolations,
            requestedTwice: webFigures.repeatedPages,
            expectedMissing: webFigures.missingExpected,
          };
          runs.push(result);
          log(
            `cli ${shape.name}: ${crawler} ${result.pages} pages in ${result.wallSeconds} s = ${result.pagesPerSecond} pages/s (crawl ${result.crawlSeconds} s); ` +
              `violations ${result.politenessViolations}, asked twice ${result.requestedTwice}, missing ${result.expectedMissing}`,
          );
        }
      } finally {
        await web.close();
      }
      webs.push(webReport(shape, web.ready.hosts, web.ready.pages, web.ready.expected, ceiling, runs));
      // What is measured so far survives a later web's failure.
      writeFileSync(join(logDir, 'cli-report.partial.json'), JSON.stringify({ scenario: 'cli', delayMs, rounds: options.rounds, webs }));
    }
  } finally {
    await services?.connection.close().catch(() => undefined);
    if (!options.keepStack) {
      log('cli: stopping the stack the CLI started (--keep-stack leaves it running)');
      await stopStack({ dataDir: options.dataDir }).catch(() => undefined);
    }
  }
  return { scenario: 'cli', delayMs, rounds: options.rounds, ...(baseline ? { baseline } : {}), webs };
}

function webReport(shape: CliWeb, hosts: number, pagesGenerated: number, expectedReachable: number, ceiling: number, runs: CliRunFigures[]): CliWebReport {
  const ratios: number[] = [];
  for (const run of runs.filter((r) => r.crawler === 'ours-warm')) {
    const crawlee = runs.find((r) => r.crawler === 'crawlee-memory' && r.round === run.round);
    if (crawlee) ratios.push(ratioOf(run.pagesPerSecond, crawlee.pagesPerSecond));
  }
  const warm = runs.filter((r) => r.crawler === 'ours-warm').map((r) => r.pagesPerSecond);
  const persistent = runs.find((r) => r.crawler === 'crawlee-persistent');
  const cold = runs.find((r) => r.crawler === 'ours-cold');
  const firstMemory = runs.find((r) => r.crawler === 'crawlee-memory' && r.round === 1);
  const toBaseline: number[] = [];
  for (const run of runs.filter((r) => r.crawler === 'ours-warm')) {
    const before = runs.find((r) => r.crawler === 'baseline-warm' && r.round === run.round);
    if (before) toBaseline.push(ratioOf(run.pagesPerSecond, before.pagesPerSecond));
  }
  return {
    name: shape.name,
    varies: shape.varies,
    hosts,
    pagesGenerated,
    expectedReachable,
    politenessCeilingPagesPerSecond: round(ceiling, 1),
    runs,
    medianRatioToMemory: quantile(ratios, 0.5),
    ratioToPersistent: persistent ? ratioOf(quantile(warm, 0.5), persistent.pagesPerSecond) : NaN,
    ...(cold && firstMemory ? { coldRatioToMemory: ratioOf(cold.pagesPerSecond, firstMemory.pagesPerSecond) } : {}),
    ...(toBaseline.length > 0 ? { medianRatioToBaseline: quantile(toBaseline, 0.5) } : {}),
  };
}

/** A ratio as the table shows it: blank where it was not measured (NaN, or null once saved as JSON). */
function shown(value: number | null | undefined): string {
  return typeof value === 'number' && Number.isFinite(value) ? String(value) : '';
}

/** The scenario's tables. */
export function printCliReport(report: CliScenarioReport): void {
  const out = (line: string): void => void process.stdout.write(`${line}\n`);
  out(`\n## cli: the CLI as a user runs it, beside Crawlee (delay ${report.delayMs} ms, ${report.rounds} warm round(s))\n`);
  out('| web | hosts x pages reachable | ours warm / Crawlee memory (median) | ours warm / Crawlee persistent | ours cold / Crawlee memory | ours warm pages/s | share of ceiling | CPU ms/page (crawl, Temporal, Postgres, MinIO) | Crawlee CPU ms/page | events/page | statements/page | violations ours / Crawlee |');
  out('| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |');
  for (const web of report.webs) {
    const warm = web.runs.filter((r) => r.crawler === 'ours-warm');
    const median = warm.sort((a, b) => a.pagesPerSecond - b.pagesPerSecond)[Math.floor((warm.length - 1) / 2)];
    const crawlee = web.runs.find((r) => r.crawler === 'crawlee-memory');
    const cpu = median ? ['crawler crawl', 'Temporal', 'Postgres', 'MinIO'].map((name) => median.cpuMsPerPage[name] ?? 0).join(', ') : '';
    const oursViolations = web.runs.filter((r) => r.crawler.startsWith('ours')).reduce((n, r) => n + r.politenessViolations, 0);
    const crawleeViolations = web.runs.filter((r) => r.crawler.startsWith('crawlee')).reduce((n, r) => n + r.politenessViolations, 0);
    out(
      `| ${web.name} (${web.varies}) | ${web.hosts} x ${web.expectedReachable} | ${shown(web.medianRatioToMemory)} | ${shown(web.ratioToPersistent)} | ${shown(web.coldRatioToMemory)} | ${median?.pagesPerSecond ?? ''} | ${median?.politenessCeilingShare ?? ''} | ${cpu} | ${crawlee?.cpuMsPerPage['crawlee'] ?? ''} | ${median?.historyEventsPerPage ?? ''} | ${median?.statementsPerPage ?? ''} | ${oursViolations} / ${crawleeViolations} |`,
    );
  }
  if (report.baseline) {
    out(`\nBefore and after: ours (this checkout) against the baseline ${report.baseline.commit}, warm, same stack and web, alternating:\n`);
    out('| web | ours / baseline pages/s (median of rounds) | ours CPU ms/page (crawl, Temporal, Postgres, MinIO) | baseline CPU ms/page |');
    out('| --- | --- | --- | --- |');
    for (const web of report.webs) {
      const cpuOf = (crawler: CliCrawlerName): string => {
        const runs = web.runs.filter((r) => r.crawler === crawler).sort((a, b) => a.pagesPerSecond - b.pagesPerSecond);
        const median = runs[Math.floor((runs.length - 1) / 2)];
        return median ? ['crawler crawl', 'Temporal', 'Postgres', 'MinIO'].map((name) => median.cpuMsPerPage[name] ?? 0).join(', ') : '';
      };
      out(`| ${web.name} | ${shown(web.medianRatioToBaseline)} | ${cpuOf('ours-warm')} | ${cpuOf('baseline-warm')} |`);
    }
  }
  out('\nEvery run:\n');
  out('| web | crawler | round | pages | wall s | pages/s | crawl s | start-up s | shutdown s | peak RSS MB | complete |');
  out('| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |');
  for (const web of report.webs) {
    for (const run of web.runs) {
      out(`| ${web.name} | ${run.crawler} | ${run.round} | ${run.pages} | ${run.wallSeconds} | ${run.pagesPerSecond} | ${run.crawlSeconds} | ${run.startupSeconds ?? ''} | ${run.shutdownSeconds ?? ''} | ${run.peakRssMb ?? ''} | ${run.complete ? 'yes' : 'NO'} |`);
    }
  }
}
