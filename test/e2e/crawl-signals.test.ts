// `crawler crawl` and the signals a user or a supervisor sends it: Ctrl-C (SIGINT) stops the crawl
// gracefully and prints its summary; SIGTERM leaves the crawl running in Temporal, stops the
// process's worker and exits 143, and `--resume` carries the crawl on with nothing lost or doubled.
// Before, Temporal's runtime took the worker and its connection down on either signal and the CLI
// exited 1 on a gRPC error.
import { spawn, type ChildProcess } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { crawlWorkflowId } from '../../src/contracts/messages.js';
import { createHarness, type Harness } from '../support/crawler-harness.js';
import { runCrawlerCli } from '../support/crawler-process.js';
import { requestsByHost, startTestWeb, type TestWeb } from '../support/test-web/index.js';
import { waitFor } from '../support/wait-for.js';

const PAGES = 24;
const DELAY_MS = 250;
const HOSTS = { interrupted: '127.66.0.2', terminated: '127.66.0.3' } as const;

interface Exited {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

describe('signals to `crawler crawl`', () => {
  let harness: Harness;
  let web: TestWeb;
  const pagePath = (i: number): string => `/p${i}`;
  const seedsOf = (host: string): string[] => Array.from({ length: PAGES }, (_, i) => `http://${host}:${web.port}${pagePath(i)}`);
  const pagesAsked = (host: string) => (requestsByHost(web.log()).get(host) ?? []).filter((entry) => entry.path !== '/robots.txt');

  /** `crawler crawl` of one host's pages as a child process, with its worker, on the harness's task queue. */
  function startCrawl(crawlId: string, host: string): { child: ChildProcess; exited: Promise<Exited> } {
    const args = ['bin/crawler.js', 'crawl', ...seedsOf(host), '--crawl-id', crawlId, '--max-depth', '0', '--min-host-delay-ms', String(DELAY_MS), '--sitemaps', 'declared'];
    args.push('--allow-private-networks', '--task-queue', harness.taskQueue, '--data-dir', harness.dataDir, '--json');
    const child = spawn('node', args, { env: harness.childEnv, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout!.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const exited = new Promise<Exited>((resolve) => child.once('exit', (code, signal) => resolve({ code, signal, stdout, stderr })));
    return { child, exited };
  }

  /** Starts a crawl of `host`, sends it `signal` once three of its pages were asked for, and waits for the process to end. */
  async function signalAfterThreePages(crawlId: string, host: string, signal: NodeJS.Signals): Promise<Exited> {
    const crawl = startCrawl(crawlId, host);
    await waitFor(() => pagesAsked(host).length, (asked) => asked >= 3, { timeoutMs: 120_000, what: 'the crawl to fetch three pages' });
    crawl.child.kill(signal);
    return crawl.exited;
  }

  beforeAll(async () => {
    web = await startTestWeb({
      hosts: Object.values(HOSTS).map((host) => ({
        host,
        robotsTxt: 'User-agent: *\nAllow: /\n',
        pages: Array.from({ length: PAGES }, (_, i) => ({ path: pagePath(i), body: `<!doctype html><html><head><title>${i}</title></head><body><p>Page ${i} of ${host}</p></body></html>` })),
      })),
    });
    harness = await createHarness('crawl-signals');
  });
  afterAll(async () => {
    await harness?.close();
    await web?.close();
  });

  describe('Ctrl-C', () => {
    const crawlId = 'signals-interrupted';
    let exited: Exited;
    beforeAll(async () => {
      exited = await signalAfterThreePages(crawlId, HOSTS.interrupted, 'SIGINT');
    });

    it('stops the crawl gracefully and exits 0 with its summary', () => {
      expect(exited.stderr).not.toMatch(/Error|\n\s+at /);
      expect(exited.code).toBe(0);
      const summary = JSON.parse(exited.stdout) as { state: string; pagesFetched: number };
      expect(summary.state).toBe('stopped');
      expect(summary.pagesFetched).toBeGreaterThanOrEqual(3);
      expect(summary.pagesFetched).toBeLessThan(PAGES);
    });

    it('leaves the crawl workflow completed', async () => {
      const description = await harness.client.workflow.getHandle(crawlWorkflowId(crawlId)).describe();
      expect(description.status.name).toBe('COMPLETED');
    });
  });

  describe('SIGTERM', () => {
    const crawlId = 'signals-terminated';
    let exited: Exited;
    let statusAfterExit: string;
    let resumed: Awaited<ReturnType<typeof runCrawlerCli>>;
    let askedBeforeResume: number;
    beforeAll(async () => {
      exited = await signalAfterThreePages(crawlId, HOSTS.terminated, 'SIGTERM');
      statusAfterExit = (await harness.client.workflow.getHandle(crawlWorkflowId(crawlId)).describe()).status.name;
      askedBeforeResume = pagesAsked(HOSTS.terminated).length;
      resumed = await runCrawlerCli(harness, ['crawl', '--resume', crawlId, '--task-queue', harness.taskQueue, '--json']);
    });

    it('exits 143 and says how to carry the crawl on, with no error', () => {
      expect(exited.code).toBe(143);
      expect(exited.stderr).toContain(`crawl ${crawlId} left running in Temporal (SIGTERM): \`crawler crawl --resume ${crawlId}\``);
      expect(exited.stderr).not.toMatch(/Error|\n\s+at /);
      expect(exited.stdout).toBe('');
    });

    it('leaves the crawl running, and --resume finishes it', () => {
      expect(statusAfterExit).toBe('RUNNING');
      expect(askedBeforeResume).toBeLessThan(PAGES);
      expect(resumed.code).toBe(0);
      expect(JSON.parse(resumed.stdout)).toMatchObject({ crawlId, state: 'finished', pagesFetched: PAGES });
    });

    it('loses no page and records none twice', async () => {
      const fetches = await harness.pool.query<{ url: string; n: number }>(
        `SELECT url, count(*)::int AS n FROM fetches WHERE crawl_id = $1 AND outcome = 'ok' GROUP BY url ORDER BY url`,
        [crawlId],
      );
      expect(fetches.rows).toHaveLength(PAGES);
      expect(fetches.rows.filter((row) => row.n !== 1)).toEqual([]);
      expect(new Set(pagesAsked(HOSTS.terminated).map((entry) => entry.path)).size).toBe(PAGES);
    });
  });
});
