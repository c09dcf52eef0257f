// The host back queue's renders, step by step without a server: a render holds the host's one
// slot and its politeness as a burst does, the host takes the render's state back (also from a
// failure's details), hash routes join the queue, the page settles after its last render, and a
// render no worker took waits for one while the host's URLs go on.
import { describe, expect, it } from 'vitest';
import type { ClaimHostWorkResult, FetchUrlResult, HostWorkItem, RenderPageResult } from '../../../src/contracts/activities.js';
import { HostLoop, MAX_UNSTARTED_RENDER_TRIES, RENDER_WAIT_CLAIM_MS, RENDER_WORKER_RETRY_MS, type HostStep, type RunHistoryFacts } from '../../../src/workflows/host-loop.js';
import { MAX_SUBRESOURCE_WAIT_MS } from '../../../src/domain/render/index.js';
import { applyHostOutcome, onFetchStarted, resolveHostPolitenessPolicy } from '../../../src/domain/politeness/index.js';
import { claimOf, hostWorkItems } from '../../support/host-work-items.js';

const HOST = 'spa.example';
const HISTORY: RunHistoryFacts = { continueAsNewSuggested: false, historyLength: 10 };
const T0 = Date.UTC(2026, 11, 3, 12, 0, 0);

const item = hostWorkItems(HOST);
const fetched = (page: HostWorkItem, startedAtMs: number): Extract<FetchUrlResult, { kind: 'fetched' }> => ({
  kind: 'fetched',
  status: 200,
  bodyKey: `body-of-${page.fingerprint}`,
  rawHash: 'h',
  bytes: 100,
  contentType: 'text/html',
  parse: true,
  finalUrl: page.url,
  startedAtMs,
  finishedAtMs: startedAtMs + 50,
});
const claimed = (items: HostWorkItem[]): ClaimHostWorkResult => claimOf(items);

function expectStep<K extends HostStep['kind']>(step: HostStep, kind: K): Extract<HostStep, { kind: K }> {
  expect(step.kind).toBe(kind);
  return step as Extract<HostStep, { kind: K }>;
}

/** A loaded loop with nothing queued but renders to come; claims find nothing. */
/** The next step that is not a claim: the claims that renders waiting for their time make find nothing. */
function nextPastClaims(hostLoop: HostLoop, nowMs: number): HostStep {
  for (;;) {
    const step = hostLoop.next(nowMs, HISTORY);
    if (step.kind !== 'claim') return step;
    hostLoop.claimReported(claimed([]));
  }
}

function loop(): HostLoop {
  const hostLoop = new HostLoop(HOST, undefined, { taskQueue: 'q', runKey: 'host/spa/run-1', random: () => 0.5 });
  expectStep(hostLoop.next(T0, HISTORY), 'claim');
  hostLoop.claimReported(claimed([]));
  hostLoop.state.noteRobotsFreshUntil(`http://${HOST}`, T0 + 24 * 3600_000);
  return hostLoop;
}

const rendered = (politeness: RenderPageResult['politeness'], overrides: Partial<RenderPageResult> = {}): RenderPageResult => ({
  state: 'rendered',
  politeness,
  requestsStarted: 3,
  routes: [],
  summary: '',
  cpuMs: 100,
  peakPssBytes: 1,
  linksFound: 2,
  linksRegistered: 2,
  textLength: 300,
  subresources: {},
  ...overrides,
});

describe('HostLoop: renders in the host turn', () => {
  it('runs a queued render in the host slot with its politeness, after the page fetch, within a render first wait', () => {
    const hostLoop = loop();
    const page = item();
    // The page was fetched just now: the host's next fetch time is 2 s away, more than a render's first wait.
    const policy = resolveHostPolitenessPolicy({ minDelayMs: 2000 });
    hostLoop.state.adoptPoliteness(applyHostOutcome(onFetchStarted(hostLoop.state.politenessAt(T0), T0), { kind: 'response', startedAtMs: T0, finishedAtMs: T0 + 50, status: 200, responseMs: 10 }, policy, () => 0.5));
    hostLoop.queueRenders(page, fetched(page, T0), [{ routeKey: '', reason: 'empty-app-root', sampleBothWays: false }]);
    expect(hostLoop.waitIsOver('idle-or-requeue')).toBe(true);
    // 2 s to the host's next fetch time is within a render's first wait: it starts now and waits inside.
    const step = expectStep(hostLoop.next(T0 + 60, HISTORY), 'render');
    expect(step.task).toMatchObject({ url: page.url, finalUrl: page.url, bodyKey: `body-of-${page.fingerprint}`, routeKey: '', reason: 'empty-app-root', minHostDelayMs: 2000 });
    // The render gets the state as a burst does: its own requests wait out the 2 s from the page's end.
    expect(step.input.politeness.nextFetchAtMs).toBe(T0 + 50 + 2000);
    expect(step.input.politeness.inFlight).toBe(0);
    expect(step.input.policy.minDelayMs).toBe(2000);
    // It holds the one slot: a URL claimed meanwhile (after a wake) waits for it.
    expect(hostLoop.state.inFlight).toBe(1);
    hostLoop.wake();
    expectStep(hostLoop.next(T0 + 65, HISTORY), 'claim');
    hostLoop.claimReported(claimed([item()]));
    const slotBusy = expectStep(hostLoop.next(T0 + 70, HISTORY), 'wait');
    hostLoop.waited(slotBusy.wait);
    const later = hostLoop.next(T0 + 5000, HISTORY);
    if (later.kind === 'claim') hostLoop.claimReported(claimed([]));
    expect(expectStep(later.kind === 'claim' ? hostLoop.next(T0 + 5000, HISTORY) : later, 'wait').wait).toBe('change-or-outcome');
  });

  it("adopts the render's politeness, and settles the page after its last render, routes included", () => {
    const hostLoop = loop();
    const page = item();
    hostLoop.queueRenders(page, fetched(page, T0), [{ routeKey: '', reason: 'allowlisted', sampleBothWays: false }]);
    const step = expectStep(hostLoop.next(T0 + 5000, HISTORY), 'render');
    const after = { ...step.input.politeness, nextFetchAtMs: T0 + 9000 };
    const followUps = hostLoop.renderReported(step.task, rendered(after, { routes: [{ routeKey: '#/a', reason: 'hash-route', sampleBothWays: false }, { routeKey: '#/b', reason: 'hash-route', sampleBothWays: false }] }));
    // Two routes still to render: the page waits for them.
    expect(followUps).toEqual([]);
    expect(hostLoop.state.politeness!.nextFetchAtMs).toBe(T0 + 9000);
    expect(hostLoop.state.inFlight).toBe(0);
    expect(hostLoop.state.renders.map((task) => task.routeKey)).toEqual(['#/a', '#/b']);
    const routeA = expectStep(hostLoop.next(T0 + 9000, HISTORY), 'render');
    expect(hostLoop.renderReported(routeA.task, rendered(routeA.input.politeness))).toEqual([]);
    const routeB = expectStep(hostLoop.next(T0 + 20_000, HISTORY), 'render');
    // A route failing for good still ends the page: its failure is recorded with the render, the page settles done.
    const { followUps: last } = hostLoop.renderFailed(routeB.task, { type: 'RenderCrashed', message: 'crashed', attempts: 3, details: { politeness: routeB.input.politeness, requestsStarted: 1 } }, T0 + 21_000);
    expect(last).toEqual([{ kind: 'settle', item: expect.objectContaining({ fingerprint: page.fingerprint, url: page.url }), outcome: { kind: 'render-failed', routeKey: '#/b', failureType: 'RenderCrashed', message: 'crashed', attempts: 3, settlesPage: true } }]);
    expect(hostLoop.state.rendersOutstanding).toEqual({});
  });

  it('settles a page rendered once as rendered, and carries queued renders across continue-as-new', () => {
    const hostLoop = loop();
    const [a, b] = [item(), item()];
    hostLoop.queueRenders(a, fetched(a, T0), [{ routeKey: '', reason: 'empty-app-root', sampleBothWays: true }]);
    hostLoop.queueRenders(b, fetched(b, T0), [{ routeKey: '', reason: 'empty-app-root', sampleBothWays: false }]);
    const step = expectStep(hostLoop.next(T0 + 5000, HISTORY), 'render');
    expect(hostLoop.renderReported(step.task, rendered(step.input.politeness))).toEqual([{ kind: 'settle', item: expect.objectContaining({ fingerprint: a.fingerprint }), outcome: { kind: 'rendered' } }]);
    const carried = new HostLoop(HOST, hostLoop.snapshotForNextRun(), { taskQueue: 'q', runKey: 'host/spa/run-2', random: () => 0.5 });
    expect(carried.state.renders.map((task) => task.fingerprint)).toEqual([b.fingerprint]);
    expect(carried.state.rendersOutstanding).toEqual({ [`c/${b.fingerprint}/1`]: 1 });
    // A host that never rendered carries nothing new in its snapshot.
    expect(loop().snapshotForNextRun()).not.toHaveProperty('renders');
  });

  it("takes a failed render's requests into the host's politeness, and frees the slot of one that sent none", () => {
    const hostLoop = loop();
    const page = item();
    hostLoop.queueRenders(page, fetched(page, T0), [{ routeKey: '', reason: 'empty-app-root', sampleBothWays: false }]);
    const step = expectStep(hostLoop.next(T0 + 5000, HISTORY), 'render');
    hostLoop.renderFailed(step.task, { type: 'RenderTimeout', message: 'hung', attempts: 1, details: { politeness: { ...step.input.politeness, nextFetchAtMs: T0 + 30_000 }, requestsStarted: 2 } }, T0 + 20_000);
    expect(hostLoop.state.politeness!.nextFetchAtMs).toBe(T0 + 30_000);
    expect(hostLoop.state.inFlight).toBe(0);
    const other = item();
    hostLoop.queueRenders(other, fetched(other, T0), [{ routeKey: '', reason: 'empty-app-root', sampleBothWays: false }]);
    const second = expectStep(hostLoop.next(T0 + 30_000, HISTORY), 'render');
    hostLoop.renderFailed(second.task, { type: 'BrowserUnavailable', message: 'no browser', attempts: 2 }, T0 + 30_100);
    expect(hostLoop.state.inFlight).toBe(0);
  });

  it('puts a render no worker took back to wait for one, reports the wait, and fails it as BrowserUnavailable after its tries', () => {
    const hostLoop = loop();
    const page = item();
    hostLoop.queueRenders(page, fetched(page, T0), [{ routeKey: '', reason: 'empty-app-root', sampleBothWays: false }]);
    let nowMs = T0 + 5000;
    for (let tries = 1; tries < MAX_UNSTARTED_RENDER_TRIES; tries++) {
      const step = expectStep(hostLoop.next(nowMs, HISTORY), 'render');
      const { followUps, report } = hostLoop.renderFailed(step.task, { type: 'unstarted', message: 'no worker', attempts: 0 }, nowMs + 120_000);
      expect(followUps).toEqual([]);
      expect(report).toMatchObject({ host: HOST, reason: 'render-worker', untilMs: nowMs + 120_000 + Math.min(30 * 60_000, RENDER_WORKER_RETRY_MS * 2 ** (tries - 1)) });
      // The host's URLs go on meanwhile: a URL claimed now is fetched before the render's time.
      expect(hostLoop.state.renders[0]!.notBeforeMs).toBe(report!.untilMs);
      nowMs = report!.untilMs;
    }
    const last = expectStep(hostLoop.next(nowMs, HISTORY), 'render');
    const { followUps } = hostLoop.renderFailed(last.task, { type: 'unstarted', message: 'no worker', attempts: 0 }, nowMs + 120_000);
    expect(followUps[0]).toMatchObject({ kind: 'settle', outcome: { kind: 'render-failed', failureType: 'BrowserUnavailable', settlesPage: true } });
  });

  it('starts no render while paused, while the slot is busy, or while the host asks to wait longer than a render may', () => {
    const hostLoop = loop();
    const page = item();
    hostLoop.queueRenders(page, fetched(page, T0), [{ routeKey: '', reason: 'empty-app-root', sampleBothWays: false }]);
    hostLoop.pause();
    expect(expectStep(hostLoop.next(T0, HISTORY), 'wait').wait).toBe('change');
    hostLoop.resume();
    hostLoop.waited('change');
    hostLoop.state.adoptPoliteness({ ...hostLoop.state.politenessAt(T0), retryAfterAtMs: T0 + 60_000 });
    // It waits for the host's time within a render's first wait (claiming again every RENDER_WAIT_CLAIM_MS meanwhile).
    const wait = expectStep(hostLoop.next(T0, HISTORY), 'wait');
    expect(wait.timeoutMs).toBe(Math.min(60_000 - MAX_SUBRESOURCE_WAIT_MS, RENDER_WAIT_CLAIM_MS));
    hostLoop.waited(wait.wait);
    const almost = expectStep(nextPastClaims(hostLoop, T0 + 60_000 - MAX_SUBRESOURCE_WAIT_MS - 1), 'wait');
    hostLoop.waited(almost.wait);
    expectStep(nextPastClaims(hostLoop, T0 + 60_000 - MAX_SUBRESOURCE_WAIT_MS), 'render');
  });

  it('claims again while only renders wait for their time: URLs of another crawl are not held behind them', () => {
    const hostLoop = loop();
    const page = item();
    hostLoop.queueRenders(page, fetched(page, T0), [{ routeKey: '', reason: 'empty-app-root', sampleBothWays: false }]);
    const step = expectStep(hostLoop.next(T0, HISTORY), 'render');
    hostLoop.renderFailed(step.task, { type: 'unstarted', message: 'no worker', attempts: 0 }, T0 + 120_000);
    // The render waits a minute for a worker; the wait ends within RENDER_WAIT_CLAIM_MS to claim.
    const wait = expectStep(hostLoop.next(T0 + 120_000, HISTORY), 'wait');
    expect(wait.timeoutMs).toBe(RENDER_WAIT_CLAIM_MS);
    hostLoop.waited(wait.wait);
    const claim = expectStep(hostLoop.next(T0 + 130_000, HISTORY), 'claim');
    expect(claim.input.releaseIfEmpty).toBe(false);
    hostLoop.claimReported(claimed([item({ crawlId: 'other' })]));
    expect(expectStep(hostLoop.next(T0 + 130_000, HISTORY), 'fetch').item.crawlId).toBe('other');
  });

  it('fails the renders of a held host at once with the hold, the page keeping its HTTP result', () => {
    const hostLoop = loop();
    const page = item();
    hostLoop.queueRenders(page, fetched(page, T0), [{ routeKey: '', reason: 'empty-app-root', sampleBothWays: false }]);
    hostLoop.state.adoptPoliteness({ ...hostLoop.state.politenessAt(T0), holdUntilMs: T0 + 3600_000, holdReason: 'TlsCertificateError' });
    const step = expectStep(hostLoop.next(T0, HISTORY), 'settle');
    expect(step.outcome).toMatchObject({ kind: 'render-failed', failureType: 'TlsCertificateError', settlesPage: true });
  });

  it('queues what a burst parse asked for, from its own pages and its carried ones', () => {
    const hostLoop = loop();
    const page = item();
    hostLoop.queueRenders(page, fetched(page, T0), []);
    expect(hostLoop.state.renders).toEqual([]);
    expect(hostLoop.status(T0).rendersQueued).toBeUndefined();
    hostLoop.queueRenders(page, fetched(page, T0), [{ routeKey: '', reason: 'mode-always', sampleBothWays: false }]);
    expect(hostLoop.status(T0).rendersQueued).toBe(1);
  });
});
