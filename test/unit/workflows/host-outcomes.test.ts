// What an outcome decides (src/workflows/host-outcomes.ts): decisions read the queue and change
// nothing; applyDecision makes their changes, in order.
import { describe, expect, it } from 'vitest';
import type { HostWorkItem } from '../../../src/contracts/activities.js';
import { afterFetch, applyDecision, decideAfterFailure, decideRobotsRefreshWait } from '../../../src/workflows/host-outcomes.js';
import { HostQueue } from '../../../src/workflows/host-queue.js';

const ORIGIN = 'http://o.example';
const T0 = Date.UTC(2026, 11, 3, 12, 0, 0);
const item = (overrides: Partial<HostWorkItem> = {}): HostWorkItem => ({
  crawlId: 'c',
  fingerprint: 'f'.repeat(32),
  url: `${ORIGIN}/a`,
  origin: ORIGIN,
  depth: 1,
  generation: 1,
  attempt: 0,
  purpose: 'discovery',
  minHostDelayMs: 1000,
  maxConcurrentFetches: 1,
  ...overrides,
});

/** A queue with fresh rules and one other URL, and its snapshot to compare against. */
function queueWithOne(): { queue: HostQueue; before: string } {
  const queue = HostQueue.fresh('o.example');
  queue.noteRobotsFreshUntil(ORIGIN, T0 + 60_000);
  queue.enqueue([item({ fingerprint: 'e'.repeat(32), url: `${ORIGIN}/other` })]);
  return { queue, before: JSON.stringify(queue.snapshotForNextRun()) };
}

describe('outcome decisions', () => {
  it('a fetch that met stale rules: marks them stale and requeues the URL at the front, only when applied', () => {
    const { queue, before } = queueWithOne();
    const decision = afterFetch(item(), { kind: 'robots-stale' } as never);
    expect(decision).toEqual({ followUps: [], changes: [{ kind: 'robots-stale', origin: ORIGIN }, { kind: 'requeue-front', item: item() }] });
    expect(JSON.stringify(queue.snapshotForNextRun())).toBe(before);
    expect(applyDecision(queue, decision)).toEqual([]);
    expect(queue.robotsFresh(ORIGIN, T0)).toBe(false);
    expect(queue.queue.map((one) => one.url)).toEqual([`${ORIGIN}/a`, `${ORIGIN}/other`]);
  });

  it('a host-level retry goes back to the front with its next attempt; a final failure settles; neither changes the queue by itself', () => {
    const { queue, before } = queueWithOne();
    const retry = decideAfterFailure(queue, item(), 'ServiceUnavailable', undefined, '503', T0, () => 0.5);
    expect(retry.followUps).toEqual([]);
    expect(retry.changes).toMatchObject([{ kind: 'requeue-front', item: { url: `${ORIGIN}/a`, attempt: 1 } }]);
    const final = decideAfterFailure(queue, item(), 'NotFound', undefined, '404', T0, () => 0.5);
    expect(final).toMatchObject({ followUps: [{ kind: 'settle', outcome: { kind: 'failed', failureType: 'NotFound', attempts: 1 } }], changes: [] });
    expect(JSON.stringify(queue.snapshotForNextRun())).toBe(before);
  });

  it("an unreachable robots.txt: each patient URL counts from the origin's first such time, the earliest one noted", () => {
    const queue = HostQueue.fresh('o.example');
    const patient = { robotsUnreachablePatienceMs: 600_000 };
    const first = item({ politeness: patient, heldByRobotsSinceMs: T0 - 5000 });
    const second = item({ fingerprint: 'd'.repeat(32), url: `${ORIGIN}/b`, politeness: patient });
    const decision = decideRobotsRefreshWait(queue, [first, second], ORIGIN, T0 + 60_000, T0, () => 0.5);
    // The second URL, never held before, counts from the first one's time, not from now.
    expect(decision.changes.filter((change) => change.kind === 'enqueue').map((change) => change.kind === 'enqueue' && change.item.heldByRobotsSinceMs)).toEqual([T0 - 5000, T0 - 5000]);
    expect(queue.robotsUnreachableSince(ORIGIN)).toBeUndefined();
    applyDecision(queue, decision);
    expect(queue.robotsUnreachableSince(ORIGIN)).toBe(T0 - 5000);
    expect(queue.queue.map((one) => one.notBeforeMs)).toEqual([T0 + 60_000, T0 + 60_000]);
  });
});
