// A worker process killed (SIGKILL) in the middle of a crawl and started again: the crawl
// completes, no URL is lost, and no fetch record is written twice.
import { spawn, type ChildProcess } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateWeb, startTestWeb, type TestWeb } from '../support/test-web/index.js';
import { createHarness, type Harness } from '../support/crawler-harness.js';

function startWorkerProcess(harness: Harness): ChildProcess {
  const child = spawn('node', ['bin/crawler.js', 'worker', '--task-queue', harness.taskQueue, '--data-dir', harness.dataDir], {
    env: harness.childEnv,
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  child.stderr?.on('data', (chunk: Buffer) => process.stderr.write(`[worker ${child.pid}] ${chunk.toString()}`));
  return child;
}

async function waitFor(condition: () => Promise<boolean>, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

describe('a worker killed mid-crawl', () => {
  let harness: Harness;
  let web: TestWeb;
  let worker: ChildProcess | undefined;
  const generated = generateWeb({ hosts: 3, pagesPerHost: 15, linksPerPage: 4, crossHostLinkRatio: 0.3, seed: 11, base: '127.23.0.1' });
  const crawlId = 'e2e-worker-crash';
  let fetchedBeforeKill = 0;
  let summary: Awaited<ReturnType<Awaited<ReturnType<Harness['startCrawl']>>['result']>>;

  beforeAll(async () => {
    web = await startTestWeb(generated.spec);
    harness = await createHarness('e2e-crash');
    worker = startWorkerProcess(harness);
    const crawl = await harness.startCrawl({ crawlId, seeds: generated.seeds(web.port), config: { minHostDelayMs: 300, maxDepth: 30 } });
    const pages = () => web.log().filter((entry) => entry.path !== '/robots.txt').length;
    await waitFor(async () => pages() >= 8, 120_000);
    worker.kill('SIGKILL');
    await new Promise((resolve) => worker!.once('exit', resolve));
    fetchedBeforeKill = pages();
    worker = startWorkerProcess(harness);
    summary = await crawl.result();
  });

  afterAll(async () => {
    worker?.kill('SIGKILL');
    await harness?.close();
    await web?.close();
  });

  it('was killed while the crawl still had work', () => {
    expect(fetchedBeforeKill).toBeGreaterThanOrEqual(8);
    expect(fetchedBeforeKill).toBeLessThan(generated.expectedReachable(web.port).size);
  });

  it('completes the crawl and loses no URL', async () => {
    expect(summary.state).toBe('finished');
    const fetched = await harness.pool.query<{ url: string }>(`SELECT url FROM fetches WHERE crawl_id = $1 AND outcome = 'ok'`, [crawlId]);
    expect(new Set(fetched.rows.map((row) => row.url))).toEqual(generated.expectedReachable(web.port));
    const open = await harness.pool.query(`SELECT 1 FROM frontier WHERE crawl_id = $1 AND state IN ('queued', 'dispatched', 'fetched')`, [crawlId]);
    expect(open.rowCount).toBe(0);
  });

  it('writes no fetch record twice', async () => {
    const perUrl = await harness.pool.query<{ url: string; n: number }>(`SELECT url, count(*)::int AS n FROM fetches WHERE crawl_id = $1 GROUP BY url HAVING count(*) > 1`, [crawlId]);
    expect(perUrl.rows).toEqual([]);
    const documents = await harness.pool.query<{ n: number }>(`SELECT count(*)::int AS n FROM documents WHERE crawl_id = $1 GROUP BY fingerprint HAVING count(*) > 1`, [crawlId]);
    expect(documents.rows).toEqual([]);
  });
});
