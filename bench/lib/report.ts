// The benchmark's report: one JSON object (--json) or the tables printed here.
import type { GenerateWebOptions } from '../../test/support/test-web/index.js';
import type { ClientGap } from './client-gaps.js';
import type { CrawleeChildResult } from './crawlee-child.js';
import type { OurCrawlRun } from './our-crawl.js';
import type { ProcessFigures } from './proc-sampler.js';
import { ratioOf, round, type LatencySummary } from './stats.js';
import type { WebFigures } from './web-figures.js';

export interface CrawlerResult {
  crawler: 'ours' | 'crawlee-per-host' | 'crawlee-stock';
  /** With --rounds: which round this run belongs to, from 1. */
  round?: number;
  /** Pages the crawler reports fetched (ours: bodies stored; Crawlee: pages handled). */
  pages: number;
  /** Crawl start to end as the crawler's client saw it. */
  seconds: number;
  pagesPerSecond: number;
  /** Page requests over the server's first-to-last request window. */
  serverPagesPerSecond: number;
  /** pagesPerSecond / (hosts / delay). */
  politenessLimitShare: number;
  complete: boolean;
  web: WebFigures;
  /** Ours only: each sampled gap under the delay, as our fetch records measured it. */
  clientGaps?: ClientGap[];
  processes: ProcessFigures[];
  details: { kind: 'ours'; run: OurCrawlRun } | { kind: 'crawlee'; run: CrawleeChildResult };
}

export interface ScenarioReport {
  scenario: string;
  web: GenerateWebOptions & { pagesGenerated: number; expectedReachable: number; disallowed: number };
  delayMs: number;
  maxInFlight: number;
  /** Our crawl's Mercator factor when the run set it (--adaptive-factor). */
  adaptiveFactor?: number;
  /** Our worker's Postgres connections (`--max-database-connections`), when set. */
  maxDatabaseConnections?: number;
  politenessLimitPagesPerSecond: number;
  results: CrawlerResult[];
  /** With --rounds: ours / Crawlee's per-host mode in each round (alternating runs), and the median. */
  rounds?: { ratios: number[]; medianRatio: number };
}

export interface BenchReport {
  startedAt: string;
  machine: { cores: number; node: string };
  stack: { temporal: string; statementStats: boolean };
  scenarios: ScenarioReport[];
}

const out = (line = ''): void => void process.stdout.write(`${line}\n`);
const latency = (summary: LatencySummary | undefined): string => (summary && summary.count > 0 ? `${summary.p50Ms} / ${summary.p99Ms}` : 'n/a');

function table(header: string[], rows: string[][]): void {
  const widths = header.map((cell, i) => Math.max(cell.length, ...rows.map((row) => (row[i] ?? '').length)));
  const line = (cells: string[]): string => cells.map((cell, i) => (i === 0 ? cell.padEnd(widths[i]!) : cell.padStart(widths[i]!))).join('  ');
  out(`  ${line(header)}`);
  for (const row of rows) out(`  ${line(row)}`);
}

function crawlerProcess(result: CrawlerResult): ProcessFigures | undefined {
  return result.processes.find((p) => p.name === (result.crawler === 'ours' ? 'worker' : 'crawlee'));
}

function printComparison(scenario: ScenarioReport): void {
  const r = scenario.results;
  const column = (f: (result: CrawlerResult) => string): string[] => r.map(f);
  const rows: [string, string[]][] = [
    ['pages (crawler count)', column((x) => String(x.pages))],
    ['page requests at the server', column((x) => String(x.web.pageRequests))],
    ['robots.txt requests', column((x) => String(x.web.robotsRequests))],
    ['complete (no time limit hit)', column((x) => (x.complete ? 'yes' : 'NO'))],
    ['expected pages missing', column((x) => String(x.web.missingExpected))],
    ['pages outside expected set', column((x) => String(x.web.outsideExpected))],
    ['disallowed pages requested', column((x) => String(x.web.disallowedRequested))],
    ['pages requested twice or more', column((x) => String(x.web.repeatedPages))],
    ['seconds (crawl start to end)', column((x) => String(x.seconds))],
    ['pages/s', column((x) => String(x.pagesPerSecond))],
    ['pages/s (server window)', column((x) => String(x.serverPagesPerSecond))],
    ['share of politeness limit', column((x) => `${round(x.politenessLimitShare * 100, 1)}%`)],
    ['server latency p50 / p99 ms', column((x) => latency(x.web.serverLatency))],
    ['client latency p50 / p99 ms', column((x) => (x.details.kind === 'ours' ? latency(x.details.run.postgres.clientLatency) : 'n/a'))],
    ['per-host gap p50 / p99 ms', column((x) => latency(x.web.politeness.gaps))],
    ['violations end-to-start', column((x) => String(x.web.politeness.endToStartViolations))],
    ['violations start-to-start', column((x) => String(x.web.politeness.startToStartViolations))],
    ['overlapping requests', column((x) => String(x.web.politeness.overlaps))],
    ['smallest gap ms', column((x) => String(x.web.politeness.minGapMs))],
    ['crawler process peak RSS MB', column((x) => String(crawlerProcess(x)?.peakRssMb ?? 'n/a'))],
    ['crawler process CPU s', column((x) => String(crawlerProcess(x)?.cpuSeconds ?? 'n/a'))],
  ];
  table(['', ...r.map((x) => (x.round === undefined ? x.crawler : `${x.crawler} #${x.round}`))], rows.map(([name, cells]) => [name, ...cells]));
  if (scenario.rounds) {
    out(`  ratio ours / crawlee-per-host by round: ${scenario.rounds.ratios.join(', ')}; median ${scenario.rounds.medianRatio} (crawler clocks)`);
  }
  const ours = r.find((x) => x.crawler === 'ours');
  for (const other of r.filter((x) => x.crawler !== 'ours' && (x.round ?? 1) === 1)) {
    if (!ours) break;
    out(
      `  ratio ours / ${other.crawler}${scenario.rounds ? ' (round 1)' : ''}: ${ratioOf(ours.pagesPerSecond, other.pagesPerSecond)} (crawler clocks), ` +
        `${ratioOf(ours.serverPagesPerSecond, other.serverPagesPerSecond)} (server window)`,
    );
  }
  for (const x of r) {
    const p = x.web.politeness;
    const kept = p.endToStartViolations === 0 && p.overlaps === 0;
    out(`  ${x.crawler} kept the ${scenario.delayMs} ms per-host delay: ${kept ? 'yes' : `NO (${p.endToStartViolations} gaps under the delay, ${p.overlaps} overlaps${p.worstHost ? `, worst host ${p.worstHost.host} with ${p.worstHost.violations}` : ''})`}`);
    if (p.endToStartViolations > 0) out(`    of the gaps under the delay, ${p.endToStartCertainViolations} are under it even from the server's last write (certain); the others only by its end stamp`);
    for (const gap of x.clientGaps ?? []) {
      const ours = gap.clientGapMs === undefined ? `no fetch record for the ${gap.missing} request` : `${gap.clientGapMs} ms by our fetch records`;
      const lastWrite = gap.serverGapFromLastWriteMs === undefined ? '' : ` (${gap.serverGapFromLastWriteMs} ms from its last write)`;
      out(`    gap on ${gap.host}: ${gap.serverGapMs} ms by the server's log${lastWrite}, ${ours}`);
    }
  }
}

function printOurDetails(run: OurCrawlRun, pages: number): void {
  out(`  processes during our crawl (peak RSS sampled each 0.5 s; PSS splits shared pages; HWM = kernel peak of the main pid):`);
  table(
    ['process', 'procs', 'peak RSS MB', 'peak PSS MB', 'HWM MB', 'CPU s', 'CPU ms/page'],
    run.processes.map((p) => [p.name, String(p.processes), String(p.peakRssMb), String(p.peakPssMb), String(p.hwmMb), String(p.cpuSeconds), String(round((p.cpuSeconds * 1000) / Math.max(1, pages), 1))]),
  );
  const cpu = run.processes.reduce((total, p) => total + p.cpuSeconds, 0);
  out(`  CPU of all of them: ${round(cpu, 1)} s over ${round(run.wallSeconds, 1)} s wall = ${round(cpu / Math.max(0.001, run.wallSeconds), 2)} cores busy`);

  const wl = run.workerLog;
  out(`  worker log: ${wl.lines} lines, ${wl.warnings} warnings, ${wl.errors} error lines, ${wl.deadlocks} Postgres deadlocks (${wl.file})`);
  const t = run.temporal;
  out(`  Temporal: ${t.runs} workflow runs (${Object.entries(t.runsByType).map(([type, n]) => `${type} ${n}`).join(', ')}), ${t.historyEvents} history events = ${t.eventsPerPage} per page, longest history ${t.longestHistory}`);
  out(`  events per page by kind (from ${t.historiesRead} histories): ${Object.entries(t.eventsPerPageByKind).slice(0, 10).map(([kind, n]) => `${kind} ${n}`).join(', ')}`);
  if (t.admission) {
    const a = t.admission;
    out(`  admission: ${a.ticks} ticks, ${a.throttledTicks} slowed by backpressure (${a.stoppedByBacklogTicks} stopped by the parse backlog), lowest factor ${round(a.minAdmitFactor, 2)}, largest backlog ${a.maxBacklogSeconds < 0 ? 'infinite' : `${round(a.maxBacklogSeconds, 1)} s`}`);
  }
  table(
    ['activity / task', 'count', 'queue wait p50 / p99 ms', 'run p50 / p99 ms'],
    [
      ...Object.entries(t.activities).map(([type, f]) => [type, String(f.count), latency(f.queueWait), latency(f.run)]),
      ['(workflow tasks)', String(t.workflowTasks.count), latency(t.workflowTasks.queueWait), latency(t.workflowTasks.run)],
    ],
  );
  if (t.burstStages) {
    const b = t.burstStages;
    out(
      `  fetch bursts (${b.total.count} sampled), p50 / p99 ms summed per stage: waiting ${latency(b.waiting)}, fetching ${latency(b.fetching)}, parsing ${latency(b.parsing)}, ` +
        `claiming ${latency(b.claiming)}, finishing ${latency(b.finishing)}, total ${latency(b.total)}; URLs per burst p50 / p99 ${b.urls.p50Ms} / ${b.urls.p99Ms}`,
    );
  }

  const pg = run.postgres;
  out(`  Postgres: ${pg.rows} rows = ${pg.rowsPerPage} per page (${Object.entries(pg.rowsByTable).map(([table, n]) => `${table} ${n}`).join(', ')})`);
  out(`  client fetch latency p50 / p99 ms: total ${latency(pg.clientLatency)}, first byte ${latency(pg.clientFirstByte)}`);
  if (pg.statements) {
    out(`  statements: ${pg.statements.calls} calls = ${pg.statements.callsPerPage} per page, ${pg.statements.totalSeconds} s in all; top by total time:`);
    table(
      ['statement', 'calls/page', 'total s', 'mean ms'],
      pg.statements.top.slice(0, 10).map((s) => [s.query, String(s.callsPerPage), String(s.totalSeconds), String(s.meanMs)]),
    );
  }
  if (pg.activity) {
    const a = pg.activity;
    out(`  pg_stat_activity (${a.samples} samples): ${a.meanActive} backends active, ${a.meanIdleInTransaction} idle in transaction on average`);
    out(`    waits: ${Object.entries(a.waits).map(([wait, share]) => `${wait} ${share}%`).join(', ')}`);
    for (const [statement, share] of Object.entries(a.statements).slice(0, 5)) out(`    ${share}%  ${statement}`);
  }
  if (run.workerProfile) {
    const p = run.workerProfile;
    out(`  worker JS thread (V8 profile): busy ${p.busySeconds} s, idle ${p.idleSeconds} s; self time by package:`);
    for (const share of p.byCategory.slice(0, 10)) out(`    ${String(share.percent).padStart(5)}%  ${share.what}`);
    out(`  top functions:`);
    for (const share of p.topFunctions.slice(0, 8)) out(`    ${String(share.percent).padStart(5)}%  ${share.what}`);
  }
}

export function printReport(report: BenchReport): void {
  out(`crawl benchmark ${report.startedAt} on ${report.machine.cores} cores, node ${report.machine.node}; ratios compare runs of this one invocation`);
  for (const scenario of report.scenarios) {
    const w = scenario.web;
    out();
    out(
      `== ${scenario.scenario}: ${w.hosts} hosts x ${w.pagesPerHost} pages (${w.pagesGenerated} generated, ${w.expectedReachable} reachable and allowed), ` +
        `per-host delay ${scenario.delayMs} ms, max in flight ${scenario.maxInFlight}${scenario.adaptiveFactor === undefined ? '' : `, our adaptive factor ${scenario.adaptiveFactor}`}${scenario.maxDatabaseConnections === undefined ? '' : `, our worker's Postgres connections ${scenario.maxDatabaseConnections}`}; politeness limit ${scenario.politenessLimitPagesPerSecond} pages/s`,
    );
    printComparison(scenario);
    for (const result of scenario.results) {
      if (result.details.kind !== 'ours') continue;
      out();
      out(`  -- our crawler in detail (${scenario.scenario})`);
      printOurDetails(result.details.run, result.pages);
    }
  }
}
