// `crawler status --host`: the host workflow's own answer when it comes quickly, else what
// Postgres holds of the host. A query waits for the workflow's open task, and a run's first burst
// runs inside that task (a local activity, LOCAL_BURST): on a loaded worker for 10 s or more.
import { WorkflowNotFoundError, type Client } from '@temporalio/client';
import { hostStatusQuery, hostWorkflowId } from '../contracts/messages.js';
import type { HostStatus } from '../contracts/status.js';
import { readSavedHostRecord, type SavedHostRecord } from '../storage/postgres/host-repository.js';
import type { Pool } from '../storage/postgres/pool.js';
import { CliError } from './cli-error.js';
import { errorChain } from './client-outages.js';

/** How long `status --host` waits for the workflow's answer before it shows Postgres's record. */
export const HOST_ANSWER_WITHIN_MS = 3000;

export type HostStatusReport =
  | { host: string; answered: true; status: HostStatus }
  | { host: string; answered: false; waitedMs: number; saved: SavedHostRecord | undefined };

export async function hostStatusReport(client: Client, pool: Pool, host: string, answerWithinMs: number = HOST_ANSWER_WITHIN_MS): Promise<HostStatusReport> {
  try {
    const status = await client.connection.withDeadline(Date.now() + answerWithinMs, () => client.workflow.getHandle(hostWorkflowId(host)).query(hostStatusQuery));
    return { host, answered: true, status };
  } catch (error) {
    if (error instanceof WorkflowNotFoundError) throw new CliError(`no workflow for host ${host}: it has not been crawled, or its run ended (idle hosts end their workflow)`);
    // The host's latest run closed (terminated, timed out) before its first workflow task ran: a
    // query has nothing to replay. Seen when a run is terminated from the UI while no worker polls.
    if (hasGrpcCode(error, FAILED_PRECONDITION)) {
      throw new CliError(
        `the workflow of host ${host} closed before its first task ran (terminated or timed out): it has no live view. ` +
          'A crawl that still holds work for the host wakes it again; `crawler status --crawl ID` shows the crawl.',
      );
    }
    if (!hasGrpcCode(error, DEADLINE_EXCEEDED)) throw error;
    return { host, answered: false, waitedMs: answerWithinMs, saved: await readSavedHostRecord(pool, host) };
  }
}

const DEADLINE_EXCEEDED = 4;
const FAILED_PRECONDITION = 9;

/** Whether the error, or an error it wraps, carries this gRPC status code. */
function hasGrpcCode(error: unknown, code: number): boolean {
  return [...errorChain(error)].some((current) => (current as { code?: unknown }).code === code);
}

export function describeHostStatus(report: HostStatusReport): string {
  if (report.answered) {
    const { status } = report;
    return [
      `host ${status.host} (run ${status.run})${status.paused ? ' PAUSED' : ''}${status.quarantinedReason ? ` QUARANTINED: ${status.quarantinedReason}` : ''}`,
      `  queue ${status.queueLength}, in flight ${status.inFlight}, parses pending ${status.pendingParses}${status.rendersQueued ? `, renders ${status.rendersQueued}` : ''}`,
      `  next fetch at ${new Date(status.nextFetchAtMs).toISOString()}${status.delayOverrideMs !== null ? `, delay override ${status.delayOverrideMs} ms` : ''}`,
      `  fetches this run ${status.fetchesThisRun}`,
    ].join('\n');
  }
  const { saved } = report;
  const lines = [
    `host ${report.host}: its workflow did not answer within ${(report.waitedMs / 1000).toFixed(0)} s. A query waits for the workflow's open task: ` +
      `a run's first burst runs inside it (seconds, more on a loaded worker), or no worker polls its task queue. ` +
      `Run this again for the live view; what Postgres holds meanwhile:`,
  ];
  if (saved === undefined) return [...lines, '  no record of this host: no crawl has met it'].join('\n');
  const at = (date: Date | null): string => (date === null ? 'never' : date.toISOString());
  lines.push(
    `  ${saved.workflowActive ? 'active' : 'idle'}${saved.paused ? ', PAUSED' : ''}${saved.quarantinedReason ? `, QUARANTINED: ${saved.quarantinedReason}` : ''}; woken ${at(saved.wokenAt)}, run started ${at(saved.runStartedAt)}`,
    `  queued in Postgres (not yet claimed by its workflow) ${saved.queued}`,
    `  next fetch at ${saved.nextFetchAtMs === null ? 'unknown' : new Date(saved.nextFetchAtMs).toISOString()} (as of its last release)${saved.delayOverrideMs !== null ? `, delay override ${saved.delayOverrideMs} ms` : ''}`,
  );
  return lines.join('\n');
}
