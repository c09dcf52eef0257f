// The host back queue's decisions, step by step, without a server: HostLoop.next(nowMs) says what
// the workflow does next, and the …Reported methods take the outcomes back. The workflow tests
// (test/integration/workflows) cover the wiring on a real Temporal dev server.
import { describe, expect, it } from 'vitest';
import type { ClaimHostWorkResult, FetchBurstResult, FetchUrlResult, HostWorkItem, RefreshRobotsResult } from '../../../src/contracts/activities.js';
import { BURST_EXTENSION, HostLoop, LOCAL_BURST, claimSize, type HostStep, type RunHistoryFacts } from '../../../src/workflows/host-loop.js';
import { DEFAULT_FETCH_BURST_LIMITS } from '../../../src/domain/politeness/index.js';
import { claimOf, fetchedPage, hostWorkItems } from '../../support/host-work-items.js';

const HOST = 'h.example';
const SMALL_HISTORY: RunHistoryFacts = { continueAsNewSuggested: false, historyLength: 10 };
const T0 = Date.UTC(2026, 11, 3, 12, 0, 0);

const item = hostWorkItems(HOST);

const newLoop = (): HostLoop => new HostLoop(HOST, undefined, { taskQueue: 'q', runKey: 'host/h.example/run-1', random: () => 0.5 });

const claimed = (items: HostWorkItem[], released = false): ClaimHostWorkResult => claimOf(items, { released });

const rules = (nowMs: number, overrides: Partial<RefreshRobotsResult> = {}): RefreshRobotsResult => ({
  requested: true,
  startedAtMs: nowMs,
  finishedAtMs: nowMs + 10,
  status: 200,
  policyKind: 'rules',
  freshUntilMs: nowMs + 24 * 3600_000,
  ...overrides,
});

const fetched = (startedAtMs: number, finishedAtMs: number): FetchUrlResult => fetchedPage(HOST, startedAtMs, finishedAtMs);

function expectStep<K extends HostStep['kind']>(step: HostStep, kind: K): Extract<HostStep, { kind: K }> {
  expect(step.kind).toBe(kind);
  return step as Extract<HostStep, { kind: K }>;
}

/** The next step that is not a claim: claims (the queue runs low) find nothing more. */
function nextPastClaims(loop: HostLoop, nowMs: number, history = SMALL_HISTORY): HostStep {
  for (;;) {
    const step = loop.next(nowMs, history);
    if (step.kind !== 'claim') return step;
    loop.claimReported(claimed([]));
  }
}

/** A loop whose host record is loaded and whose robots.txt is fresh, with these URLs claimed. */
function loadedLoop(items: HostWorkItem[], nowMs = T0): HostLoop {
  const loop = newLoop();
  expectStep(loop.next(nowMs, SMALL_HISTORY), 'claim');
  loop.claimReported(claimed(items));
  loop.state.noteRobotsFreshUntil(`http://${HOST}`, nowMs + 24 * 3600_000);
  return loop;
}

describe('HostLoop: claims', () => {
  it("opens with a claim that reads the host's record and may release the idle host", () => {
    const loop = newLoop();
    const step = expectStep(loop.next(T0, SMALL_HISTORY), 'claim');
    expect(step.input).toMatchObject({ host: HOST, releaseIfEmpty: true, withHostRecord: true, taskQueue: 'q', paused: false });
    // Reading the record marks the run begun; no separate mark.
    expect(step.input.markRunStarted).toBeUndefined();
    expect(loop.claimReported(claimed([], true))).toBe(true);
  });

  it('marks the run begun with the first claim after a releasing claim it was woken from, and with a continued run\'s first claim', () => {
    const loop = newLoop();
    loop.next(T0, SMALL_HISTORY);
    expect(loop.claimReported(claimed([], true))).toBe(true);
    loop.wake();
    expect(expectStep(loop.next(T0 + 10, SMALL_HISTORY), 'claim').input).toMatchObject({ withHostRecord: false, markRunStarted: true });
    // Marked once: the claim after it does not mark again.
    expect(loop.claimReported(claimed([]))).toBe(false);
    expect(expectStep(loop.next(T0 + 20, SMALL_HISTORY), 'claim').input.markRunStarted).toBeUndefined();

    const continued = new HostLoop(HOST, newLoop().snapshotForNextRun(), { taskQueue: 'q', runKey: 'host/h.example/run-2', random: () => 0.5 });
    expect(expectStep(continued.next(T0, SMALL_HISTORY), 'claim').input).toMatchObject({ withHostRecord: false, markRunStarted: true });
  });

  it('asks for a few seconds of the host pace: 2 URLs at 2 s, 8 at 500 ms, 10 at 100 ms', () => {
    expect([2000, 500, 100].map(claimSize)).toEqual([2, 8, 10]);
  });

  it('does not claim again right after a claim that returned one URL', () => {
    const loop = newLoop();
    loop.next(T0, SMALL_HISTORY);
    loop.claimReported(claimed([item()]));
    // robots.txt is unknown and the delay is long: the URL's own refresh comes first, not a claim.
    expectStep(loop.next(T0, SMALL_HISTORY), 'refresh-robots');
  });

  it('after a claim that found nothing, waits for in-flight work instead of claiming again', () => {
    const loop = loadedLoop([item()]);
    expectStep(loop.next(T0, SMALL_HISTORY), 'fetch');
    expectStep(loop.next(T0, SMALL_HISTORY), 'claim');
    loop.claimReported(claimed([]));
    const step = expectStep(loop.next(T0, SMALL_HISTORY), 'wait');
    expect(step.wait).toBe('idle-or-requeue');
  });
});

describe('HostLoop: politeness', () => {
  it('fetches one URL, then waits its delay from the end of the request before the next', () => {
    const a = item();
    const b = item();
    const loop = loadedLoop([a, b]);
    const first = expectStep(loop.next(T0, SMALL_HISTORY), 'fetch');
    expect(first.item).toEqual(a);
    expect(first.input.hostDelayMs).toBe(2000);
    // The slot is taken: the loop waits for the request, not for a timer.
    expect(expectStep(loop.next(T0 + 5, SMALL_HISTORY), 'claim').input.releaseIfEmpty).toBe(false);
    loop.claimReported(claimed([]));
    expect(expectStep(loop.next(T0 + 5, SMALL_HISTORY), 'wait').wait).toBe('change-or-outcome');
    const followUp = loop.fetchReported(a, fetched(T0, T0 + 100), T0 + 100);
    expect(followUp).toMatchObject({ kind: 'parse', item: a });
    expect(loop.waitIsOver('change-or-outcome')).toBe(true);
    loop.waited('change-or-outcome');
    const wait = expectStep(loop.next(T0 + 100, SMALL_HISTORY), 'wait');
    expect(wait.wait).toBe('change');
    // At least the policy's 2 s after the last byte.
    expect(T0 + 100 + wait.timeoutMs!).toBeGreaterThanOrEqual(T0 + 100 + 2000);
    loop.waited(wait.wait);
    expect(expectStep(loop.next(T0 + 100 + wait.timeoutMs!, SMALL_HISTORY), 'fetch').item).toEqual(b);
  });

  it('refreshes stale robots.txt in a slot of its own before a URL fetched alone', () => {
    const loop = newLoop();
    loop.next(T0, SMALL_HISTORY);
    const a = item();
    loop.claimReported(claimed([a]));
    const refresh = expectStep(loop.next(T0, SMALL_HISTORY), 'refresh-robots');
    expect(refresh.item).toEqual(a);
    expect(loop.state.inFlight).toBe(1);
    expect(loop.robotsReported(a, rules(T0, { crawlDelayMs: 5000 }), T0 + 10)).toEqual([]);
    expect(loop.state.inFlight).toBe(0);
    // The Crawl-delay (5 s) is stricter than the crawl's 2 s, and counts from the robots.txt request.
    const wait = expectStep(nextPastClaims(loop, T0 + 10), 'wait');
    expect(T0 + 10 + wait.timeoutMs!).toBeGreaterThanOrEqual(T0 + 10 + 5000);
  });

  it('sends the ready URLs of a short-delay host as one burst that carries a claim, robots.txt refreshed inside it', () => {
    const items = [item({ minHostDelayMs: 100 }), item({ minHostDelayMs: 100 }), item({ minHostDelayMs: 100 })];
    const loop = newLoop();
    loop.next(T0, SMALL_HISTORY);
    loop.claimReported(claimed(items));
    const { burst } = expectStep(loop.next(T0, SMALL_HISTORY), 'burst');
    expect(burst.items).toEqual(items);
    expect(burst.input.items.map((one) => one.hostDelayMs)).toEqual([100, 100, 100]);
    expect(burst.claim?.claimToken).toBe('host/h.example/run-1/burst-claim/1');
    expect(burst.input.extendWithClaims).toEqual({ maxUrls: 40 });
    // One slot, held by the burst: nothing else starts, and the claim rides with the burst.
    expect(expectStep(loop.next(T0 + 1, SMALL_HISTORY), 'wait').wait).toBe('idle-or-requeue');
  });

  it('holds every request while paused, and a resume ends the wait', () => {
    const loop = loadedLoop([item()]);
    loop.pause();
    const wait = expectStep(loop.next(T0, SMALL_HISTORY), 'wait');
    expect(wait).toMatchObject({ wait: 'change' });
    expect(wait.timeoutMs).toBeUndefined();
    expect(loop.waitIsOver('change')).toBe(false);
    loop.resume();
    expect(loop.waitIsOver('change')).toBe(true);
    loop.waited('change');
    expectStep(nextPastClaims(loop, T0), 'fetch');
  });
});

describe('HostLoop: long waits are reported for the progress line', () => {
  it('reports no wait of the ordinary delay', () => {
    const [a, b] = [item(), item()];
    const loop = loadedLoop([a, b]);
    expectStep(loop.next(T0, SMALL_HISTORY), 'fetch');
    loop.fetchReported(a, fetched(T0, T0 + 50), T0 + 50);
    const wait = expectStep(nextPastClaims(loop, T0 + 60), 'wait');
    expect(wait.timeoutMs).toBeGreaterThan(0);
    expect(wait.report).toBeUndefined();
    // Unreported, the wait still says why it lasts (the run's current details).
    expect(wait.reason).toBe('crawl-delay');
  });

  it("reports a 503's Retry-After hold once, with its end, and not again when a signal re-decides the same wait", () => {
    const a = item();
    const loop = loadedLoop([a]);
    expectStep(loop.next(T0, SMALL_HISTORY), 'fetch');
    loop.fetchFailed(a, 'ServiceUnavailable', { status: 503, startedAtMs: T0, finishedAtMs: T0 + 20, requested: true, retryAfterAtMs: T0 + 120_000 } as never, '503', T0 + 20);
    const wait = expectStep(nextPastClaims(loop, T0 + 20), 'wait');
    expect(wait.report).toEqual({ host: HOST, reason: 'retry-after', sinceMs: T0 + 20, untilMs: T0 + 20 + wait.timeoutMs! });
    expect(wait.reason).toBe('retry-after');
    expect(wait.report!.untilMs).toBeGreaterThanOrEqual(T0 + 120_000);
    loop.wake();
    loop.waited(wait.wait);
    const again = expectStep(nextPastClaims(loop, T0 + 30), 'wait');
    expect(again.reason).toBe('retry-after');
    expect(again.report).toBeUndefined();
  });

  it("reports an unreachable robots.txt's waits, each until its next refresh, all since its first failure", () => {
    const patient = { robotsUnreachablePatienceMs: 180_000, robotsUnreachableRetryMs: 60_000 };
    const loop = newLoop();
    loop.next(T0, SMALL_HISTORY);
    loop.claimReported(claimed([item({ politeness: patient })]));
    let nowMs = T0;
    const reports: unknown[] = [];
    let deferred = false;
    for (let round = 0; round < 20 && !deferred; round += 1) {
      const step = nextPastClaims(loop, nowMs);
      if (step.kind === 'wait') {
        if (step.report) reports.push(step.report);
        if (step.timeoutMs !== undefined) expect(step.reason).toBe('robots-unreachable');
        loop.waited(step.wait);
        nowMs += step.timeoutMs ?? 0;
        continue;
      }
      const refresh = expectStep(step, 'refresh-robots');
      const followUps = loop.robotsReported(refresh.item, rules(nowMs, { status: 503, policyKind: 'disallow-all', freshUntilMs: nowMs + 60_000 }), nowMs + 10);
      deferred = followUps.some((followUp) => followUp.kind === 'settle');
      nowMs += 10;
    }
    expect(deferred).toBe(true);
    expect(reports.length).toBeGreaterThanOrEqual(3);
    for (const report of reports) expect(report).toMatchObject({ host: HOST, reason: 'robots-unreachable', sinceMs: T0 + 10 });
    const ends = reports.map((report) => (report as { untilMs: number }).untilMs);
    expect(new Set(ends).size).toBe(ends.length);
  });
});

describe('HostLoop: failures', () => {
  it('retries a 503 at the host level: the URL goes back with the next attempt and a backoff', () => {
    const a = item();
    const loop = loadedLoop([a]);
    loop.next(T0, SMALL_HISTORY);
    const followUp = loop.fetchFailed(a, 'ServiceUnavailable', { status: 503, startedAtMs: T0, finishedAtMs: T0 + 20, requested: true } as never, '503', T0 + 20);
    expect(followUp).toBeUndefined();
    expect(loop.state.queue).toHaveLength(1);
    expect(loop.state.queue[0]).toMatchObject({ url: a.url, attempt: 1 });
    expect(loop.state.queue[0]!.notBeforeMs).toBeGreaterThan(T0 + 20);
  });

  it('settles a terminal failure at once, marked as recorded by the activity', () => {
    const a = item();
    const loop = loadedLoop([a]);
    loop.next(T0, SMALL_HISTORY);
    const followUp = loop.fetchFailed(a, 'NotFound', { status: 404, startedAtMs: T0, finishedAtMs: T0 + 5, requested: true } as never, '404', T0 + 5);
    expect(followUp).toMatchObject({ kind: 'settle', outcome: { kind: 'failed', failureType: 'NotFound', status: 404, attempts: 1, recorded: true } });
  });

  it('after NXDOMAIN, fails the host’s queued URLs fast with the hold’s type, without a request', () => {
    const [a, b, c] = [item(), item(), item()];
    const loop = loadedLoop([a, b, c]);
    loop.next(T0, SMALL_HISTORY);
    loop.fetchFailed(a, 'DnsNotFound', undefined, 'NXDOMAIN', T0 + 5);
    const settles = [nextPastClaims(loop, T0 + 5), nextPastClaims(loop, T0 + 5)].map((step) => expectStep(step, 'settle'));
    expect(settles.map((step) => step.item.url)).toEqual([b.url, c.url]);
    expect(settles[0]!.outcome).toMatchObject({ kind: 'failed', failureType: 'DnsNotFound' });
    expect(loop.state.inFlight).toBe(0);
    expect(loop.status(T0 + 5).quarantinedReason).toMatch(/^DnsNotFound until /);
  });

  it("while robots.txt is unreachable, the origin's URLs wait for its next refresh, then fail as RobotsUnreachable", () => {
    const a = item();
    const loop = newLoop();
    loop.next(T0, SMALL_HISTORY);
    loop.claimReported(claimed([a]));
    let nowMs = T0;
    const outcomes: string[] = [];
    for (let round = 0; round < 10 && outcomes.length === 0; round += 1) {
      const step = nextPastClaims(loop, nowMs);
      if (step.kind === 'wait') {
        loop.waited(step.wait);
        nowMs += step.timeoutMs ?? 0;
        continue;
      }
      const refresh = expectStep(step, 'refresh-robots');
      const unreachable = rules(nowMs, { status: 503, policyKind: 'disallow-all', freshUntilMs: nowMs + 600_000 });
      for (const followUp of loop.robotsReported(refresh.item, unreachable, nowMs + 10)) {
        if (followUp.kind === 'settle' && followUp.outcome.kind === 'failed') outcomes.push(followUp.outcome.failureType);
      }
      const requeued = loop.state.queue[0];
      if (requeued) expect(requeued.notBeforeMs).toBeGreaterThanOrEqual(nowMs + 600_000);
      nowMs += 10;
    }
    // RobotsUnreachable's policy: 4 attempts, never sooner than the next refresh.
    expect(outcomes).toEqual(['RobotsUnreachable']);
    expect(nowMs - T0).toBeGreaterThanOrEqual(3 * 600_000);
  });

  it("with a robots.txt patience (a one-shot crawl), waits for each refresh within it, then defers the origin's URLs", () => {
    const patient = { robotsUnreachablePatienceMs: 180_000, robotsUnreachableRetryMs: 60_000 };
    const a = item({ politeness: patient });
    const loop = newLoop();
    loop.next(T0, SMALL_HISTORY);
    loop.claimReported(claimed([a]));
    let nowMs = T0;
    const refreshes: number[] = [];
    let deferred: unknown;
    while (deferred === undefined && refreshes.length < 10) {
      const step = nextPastClaims(loop, nowMs);
      if (step.kind === 'wait') {
        loop.waited(step.wait);
        nowMs += step.timeoutMs ?? 0;
        continue;
      }
      const refresh = expectStep(step, 'refresh-robots');
      refreshes.push(nowMs - T0);
      const unreachable = rules(nowMs, { status: 503, policyKind: 'disallow-all', freshUntilMs: nowMs + 60_000 });
      for (const followUp of loop.robotsReported(refresh.item, unreachable, nowMs + 10)) {
        if (followUp.kind === 'settle') deferred = followUp.outcome;
      }
      nowMs += 10;
    }
    // Asked at 0, 1, 2 and 3 minutes; the next refresh would come past the 3 minutes' patience.
    expect(refreshes.map((atMs) => Math.round(atMs / 60_000))).toEqual([0, 1, 2, 3]);
    expect(deferred).toMatchObject({ kind: 'deferred', reason: 'robots-unreachable' });
    expect(loop.state.queue).toEqual([]);
  });

  it('with a robots.txt patience, a fetch that met unreachable rules waits for their refresh, not RobotsUnreachable’s backoff', () => {
    const a = item({ politeness: { robotsUnreachablePatienceMs: 180_000 } });
    const loop = loadedLoop([a]);
    loop.next(T0, SMALL_HISTORY);
    const followUp = loop.fetchFailed(a, 'RobotsUnreachable', { startedAtMs: T0, finishedAtMs: T0, requested: false, retryAfterAtMs: T0 + 30_000 } as never, 'unreachable', T0);
    expect(followUp).toBeUndefined();
    expect(loop.state.queue[0]).toMatchObject({ notBeforeMs: T0 + 30_000, heldByRobotsSinceMs: T0 });
    // Past the patience, the same failure defers the URL.
    const later = loop.fetchFailed(loop.state.takeFirst(), 'RobotsUnreachable', { startedAtMs: T0, finishedAtMs: T0, requested: false, retryAfterAtMs: T0 + 200_000 } as never, 'unreachable', T0 + 170_000);
    expect(later).toMatchObject({ kind: 'settle', outcome: { kind: 'deferred', reason: 'robots-unreachable' } });
  });

  it('defers at the end of the patience without another request, however long the host is throttled', () => {
    const patient = { robotsUnreachablePatienceMs: 180_000, robotsUnreachableRetryMs: 60_000 };
    const [a, b] = [item({ politeness: patient }), item({ politeness: patient })];
    const loop = newLoop();
    loop.next(T0, SMALL_HISTORY);
    loop.claimReported(claimed([a, b]));
    const refresh = expectStep(nextPastClaims(loop, T0), 'refresh-robots');
    loop.robotsReported(refresh.item, rules(T0, { status: 503, policyKind: 'disallow-all', freshUntilMs: T0 + 60_000 }), T0 + 10);
    // A 503 throttles the host; say for an hour: the wait still ends when the patience does.
    loop.state.deferNextFetchUntil(T0 + 3_600_000);
    let nowMs = T0 + 10;
    const deferred: string[] = [];
    for (let round = 0; round < 20 && deferred.length < 2; round += 1) {
      const step = nextPastClaims(loop, nowMs);
      if (step.kind === 'wait') {
        loop.waited(step.wait);
        nowMs += step.timeoutMs ?? 0;
      } else if (step.kind === 'settle' && step.outcome.kind === 'deferred') deferred.push(step.item.url);
      else expect.fail(`unexpected step ${step.kind}`);
    }
    expect(deferred.sort()).toEqual([a.url, b.url].sort());
    expect(nowMs).toBeLessThanOrEqual(T0 + 10 + 180_000);
  });

  it('a burst that failed every retry: its URLs go back to be fetched one by one, a full delay from now', () => {
    const items = [item({ minHostDelayMs: 100 }), item({ minHostDelayMs: 100 })];
    const loop = loadedLoop(items);
    const { burst } = expectStep(loop.next(T0, SMALL_HISTORY), 'burst');
    expect(loop.burstFailed(burst)).toEqual([]);
    loop.burstClaimTaken([]);
    loop.burstFailedRequeue(burst, T0 + 50);
    expect(loop.state.queue.map((one) => one.url)).toEqual(items.map((one) => one.url));
    expect(loop.state.queue.every((one) => one.notBeforeMs === T0 + 50)).toBe(true);
    expect(loop.state.inFlight).toBe(0);
    expect(loop.state.nextFetchAtMs(T0 + 50)).toBeGreaterThanOrEqual(T0 + 150);
  });

  it('a fatal failure fails the run', () => {
    const loop = newLoop();
    loop.failed(new Error('store unreachable'));
    expect(expectStep(loop.next(T0, SMALL_HISTORY), 'fail').message).toBe('host h.example: Error: store unreachable');
  });
});

describe('HostLoop: bursts report', () => {
  /** Two first tries of a 100 ms host sent as one burst, which has returned, its claim taken. */
  const returnedBurstOfTwo = (options: { robotsStale?: boolean } = {}) => {
    const items = [item({ minHostDelayMs: 100 }), item({ minHostDelayMs: 100 })];
    const loop = loadedLoop(items);
    if (options.robotsStale) loop.state.noteRobotsFreshUntil(`http://${HOST}`, 0);
    const { burst } = expectStep(loop.next(T0, SMALL_HISTORY), 'burst');
    loop.burstReturned();
    loop.burstClaimTaken([]);
    return { items, loop, burst };
  };

  it('carries bodies the burst did not parse to the next step, which parses them first', () => {
    const { items, loop, burst } = returnedBurstOfTwo();
    const result: FetchBurstResult = {
      outcomes: [
        { kind: 'done', result: fetched(T0, T0 + 10) },
        { kind: 'done', result: fetched(T0 + 110, T0 + 120), parsed: { ok: true } as never },
      ],
      politeness: { ...loop.state.politenessAt(T0), inFlight: 0, nextFetchAtMs: T0 + 220 },
      requestsStarted: 2,
    };
    expect(loop.burstReported(burst, result, T0 + 120)).toEqual([]);
    expect(loop.state.pendingParses).toBe(1);
    expect(loop.quiet).toBe(false);
    const step = loop.next(T0 + 120, SMALL_HISTORY);
    expect(step.kind).not.toBe('burst');
    expect('flush' in step && step.flush.map(({ item: one }) => one.url)).toEqual([items[0]!.url]);
  });

  it('requeues a URL the burst did not reach, and settles what needs no parse', () => {
    const items = [item({ minHostDelayMs: 100 }), item({ minHostDelayMs: 100 }), item({ minHostDelayMs: 100 })];
    const loop = loadedLoop(items);
    const { burst } = expectStep(loop.next(T0, SMALL_HISTORY), 'burst');
    loop.burstReturned();
    const result: FetchBurstResult = {
      outcomes: [{ kind: 'done', result: { kind: 'not-modified', status: 304, startedAtMs: T0, finishedAtMs: T0 + 5 } }, { kind: 'failed', failureType: 'NotFound', message: '404' }, { kind: 'not-attempted' }],
      politeness: { ...loop.state.politenessAt(T0), inFlight: 0 },
      requestsStarted: 2,
    };
    const followUps = loop.burstReported(burst, result, T0 + 200);
    expect(followUps.map((one) => one.kind === 'settle' && one.outcome.kind)).toEqual(['not-modified', 'failed']);
    expect(loop.state.queue.map((one) => one.url)).toEqual([items[2]!.url]);
  });

  it('hands every URL back, to go one by one, when the burst sent nothing at all', () => {
    const { items, loop, burst } = returnedBurstOfTwo();
    const result: FetchBurstResult = {
      outcomes: [{ kind: 'not-attempted' }, { kind: 'not-attempted' }],
      politeness: { ...loop.state.politenessAt(T0), inFlight: 0, nextFetchAtMs: T0 + 1500 },
      requestsStarted: 0,
    };
    expect(loop.burstReported(burst, result, T0 + 10)).toEqual([]);
    expect(loop.state.queue.every((one) => one.notBeforeMs === T0 + 10)).toBe(true);
    expect(expectStep(nextPastClaims(loop, T0 + 1500), 'fetch').item.url).toBe(items[0]!.url);
  });

  it("keeps the URLs in bursts when the burst sent only its robots.txt (a slow one): the next burst waits out the host's pace", () => {
    const { items, loop, burst } = returnedBurstOfTwo({ robotsStale: true });
    // robots.txt took 150 ms: ten times that (1.5 s) before the next request, past the burst's
    // old 1 s limit, so the burst handed both URLs back without trying them.
    const result: FetchBurstResult = {
      outcomes: [{ kind: 'not-attempted' }, { kind: 'not-attempted' }],
      politeness: { ...loop.state.politenessAt(T0), inFlight: 0, nextFetchAtMs: T0 + 1650, lastResponseTimeMs: 150, recentResponseTimesMs: [150] },
      requestsStarted: 1,
      robots: [{ origin: `http://${HOST}`, refreshed: rules(T0, { finishedAtMs: T0 + 150 }) }],
    };
    expect(loop.burstReported(burst, result, T0 + 150)).toEqual([]);
    expect(loop.state.queue.map((one) => one.url)).toEqual(items.map((one) => one.url));
    expect(loop.state.queue.every((one) => one.notBeforeMs === undefined)).toBe(true);
    // Started at once; its activity waits until T0 + 1650, the host's next fetch time.
    const next = expectStep(nextPastClaims(loop, T0 + 150), 'burst');
    expect(next.burst.items.map((one) => one.url)).toEqual(items.map((one) => one.url));
    expect(next.burst.input.politeness.nextFetchAtMs).toBe(T0 + 1650);
  });

  it('settles a page over its parse budget once, and sends a page whose parse failed otherwise to parseDocument', () => {
    const items = [item({ minHostDelayMs: 100 }), item({ minHostDelayMs: 100 })];
    const loop = loadedLoop(items);
    const { burst } = expectStep(loop.next(T0, SMALL_HISTORY), 'burst');
    loop.burstReturned();
    loop.burstClaimTaken([]);
    const result: FetchBurstResult = {
      outcomes: [
        { kind: 'done', result: fetched(T0, T0 + 10), parsed: { ok: false, error: 'too deep', failureType: 'ParseBudgetExceeded' } },
        { kind: 'done', result: fetched(T0 + 110, T0 + 120), parsed: { ok: false, error: 'store down' } },
      ],
      politeness: { ...loop.state.politenessAt(T0), inFlight: 0, nextFetchAtMs: T0 + 220 },
      requestsStarted: 2,
    };
    expect(loop.burstReported(burst, result, T0 + 120)).toEqual([
      { kind: 'settle', item: items[0], outcome: { kind: 'failed', failureType: 'ParseBudgetExceeded', message: 'too deep', stage: 'parse', attempts: 1 } },
      { kind: 'parse', item: items[1], fetched: result.outcomes[1]!.kind === 'done' && result.outcomes[1]!.result },
    ]);
  });
});

describe('HostLoop: a burst that releases the host', () => {
  /** A loaded short-delay host whose burst took every queued URL; the burst's claim is taken (found nothing). */
  function burstOfAll(count = 2) {
    const items = Array.from({ length: count }, () => item({ minHostDelayMs: 100 }));
    const loop = loadedLoop(items);
    const { burst } = expectStep(loop.next(T0, SMALL_HISTORY), 'burst');
    return { loop, burst, items };
  }
  const parsedAll = (loop: HostLoop, released: boolean): FetchBurstResult => ({
    outcomes: [
      { kind: 'done', result: fetched(T0, T0 + 10), parsed: { ok: true } },
      { kind: 'done', result: fetched(T0 + 110, T0 + 120), parsed: { ok: true } },
    ],
    politeness: { ...loop.state.politenessAt(T0), inFlight: 0, nextFetchAtMs: T0 + 220 },
    requestsStarted: 2,
    claimed: [],
    ...(released ? { released: true as const } : {}),
  });
  const reported = (loop: HostLoop, burst: ReturnType<typeof burstOfAll>['burst'], result: FetchBurstResult): void => {
    loop.burstReturned();
    loop.burstClaimTaken(result.claimed ?? []);
    expect(loop.burstReported(burst, result, T0 + 120)).toEqual([]);
  };

  it('lets a burst that takes the whole queue, with nothing else in flight, release the host with its operator settings', () => {
    const { burst } = burstOfAll();
    expect(burst.claim?.releaseIfDone).toEqual({ paused: false, delayOverrideMs: null });
    expect(burst.input.claim?.releaseIfDone).toEqual({ paused: false, delayOverrideMs: null });
  });

  it('does not let a burst release the host while URLs stay queued or a settle is under way', () => {
    // 21 URLs at 100 ms: a burst takes 20 and claims, one stays queued.
    const queued = burstOfAll(21);
    expect(queued.burst.claim).toBeDefined();
    expect(queued.burst.claim?.releaseIfDone).toBeUndefined();

    const items = [item({ minHostDelayMs: 100 })];
    const loop = loadedLoop(items);
    loop.settleStarted();
    const { burst } = expectStep(loop.next(T0, SMALL_HISTORY), 'burst');
    expect(burst.claim?.releaseIfDone).toBeUndefined();
  });

  it('ends the run after a burst released the host and left nothing: no claim of its own', () => {
    const { loop, burst } = burstOfAll();
    reported(loop, burst, parsedAll(loop, true));
    expect(loop.waitIsOver('idle-or-requeue')).toBe(true);
    expectStep(loop.next(T0 + 120, SMALL_HISTORY), 'released');
  });

  it('without the release, claims to release the host itself', () => {
    const { loop, burst } = burstOfAll();
    reported(loop, burst, parsedAll(loop, false));
    expect(expectStep(loop.next(T0 + 120, SMALL_HISTORY), 'claim').input.releaseIfEmpty).toBe(true);
  });

  it('goes on when woken after the release (the waker marked the host active again), and its claim marks the run begun', () => {
    const { loop, burst } = burstOfAll();
    reported(loop, burst, parsedAll(loop, true));
    loop.wake();
    const step = expectStep(loop.next(T0 + 120, SMALL_HISTORY), 'claim');
    // Else the host, woken after its run began, would look as if it waited for a worker.
    expect(step.input).toMatchObject({ withHostRecord: false, markRunStarted: true });
  });

  it('releases again with its own claim when a pause came during the burst: the record must say paused', () => {
    const { loop, burst } = burstOfAll();
    loop.pause();
    reported(loop, burst, parsedAll(loop, true));
    const step = expectStep(loop.next(T0 + 120, SMALL_HISTORY), 'claim');
    expect(step.input).toMatchObject({ releaseIfEmpty: true, paused: true });
  });

  it('does not end the run on a release that left a follow-up (a page to parse on its own)', () => {
    const { loop, burst } = burstOfAll();
    loop.burstReturned();
    loop.burstClaimTaken([]);
    const result = parsedAll(loop, true);
    result.outcomes[1] = { kind: 'done', result: fetched(T0 + 110, T0 + 120), parsed: { ok: false, error: 'store down' } };
    expect(loop.burstReported(burst, result, T0 + 120)).toHaveLength(1);
    expect(loop.next(T0 + 120, SMALL_HISTORY).kind).not.toBe('released');
  });
});

describe('HostLoop: continue-as-new', () => {
  it('continues as new only when nothing of the run is in flight', () => {
    const loop = loadedLoop([item(), item()]);
    const fetching = expectStep(loop.next(T0, SMALL_HISTORY), 'fetch');
    const large: RunHistoryFacts = { continueAsNewSuggested: true, historyLength: 9000 };
    expect(expectStep(loop.next(T0 + 1, large), 'wait').wait).toBe('quiet');
    loop.fetchReported(fetching.item, { kind: 'not-modified', status: 304, startedAtMs: T0, finishedAtMs: T0 + 5 }, T0 + 5);
    expect(loop.waitIsOver('quiet')).toBe(true);
    loop.waited('quiet');
    expectStep(loop.next(T0 + 5, large), 'continue-as-new');
    const carried = loop.snapshotForNextRun();
    expect(carried.run).toBe(2);
    expect(carried.queue).toHaveLength(1);
  });
});

describe("HostLoop: a run's first burst as a local activity", () => {
  /** A loop whose first claim came from a worker that says whether it runs bursts (localBursts). */
  const claimedBy = (items: HostWorkItem[], localBursts: boolean): HostLoop => {
    const loop = newLoop();
    expectStep(loop.next(T0, SMALL_HISTORY), 'claim');
    loop.claimReported({ ...claimed(items), ...(localBursts ? { localBursts: true as const } : {}) });
    loop.state.noteRobotsFreshUntil(`http://${HOST}`, T0 + 24 * 3600_000);
    return loop;
  };
  const fastItems = (n: number): HostWorkItem[] => Array.from({ length: n }, () => item({ minHostDelayMs: 100 }));

  it('is local when the claim ran in a worker that runs bursts, within LOCAL_BURST: at most its URLs, its span, its extension', () => {
    const loop = claimedBy(fastItems(12), true);
    const { burst } = expectStep(loop.next(T0, SMALL_HISTORY), 'burst');
    expect(burst.local).toBe(true);
    expect(burst.items).toHaveLength(LOCAL_BURST.maxUrls);
    expect(burst.input.limits).toEqual({ ...DEFAULT_FETCH_BURST_LIMITS, ...LOCAL_BURST });
    expect(loop.state.queue).toHaveLength(12 - LOCAL_BURST.maxUrls);
  });

  it('carries its extension limit when the burst claims for the host', () => {
    const loop = claimedBy(fastItems(1), true);
    const { burst } = expectStep(loop.next(T0, SMALL_HISTORY), 'burst');
    expect(burst.local).toBe(true);
    expect(burst.input.claim).toBeDefined();
    expect(burst.input.extendWithClaims).toEqual({ maxUrls: LOCAL_BURST.maxUrls });
  });

  it("is an activity with the default limits when the claim's worker does not run bursts (a 'workflows' worker)", () => {
    const loop = claimedBy(fastItems(12), false);
    const { burst } = expectStep(loop.next(T0, SMALL_HISTORY), 'burst');
    expect(burst.local).toBe(false);
    expect(burst.items.length).toBeGreaterThan(LOCAL_BURST.maxUrls);
    expect(burst.input.limits).toBe(DEFAULT_FETCH_BURST_LIMITS);
  });

  it("leaves the run's later bursts to activities, with the default extension", () => {
    const loop = claimedBy(fastItems(1), true);
    const first = expectStep(loop.next(T0, SMALL_HISTORY), 'burst').burst;
    loop.burstReturned();
    loop.burstClaimTaken(fastItems(3));
    const result: FetchBurstResult = {
      outcomes: [{ kind: 'done', result: fetched(T0, T0 + 10), parsed: { ok: true } as never }],
      politeness: { ...loop.state.politenessAt(T0), inFlight: 0, nextFetchAtMs: T0 + 110 },
      requestsStarted: 1,
    };
    loop.burstReported(first, result, T0 + 10);
    const second = expectStep(nextPastClaims(loop, T0 + 110), 'burst').burst;
    expect(second.local).toBe(false);
    expect(second.input.limits).toBe(DEFAULT_FETCH_BURST_LIMITS);
    if (second.input.extendWithClaims) expect(second.input.extendWithClaims).toBe(BURST_EXTENSION);
  });
});

