// A worker split in two processes, `crawler worker --role workflows` and `--role activities`:
// the crawl completes with every page fetched once, each process handles only its own kind of
// task (read from the histories' identities), and a role that does not exist is refused.
import type { ChildProcess } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateWeb, politenessReport, requestsByHost, startTestWeb, type TestWeb } from '../support/test-web/index.js';
import { createHarness, type Harness } from '../support/crawler-harness.js';
import { runCrawlerCli, spawnWorkerProcess, stopProcess } from '../support/crawler-process.js';
import { hostWorkflowId } from '../../src/contracts/messages.js';

const DELAY_MS = 200;

describe('a worker split into a workflow process and an activity process', () => {
  let harness: Harness;
  let web: TestWeb;
  let workflows: ChildProcess;
  let activities: ChildProcess;
  const generated = generateWeb({ hosts: 3, pagesPerHost: 12, linksPerPage: 4, crossHostLinkRatio: 0.3, seed: 23, base: '127.67.0.1' });
  const crawlId = 'e2e-worker-roles';
  let summary: Awaited<ReturnType<Awaited<ReturnType<Harness['startCrawl']>>['result']>>;

  beforeAll(async () => {
    web = await startTestWeb(generated.spec);
    harness = await createHarness('e2e-worker-roles');
    workflows = spawnWorkerProcess(harness, { role: 'workflows', label: 'workflows worker' });
    activities = spawnWorkerProcess(harness, { role: 'activities', label: 'activities worker' });
    const crawl = await harness.startCrawl({ crawlId, seeds: generated.seeds(web.port), config: { minHostDelayMs: DELAY_MS, maxDepth: 30 } });
    summary = await crawl.result();
  });

  afterAll(async () => {
    await Promise.all([workflows, activities].filter(Boolean).map((child) => stopProcess(child)));
    await harness?.close();
    await web?.close();
  });

  it('completes the crawl: every reachable page fetched once, the host delay held', async () => {
    expect(summary.state).toBe('finished');
    const fetched = await harness.pool.query<{ url: string; n: number }>(`SELECT url, count(*)::int AS n FROM fetches WHERE crawl_id = $1 AND outcome = 'ok' GROUP BY url`, [crawlId]);
    expect(new Set(fetched.rows.map((row) => row.url))).toEqual(generated.expectedReachable(web.port));
    expect(fetched.rows.every((row) => row.n === 1)).toBe(true);
    for (const [, log] of requestsByHost(web.log())) expect(politenessReport(log, DELAY_MS).violations).toEqual([]);
  });

  it('runs workflow tasks only in the workflows process and activities only in the activities process', async () => {
    const host = new URL(generated.seeds(web.port)[0]!).hostname;
    const history = await harness.client.workflow.getHandle(hostWorkflowId(host)).fetchHistory();
    const workflowIdentities = new Set<string>();
    const activityIdentities = new Set<string>();
    for (const event of history.events ?? []) {
      if (event.workflowTaskCompletedEventAttributes?.identity) workflowIdentities.add(event.workflowTaskCompletedEventAttributes.identity);
      if (event.activityTaskStartedEventAttributes?.identity) activityIdentities.add(event.activityTaskStartedEventAttributes.identity);
    }
    expect([...workflowIdentities].map((identity) => identity.split('/').at(-1))).toEqual([String(workflows.pid)]);
    expect([...activityIdentities].map((identity) => identity.split('/').at(-1))).toEqual([String(activities.pid)]);
  });

  it('refuses a role that does not exist, naming it and the roles there are', async () => {
    const result = await runCrawlerCli(harness, ['worker', '--role', 'everything', '--task-queue', harness.taskQueue]);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain("--role 'everything' is not a worker role: use one of all, workflows, activities");
  });
});
