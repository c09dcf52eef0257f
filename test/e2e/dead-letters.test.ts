// Poison URLs (docs/design.md, "Poison URLs"): a URL that keeps failing at one stage is dead-lettered after
// POISON_ATTEMPT_LIMIT counted failures, with its attempt history, whichever crawl brought it
// back; `crawler dead-letters list` shows it and `crawler dead-letters requeue` puts it back in
// its crawl, which fetches it again.
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FAILURE_POLICIES, POISON_ATTEMPT_LIMIT } from '../../src/domain/failures/index.js';
import type { CrawlConfig } from '../../src/config/crawl-config.js';
import { crawlWorkflowId } from '../../src/contracts/messages.js';
import type { CrawlSummary } from '../../src/contracts/status.js';
import { startTestWeb, type TestWeb, type WebSpec } from '../support/test-web/index.js';
import { createHarness, type Harness } from '../support/crawler-harness.js';

const execFileAsync = promisify(execFile);
const HOST = '127.33.0.1';
const CONFIG: Partial<CrawlConfig> = { minHostDelayMs: 200, maxDepth: 0, politeness: { retryDelayScale: 0.02 } };

const html = (title: string): string => `<!doctype html><html><head><title>${title}</title></head><body><p>${title}</p></body></html>`;
const spec = (poisonStatus: number): WebSpec => ({
  hosts: [
    {
      host: HOST,
      pages: [
        { path: '/poison', status: poisonStatus, body: html(`status ${poisonStatus}`) },
        { path: '/fine', body: html('fine') },
      ],
    },
  ],
});

interface DeadLetterLine {
  fingerprint: string;
  crawlId: string;
  stage: string;
  url: string;
  failureType: string;
  attempts: number;
  history: { failureType: string; crawlId: string; attemptKey: string }[];
}

describe('poison URLs and the dead-letter commands', () => {
  let harness: Harness;
  let web: TestWeb;
  const first = 'e2e-dead-letters-1';
  const second = 'e2e-dead-letters-2';
  let poisonUrl: string;
  let fineUrl: string;
  const crawler = async (...args: string[]): Promise<string> =>
    (await execFileAsync('node', ['bin/crawler.js', ...args], { env: harness.childEnv, timeout: 120_000 })).stdout;
  const frontierRow = async (crawlId: string, url: string) =>
    (await harness.pool.query<{ state: string; outcome: string | null }>('SELECT state, outcome FROM frontier WHERE crawl_id = $1 AND url = $2', [crawlId, url])).rows[0];
  const poisonRequests = (): number => web.log().filter((entry) => entry.path === '/poison').length;

  beforeAll(async () => {
    web = await startTestWeb(spec(500));
    harness = await createHarness('e2e-dead-letters');
    await harness.startWorker();
    poisonUrl = web.url(HOST, '/poison');
    fineUrl = web.url(HOST, '/fine');
  });

  afterAll(async () => {
    await harness?.close();
    await web?.close();
  });

  it('a URL that fails fewer times than the limit is only failed', async () => {
    const summary = await harness.runCrawl({ crawlId: first, seeds: [poisonUrl, fineUrl], config: CONFIG });
    expect(summary.state).toBe('finished');
    expect(poisonRequests()).toBe(FAILURE_POLICIES.ServerError.maxAttempts);
    expect(await frontierRow(first, poisonUrl)).toMatchObject({ state: 'failed', outcome: 'ServerError' });
    expect(await frontierRow(first, fineUrl)).toMatchObject({ state: 'done', outcome: 'ok' });
    expect(await crawler('dead-letters', 'list', '--crawl', first)).toBe('no dead letters\n');
  });

  it('brought back by the next crawl, it is dead-lettered at its fifth counted failure, with the history of all five', async () => {
    const summary = await harness.runCrawl({ crawlId: second, seeds: [poisonUrl, fineUrl], config: CONFIG });
    expect(summary.state).toBe('finished');
    // Counted per fingerprint and stage since the last success: 3 in the first crawl, 2 here.
    expect(poisonRequests()).toBe(POISON_ATTEMPT_LIMIT);
    expect(await frontierRow(second, poisonUrl)).toMatchObject({ state: 'dead', outcome: 'ServerError' });

    const letters = JSON.parse(await crawler('dead-letters', 'list', '--crawl', second, '--json')) as DeadLetterLine[];
    expect(letters).toHaveLength(1);
    const letter = letters[0]!;
    expect(letter).toMatchObject({ crawlId: second, stage: 'fetch', url: poisonUrl, failureType: 'ServerError', attempts: POISON_ATTEMPT_LIMIT });
    expect(letter.history.map((entry) => entry.failureType)).toEqual(Array(POISON_ATTEMPT_LIMIT).fill('ServerError'));
    expect(letter.history.map((entry) => entry.crawlId)).toEqual([first, first, first, second, second]);
    const text = await crawler('dead-letters', 'list');
    expect(text).toContain(`${letter.fingerprint} ${second} fetch ServerError x${POISON_ATTEMPT_LIMIT} ${poisonUrl}`);
  });

  it('`crawler dead-letters requeue` puts it back, reopens the finished crawl, and it is fetched again', async () => {
    web.update(spec(200));
    const before = poisonRequests();
    const out = await crawler('dead-letters', 'requeue', '--crawl', second, '--task-queue', harness.taskQueue);
    expect(out).toContain(`requeued 1 URL(s) and reopened crawl ${second}`);
    const summary = (await harness.client.workflow.getHandle(crawlWorkflowId(second)).result()) as CrawlSummary;
    expect(summary.state).toBe('finished');
    expect(poisonRequests()).toBe(before + 1);
    expect(web.log().filter((entry) => entry.path === '/poison').at(-1)!.status).toBe(200);
    expect(await frontierRow(second, poisonUrl)).toMatchObject({ state: 'done', outcome: 'ok' });
    expect(await crawler('dead-letters', 'list', '--crawl', second)).toBe('no dead letters\n');
    // A success restarts the count: the next failure would be the first again.
    const counted = await harness.pool.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM attempts a JOIN urls u ON u.fingerprint = a.fingerprint WHERE u.url = $1 AND a.at > u.last_success_at`,
      [poisonUrl],
    );
    expect(counted.rows[0]!.n).toBe(0);
  });
});
