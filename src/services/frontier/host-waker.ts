import { WorkflowExecutionAlreadyStartedError, WorkflowNotFoundError } from '@temporalio/client';
import { CRAWL_IDS_SEARCH_ATTRIBUTE, HOST_SEARCH_ATTRIBUTE, HOST_WORKFLOW_TYPE, hostWorkflowId, wakeHostSignal } from '../../contracts/messages.js';
import { markHostInactive, markHostsActive, markHostsInactive, requeueOrphans, staleActiveHosts } from '../../storage/postgres/host-repository.js';
import type { ActivityDeps } from '../deps.js';
import { isExitedLocalWorker } from '../worker-identity.js';

/** Wakes (starts or signals) sent at once: enough to hide latency, few enough to be gentle on the server. */
const WAKE_CONCURRENCY = 16;
/**
 * Waking stops after this long, well inside the frontier tick's 60 s activity timeout: on a busy
 * server a start can take seconds, and a tick that timed out left the hosts it had not
 * reached marked active with no workflow, idle until the reaper found them
 * (bench/README.md, "Figures behind the defaults").
 */
const WAKE_BUDGET_MS = 20_000;
/**
 * A host's workflow task may stay open through its run's first burst, a local activity (LOCAL_BURST
 * in host-loop.ts): longer than the default 10 s on a loaded worker, where a timed-out task ran the
 * burst a second time. The cost: a worker that dies under an open task hands its host on this late.
 */
const HOST_WORKFLOW_TASK_TIMEOUT = '30s';
/** How often a crawl checks that hosts marked active still have a running workflow. */
const REAP_INTERVAL_MS = 30_000;
/** Hosts woken longer ago than this, still holding this crawl's work, are checked. */
const REAP_AGE_SECONDS = 60;

/** Start, then signal a run already there, then start again: a run may end between the two. */
const WAKE_ATTEMPTS = 3;
/**
 * How long the workers polling a task queue for workflow tasks are taken as known before they are
 * asked again (one cheap call a wake at most): a worker that joins gets hosts within this long.
 */
const POLLERS_TRUSTED_MS = 2_000;
/**
 * A poller unseen for longer has stopped: a live worker polls again at least every long-poll
 * interval (60 s by default; watched on the dev server), while the server lists a poller for 5
 * minutes after its last poll.
 */
const POLLER_GONE_AFTER_MS = 75_000;
/** temporal.api.enums.v1.TaskQueueType.TASK_QUEUE_TYPE_WORKFLOW (the proto package is not a dependency of ours). */
const TASK_QUEUE_TYPE_WORKFLOW = 1;

/** What a waker did since it was made: what its tests observe. */
export interface HostWakeCounts {
  /** New runs started. */
  started: number;
  /** Of those, runs whose first workflow task the server handed straight to this worker. */
  startedEagerly: number;
  /** Running workflows signalled instead. */
  signalled: number;
}

/**
 * Wakes host workflows: a closed host workflow gets a new run, a running one a wake signal. Hosts
 * are marked active first so each is woken once per idle period, so nearly every wake starts a
 * run: it is a start, not a signal-with-start, which cannot be eager. Eager (on the worker's own
 * connection: the server hands the run's first task to this worker, and in a wide crawl that task
 * is most runs' only one) only while this worker is the only one polling the task queue for
 * workflow tasks: with two, every host would run where the frontier's tick ran. A fresh run claims
 * its host's work at once, as a woken one does.
 */
export class HostWaker {
  private readonly lastReapMs = new Map<string, number>();
  readonly counts: HostWakeCounts = { started: 0, startedEagerly: 0, signalled: 0 };
  private readonly soleWorker = new Map<string, { askedAtMs: number; sole: boolean }>();

  constructor(private readonly deps: ActivityDeps) {}

  async wake(hosts: string[], crawlId: string, taskQueue: string): Promise<number> {
    if (hosts.length === 0) return 0;
    await markHostsActive(this.deps.pool, hosts);
    let woken = 0;
    const eager = await this.soleWorkflowWorker(taskQueue);
    const queue = [...hosts];
    const failures: unknown[] = [];
    const deadlineMs = this.deps.now() + WAKE_BUDGET_MS;
    const worker = async (): Promise<void> => {
      for (let host = queue.shift(); host !== undefined; host = queue.shift()) {
        if (this.deps.now() > deadlineMs) {
          queue.unshift(host);
          return;
        }
        try {
          await this.startOrSignal(host, crawlId, taskQueue, eager);
          woken += 1;
        } catch (error) {
          // Not woken: let a later tick try again.
          await markHostInactive(this.deps.pool, host);
          failures.push(error);
        }
      }
    };
    await Promise.all(Array.from({ length: Math.min(WAKE_CONCURRENCY, hosts.length) }, worker));
    // Out of time: the hosts not reached are idle again, for the next tick.
    await markHostsInactive(this.deps.pool, queue);
    if (woken === 0 && failures.length > 0) throw failures[0];
    return woken;
  }

  /**
   * Whether this worker is the only one polling `taskQueue` for workflow tasks (its workflow
   * starter then starts runs eagerly). Asked of the server at most every POLLERS_TRUSTED_MS; a
   * worker that stopped counts until it has not polled for POLLER_GONE_AFTER_MS, or at once if
   * it was a process of this machine. Unknown: not eager.
   */
  private async soleWorkflowWorker(taskQueue: string): Promise<boolean> {
    if (this.deps.workflowStarter === undefined) return false;
    const nowMs = this.deps.now();
    const known = this.soleWorker.get(taskQueue);
    if (known !== undefined && nowMs - known.askedAtMs < POLLERS_TRUSTED_MS) return known.sole;
    let sole = false;
    try {
      const { pollers } = await this.deps.temporal.workflowService.describeTaskQueue({
        namespace: this.deps.temporal.options.namespace,
        taskQueue: { name: taskQueue },
        taskQueueType: TASK_QUEUE_TYPE_WORKFLOW,
      });
      // Crawl processes that ended minutes ago are still listed: the ones of this machine whose
      // process has exited, and any unseen for longer than a live worker waits between polls, are not workers.
      const live = (pollers ?? []).filter((poller) => {
        const lastPollMs = poller.lastAccessTime ? Number(poller.lastAccessTime.seconds ?? 0) * 1000 : nowMs;
        return nowMs - lastPollMs <= POLLER_GONE_AFTER_MS && !isExitedLocalWorker(poller.identity ?? '');
      });
      const identities = new Set(live.map((poller) => poller.identity));
      sole = identities.size === 1 && identities.has(this.deps.workerId);
    } catch {
      // Not known now: start through the task queue, as any worker may.
    }
    this.soleWorker.set(taskQueue, { askedAtMs: nowMs, sole });
    return sole;
  }

  private async startOrSignal(host: string, crawlId: string, taskQueue: string, eager: boolean): Promise<void> {
    const workflowId = hostWorkflowId(host);
    for (let attempt = 1; ; attempt += 1) {
      try {
        const handle = await (eager ? this.deps.workflowStarter! : this.deps.temporal).workflow.start(HOST_WORKFLOW_TYPE, {
          workflowId,
          taskQueue,
          workflowTaskTimeout: HOST_WORKFLOW_TASK_TIMEOUT,
          // Set at start, the crawl's host list costs the run no event; it names later crawls itself.
          typedSearchAttributes: [
            { key: HOST_SEARCH_ATTRIBUTE, value: host },
            { key: CRAWL_IDS_SEARCH_ATTRIBUTE, value: [crawlId] },
          ],
          args: [{ host, taskQueue }],
          staticSummary: `Back queue of ${host}`,
          requestEagerStart: eager,
        });
        this.counts.started += 1;
        if (handle.eagerlyStarted) this.counts.startedEagerly += 1;
        return;
      } catch (error) {
        if (!(error instanceof WorkflowExecutionAlreadyStartedError)) throw error;
      }
      try {
        await this.deps.temporal.workflow.getHandle(workflowId).signal(wakeHostSignal, { crawlId });
        this.counts.signalled += 1;
        return;
      } catch (error) {
        // The run ended between the start and the signal: start the next one.
        if (!(error instanceof WorkflowNotFoundError) || attempt >= WAKE_ATTEMPTS) throw error;
      }
    }
  }

  /**
   * A host workflow that failed or was terminated leaves its URLs dispatched and its host
   * marked active; without this, the crawl would wait for them forever.
   */
  async reapLostHosts(crawlId: string): Promise<number> {
    const nowMs = this.deps.now();
    if (nowMs - (this.lastReapMs.get(crawlId) ?? 0) < REAP_INTERVAL_MS) return 0;
    this.lastReapMs.set(crawlId, nowMs);
    const candidates = await staleActiveHosts(this.deps.pool, crawlId, REAP_AGE_SECONDS, 50);
    let reaped = 0;
    for (const host of candidates) {
      if (await this.isRunning(host)) continue;
      await requeueOrphans(this.deps.pool, crawlId, host);
      await markHostInactive(this.deps.pool, host);
      reaped += 1;
    }
    // Requeued and inactive: the next tick wakes them like any idle host with work.
    return reaped;
  }

  private async isRunning(host: string): Promise<boolean> {
    try {
      const description = await this.deps.temporal.workflow.getHandle(hostWorkflowId(host)).describe();
      return description.status.name === 'RUNNING';
    } catch (error) {
      if (error instanceof WorkflowNotFoundError) return false;
      throw error;
    }
  }
}
