/**
 * The Temporal SDK runs workflow code in a vm context and passes its `isolateExecutionTimeout` as
 * `timeout` to every call into that context (an activation makes several: activate, one per round
 * of unblocked conditions, conclude). Node enforces that timeout with a watchdog thread started and
 * joined on each call (nodejs/node#47739), which costs many times the call itself and, on a wide
 * crawl, about half of the workflow thread's busy time (bench/README.md, "Figures behind the defaults").
 *
 * Workers made by `workerWithSandboxCallTimeout(undefined)` call into the sandbox with no timeout.
 * What is lost: an activation stuck in a synchronous loop is no longer cut off after 5 s as a
 * "potential deadlock"; it holds the worker's workflow thread, every workflow of that worker waits,
 * and Temporal gives their tasks to other workers once their task timeouts pass. Our workflows are
 * thin and deterministic, their decisions unit-tested without a server (a loop that never ends
 * fails its test by timeout). A worker keeps the SDK's limit with `sandboxCallTimeoutMs`.
 */
import { Worker } from '@temporalio/worker';

type CreateWorkflowCreatorArgs = Parameters<(typeof Worker)['createWorkflowCreator']>;

/** A Worker class whose calls into the workflow sandbox are cut off after `timeoutMs`, or never (undefined). */
export function workerWithSandboxCallTimeout(timeoutMs: number | undefined): typeof Worker {
  return class extends Worker {
    protected static override createWorkflowCreator(...[bundle, compiledOptions, logger]: CreateWorkflowCreatorArgs): ReturnType<(typeof Worker)['createWorkflowCreator']> {
      // Undefined reaches vm's runInContext as `timeout: undefined`: no watchdog thread.
      return super.createWorkflowCreator(bundle, { ...compiledOptions, isolateExecutionTimeoutMs: timeoutMs as number }, logger);
    }
  };
}
