/**
 * The decisions of one host's back queue (Mercator), as a plain deterministic class: what to claim,
 * when the next request may start, when to continue as new, and how each outcome changes the
 * host's state. `next(nowMs)` returns one tagged step; the workflow (host-workflow.ts) carries it
 * out with activities and timers and reports back through the `…Reported` methods. The loop's own
 * state is one serializable value with an explicit phase (host-phase.ts); bursts and renders are
 * decided in host-bursts.ts and host-renders.ts. No I/O and no Temporal here, so the loop is
 * unit-tested without a server (test/unit/workflows/host-loop*.test.ts).
 */
import type {
  BurstClaim,
  ClaimHostWorkInput,
  ClaimHostWorkResult,
  FetchBurstResult,
  FetchFailureDetails,
  FetchUrlInput,
  FetchUrlResult,
  HostWaitReport,
  HostWorkItem,
  RefreshRobotsResult,
  RenderPageInput,
  RenderPageResult,
  RenderTask,
  RenderWanted,
  SettleOutcome,
} from '../contracts/activities.js';
import { DEFAULT_FETCH_BURST_LIMITS, hostOutcomeOfFailure, hostOutcomeOfResult, hostOutcomeOfRobotsRefresh } from '../domain/politeness/index.js';
import { HostQueue, type HostQueueSnapshot } from './host-queue.js';
import type { FetchedResult } from '../contracts/fetch-followup.js';
import { afterFetch, applyDecision, decideAfterFailure, deferredOutcome, robotsPatienceEndsAtMs, waitForRobotsRefresh, type FetchedItem, type FollowUp } from './host-outcomes.js';
import type { HostStatus, HostWaitReason } from '../contracts/status.js';
import { HostWaitReporter, hostWaitReason, type HostWait } from './host-wait-report.js';
import { enterPhase, expectPhase, HostPhaseError, initialHostLoopState, type HostLoopContext, type HostLoopOptions, type HostLoopState, type HostPhase, type HostPhaseName } from './host-phase.js';
import * as bursts from './host-bursts.js';
import { claimSize, takeCarriedParses, type BurstStep } from './host-bursts.js';
import * as renders from './host-renders.js';
import { RENDER_WAIT_CLAIM_MS, type RenderFailure } from './host-renders.js';

export type { FetchedItem, FollowUp } from './host-outcomes.js';
export type { HostLoopOptions, HostLoopState, HostPhase, HostPhaseName } from './host-phase.js';
export { HostPhaseError, HOST_PHASE_TRANSITIONS } from './host-phase.js';
export { BURST_EXTENSION, LOCAL_BURST, claimSize, type BurstStep } from './host-bursts.js';
export { MAX_RENDER_WORKER_RETRY_MS, MAX_UNSTARTED_RENDER_TRIES, RENDER_WAIT_CLAIM_MS, RENDER_WORKER_RETRY_MS, type RenderFailure } from './host-renders.js';

/** A run's history is large: continue as new between requests (well under the server's limits). */
const MAX_HISTORY_EVENTS = 8000;
const MAX_SIGNALS_PER_RUN = 4000;

/** One step of the back queue. `flush`: carried bodies the workflow parses on their own first. */
export type HostStep =
  | { kind: 'fail'; message: string }
  | { kind: 'continue-as-new' }
  /**
   * `report`: a long wait the workflow reports (host_waits) as it begins. `reason`: why a timed
   * wait lasts until its timeout (the run's current details say it).
   */
  | { kind: 'wait'; wait: HostWait; timeoutMs?: number; reason?: HostWaitReason; report?: HostWaitReport; flush: FetchedItem[] }
  | { kind: 'claim'; input: ClaimHostWorkInput; flush: FetchedItem[] }
  /** A burst released the host in Postgres with nothing left: the run ends as after a releasing claim. */
  | { kind: 'released' }
  | { kind: 'settle'; item: HostWorkItem; outcome: SettleOutcome; flush: FetchedItem[] }
  | { kind: 'refresh-robots'; item: HostWorkItem; flush: FetchedItem[] }
  | { kind: 'fetch'; item: HostWorkItem; input: FetchUrlInput; flush: FetchedItem[] }
  | { kind: 'burst'; burst: BurstStep }
  /** A render in the host's turn, on the render task queue: it holds the host's one slot, as a burst does. */
  | { kind: 'render'; task: RenderTask; input: RenderPageInput; flush: FetchedItem[] };

/** The facts about the run's history that decide continue-as-new. */
export interface RunHistoryFacts {
  continueAsNewSuggested: boolean;
  historyLength: number;
}

/** The phase each step `next` returns leaves the loop in (a wait's is entered by waitFor, with its counters). */
const PHASE_AFTER: Record<Exclude<HostStep['kind'], 'wait'>, Exclude<HostPhase, { name: 'waiting' }>['name']> = {
  fail: 'failed',
  'continue-as-new': 'continuing',
  claim: 'claiming',
  released: 'releasing',
  settle: 'ready',
  'refresh-robots': 'ready',
  fetch: 'ready',
  burst: 'ready',
  render: 'ready',
};

export class HostLoop {
  readonly state: HostQueue;
  private readonly loop: HostLoopState;
  private readonly context: HostLoopContext;
  private readonly waitReporter: HostWaitReporter;

  constructor(host: string, carried: HostQueueSnapshot | undefined, options: HostLoopOptions) {
    this.state = carried ? new HostQueue(carried) : HostQueue.fresh(host);
    this.loop = initialHostLoopState(carried !== undefined);
    this.context = { queue: this.state, loop: this.loop, options };
    this.waitReporter = new HostWaitReporter(this.state.host);
  }

  /** Where the loop is in its step protocol (docs/host-workflow.md). */
  get phase(): HostPhaseName {
    return this.loop.phase.name;
  }

  /** A copy of the loop's own state (its phase, sub-states and counters), plain JSON. */
  loopState(): HostLoopState {
    return JSON.parse(JSON.stringify(this.loop)) as HostLoopState;
  }

  // Signals: each counts as a change, so a wait on a timer re-decides at once.
  wake(): void {
    this.loop.woken = true;
    this.signalled();
  }
  pause(): void {
    this.state.pause();
    this.signalled();
  }
  resume(): void {
    this.state.resume();
    this.signalled();
  }
  setDelayOverride(minDelayMs: number | null): void {
    this.state.overrideDelay(minDelayMs === null ? null : Math.max(0, Math.floor(minDelayMs)));
    this.signalled();
  }
  private signalled(): void {
    this.loop.counters.changes += 1;
    this.loop.counters.signals += 1;
  }

  /** A wake arrived (a release raced with it: the run goes on). */
  get wokenSinceRelease(): boolean {
    return this.loop.woken;
  }

  failed(error: unknown): void {
    if (error !== undefined) this.loop.failure ??= String(error);
    this.loop.counters.changes += 1;
  }

  settleStarted(): void {
    this.loop.counters.settles += 1;
  }
  settleEnded(): void {
    this.loop.counters.settles -= 1;
  }
  parsesStarted(count: number): void {
    this.state.parsesStarted(count);
  }
  parsesEnded(count: number): void {
    this.state.parsesEnded(count);
  }

  /** No request, parse or settle of this run is under way. */
  get quiet(): boolean {
    return this.state.inFlight === 0 && this.state.pendingParses === 0 && this.loop.counters.settles === 0;
  }
  private get idle(): boolean {
    return this.state.queue.length === 0 && this.state.renders.length === 0 && this.quiet;
  }

  status(nowMs: number): HostStatus {
    const { state } = this;
    const hold = state.holdAt(nowMs);
    const inFlight = this.loop.renderInFlight;
    return {
      host: state.host,
      queueLength: state.queue.length,
      inFlight: state.inFlight,
      pendingParses: state.pendingParses,
      nextFetchAtMs: state.peekNextFetchAtMs(nowMs),
      paused: state.paused,
      delayOverrideMs: state.delayOverrideMs,
      quarantinedReason: state.quarantinedReason ?? (hold === undefined ? null : `${hold.reason} until ${new Date(hold.untilMs).toISOString()}`),
      fetchesThisRun: state.fetchesThisRun,
      run: state.run,
      ...(state.renders.length > 0 || inFlight ? { rendersQueued: state.renders.length + (inFlight ? 1 : 0) } : {}),
    };
  }

  snapshotForNextRun(): HostQueueSnapshot {
    return this.state.snapshotForNextRun();
  }

  /** Whether the wait of a 'wait' step is over: on what changed since it began (read-only, as a condition is). */
  waitIsOver(wait: HostWait): boolean {
    const { loop } = this;
    const since = loop.atWaitStart;
    if (loop.carriedParses.length > 0 || loop.releasedByBurst || loop.counters.rendersQueued !== since.rendersQueued) return true;
    const failed = loop.failure !== undefined;
    switch (wait) {
      case 'quiet':
        return this.quiet || failed;
      case 'idle-or-requeue':
        return this.idle || this.state.queue.length > 0 || loop.woken || failed;
      case 'change':
        return loop.counters.changes !== since.changes;
      case 'change-or-outcome':
        return loop.counters.changes !== since.changes || this.state.outcomes !== since.outcomes;
    }
  }

  /** A 'wait' step ended. */
  waited(wait: HostWait): void {
    const phase = this.loop.phase;
    if (phase.name !== 'waiting') throw new HostPhaseError(phase.name, 'ready', 'waited');
    // Once the queue ran dry and work finished, the next claim may find URLs again, or release the host.
    if (wait === 'idle-or-requeue' || phase.claimAfter) this.reopenClaims();
    enterPhase(this.loop, { name: 'ready' }, 'waited');
  }

  /** The next step at `nowMs`: allowed when the loop is ready, has just claimed, or was woken after a release. */
  next(nowMs: number, history: RunHistoryFacts): HostStep {
    const from = this.loop.phase.name;
    expectPhase(this.loop, this.loop.woken ? ['ready', 'claimed', 'releasing'] : ['ready', 'claimed'], 'next');
    // Right after its own claim, the loop goes to the queue: it does not claim again.
    const step = from === 'claimed' ? this.nextFromQueue(nowMs, history) : this.decide(nowMs, history);
    if (step.kind !== 'wait') enterPhase(this.loop, { name: PHASE_AFTER[step.kind] }, `next (${step.kind})`);
    return step;
  }

  private decide(nowMs: number, history: RunHistoryFacts): HostStep {
    const { state, loop } = this;
    if (loop.failure !== undefined) return { kind: 'fail', message: `host ${state.host}: ${loop.failure}` };

    // Continue-as-new between requests, never with work in flight.
    if (history.continueAsNewSuggested || history.historyLength > MAX_HISTORY_EVENTS || loop.counters.signals > MAX_SIGNALS_PER_RUN) {
      return this.quiet ? { kind: 'continue-as-new' } : this.waitFor('quiet');
    }

    if (loop.releasedByBurst) {
      loop.releasedByBurst = false;
      // A wake since the release marked the host active again: the run goes on.
      if (!loop.woken && this.idle) return { kind: 'released' };
    }

    if (loop.woken) {
      loop.woken = false;
      this.reopenClaims();
    }

    // Refill the back queue from the front queues when it runs low (Mercator).
    if (state.queue.length <= 1 && loop.claim === 'open' && !this.claimRidesNextBurst(nowMs)) return this.claimStep();
    return this.nextFromQueue(nowMs, history);
  }

  private claimStep(): HostStep {
    const { state, loop } = this;
    const input: ClaimHostWorkInput = {
      host: state.host,
      maxItems: claimSize(state.policyFor(state.queue[0]).minDelayMs),
      releaseIfEmpty: this.idle,
      politeness: state.politeness,
      paused: state.paused,
      delayOverrideMs: state.delayOverrideMs,
      taskQueue: this.context.options.taskQueue,
      withHostRecord: loop.nextClaim.withHostRecord,
      ...(loop.nextClaim.markRunStarted ? { markRunStarted: true } : {}),
    };
    loop.nextClaim.markRunStarted = false;
    return { kind: 'claim', input, flush: this.takeCarriedParses() };
  }

  /** The last claim found nothing: a wake or an idle spell lets the loop claim again (a burst's riding claim stays). */
  private reopenClaims(): void {
    if (this.loop.claim === 'exhausted') this.loop.claim = 'open';
  }

  /** The step once the back queue is refilled, or need not be. */
  private nextFromQueue(nowMs: number, history: RunHistoryFacts): HostStep {
    const { state, loop } = this;
    const render = renders.nextRender(this.context, nowMs);
    if (render !== undefined) return { ...render, flush: this.takeCarriedParses() };
    if (state.queue.length === 0 && state.renders.length > 0) {
      // Only renders left, none startable yet: wait for the request in flight, or for the first
      // one's time. The host is not idle meanwhile, so no idle spell renews its claims: the wait
      // ends within RENDER_WAIT_CLAIM_MS to claim again (URLs of other crawls may have come).
      if (state.inFlight > 0 || loop.renderInFlight) return this.waitFor('change-or-outcome');
      if (state.paused) return this.waitFor('change');
      return this.waitFor('change', { timeoutMs: Math.max(1, Math.min(renders.renderStartAtMs(state, nowMs) - nowMs, RENDER_WAIT_CLAIM_MS)), claimAfter: true });
    }
    if (state.queue.length === 0) {
      // Wait for in-flight work; once idle, the next claim may release the host. A host-level
      // retry (429, 5xx, robots) requeues its URL meanwhile: that wakes the loop too.
      if (!this.idle) return this.waitFor('idle-or-requeue');
      this.reopenClaims();
      return this.decide(nowMs, history);
    }
    return this.heldOrDeferredStep(nowMs) ?? this.requestStep(nowMs);
  }

  /**
   * A URL that ends without a request: a quarantined or negatively cached host (TLS, private
   * address, NXDOMAIN) fails its URLs fast with the hold's type instead of waiting out the hold;
   * an origin whose robots.txt stayed unreachable past the crawl's patience defers its URLs,
   * whatever the host waits for (a throttle, a retry's backoff).
   */
  private heldOrDeferredStep(nowMs: number): HostStep | undefined {
    const { state } = this;
    const hold = state.holdAt(nowMs);
    if (hold !== undefined) {
      const held = state.takeFirst();
      const until = new Date(hold.untilMs).toISOString();
      const message = `host ${state.host} is held after ${hold.reason} until ${until}; no request sent`;
      return { kind: 'settle', item: held, outcome: { kind: 'failed', failureType: hold.reason, message, stage: 'fetch', attempts: held.attempt + 1 }, flush: this.takeCarriedParses() };
    }
    const outOfPatience = state.queue.findIndex((queued) => (robotsPatienceEndsAtMs(state, queued) ?? Infinity) <= nowMs);
    if (outOfPatience < 0) return undefined;
    const deferred = state.takeAt(outOfPatience)!;
    const outcome = deferredOutcome(deferred, state.robotsUnreachableSince(deferred.origin)!, nowMs);
    return { kind: 'settle', item: deferred, outcome, flush: this.takeCarriedParses() };
  }

  /** The queue's next request (a burst, a robots.txt refresh, one URL), or the wait before it. */
  private requestStep(nowMs: number): HostStep {
    const { state, loop } = this;
    const patienceEndsAtMs = Math.min(...state.queue.map((queued) => robotsPatienceEndsAtMs(state, queued) ?? Infinity));
    // A host-level retry waits for its own backoff while other URLs of the host may go first.
    const readyAtMs = state.promoteReady(nowMs);
    if (readyAtMs !== undefined && !state.paused) {
      const timeoutMs = Math.max(1, Math.min(readyAtMs, patienceEndsAtMs) - nowMs);
      const [reason, report] = this.retryWait(nowMs, nowMs + timeoutMs);
      return this.waitFor('change', { timeoutMs, reason, report });
    }

    // A burst due within its own wait limit starts now; its activity waits out the rest.
    const canStart = state.canStartAt(nowMs);
    const earlyBurstAtMs = canStart ? undefined : state.earlyBurstStartAtMs(nowMs, DEFAULT_FETCH_BURST_LIMITS, 1);
    if (!canStart && earlyBurstAtMs === undefined) {
      const nextFetchAtMs = state.nextFetchAtMs(nowMs);
      if (state.paused) return this.waitFor('change');
      // The time has come (or a burst waits it out) but every slot is taken: wait for a request to finish.
      if (nextFetchAtMs <= nowMs || loop.burst === 'early') return this.waitFor('change-or-outcome');
      const timeoutMs = Math.max(1, Math.min(nextFetchAtMs, patienceEndsAtMs) - nowMs);
      const reason = hostWaitReason(state.politeness, nowMs + timeoutMs, 'crawl-delay');
      return this.waitFor('change', { timeoutMs, reason, report: this.waitReporter.reportFor(reason, nowMs, nowMs + timeoutMs) });
    }

    const item = state.takeFirst();
    if (state.quarantinedReason !== null) {
      const outcome: SettleOutcome = { kind: 'failed', failureType: 'TlsCertificateError', message: state.quarantinedReason, stage: 'fetch', attempts: item.attempt + 1 };
      return { kind: 'settle', item, outcome, flush: this.takeCarriedParses() };
    }

    const burstSize = state.burstSizeAt(item, earlyBurstAtMs ?? nowMs, DEFAULT_FETCH_BURST_LIMITS, 1);
    // A burst refreshes stale rules itself; a URL fetched on its own waits for them here.
    if (!state.robotsFresh(item.origin, nowMs) && burstSize === 0) {
      // robots.txt is a request to the host like any other: it takes a politeness slot.
      state.requeueFront(item);
      state.noteRequestStarted(nowMs, item);
      return { kind: 'refresh-robots', item, flush: this.takeCarriedParses() };
    }

    if (earlyBurstAtMs !== undefined && burstSize === 0) {
      // Not reachable (the same test chose the early start); never fetch one URL before its time.
      state.requeueFront(item);
      return this.waitFor('change', { timeoutMs: earlyBurstAtMs - nowMs });
    }
    // A short delay: this URL and the ready ones behind it go in one activity.
    if (burstSize > 0) return { kind: 'burst', burst: bursts.startBurst(this.context, item, burstSize, earlyBurstAtMs !== undefined, nowMs) };

    // One URL on its own; beside the loop, so that with several slots per host requests overlap.
    const flush = this.takeCarriedParses();
    const policy = state.policyFor(item);
    state.noteRequestStarted(nowMs, item, { spaceStarts: policy.maxConcurrentFetches > 1 });
    return { kind: 'fetch', item, input: { ...item, hostDelayMs: policy.minDelayMs }, flush };
  }

  /** The queue's one URL will go as a burst, which claims beside it: no claim of its own first. */
  private claimRidesNextBurst(nowMs: number): boolean {
    const { queue } = this.state;
    return queue.length === 1 && !this.loop.nextClaim.withHostRecord && this.state.burstable(queue[0]!, nowMs, DEFAULT_FETCH_BURST_LIMITS);
  }

  /** A parse found the page wants renders: they join the host's queue, its page waiting for all of them. */
  queueRenders(item: HostWorkItem, fetched: FetchedResult, wanted: readonly RenderWanted[]): void {
    renders.queueRenders(this.context, item, fetched, wanted);
  }

  /** A render reported: the host takes back its politeness; routes it found join the queue; the page settles after its last render. */
  renderReported(task: RenderTask, result: RenderPageResult): FollowUp[] {
    return renders.renderReported(this.context, task, result);
  }

  /** A render failed for good, or found no render worker in time (host-renders.ts). */
  renderFailed(task: RenderTask, failure: RenderFailure, nowMs: number): { followUps: FollowUp[]; report?: HostWaitReport } {
    return renders.renderFailed(this.context, task, failure, nowMs);
  }

  /** Begins a wait: it ends on what changes from now (docs/host-workflow.md, "waiting"). */
  private waitFor(wait: HostWait, options: { timeoutMs?: number; reason?: HostWaitReason; report?: HostWaitReport | undefined; claimAfter?: boolean } = {}): HostStep {
    const { loop } = this;
    const { timeoutMs, reason, report } = options;
    enterPhase(loop, { name: 'waiting', wait, claimAfter: options.claimAfter === true }, `next (wait ${wait})`);
    loop.atWaitStart = { outcomes: this.state.outcomes, changes: loop.counters.changes, rendersQueued: loop.counters.rendersQueued };
    return {
      kind: 'wait',
      wait,
      ...(timeoutMs === undefined ? {} : { timeoutMs }),
      ...(reason === undefined ? {} : { reason }),
      ...(report === undefined ? {} : { report }),
      flush: this.takeCarriedParses(),
    };
  }

  /**
   * Every queued URL waits for its retry: for an unreachable robots.txt (counted from its first
   * failure), a throttle or an open circuit, or a retry's backoff.
   */
  private retryWait(nowMs: number, untilMs: number): [HostWaitReason, HostWaitReport | undefined] {
    const first = this.state.queue.reduce((earliest, item) => ((item.notBeforeMs ?? nowMs) < (earliest.notBeforeMs ?? nowMs) ? item : earliest));
    const robotsSinceMs = this.state.robotsUnreachableSince(first.origin);
    if (robotsSinceMs !== undefined) return ['robots-unreachable', this.waitReporter.reportFor('robots-unreachable', nowMs, untilMs, robotsSinceMs)];
    const reason = hostWaitReason(this.state.politeness, untilMs, 'retry-backoff');
    return [reason, this.waitReporter.reportFor(reason, nowMs, untilMs)];
  }

  private takeCarriedParses(): FetchedItem[] {
    return takeCarriedParses(this.state, this.loop);
  }

  /** A claim of the loop's own returned. True: the host was released, and the run ends (unless woken meanwhile). */
  claimReported(result: ClaimHostWorkResult): boolean {
    const { state, loop } = this;
    expectPhase(loop, ['claiming'], 'claimReported');
    if (loop.localBurst !== 'spent') loop.localBurst = result.localBursts === true ? 'available' : 'not-here';
    if (loop.nextClaim.withHostRecord && result.host) {
      loop.nextClaim.withHostRecord = false;
      state.adoptHostRecord({ ...result.host, politeness: (result.host.politeness as HostQueue['politeness']) ?? null });
    }
    state.enqueue(result.items);
    if (result.released) {
      loop.nextClaim.markRunStarted = true;
      enterPhase(loop, { name: 'releasing' }, 'claimReported (released)');
      return true;
    }
    // A burst's claim may ride meanwhile: it decides when the loop claims again.
    if (loop.claim !== 'riding') loop.claim = result.items.length === 0 ? 'exhausted' : 'open';
    enterPhase(loop, { name: 'claimed' }, 'claimReported');
    return false;
  }

  /** The claim a burst could not report (it failed, or the burst did), to recover by its token. */
  burstClaimRecovery(claim: BurstClaim): ClaimHostWorkInput {
    return bursts.burstClaimRecovery(this.context, claim);
  }

  /** The URLs a burst claimed join the back of the queue. */
  burstClaimTaken(items: readonly HostWorkItem[]): void {
    bursts.burstClaimTaken(this.context, items);
  }

  /** A burst failed every retry: its carried bodies go to one parseBatch (each parse is idempotent). */
  burstFailed(burst: BurstStep): FetchedItem[] {
    this.loop.burst = 'none';
    this.state.parsesEnded(burst.parsing.length);
    return burst.parsing;
  }

  /** After a failed burst's claim was recovered: its URLs go back, each to be fetched on its own (host-bursts.ts). */
  burstFailedRequeue(burst: BurstStep, nowMs: number): void {
    bursts.burstFailedRequeue(this.context, burst, nowMs);
  }

  /** A burst reported (its claim already taken): no longer in flight. */
  burstReturned(): void {
    this.loop.burst = 'none';
  }

  /** A burst's report: each URL ends as the one-URL path would end it (host-bursts.ts). */
  burstReported(burst: BurstStep, result: FetchBurstResult, nowMs: number): FollowUp[] {
    return bursts.burstReported(this.context, burst, result, nowMs);
  }

  /** A robots.txt refresh of the loop's own returned. */
  robotsReported(item: HostWorkItem, result: RefreshRobotsResult, nowMs: number): FollowUp[] {
    const { random } = this.context.options;
    this.state.noteRobotsRules(item.origin, result);
    // A robots.txt that fails below HTTP tells about the host: a bad certificate or NXDOMAIN holds it.
    this.state.noteOutcome(hostOutcomeOfRobotsRefresh(result), item, random, nowMs);
    // (A held host's URLs fail with the hold's type instead, at the next step.)
    if (result.policyKind === 'disallow-all' && this.state.holdAt(nowMs) === undefined) return waitForRobotsRefresh(this.state, item.origin, result.freshUntilMs, nowMs, random);
    return [];
  }

  /** A one-URL fetch returned. */
  fetchReported(item: HostWorkItem, result: FetchUrlResult, nowMs: number): FollowUp | undefined {
    this.state.noteOutcome(hostOutcomeOfResult(result), item, this.context.options.random, nowMs);
    return applyDecision(this.state, afterFetch(item, result))[0];
  }

  /** A one-URL fetch failed every activity-level retry with a typed failure. */
  fetchFailed(item: HostWorkItem, type: string, details: FetchFailureDetails | undefined, message: string, nowMs: number): FollowUp | undefined {
    // A hold (NXDOMAIN, private address) applies although no request reached the host.
    this.state.noteOutcome(hostOutcomeOfFailure(type, details, nowMs), item, this.context.options.random, nowMs);
    return applyDecision(this.state, decideAfterFailure(this.state, item, type, details, message, nowMs, this.context.options.random))[0];
  }
}
