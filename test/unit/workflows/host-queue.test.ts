// The host workflow's state machine is a plain class: its politeness decisions are tested here
// without a server; the workflow tests cover the wiring.
import { describe, expect, it } from 'vitest';
import type { HostWorkItem } from '../../../src/contracts/activities.js';
import { HostQueue } from '../../../src/workflows/host-queue.js';

const item = (overrides: Partial<HostWorkItem> = {}): HostWorkItem => ({
  crawlId: 'c',
  fingerprint: '0'.repeat(32),
  url: 'http://h.example/',
  origin: 'http://h.example',
  depth: 0,
  generation: 1,
  attempt: 0,
  purpose: 'discovery',
  minHostDelayMs: 500,
  maxConcurrentFetches: 1,
  ...overrides,
});
const noJitter = () => 0.5;

describe('HostQueue', () => {
  it('takes the strictest delay: the operator override first, else the crawl, and robots Crawl-delay on top', () => {
    const queue = HostQueue.fresh('h.example');
    expect(queue.policyFor(item()).minDelayMs).toBe(500);
    queue.noteRobotsRules('http://h.example', { freshUntilMs: 0, policyKind: 'rules', finishedAtMs: 0, crawlDelayMs: 2000 });
    queue.noteRobotsRules('https://h.example', { freshUntilMs: 0, policyKind: 'rules', finishedAtMs: 0, crawlDelayMs: 3000 });
    expect(queue.policyFor(item()).crawlDelayMs).toBe(3000);
    queue.overrideDelay(100);
    expect(queue.policyFor(item()).minDelayMs).toBe(100);
  });

  it('starts the next request only after the politeness delay from the end of the last one', () => {
    const queue = HostQueue.fresh('h.example');
    queue.enqueue([item(), item({ fingerprint: '1'.repeat(32) })]);
    expect(queue.canStartAt(1_000)).toBe(true);
    queue.takeFirst();
    queue.noteRequestStarted(1_000, item());
    expect(queue.canStartAt(1_001)).toBe(false); // one in flight
    queue.noteOutcome({ kind: 'response', startedAtMs: 1_000, finishedAtMs: 1_020, status: 200 }, item(), noJitter, 1_020);
    expect(queue.inFlight).toBe(0);
    expect(queue.canStartAt(1_400)).toBe(false);
    expect(queue.nextFetchAtMs(1_400)).toBeGreaterThanOrEqual(1_520);
    expect(queue.canStartAt(queue.nextFetchAtMs(1_400))).toBe(true);
  });

  it('holds everything while paused', () => {
    const queue = HostQueue.fresh('h.example');
    queue.enqueue([item()]);
    queue.pause();
    expect(queue.canStartAt(10_000)).toBe(false);
  });

  it('carries queue, politeness, robots and operator settings to the next run as JSON', () => {
    const queue = HostQueue.fresh('h.example');
    queue.enqueue([item()]);
    queue.noteRequestStarted(5_000, item());
    queue.noteOutcome({ kind: 'response', startedAtMs: 5_000, finishedAtMs: 5_100, status: 429, retryAfterAtMs: 60_000 }, item(), noJitter, 5_100);
    queue.noteRobotsFreshUntil('http://h.example', 99_000);
    queue.overrideDelay(700);
    const next = new HostQueue(JSON.parse(JSON.stringify(queue.snapshotForNextRun())));
    expect(next.run).toBe(2);
    expect(next.queue).toEqual(queue.queue);
    expect(next.delayOverrideMs).toBe(700);
    expect(next.robotsFresh('http://h.example', 98_000)).toBe(true);
    expect(next.nextFetchAtMs(6_000)).toBeGreaterThanOrEqual(60_000);
  });

  describe('fetch bursts', () => {
    const T0 = 1_700_000_000_000;
    const limits = { maxHostDelayMs: 1000, maxPaceWaitMs: 3000, maxUrls: 4, maxSpanMs: 5000 };
    const fresh = (...items: HostWorkItem[]): HostQueue => {
      const queue = HostQueue.fresh('h.example');
      queue.enqueue(items);
      return queue;
    };

    it('takes the first try and the run of first tries of its crawl behind it, up to the limits', () => {
      const first = item({ url: 'http://h.example/0' });
      expect(fresh(item(), item(), item()).fetchBurstSizeWith(first, T0, limits)).toBe(4);
      expect(fresh(item(), item(), item(), item(), item()).fetchBurstSizeWith(first, T0, limits)).toBe(4);
      expect(fresh(item(), item({ notBeforeMs: T0 }), item()).fetchBurstSizeWith(first, T0, limits)).toBe(2);
      expect(fresh(item({ crawlId: 'other' }), item()).fetchBurstSizeWith(first, T0, limits)).toBe(1);
      expect(fresh().fetchBurstSizeWith(first, T0, limits)).toBe(1);
    });

    it('sends a retry alone, and a host whose delay is long or whose circuit opened', () => {
      expect(fresh(item(), item()).fetchBurstSizeWith(item({ notBeforeMs: T0 - 1 }), T0, limits)).toBe(1);
      expect(fresh(item({ minHostDelayMs: 2000 })).fetchBurstSizeWith(item({ minHostDelayMs: 2000 }), T0, limits)).toBe(1);
      const tripped = fresh(item(), item());
      tripped.adoptPoliteness({ ...tripped.politenessAt(T0), consecutiveFailures: 5, circuitOpenUntilMs: T0 - 1 });
      expect(tripped.fetchBurstSizeWith(item(), T0, limits)).toBe(1);
      tripped.overrideDelay(100);
      tripped.adoptPoliteness({ ...tripped.politenessAt(T0), consecutiveFailures: 0 });
      expect(tripped.fetchBurstSizeWith(item(), T0, limits)).toBe(3);
    });

    it('lets a first try lead a burst however few follow it, unless it is a retry, the host slow, multi-slot or its circuit open', () => {
      expect(fresh().burstable(item(), T0, limits)).toBe(true);
      expect(fresh().burstable(item({ notBeforeMs: T0 - 1 }), T0, limits)).toBe(false);
      expect(fresh().burstable(item({ minHostDelayMs: 2000 }), T0, limits)).toBe(false);
      expect(fresh().burstable(item({ maxConcurrentFetches: 2 }), T0, limits)).toBe(false);
      const tripped = fresh();
      tripped.adoptPoliteness({ ...tripped.politenessAt(T0), consecutiveFailures: 5, circuitOpenUntilMs: T0 + 1 });
      expect(tripped.burstable(item(), T0, limits)).toBe(false);
      expect(tripped.burstable(item(), T0 + 1, limits)).toBe(false);
    });

    describe('an early burst start (the activity waits out the host delay)', () => {
      // Two first tries queued, robots fresh, the last request ended at T0 with a 500 ms delay.
      const waiting = (...items: HostWorkItem[]): HostQueue => {
        const queue = fresh(...items);
        queue.noteRobotsFreshUntil('http://h.example', T0 + 60_000);
        queue.adoptPoliteness({ ...queue.politenessAt(T0), nextFetchAtMs: T0 + 500 });
        return queue;
      };

      it("starts at the host's next fetch time when that is within the burst's wait limit", () => {
        expect(waiting(item(), item()).earlyBurstStartAtMs(T0, limits)).toBe(T0 + 500);
        expect(waiting(item(), item()).earlyBurstStartAtMs(T0 - 500, limits)).toBe(T0 + 500);
        // The host's pace (its delay grown by slow responses) is waited out up to maxPaceWaitMs.
        expect(waiting(item(), item()).earlyBurstStartAtMs(T0 - 2500, limits)).toBe(T0 + 500);
        expect(waiting(item(), item()).earlyBurstStartAtMs(T0 - 2501, limits)).toBeUndefined();
      });

      it('waits no longer than maxHostDelayMs for a host that signalled overload: the durable timer waits', () => {
        const throttled = waiting(item(), item());
        throttled.adoptPoliteness({ ...throttled.politenessAt(T0), recentThrottles: 1 });
        expect(throttled.earlyBurstStartAtMs(T0 - 500, limits)).toBe(T0 + 500);
        expect(throttled.earlyBurstStartAtMs(T0 - 501, limits)).toBeUndefined();
      });

      it('never when a request may start now: the usual path takes it', () => {
        expect(waiting(item(), item()).earlyBurstStartAtMs(T0 + 500, limits)).toBeUndefined();
        expect(waiting(item(), item()).earlyBurstStartAtMs(T0 + 900, limits)).toBeUndefined();
      });

      it('for one URL when the loop asks for bursts of one, never for a retry or a slow host', () => {
        expect(waiting(item()).earlyBurstStartAtMs(T0, limits, 1)).toBe(T0 + 500);
        expect(waiting(item(), item()).earlyBurstStartAtMs(T0, limits, 1)).toBe(T0 + 500);
        expect(waiting(item({ notBeforeMs: T0 })).earlyBurstStartAtMs(T0, limits, 1)).toBeUndefined();
        expect(waiting(item({ minHostDelayMs: 2000 })).earlyBurstStartAtMs(T0, limits, 1)).toBeUndefined();
        expect(waiting().earlyBurstStartAtMs(T0, limits, 1)).toBeUndefined();
      });

      it('never for one URL, a retry first, another crawl behind, a paused host, or an empty queue', () => {
        expect(waiting(item()).earlyBurstStartAtMs(T0, limits)).toBeUndefined();
        expect(waiting(item({ notBeforeMs: T0 }), item()).earlyBurstStartAtMs(T0, limits)).toBeUndefined();
        expect(waiting(item(), item({ crawlId: 'other' })).earlyBurstStartAtMs(T0, limits)).toBeUndefined();
        const paused = waiting(item(), item());
        paused.pause();
        expect(paused.earlyBurstStartAtMs(T0, limits)).toBeUndefined();
        expect(waiting().earlyBurstStartAtMs(T0, limits)).toBeUndefined();
      });

      it('never with the slot taken, robots rules going stale before the start, a long delay, or a circuit not closed at the start', () => {
        const busy = waiting(item(), item());
        busy.noteRequestStarted(T0, item());
        expect(busy.earlyBurstStartAtMs(T0, limits)).toBeUndefined();
        const stale = waiting(item(), item());
        stale.noteRobotsFreshUntil('http://h.example', T0 + 500);
        expect(stale.earlyBurstStartAtMs(T0, limits)).toBeUndefined();
        const slow = waiting(item({ minHostDelayMs: 2000 }), item({ minHostDelayMs: 2000 }));
        expect(slow.earlyBurstStartAtMs(T0, limits)).toBeUndefined();
        const retryAfter = waiting(item(), item());
        retryAfter.adoptPoliteness({ ...retryAfter.politenessAt(T0), retryAfterAtMs: T0 + 1500 });
        expect(retryAfter.earlyBurstStartAtMs(T0, limits)).toBeUndefined();
        const tripped = waiting(item(), item());
        tripped.adoptPoliteness({ ...tripped.politenessAt(T0), consecutiveFailures: 5, circuitOpenUntilMs: T0 + 400 });
        expect(tripped.earlyBurstStartAtMs(T0, limits)).toBeUndefined();
      });
    });

    it("adopts the burst's politeness state, counts its requests, defers the next fetch, and requeues in order at the front", () => {
      const queue = fresh(item({ url: 'http://h.example/later' }));
      queue.noteRequestStarted(T0, item());
      const after = { ...queue.politenessAt(T0), inFlight: 0, nextFetchAtMs: T0 + 900 };
      queue.adoptBurstPoliteness(after, 3);
      expect(queue.inFlight).toBe(0);
      expect(queue.nextFetchAtMs(T0)).toBe(T0 + 900);
      expect(queue.fetchesThisRun).toBe(3);
      expect(queue.outcomes).toBe(1);
      queue.deferNextFetchUntil(T0 + 500);
      expect(queue.nextFetchAtMs(T0)).toBe(T0 + 900);
      queue.deferNextFetchUntil(T0 + 1200);
      expect(queue.nextFetchAtMs(T0)).toBe(T0 + 1200);
      queue.requeueFrontAll([item({ url: 'http://h.example/a' }), item({ url: 'http://h.example/b' })]);
      expect(queue.queue.map((queued) => queued.url)).toEqual(['http://h.example/a', 'http://h.example/b', 'http://h.example/later']);
    });
  });
});
