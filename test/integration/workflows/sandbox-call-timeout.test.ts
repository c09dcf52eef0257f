// Workers made by workerWithSandboxCallTimeout: with no timeout, a long synchronous activation runs
// to its end even where the worker's options set a short isolateExecutionTimeout (the override
// wins); with one, the SDK fails the activation ("Script execution timed out"). The spin lasts far longer
// than the 100 ms limit (hundreds of ms of arithmetic), so either check fails if the other behaviour comes back.
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Client, Connection } from '@temporalio/client';
import { bundleWorkflowCode, NativeConnection, type Worker, type WorkerOptions } from '@temporalio/worker';
import { workerWithSandboxCallTimeout } from '../../../src/workers/sandbox-call-timeout.js';
import { temporalClient, testStack, uniqueTaskQueue } from '../../support/stack-context.js';
import { waitFor } from '../../support/wait-for.js';

const SPIN_ITERATIONS = 300_000_000;
const SHORT_LIMIT = '100ms';

describe('calls into the workflow sandbox', () => {
  let client: Client;
  let connection: Connection;
  let nativeConnection: NativeConnection;
  let workflowBundle: { code: string };

  beforeAll(async () => {
    ({ client, connection } = await temporalClient());
    nativeConnection = await NativeConnection.connect({ address: testStack().temporal.address });
    workflowBundle = await bundleWorkflowCode({ workflowsPath: path.resolve('test/support/workflows/spin-workflow.ts'), logger: quietLogger });
  });

  afterAll(async () => {
    await nativeConnection?.close();
    await connection?.close();
  });

  async function runWith<T>(WorkerClass: typeof Worker, use: (taskQueue: string) => Promise<T>): Promise<T> {
    const taskQueue = uniqueTaskQueue('sandbox-call-timeout');
    // isolateExecutionTimeout is read by the SDK (its default is 5 s) but left out of WorkerOptions' type.
    const options = { connection: nativeConnection, namespace: testStack().temporal.namespace, taskQueue, workflowBundle, isolateExecutionTimeout: SHORT_LIMIT };
    const worker = await WorkerClass.create(options as WorkerOptions);
    return worker.runUntil(use(taskQueue));
  }

  it('run to their end with no timeout, whatever isolateExecutionTimeout says', async () => {
    const result = await runWith(workerWithSandboxCallTimeout(undefined), (taskQueue) =>
      client.workflow.execute('spinWorkflow', { taskQueue, workflowId: `spin-unwatched-${Date.now()}`, args: [SPIN_ITERATIONS], workflowExecutionTimeout: '60s' }),
    );
    expect(typeof result).toBe('number');
  });

  it("fail the activation past a timeout (the SDK's deadlock guard)", async () => {
    const workflowId = `spin-watched-${Date.now()}`;
    const failure = await runWith(workerWithSandboxCallTimeout(100), async (taskQueue) => {
      const handle = await client.workflow.start('spinWorkflow', { taskQueue, workflowId, args: [SPIN_ITERATIONS], workflowExecutionTimeout: '60s' });
      const failed = await waitFor(
        async () => (await handle.fetchHistory()).events?.find((event) => event.workflowTaskFailedEventAttributes)?.workflowTaskFailedEventAttributes?.failure?.message,
        (message) => message !== undefined,
        { timeoutMs: 30_000 },
      );
      await handle.terminate('test over');
      return failed;
    });
    expect(failure).toMatch(/Script execution timed out after 100ms/);
  });
});

const noop = (): void => undefined;
const quietLogger = { trace: noop, debug: noop, info: noop, warn: noop, error: noop, log: noop };
