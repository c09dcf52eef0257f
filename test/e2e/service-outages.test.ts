// Each service of the stack killed with SIGKILL in the middle of a crawl run through the CLI, then
// restarted (issue 21): the crawl still ends with every reachable page fetched once, politely, with
// one fetch record per page and every body readable from the object store.
//
// The crawls run on a stack of their own (its own data folder): killing the shared stack's
// services would break every other test file. One chaos stack serves the four crawls in turn.
import { spawn, execFile, type ChildProcess } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureStack, stopStack, type StackEndpoints } from '../../src/stack/index.js';
import { readStackState } from '../../src/stack/stack-state.js';
import { postgresPaths } from '../../src/stack/postgres-cluster.js';
import { BodyStore } from '../../src/storage/object-store/body-store.js';
import { createPool, type Pool } from '../../src/storage/postgres/pool.js';
import type { CrawlSummary } from '../../src/contracts/status.js';
import { testDataRoot, withoutExternalServices } from '../support/global-stack.js';
import { readStoredBodies } from '../support/stored-bodies.js';
import { generateWeb, politenessReport, startTestWeb, type RequestLogEntry, type TestWeb } from '../support/test-web/index.js';
import { waitFor } from '../support/wait-for.js';

const execFileAsync = promisify(execFile);

const MIN_HOST_DELAY_MS = 300;
/** How long a killed service stays down: long enough for the CLI to notice and say so (its progress line prints every 5 s). */
const OUTAGE_MS = 8_000;
/** The kill comes once this share of the reachable pages has been requested. */
const KILL_AT_SHARE = 0.3;

type Service = 'temporal' | 'postgres' | 'minio' | 'worker';

interface TimedLine {
  atMs: number;
  text: string;
}

/** A `crawler` CLI process, its stdout kept whole and its stderr as timed lines. */
interface CliProcess {
  child: ChildProcess;
  stdout(): string;
  stderr: TimedLine[];
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

/** What one outage did, for the report printed after the file. */
interface OutageMeasure {
  service: Service;
  /** Distinct stderr headlines (numbers blurred) between the kill and the first page fetched after the restart. */
  seenWhileDown: string[];
  /** All stderr lines in that window, continuation lines included. */
  stderrLinesWhileDown: number;
  /** From the kill to the first page request after it, ms. */
  killToNextPageMs: number;
  /** From the restart (stack up done, or the resumed process spawned) to the first page request after it, ms. */
  restartToNextPageMs: number;
  /** From the restart to the last page request of the crawl, ms: how long the crawl's tail took after it. */
  restartToLastPageMs: number;
  lostPages: number;
  duplicateRequests: string[];
  duplicateFetchRows: number;
  storageFailures: number;
  /** The crawl's own duration per its summary, ms. */
  crawlMs: number;
}

const measures: OutageMeasure[] = [];

describe('a service killed mid-crawl', () => {
  const dataDir = join(testDataRoot(), `stack-chaos-${process.pid}`);
  const env = withoutExternalServices(process.env);
  let endpoints: StackEndpoints;

  beforeAll(async () => {
    mkdirSync(dataDir, { recursive: true });
    // Started here rather than by the first crawl, so that its start time is not part of a measure.
    endpoints = await ensureStack({ dataDir, env });
  });

  afterAll(async () => {
    await stopStack({ dataDir });
    printOutageTable(measures);
  });

  const cli = (args: string[]): CliProcess => spawnCli([...args, '--data-dir', dataDir], env);

  /** `crawler stack up`: restarts whichever service of the data folder is not running, keeping its data. */
  async function stackUp(): Promise<void> {
    await execFileAsync('node', ['bin/crawler.js', 'stack', 'up', '--data-dir', dataDir], { env });
  }

  function killService(service: Exclude<Service, 'worker'>): void {
    const state = readStackState(dataDir);
    const pid = service === 'temporal' ? state.temporal?.pid : service === 'minio' ? state.minio?.pid : postmasterPid(dataDir);
    if (pid === undefined) throw new Error(`no pid recorded for ${service} in ${dataDir}`);
    process.kill(pid, 'SIGKILL');
  }

  async function chaosCrawl(service: Service, caseIndex: number): Promise<void> {
    const crawlId = `chaos-${service}`;
    const generated = generateWeb({ hosts: 30, pagesPerHost: 6, linksPerPage: 3, crossHostLinkRatio: 0.3, seed: 2100 + caseIndex, base: `127.4${caseIndex}.0.1` });
    const web = await startTestWeb(generated.spec);
    const pool = createPool({ connectionString: endpoints.postgres.url, maxConnections: 3 });
    let crawl: CliProcess | undefined;
    try {
      const expected = generated.expectedReachable(web.port);
      const seedsFile = join(dataDir, `seeds-${service}.txt`);
      writeFileSync(seedsFile, `${generated.seeds(web.port).join('\n')}\n`);
      crawl = cli([
        'crawl',
        '--seeds-file',
        seedsFile,
        '--allow-private-networks',
        '--scope',
        'any',
        '--min-host-delay-ms',
        String(MIN_HOST_DELAY_MS),
        '--max-depth',
        '30',
        '--json',
        '--crawl-id',
        crawlId,
      ]);

      await waitFor(
        () => pageRequests(web).length,
        (n) => n >= Math.ceil(expected.size * KILL_AT_SHARE),
        { timeoutMs: 180_000, intervalMs: 100, what: `${KILL_AT_SHARE * 100}% of ${expected.size} pages requested` },
      );
      // What the killed service had settled: a page it recorded and that is requested again is a duplicate no outage explains.
      const recordedBeforeKill = await okFetchUrls(pool, crawlId);
      const killedAtMs = Date.now();
      if (service === 'worker') {
        crawl.child.kill('SIGKILL');
        await crawl.exited;
      } else {
        killService(service);
      }
      const requestedBeforeKill = new Set(pageRequests(web).map((entry) => web.url(entry.host, entry.path)));
      // The outage: a chaos parameter, not a wait for a condition.
      await new Promise((resolve) => setTimeout(resolve, OUTAGE_MS));
      const restartedAtMs = Date.now();
      if (service === 'worker') {
        crawl = cli(['crawl', '--resume', crawlId, '--json']);
      } else {
        await stackUp();
      }
      const backAtMs = Date.now();
      const firstPageAfterRestart = await waitFor(
        () => pageRequests(web).find((entry) => entry.startedAtMs > backAtMs),
        (entry) => entry !== undefined,
        { timeoutMs: 180_000, intervalMs: 100, what: `a page requested after ${service} came back` },
      );
      const firstPageAfterKill = pageRequests(web).find((entry) => entry.startedAtMs > killedAtMs)!;
      const whileDown = crawl.stderr.filter((line) => line.atMs >= killedAtMs && line.atMs <= firstPageAfterRestart!.startedAtMs);
      const seenWhileDown = distinctLines(whileDown);

      const exit = await crawl.exited;
      const log = web.log();
      const requests = countRequests(web, log);
      const duplicateRequests = [...requests].filter(([, n]) => n > 1).map(([url, n]) => `${url} x${n}`);
      const fetchedPages = new Set(requests.keys());
      const lost = [...expected].filter((url) => !fetchedPages.has(url));
      const duplicateRows = await pool.query<{ url: string; n: number }>(
        `SELECT url, count(*)::int AS n FROM fetches WHERE crawl_id = $1 AND outcome = 'ok' GROUP BY url HAVING count(*) > 1`,
        [crawlId],
      );
      const summary = parseJsonSummary(crawl.stdout());
      measures.push({
        service,
        seenWhileDown,
        stderrLinesWhileDown: whileDown.length,
        killToNextPageMs: Math.round(firstPageAfterKill.startedAtMs - killedAtMs),
        restartToNextPageMs: Math.round(firstPageAfterRestart!.startedAtMs - restartedAtMs),
        restartToLastPageMs: Math.round(Math.max(...pageRequests(web, log).map((entry) => entry.startedAtMs)) - restartedAtMs),
        lostPages: lost.length,
        duplicateRequests,
        duplicateFetchRows: duplicateRows.rows.length,
        storageFailures: summary?.storageFailures ?? -1,
        crawlMs: summary?.durationMs ?? -1,
      });
      console.log(`[chaos ${service}] exit ${JSON.stringify(exit)}; seen while down:\n  ${seenWhileDown.join('\n  ')}`);
      console.log(`[chaos ${service}] duplicate requests (${duplicateRequests.length}): ${duplicateRequests.join(', ') || 'none'}`);
      if (summary === undefined) {
        const lines = crawl.stdout().trim().split('\n');
        console.log(`[chaos ${service}] stdout is not one JSON object: ${lines.length} lines; first and last:\n${[...lines.slice(0, 8), '...', ...lines.slice(-3)].map((line) => line.slice(0, 300)).join('\n')}`);
      }
      if (exit.code !== 0) console.log(`[chaos ${service}] stderr tail:\n${crawl.stderr.slice(-30).map((line) => line.text).join('\n')}`);

      // The crawl ends, and says so in one JSON object on stdout.
      expect(exit).toEqual({ code: 0, signal: null });
      expect(summary?.state).toBe('finished');
      // The kill came while the crawl still had work.
      expect(requestedBeforeKill.size).toBeLessThan(expected.size);

      // Every reachable page fetched; nothing else, and nothing twice but what the outage interrupted.
      expect(lost).toEqual([]);
      expect([...fetchedPages].filter((url) => !expected.has(url))).toEqual([]);
      // The progress line names the service that is down (the worker case has no line: its process died).
      if (service === 'postgres') expect(seenWhileDown.some((line) => /Postgres unreachable since/.test(line)), seenWhileDown.join('\n')).toBe(true);
      if (service === 'temporal') expect(seenWhileDown.some((line) => /Temporal/.test(line)), seenWhileDown.join('\n')).toBe(true);
      if (service === 'minio') expect(seenWhileDown.some((line) => /object store failing since/.test(line)), seenWhileDown.join('\n')).toBe(true);
      if (service === 'minio') {
        // A body waits for the store instead of its page being fetched again.
        expect(summary?.storageFailures).toBeGreaterThan(0);
        expect(duplicateRequests).toEqual([]);
      } else {
        // A request the outage cut off (asked before the service was back, never recorded before
        // the kill) may be asked again, once; a page recorded before the kill never.
        const unexplained = [...requests].filter(([url, n]) => n > 1 && (n > 2 || recordedBeforeKill.has(url) || !askedBefore(log, web, url, backAtMs)));
        expect(unexplained).toEqual([]);
      }
      expect(politenessReport(log, MIN_HOST_DELAY_MS).violations).toEqual([]);

      // One fetch record per page, every body readable with its hash, nothing left in the frontier.
      expect(duplicateRows.rows).toEqual([]);
      expect(await okFetchUrls(pool, crawlId)).toEqual(expected);
      expect(await unreadableBodies(pool, endpoints, crawlId)).toEqual([]);
      const open = await pool.query<{ state: string; n: number }>(
        `SELECT state, count(*)::int AS n FROM frontier WHERE crawl_id = $1 AND state IN ('queued', 'dispatched', 'fetched') GROUP BY state`,
        [crawlId],
      );
      expect(open.rows).toEqual([]);
    } finally {
      // A case that failed half-way must not leave its crawl running into the next one.
      if (crawl !== undefined && crawl.child.exitCode === null && crawl.child.signalCode === null) crawl.child.kill('SIGKILL');
      await pool.end();
      await web.close();
    }
  }

  it('Temporal dev server', () => chaosCrawl('temporal', 1), 420_000);
  it('Postgres postmaster', () => chaosCrawl('postgres', 2), 420_000);
  it('MinIO', () => chaosCrawl('minio', 3), 420_000);
  it('the worker (the crawler crawl process)', () => chaosCrawl('worker', 4), 420_000);
});

function spawnCli(args: string[], env: NodeJS.ProcessEnv): CliProcess {
  const child = spawn('node', ['bin/crawler.js', ...args], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  const stderr: TimedLine[] = [];
  let partial = '';
  child.stdout!.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr!.on('data', (chunk: Buffer) => {
    const lines = (partial + chunk.toString()).split('\n');
    partial = lines.pop() ?? '';
    for (const text of lines) stderr.push({ atMs: Date.now(), text });
  });
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })));
  return { child, stdout: () => stdout, stderr, exited };
}

function postmasterPid(dataDir: string): number | undefined {
  const first = readFileSync(postgresPaths(join(dataDir, 'postgres')).pidFile, 'utf8').split('\n')[0];
  return first ? Number(first) : undefined;
}

function pageRequests(web: TestWeb, log: readonly RequestLogEntry[] = web.log()): RequestLogEntry[] {
  return log.filter((entry) => entry.path !== '/robots.txt');
}

/** Page URL -> how many times the test web was asked for it. */
function countRequests(web: TestWeb, log: readonly RequestLogEntry[]): Map<string, number> {
  const counts = new Map<string, number>();
  for (const entry of pageRequests(web, log)) {
    const url = web.url(entry.host, entry.path);
    counts.set(url, (counts.get(url) ?? 0) + 1);
  }
  return counts;
}

function askedBefore(log: readonly RequestLogEntry[], web: TestWeb, url: string, atMs: number): boolean {
  return log.some((entry) => entry.startedAtMs < atMs && web.url(entry.host, entry.path) === url);
}

async function okFetchUrls(pool: Pool, crawlId: string): Promise<Set<string>> {
  const rows = await pool.query<{ url: string }>(`SELECT url FROM fetches WHERE crawl_id = $1 AND outcome = 'ok'`, [crawlId]);
  return new Set(rows.rows.map((row) => row.url));
}

/** The crawl's ok fetch records whose body does not read back from the object store with the record's hash. */
async function unreadableBodies(pool: Pool, endpoints: StackEndpoints, crawlId: string): Promise<string[]> {
  const bodies = new BodyStore(endpoints.s3);
  const stored = await readStoredBodies(pool, bodies);
  const records = await pool.query<{ url: string; raw_hash: Buffer | null; body_key: string | null }>(
    `SELECT url, raw_hash, body_key FROM fetches WHERE crawl_id = $1 AND outcome = 'ok'`,
    [crawlId],
  );
  const unreadable: string[] = [];
  for (const record of records.rows) {
    const hash = record.raw_hash?.toString('hex');
    if (hash === undefined || record.body_key === null || stored.rows.get(hash) !== record.body_key) {
      unreadable.push(`${record.url}: hash ${hash}, key ${record.body_key}, bodies row ${hash && stored.rows.get(hash)}`);
      continue;
    }
    const body = await bodies.getBody(record.body_key).catch((error: unknown) => error as Error);
    if (body instanceof Error) unreadable.push(`${record.url}: ${body.message}`);
    else if (createHash('sha256').update(body).digest('hex') !== hash) unreadable.push(`${record.url}: bytes do not hash to ${hash}`);
  }
  return unreadable;
}

/** `--json` promises one JSON object on stdout; anything else there is undefined. */
function parseJsonSummary(stdout: string): CrawlSummary | undefined {
  const lines = stdout.trim().split('\n');
  if (lines.length !== 1) return undefined;
  try {
    return JSON.parse(lines[0]!) as CrawlSummary;
  } catch {
    return undefined;
  }
}

/**
 * What the user read while the service was down: each headline once (a log record's continuation
 * lines, indented or closing its object, left out), numbers blurred so a progress line counts once.
 */
function distinctLines(lines: TimedLine[]): string[] {
  const seen = new Map<string, string>();
  for (const line of lines) {
    if (/^\s|^}/.test(line.text) || line.text.trim() === '') continue;
    const shape = line.text.replace(/\d+/g, 'N');
    if (!seen.has(shape)) seen.set(shape, line.text.slice(0, 240));
  }
  return [...seen.values()];
}

function printOutageTable(rows: OutageMeasure[]): void {
  const lines = rows.map(
    (row) =>
      `| ${row.service} | ${row.stderrLinesWhileDown} stderr lines, ${row.seenWhileDown.length} distinct headlines | kill->page ${row.killToNextPageMs} ms, restart->page ${row.restartToNextPageMs} ms, restart->last page ${row.restartToLastPageMs} ms | ${row.lostPages} | ${row.duplicateRequests.length} requests, ${row.duplicateFetchRows} rows | storageFailures ${row.storageFailures} | crawl ${row.crawlMs} ms |`,
  );
  console.log(['[chaos] outage | seen | recovery | lost | duplicated | storage | crawl', ...lines].join('\n'));
}
