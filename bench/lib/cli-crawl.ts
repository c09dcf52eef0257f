// Our crawler as a user runs it: `node bin/crawler.js crawl --seeds-file F --json` in its own
// process, on the stack under a data folder it starts itself when nothing runs there (cold) or
// finds running (warm). Timed from spawn to exit, the way a user's shell times it; each line of
// its stderr is stamped so the report can say where a cold start spends its seconds.
import { spawn } from 'node:child_process';
import { createWriteStream } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { CrawlSummary } from '../../src/contracts/status.js';
import { ReapedChildrenCpu } from './child-cpu.js';
import { statusKb } from './proc-sampler.js';

const CRAWLER_BIN = fileURLToPath(new URL('../../bin/crawler.js', import.meta.url));

export interface CliCrawlOptions {
  seedsFile: string;
  dataDir: string;
  delayMs: number;
  /** --max-pages: a bound above the web's reachable pages, as Crawlee's maxRequestsPerCrawl. */
  maxPages: number;
  userAgent: string;
  /** Where the process's stderr goes. */
  logFile: string;
  timeoutMs: number;
  /** More `crawler crawl` flags (e.g. --max-in-flight N). */
  extraArgs?: readonly string[];
  /** Extra node flags, e.g. --cpu-prof. */
  nodeArgs?: readonly string[];
  cwd?: string;
  /** Another checkout's bin/crawler.js (the `--baseline` runs); default this checkout's. */
  crawlerBin?: string;
}

export interface CliCrawlRun {
  exitCode: number | null;
  /** Spawn to exit, seconds: what the user waits. */
  wallSeconds: number;
  /** The summary's durationMs: crawl workflow start to end, seconds. */
  crawlSeconds: number;
  /** Spawn to the first line that says the crawl started, seconds (stack start, worker start, seeds). */
  startupSeconds: number;
  /** The crawl's end (summary) to exit, seconds. */
  shutdownSeconds: number;
  /** The `crawler crawl` process's CPU, its reaped children included, seconds. */
  cpuSeconds: number;
  /** The process's VmHWM (peak resident set) at its last read before exit, MB. */
  peakRssMb: number;
  summary?: CrawlSummary;
  timedOut: boolean;
  /** The last stderr lines, for a run that failed. */
  stderrTail: string;
  /** Stderr lines that came before the crawl started, each with its offset from spawn in seconds. */
  startupLines: { atSeconds: number; line: string }[];
}

export async function runCliCrawl(options: CliCrawlOptions): Promise<CliCrawlRun> {
  const args = [
    ...(options.nodeArgs ?? []),
    options.crawlerBin ?? CRAWLER_BIN,
    'crawl',
    '--seeds-file',
    options.seedsFile,
    '--min-host-delay-ms',
    String(options.delayMs),
    '--max-pages',
    String(options.maxPages),
    '--max-depth',
    '1000',
    '--scope',
    'any',
    '--allow-private-networks',
    '--user-agent',
    options.userAgent,
    '--data-dir',
    options.dataDir,
    '--json',
    ...(options.extraArgs ?? []),
  ];
  const cpu = new ReapedChildrenCpu();
  const spawnedAt = performance.now();
  const child = spawn(process.execPath, args, { cwd: options.cwd, stdio: ['ignore', 'pipe', 'pipe'] });
  const log = createWriteStream(options.logFile);
  let stdout = '';
  let stderrTail = '';
  let crawlStartedAt: number | undefined;
  const startupLines: CliCrawlRun['startupLines'] = [];
  let partial = '';
  child.stdout.on('data', (chunk: Buffer) => void (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => {
    const text = chunk.toString();
    log.write(text);
    stderrTail = (stderrTail + text).slice(-4000);
    if (crawlStartedAt !== undefined) return;
    partial += text;
    const lines = partial.split(/\r|\n/);
    partial = lines.pop() ?? '';
    const at = (performance.now() - spawnedAt) / 1000;
    for (const line of lines) {
      if (line.trim() === '') continue;
      startupLines.push({ atSeconds: Math.round(at * 100) / 100, line: line.slice(0, 200) });
      // The CLI's first progress line ("crawl <id>: ... fetched") comes once the workflow runs.
      if (/fetched/.test(line) || /^crawl\b.*start/i.test(line)) crawlStartedAt = performance.now();
    }
  });
  let peakRssKb = 0;
  const memory = setInterval(() => {
    if (child.pid !== undefined) peakRssKb = Math.max(peakRssKb, statusKb(child.pid, 'VmHWM'));
  }, 500);
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    child.kill('SIGINT');
  }, options.timeoutMs);
  const exitCode = await new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  clearTimeout(timer);
  clearInterval(memory);
  const exitedAt = performance.now();
  log.end();
  let summary: CrawlSummary | undefined;
  try {
    summary = JSON.parse(stdout.trim()) as CrawlSummary;
  } catch {
    summary = undefined;
  }
  const wallSeconds = (exitedAt - spawnedAt) / 1000;
  const crawlSeconds = (summary?.durationMs ?? 0) / 1000;
  const startupSeconds = crawlStartedAt === undefined ? 0 : (crawlStartedAt - spawnedAt) / 1000;
  return {
    exitCode,
    wallSeconds,
    crawlSeconds,
    startupSeconds,
    shutdownSeconds: summary === undefined ? 0 : Math.max(0, wallSeconds - startupSeconds - crawlSeconds),
    cpuSeconds: cpu.seconds(),
    peakRssMb: Math.round(peakRssKb / 1024),
    ...(summary ? { summary } : {}),
    timedOut,
    stderrTail,
    startupLines,
  };
}
