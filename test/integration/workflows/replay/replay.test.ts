// Committed histories of real runs of today's workflow types (recorded by `npm run replay:record`,
// the recrawl cycle's by `npm run replay:record-recrawl`, a host run with renders by
// `npm run replay:record-render`) replay against the workflow code without
// nondeterminism. A change that breaks this follows CONTRIBUTING.md ("Versioning workflows"):
// before the first release the histories are re-recorded; after it, a released change is patched.
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { Worker } from '@temporalio/worker';
import { describe, expect, it } from 'vitest';
import { historyFromJSON } from '@temporalio/common/lib/proto-utils.js';
import { WORKFLOW_PRELOAD_MODULES, WORKFLOWS_PATH } from '../../../../src/workers/workflow-bundle.js';
import { localActivityOf } from '../../../support/local-activity-marker.js';

const HISTORIES_DIR = path.resolve('test/integration/workflows/replay/histories');

describe('workflow history replay', async () => {
  const files = (await readdir(HISTORIES_DIR)).filter((file) => file.endsWith('.json')).sort();

  it('has recorded histories of every workflow type, one with continue-as-new', async () => {
    const types = new Set<string>();
    let continuedAsNew = false;
    for (const file of files) {
      const { history } = JSON.parse(await readFile(path.join(HISTORIES_DIR, file), 'utf8'));
      types.add(history.events[0].workflowExecutionStartedEventAttributes.workflowType.name);
      continuedAsNew ||= history.events.some((event: { eventType: string }) => event.eventType === 'EVENT_TYPE_WORKFLOW_EXECUTION_CONTINUED_AS_NEW');
    }
    // recrawlCycleWorkflow's (scripts/record-recrawl-history.ts) runs the signal sweep and the plan's crawl as children.
    expect(types).toEqual(new Set(['crawlWorkflow', 'hostWorkflow', 'recrawlCycleWorkflow']));
    expect(continuedAsNew).toBe(true);
  });

  it("has a host run whose first burst was a local activity, and one with burst activities (both paths replay)", async () => {
    let localBursts = 0;
    let burstActivities = 0;
    for (const file of files.filter((name) => name.startsWith('host-workflow'))) {
      const { history } = JSON.parse(await readFile(path.join(HISTORIES_DIR, file), 'utf8'));
      for (const event of historyFromJSON(history).events ?? []) {
        if (localActivityOf(event)?.type === 'fetchBurst') localBursts += 1;
        if (event.activityTaskScheduledEventAttributes?.activityType?.name === 'fetchBurst') burstActivities += 1;
      }
    }
    expect(localBursts).toBeGreaterThanOrEqual(1);
    expect(burstActivities).toBeGreaterThanOrEqual(1);
  });

  it('has a host run that rendered pages on the render task queue (npm run replay:record-render)', async () => {
    const { history } = JSON.parse(await readFile(path.join(HISTORIES_DIR, 'host-workflow-render-run.json'), 'utf8'));
    const renders = (historyFromJSON(history).events ?? []).filter((event) => event.activityTaskScheduledEventAttributes?.activityType?.name === 'renderPage');
    expect(renders.length).toBeGreaterThanOrEqual(3);
    expect(renders.every((event) => event.activityTaskScheduledEventAttributes?.taskQueue?.name?.endsWith('-render'))).toBe(true);
  });

  it.each(files)('%s replays without nondeterminism', async (file) => {
    const { workflowId, history } = JSON.parse(await readFile(path.join(HISTORIES_DIR, file), 'utf8'));
    await Worker.runReplayHistory({ workflowsPath: WORKFLOWS_PATH, bundlerOptions: { preloadModules: [...WORKFLOW_PRELOAD_MODULES] }, replayName: file }, history, workflowId);
  });
});
