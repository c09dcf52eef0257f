import { WorkflowNotFoundError } from '@temporalio/client';
import { HOST_SEARCH_ATTRIBUTE, HOST_WORKFLOW_TYPE, hostWorkflowId, wakeHostSignal } from '../../contracts/messages.js';
import { markHostInactive, markHostsActive, markHostsInactive, requeueOrphans, staleActiveHosts } from '../../storage/postgres/host-repository.js';
import type { ActivityDeps } from '../deps.js';

/** Signals sent at once while waking hosts: enough to hide latency, few enough to be gentle on the server. */
const WAKE_CONCURRENCY = 16;
/**
 * Waking stops after this long, well inside the frontier tick's 60 s activity timeout: on a busy
 * server a signal-with-start can take seconds, and a tick that timed out left the hosts it had not
 * reached marked active with no workflow, idle until the reaper found them (seen at 1,000 hosts).
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

/**
 * Wakes host workflows with signal-with-start: a running host workflow gets a signal, a closed
 * one a new run. Hosts are marked active first so each is woken once per idle period.
 */
export class HostWaker {
  private readonly lastReapMs = new Map<string, number>();

  constructor(private readonly deps: ActivityDeps) {}

  async wake(hosts: string[], crawlId: string, taskQueue: string): Promise<number> {
    if (hosts.length === 0) return 0;
    await markHostsActive(this.deps.pool, hosts);
    let woken = 0;
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
          await this.signalWithStart(host, crawlId, taskQueue);
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

  private async signalWithStart(host: string, crawlId: string, taskQueue: string): Promise<void> {
    await this.deps.temporal.workflow.signalWithStart(HOST_WORKFLOW_TYPE, {
      workflowId: hostWorkflowId(host),
      taskQueue,
      workflowTaskTimeout: HOST_WORKFLOW_TASK_TIMEOUT,
      typedSearchAttributes: [{ key: HOST_SEARCH_ATTRIBUTE, value: host }],
      args: [{ host, taskQueue }],
      signal: wakeHostSignal,
      signalArgs: [{ crawlId }],
      staticSummary: `Back queue of ${host}`,
    });
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
