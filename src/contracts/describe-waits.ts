/** What a crawl waits for, in words: the progress line, `crawler status` and the Temporal UI say it alike. */
import type { CrawlRenderStatus, CrawlWaits, HostWaitReason } from './status.js';

const HELD_BY: Record<HostWaitReason, string> = {
  'robots-unreachable': 'held by an unreachable robots.txt',
  'retry-after': 'held by Retry-After (or a 429/503 throttle)',
  'circuit-open': 'held by the circuit breaker',
  'retry-backoff': "waiting out a retry's backoff",
  'crawl-delay': 'waiting out a long Crawl-delay',
  'render-worker': 'waiting for a render worker (none took their renders: run crawler worker --render-slots N)',
};

/** Why a host waits, in words ("held by the circuit breaker"). */
export function describeHostWaitReason(reason: HostWaitReason): string {
  return HELD_BY[reason];
}

/** "12:03:04Z": a time of day in UTC, which is what a progress line needs. */
export function clockTime(ms: number): string {
  return `${new Date(ms).toISOString().slice(11, 19)}Z`;
}

/** "1 host", "2 hosts". */
function hostCount(n: number): string {
  return `${n} host${n === 1 ? '' : 's'}`;
}

/** One clause per wait, e.g. "2 hosts held by the circuit breaker until 12:03:04Z"; empty when the crawl waits for nothing unusual. */
export function describeCrawlWaits(waits: CrawlWaits | undefined): string[] {
  if (waits === undefined) return [];
  const clauses = waits.hosts.map((group) => {
    const hosts = hostCount(group.hosts);
    const until = group.nextEndsAtMs === group.lastEndsAtMs ? `until ${clockTime(group.lastEndsAtMs)}` : `until ${clockTime(group.nextEndsAtMs)} to ${clockTime(group.lastEndsAtMs)}`;
    return `${hosts} ${HELD_BY[group.reason]} ${until}`;
  });
  const { waitingForWorker: unstarted, storage } = waits;
  if (unstarted !== undefined) {
    clauses.push(`${hostCount(unstarted.hosts)} woken since ${clockTime(unstarted.sinceMs)} waiting for a worker to start ${unstarted.hosts === 1 ? 'its run' : 'their runs'} (worker slots busy, or no worker on the task queue)`);
  }
  if (storage.failingSinceMs !== null) {
    clauses.push(`object store failing since ${clockTime(storage.failingSinceMs)} (${storage.failures} failed tries${storage.lastError ? `, last: ${storage.lastError}` : ''}); fetched bodies wait for it`);
  }
  return clauses;
}

/** One clause for the progress line and `crawler status`; empty when there is nothing to say. */
export function describeRenders(renders: CrawlRenderStatus | undefined): string {
  if (renders === undefined) return '';
  const parts = [`rendered ${renders.rendered}`];
  if (renders.partial > 0) parts.push(`partial ${renders.partial}`);
  if (renders.pending > 0) parts.push(`render queue ${renders.pending}`);
  if (renders.failed > 0) {
    const types = Object.entries(renders.failedByType ?? {}).map(([type, n]) => `${type} ${n}`);
    parts.push(`render failed ${renders.failed}${types.length > 0 ? ` (${types.join(', ')})` : ''}`);
  }
  if (renders.deferred > 0) parts.push(`render-deferred ${renders.deferred}`);
  parts.push(`budget ${renders.renders}/${renders.budget.maxRenders} renders, ${renders.cpuSeconds}/${renders.budget.maxCpuSeconds} CPU s`);
  let line = parts.join(', ');
  if (renders.noRenderWorker && renders.oldestPendingAtMs !== null) {
    line += `; ${renders.pending} renders waiting since ${clockTime(renders.oldestPendingAtMs)} for a render worker: none polls the render queue (crawler worker --render-slots N)`;
  }
  return line;
}
