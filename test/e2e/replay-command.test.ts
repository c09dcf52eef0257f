// `crawler replay`: the check a team runs before deploying new worker code. It replays histories
// (files, or the workflows a visibility query finds) against the workflow code installed here and
// exits 1 naming each workflow and the event where a history diverged.
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHarness, type Harness } from '../support/crawler-harness.js';
import { runCrawlerCli } from '../support/crawler-process.js';
import { flatWeb } from '../support/flat-web.js';
import { startTestWeb, type TestWeb } from '../support/test-web/index.js';

interface Report {
  workflowId: string;
  runId: string;
  ok: boolean;
  error?: string;
  eventId?: number;
}
const reportsOf = (stdout: string): Report[] => stdout.trim().split('\n').filter(Boolean).map((line) => JSON.parse(line) as Report);

describe('crawler replay', () => {
  let harness: Harness;
  let web: TestWeb;
  const crawlId = `replay-command-${Date.now()}`;
  const site = flatWeb({ base: '127.74.0.1', hosts: 1, pagesPerHost: 3 });

  beforeAll(async () => {
    web = await startTestWeb({ hosts: site.specs });
    harness = await createHarness('e2e-replay-command');
    await harness.startWorker();
    await harness.runCrawl({ crawlId, seeds: site.allPageUrls(web.port), config: { minHostDelayMs: 50 } });
  }, 120_000);

  afterAll(async () => {
    await harness?.close();
    await web?.close();
  });

  it('replays the committed histories of every workflow type: exit 0, one report each', async () => {
    const result = await runCrawlerCli(harness, ['replay', '--file', 'test/integration/workflows/replay/histories', '--json']);
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    const reports = reportsOf(result.stdout);
    expect(reports.length).toBeGreaterThanOrEqual(6);
    expect(reports.every((report) => report.ok)).toBe(true);
  });

  it('fails on a history this code cannot replay, naming the workflow and the event', async () => {
    const result = await runCrawlerCli(harness, ['replay', '--file', 'test/integration/workflows/replay/divergent/host-workflow-renamed-activity.json']);
    expect(result.code).toBe(1);
    expect(result.stdout).toMatch(/^DIVERGED host\/127\.29\.0\.1 \(run [0-9a-f-]+\) at event 25: .*Nondeterminism error: Activity type of scheduled event 'fetchBurstRenamed'/m);
    expect(result.stderr).toContain('1 of 1 histories diverged');
  });

  it('prints a crafted workflow id of a history file neutralised: a DIVERGED line cannot pass for ok', async () => {
    const crafted = `host/evil\r\u001b[2Kok       host/forged (run 1)\u0085\u009b2K${'z'.repeat(1_000)}`;
    const fixture = JSON.parse(await readFile('test/integration/workflows/replay/divergent/host-workflow-renamed-activity.json', 'utf8')) as { workflowId: string };
    const dir = await mkdtemp(path.join(tmpdir(), 'replay-crafted-'));
    const file = path.join(dir, 'crafted.json');
    await writeFile(file, JSON.stringify({ ...fixture, workflowId: crafted }));
    try {
      const text = await runCrawlerCli(harness, ['replay', '--file', file]);
      expect(text.code).toBe(1);
      const lines = text.stdout.split('\n').filter(Boolean);
      expect(lines).toHaveLength(1);
      expect(lines[0]).toMatch(/^DIVERGED host\/evil\\r\\x1b\[2Kok {7}host\/forged \(run 1\)\\x85\\x9b2Kz+… \(\d+ more characters\) \(run /);
      // eslint-disable-next-line no-control-regex
      expect(text.stdout).not.toMatch(/[\r\u0000-\u0009\u000b-\u001f\u007f-\u009f]/);
      const json = await runCrawlerCli(harness, ['replay', '--file', file, '--json']);
      expect(json.stdout.trim().split('\n')).toHaveLength(1);
      expect(json.stdout).not.toMatch(/[\u0085\u009b]/);
      expect(reportsOf(json.stdout)[0]).toMatchObject({ workflowId: crafted, ok: false });
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it("replays the histories a query finds on the configured Temporal service: the crawl's own", async () => {
    const result = await runCrawlerCli(harness, ['replay', '--query', `WorkflowId = "crawl/${crawlId}"`, '--json']);
    expect(result.code).toBe(0);
    expect(reportsOf(result.stdout)).toEqual([expect.objectContaining({ workflowId: `crawl/${crawlId}`, ok: true })]);
  });

  it('says what to give when the input is wrong, and starts nothing', async () => {
    const neither = await runCrawlerCli(harness, ['replay']);
    expect(neither.code).toBe(2);
    expect(neither.stderr).toContain('give one of --file or --query');
    const notHistory = await runCrawlerCli(harness, ['replay', '--file', 'package.json']);
    expect(notHistory.code).toBe(2);
    expect(notHistory.stderr).toContain('has no history events');
    const nothing = await runCrawlerCli(harness, ['replay', '--query', 'WorkflowId = "no-such-workflow"']);
    expect(nothing.code).toBe(2);
    expect(nothing.stderr).toContain('no workflow matches');
  });
});
