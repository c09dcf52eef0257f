// A hostWorkflowV3 run started after hostWorkflowV4's changes (a V3 run that continues as new on a
// worker of today) takes them behind their patches: its claims run as local activities and its
// first burst refreshes robots.txt itself. Real dev server, Postgres, MinIO and test web; the
// run's history must replay too. With RECORD_REPLAY_HISTORY=1 it is saved for the committed
// replay test (test/replay/histories/host-workflow-v3-patched.json).
import { execFile } from 'node:child_process';
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import { MockActivityEnvironment } from '@temporalio/testing';
import { Worker } from '@temporalio/worker';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { resolveCrawlConfig } from '../../src/config/crawl-config.js';
import { findTool } from '../../src/stack/index.js';
import { WORKFLOWS_PATH } from '../../src/workers/workflow-bundle.js';
import { HOST_SEARCH_ATTRIBUTE, hostWorkflowId, wakeHostSignal } from '../../src/workflows/messages.js';
import { activitiesOf, createHarness, type Harness } from '../support/crawler-harness.js';
import { politenessReport, requestsByHost, startTestWeb, type TestWeb } from '../support/test-web/index.js';

const HOST = '127.65.0.11';
const PAGES = 6;
const DELAY_MS = 150;
const crawlId = 'wf-v3-patched';

describe('a hostWorkflowV3 run started today', () => {
  let web: TestWeb;
  let harness: Harness;
  let markers: string[] = [];
  let activityTypes: string[] = [];
  let runId = '';

  beforeAll(async () => {
    web = await startTestWeb({
      hosts: [
        {
          host: HOST,
          robotsTxt: 'User-agent: *\nDisallow: /p3\n',
          pages: Array.from({ length: PAGES }, (_, i) => ({ path: `/p${i}`, body: `<!doctype html><html><head><title>${i}</title></head><body><p>V3 page ${i}: ${'dolor '.repeat(i + 4)}</p></body></html>` })),
        },
      ],
    });
    harness = await createHarness(crawlId);
    await harness.startWorker();
    // The crawl's rows as its crawl workflow registers them; no crawl workflow runs: the host run is the subject.
    const config = resolveCrawlConfig({ allowPrivateNetworks: true, minHostDelayMs: DELAY_MS, maxDepth: 0, politeness: { adaptiveFactor: 1 } });
    const seeds = Array.from({ length: PAGES }, (_, i) => `http://${HOST}:${web.port}/p${i}`);
    await new MockActivityEnvironment().run(activitiesOf(harness, 'v3 seeds').registerSeeds, { crawlId, seeds, config, createCrawl: true });
    const handle = await harness.client.workflow.signalWithStart('hostWorkflowV3', {
      workflowId: hostWorkflowId(HOST),
      taskQueue: harness.taskQueue,
      typedSearchAttributes: [{ key: HOST_SEARCH_ATTRIBUTE, value: HOST }],
      args: [{ host: HOST, taskQueue: harness.taskQueue }],
      signal: wakeHostSignal,
      signalArgs: [{ crawlId }],
    });
    runId = handle.signaledRunId;
    // The run ends once its host has nothing left to do.
    await harness.client.workflow.getHandle(hostWorkflowId(HOST), runId).result();
    const history = await harness.client.workflow.getHandle(hostWorkflowId(HOST), runId).fetchHistory();
    activityTypes = (history.events ?? []).flatMap((event) => event.activityTaskScheduledEventAttributes?.activityType?.name ?? []);
    markers = (history.events ?? []).flatMap((event) => {
      const marker = event.markerRecordedEventAttributes;
      if (marker?.markerName === 'core_local_activity') return ['local activity'];
      const patch = marker?.markerName === 'core_patch' ? marker.details?.['patch-data']?.payloads?.[0]?.data : undefined;
      return patch ? [(JSON.parse(Buffer.from(patch).toString()) as { id: string }).id] : [];
    });
    await Worker.runReplayHistory({ workflowsPath: WORKFLOWS_PATH, replayName: 'v3-patched' }, history, hostWorkflowId(HOST));
    if (process.env.RECORD_REPLAY_HISTORY === '1') {
      // The CLI's JSON, as scripts/record-replay-histories.ts saves the others.
      const { stdout } = await promisify(execFile)(
        findTool('temporal')!,
        ['workflow', 'show', '--workflow-id', hostWorkflowId(HOST), '--run-id', runId, '--output', 'json', '--address', harness.stack.temporal.address, '--namespace', harness.stack.temporal.namespace],
        { maxBuffer: 64 * 1024 * 1024 },
      );
      await writeFile(path.resolve('test/replay/histories/host-workflow-v3-patched.json'), `${JSON.stringify({ workflowId: hostWorkflowId(HOST), history: JSON.parse(stdout) })}\n`);
    }
  });

  afterAll(async () => {
    await harness?.close();
    await web?.close();
  });

  it("takes both of hostWorkflowV4's changes behind their patches, and replays", () => {
    expect(markers).toEqual(expect.arrayContaining(['claims-as-local-activities', 'robots-refreshed-in-bursts', 'local activity']));
    // Its claims are local activities, and its burst refreshed robots.txt: neither as an activity task of its own.
    expect(activityTypes).not.toContain('claimHostWork');
    expect(activityTypes).not.toContain('refreshRobots');
    expect(activityTypes).toContain('fetchBurst');
  });

  it('fetches every allowed page once, robots.txt first and by its burst, at the host delay', async () => {
    const log = requestsByHost(web.log()).get(HOST) ?? [];
    expect(log[0]!.path).toBe('/robots.txt');
    expect(log.filter((entry) => entry.path === '/robots.txt')).toHaveLength(1);
    const pages = log.filter((entry) => entry.path !== '/robots.txt').map((entry) => entry.path);
    expect(pages.sort()).toEqual(['/p0', '/p1', '/p2', '/p4', '/p5']);
    const report = politenessReport(log, DELAY_MS);
    expect(report.violations).toEqual([]);
    expect(report.overlaps).toEqual([]);
    const states = await harness.pool.query<{ state: string; n: number }>(`SELECT state, count(*)::int AS n FROM frontier WHERE crawl_id = $1 GROUP BY state ORDER BY state`, [crawlId]);
    expect(states.rows).toEqual([
      { state: 'done', n: PAGES - 1 },
      { state: 'dropped', n: 1 },
    ]);
  });
});
