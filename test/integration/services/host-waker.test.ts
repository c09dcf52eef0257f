// Waking hosts on a real Temporal server: a closed host workflow gets a new run, started (eagerly
// when the waker has the worker's own connection), a running one a wake signal, never an error.
import { spawn } from 'node:child_process';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hostWorkflowId, wakeHostSignal } from '../../../src/contracts/messages.js';
import type { ActivityDeps } from '../../../src/services/deps.js';
import { HostWaker, type HostWakeCounts } from '../../../src/services/frontier/host-waker.js';
import { workerIdentity } from '../../../src/services/worker-identity.js';
import { createCrawlerWorker } from '../../../src/workers/crawler-worker.js';
import { createHarness, type Harness } from '../../support/crawler-harness.js';

describe('HostWaker', () => {
  let harness: Harness;
  const crawlId = `host-waker-${Date.now()}`;

  const depsOf = (extra: Partial<ActivityDeps> = {}): ActivityDeps => ({
    pool: harness.pool,
    bodies: harness.bodies,
    http: () => {
      throw new Error('waking hosts must not fetch');
    },
    temporal: harness.client,
    workerId: 'host-waker-test',
    spoolDir: path.join(harness.dataDir, 'host-waker-spool'),
    now: Date.now,
    ...extra,
  });
  const eventTypesOf = async (host: string): Promise<string[]> => {
    const history = await harness.client.workflow.getHandle(hostWorkflowId(host)).fetchHistory();
    return (history.events ?? []).map((event) => String(event.eventType));
  };

  /** Until the server lists `identity` among the task queue's workflow pollers: a worker just started may not poll yet. */
  const untilPolling = async (identity: string): Promise<void> => {
    for (let tries = 0; ; tries += 1) {
      const { pollers } = await harness.client.workflowService.describeTaskQueue({ namespace: 'default', taskQueue: { name: harness.taskQueue }, taskQueueType: 1 });
      if ((pollers ?? []).some((poller) => poller.identity === identity)) return;
      if (tries > 100) throw new Error(`worker ${identity} never polled ${harness.taskQueue}`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  };

  beforeAll(async () => {
    harness = await createHarness('host-waker');
  });

  afterAll(async () => {
    await harness?.close();
  });

  it('starts a run for a host with none, signals it while it runs, and starts the next once it closed', async () => {
    // No worker: a started run stays open, waiting for one.
    const host = '127.75.1.1';
    const waker = new HostWaker(depsOf());
    expect(await waker.wake([host], crawlId, harness.taskQueue)).toBe(1);
    expect(waker.counts).toEqual({ started: 1, startedEagerly: 0, signalled: 0 });
    const handle = harness.client.workflow.getHandle(hostWorkflowId(host));
    const first = await handle.describe();
    expect(first.status.name).toBe('RUNNING');
    expect(await eventTypesOf(host)).not.toContain('EVENT_TYPE_WORKFLOW_EXECUTION_SIGNALED');

    expect(await waker.wake([host], crawlId, harness.taskQueue)).toBe(1);
    expect(waker.counts).toEqual({ started: 1, startedEagerly: 0, signalled: 1 });
    expect((await handle.describe()).runId).toBe(first.runId);
    const signalled = (await handle.fetchHistory()).events?.find((event) => event.workflowExecutionSignaledEventAttributes);
    expect(signalled?.workflowExecutionSignaledEventAttributes?.signalName).toBe(wakeHostSignal.name);

    await handle.terminate('test: the run ended');
    expect(await waker.wake([host], crawlId, harness.taskQueue)).toBe(1);
    expect(waker.counts).toEqual({ started: 2, startedEagerly: 0, signalled: 1 });
    const second = await harness.client.workflow.getHandle(hostWorkflowId(host)).describe();
    expect(second.runId).not.toBe(first.runId);
    expect(second.status.name).toBe('RUNNING');
    await harness.client.workflow.getHandle(hostWorkflowId(host)).terminate('test over');
  });

  it('starts the next run when the running one ends between the refused start and the wake signal', async () => {
    const host = '127.75.1.5';
    const workflowId = hostWorkflowId(host);
    // No worker: the first run stays open until the signal below ends it.
    await new HostWaker(depsOf()).wake([host], crawlId, harness.taskQueue);
    const first = await harness.client.workflow.getHandle(workflowId).describe();
    // The run closes just as the waker signals it: the signal meets a closed run (WorkflowNotFound).
    const client = harness.client;
    const closesBeforeSignal = {
      workflow: {
        start: client.workflow.start.bind(client.workflow),
        getHandle: (id: string) => {
          const handle = client.workflow.getHandle(id);
          return { signal: async (...args: Parameters<typeof handle.signal>) => (await handle.terminate('test: the run ended'), handle.signal(...args)) };
        },
      },
    } as unknown as Harness['client'];
    const waker = new HostWaker(depsOf({ temporal: closesBeforeSignal }));
    expect(await waker.wake([host], crawlId, harness.taskQueue)).toBe(1);
    expect(waker.counts).toEqual({ started: 1, startedEagerly: 0, signalled: 0 });
    const second = await client.workflow.getHandle(workflowId).describe();
    expect(second.runId).not.toBe(first.runId);
    expect(second.status.name).toBe('RUNNING');
    await client.workflow.getHandle(workflowId).terminate('test over');
  });

  /** Wakes `host` from the harness's worker once it polls; its run claims nothing, releases the host and ends. */
  const wakeFromHarnessWorker = async (host: string): Promise<HostWakeCounts> => {
    const worker = await harness.startWorker();
    try {
      await untilPolling(worker.worker.options.identity);
      const waker = new HostWaker(depsOf({ workflowStarter: worker.workflowStarter, workerId: worker.worker.options.identity }));
      expect(await waker.wake([host], crawlId, harness.taskQueue)).toBe(1);
      await harness.client.workflow.getHandle(hostWorkflowId(host)).result();
      return waker.counts;
    } finally {
      await harness.stopWorker();
    }
  };
  /** A second worker on the harness's task queue, polling. */
  const startOtherWorker = async (identity: string): Promise<{ stop: () => Promise<void> }> => {
    const other = await createCrawlerWorker({ temporal: harness.stack.temporal, databaseUrl: harness.databaseUrl, s3: harness.s3, dataDir: harness.dataDir, taskQueue: harness.taskQueue, identity, maxDatabaseConnections: 2 });
    const running = other.run();
    await untilPolling(identity);
    return { stop: async () => (await other.shutdown(), await running) };
  };

  it("hands a new run's first task straight to the worker on its own connection (eager start) while it polls alone", async () => {
    expect(await wakeFromHarnessWorker('127.75.1.2')).toEqual({ started: 1, startedEagerly: 1, signalled: 0 });
  });

  it('starts eagerly again once the other worker was a process of this machine that has exited', async () => {
    // A worker named as a process that has exited polls, then stops: the server still lists it.
    const exited = spawn(process.execPath, ['-e', '']);
    await new Promise((resolve) => exited.once('exit', resolve));
    await (await startOtherWorker(workerIdentity(exited.pid!))).stop();
    expect(await wakeFromHarnessWorker('127.75.1.4')).toEqual({ started: 1, startedEagerly: 1, signalled: 0 });
  });

  it('starts runs through the task queue when another worker polls it too, so that both get hosts', async () => {
    const other = await startOtherWorker('host-waker-test/other');
    try {
      expect(await wakeFromHarnessWorker('127.75.1.3')).toEqual({ started: 1, startedEagerly: 0, signalled: 0 });
    } finally {
      await other.stop();
    }
  });
});
