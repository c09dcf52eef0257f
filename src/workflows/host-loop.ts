/**
 * The decisions of one host's back queue (Mercator), as a plain deterministic class: what to claim,
 * when the next request may start, when to continue as new, and how each outcome changes the
 * host's state. `next(nowMs)` returns one tagged step; the workflow (host-workflow.ts) carries it
 * out with activities and timers and reports back through the `…Reported` methods. No I/O and no
 * Temporal here, so the loop is unit-tested without a server (test/unit/workflows/host-loop.test.ts).
 */
import type {
  BurstClaim,
  ClaimHostWorkInput,
  ClaimHostWorkResult,
  FetchBurstInput,
  FetchBurstResult,
  FetchFailureDetails,
  FetchUrlInput,
  FetchUrlResult,
  HostWaitReport,
  HostWorkItem,
  RefreshRobotsResult,
  RenderFailureDetails,
  RenderPageInput,
  RenderPageResult,
  RenderTask,
  RenderWanted,
  SettleOutcome,
} from '../contracts/activities.js';
import {
  DEFAULT_FETCH_BURST_LIMITS,
  hostOutcomeOfFailure,
  hostOutcomeOfResult,
  hostOutcomeOfRobotsRefresh,
  circuitStateAt,
  nextFetchAtMs,
  policyDelayMs,
  type HostPolitenessState,
} from '../domain/politeness/index.js';
import { MAX_SUBRESOURCE_WAIT_MS } from '../domain/render/index.js';
import { HostQueue, renderPageKey, type HostQueueSnapshot } from './host-queue.js';
import type { FetchedResult } from '../contracts/fetch-followup.js';
import { parseInputOf } from '../contracts/fetch-followup.js';
import { afterFailedParse, afterFetch, decideAfterFailure, deferredOutcome, noteRobotsRules, pushDefined, robotsPatienceEndsAtMs, waitForRobotsRefresh, type FetchedItem, type FollowUp } from './host-outcomes.js';
import type { HostStatus, HostWaitReason } from '../contracts/status.js';
import { HostWaitReporter, hostWaitReason, type HostWait } from './host-wait-report.js';

export type { FetchedItem, FollowUp } from './host-outcomes.js';

/** How far a burst given a claim extends itself with the host's next URLs: this many URLs in all, within its span limit. */
export const BURST_EXTENSION = Object.freeze({ maxUrls: 40 });

/**
 * A run's first burst, when the worker running the host's workflow also runs bursts, is a local
 * activity of at most this many URLs: in a wide crawl most hosts' runs are one such burst, and a
 * local one costs the Temporal server no activity task and the run no second workflow task
 * (bench/README.md, "Figures behind the defaults"). Few URLs, because a local activity holds its workflow
 * task open: signals and queries to the host wait for it. Its span is the default one: on a
 * loaded worker its pages' parses, not its requests, make its length, and a shorter span only
 * cuts small hosts' bursts short, each then needing a burst activity. Later bursts are activities, visible in the UI while they run.
 */
export const LOCAL_BURST = Object.freeze({ maxUrls: 5 });

/**
 * A render no render worker picked up in time (schedule-to-start) goes back to the host's queue for
 * later, this many times at most, the waits doubling from RENDER_WORKER_RETRY_MS up to
 * MAX_RENDER_WORKER_RETRY_MS (about an hour in all); then it fails as BrowserUnavailable and the
 * page keeps its HTTP result. Meanwhile the host's other URLs go on, and the crawl says it waits.
 */
export const MAX_UNSTARTED_RENDER_TRIES = 6;
export const RENDER_WORKER_RETRY_MS = 60_000;
export const MAX_RENDER_WORKER_RETRY_MS = 30 * 60_000;
/** A host with only renders waiting for their time claims again this often, ms. */
export const RENDER_WAIT_CLAIM_MS = 10_000;

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

/** How a render activity failed for good, as the workflow read it. */
export interface RenderFailure {
  /** RenderCrashed, RenderTimeout, BrowserUnavailable; or 'unstarted': no render worker took it in time. */
  type: string;
  message: string;
  attempts: number;
  details?: RenderFailureDetails;
}

/** A fetch burst the loop started: its activity input, and what the loop needs back from its report. */
export interface BurstStep {
  /** Run as a local activity (LOCAL_BURST), in the worker running the workflow. */
  local: boolean;
  items: HostWorkItem[];
  claim?: BurstClaim;
  /** The previous burst's bodies, parsed beside this burst's requests. */
  parsing: FetchedItem[];
  input: FetchBurstInput;
}

/** The facts about the run's history that decide continue-as-new. */
export interface RunHistoryFacts {
  continueAsNewSuggested: boolean;
  historyLength: number;
}

export interface HostLoopOptions {
  /** The task queue the host's claims name, for the host's later runs. */
  taskQueue: string;
  /** `<workflowId>/<runId>`: burst claim tokens are unique per run and stable across replays. */
  runKey: string;
  /** The workflow's replay-safe randomness (jitter). */
  random: () => number;
}

/** The page a render belongs to, as a settlement names it. */
function renderPageItem(task: RenderTask): HostWorkItem {
  return {
    crawlId: task.crawlId,
    fingerprint: task.fingerprint,
    url: task.url,
    origin: task.origin,
    depth: task.depth,
    generation: task.generation,
    attempt: 0,
    purpose: 'page',
    minHostDelayMs: task.minHostDelayMs,
    maxConcurrentFetches: task.maxConcurrentFetches,
    ...(task.politeness === undefined ? {} : { politeness: task.politeness }),
  };
}

/** How many URLs a claim asks for: enough for a few seconds of this host's pace. */
export function claimSize(minDelayMs: number): number {
  return Math.max(2, Math.min(10, Math.ceil(4000 / Math.max(1, minDelayMs))));
}

export class HostLoop {
  readonly state: HostQueue;
  private readonly options: HostLoopOptions;
  /** The host's saved record (politeness, operator settings) was read by a claim, or carried. */
  private hostRecordLoaded: boolean;
  private woken = false;
  /** A signal arrived, or a fatal failure: waits on 'change' end. */
  private changed = false;
  private signalsThisRun = 0;
  private pendingSettles = 0;
  /** The last claim found nothing: no claim of its own until a wake, an idle spell or a burst. */
  private claimExhausted = false;
  /** A fetch burst in flight is refilling the back queue: the loop does not claim beside it. */
  private claimRiding = false;
  private burstClaims = 0;
  /** The run started a burst: only its first may be local. */
  private burstStarted = false;
  /** The worker of the loop's latest own claim (a local activity) runs fetch bursts too (ClaimHostWorkResult.localBursts). */
  private localBurstsHere = false;
  /** A burst started before the host's next fetch time is under way: wait for it, not for a timer. */
  private earlyBurstInFlight = false;
  /** state.outcomes when a 'change-or-outcome' wait began. */
  private outcomesAtWait = 0;
  /**
   * Bodies of the last burst, to be parsed beside the next burst's requests (one activity for
   * both). Counted in pendingParses. Every step but a burst flushes them, so they are only carried
   * when the next burst starts at once, and never sit behind a pause, a delay or an empty queue.
   */
  private carriedParses: FetchedItem[] = [];
  /** A failure no activity retry could absorb: the run fails visibly rather than look alive. */
  private fatal: unknown;
  /** A claim of the loop's own just returned URLs: the next step fetches, it does not claim again. */
  private justClaimed = false;
  /** The last burst released the host (claim.releaseIfDone) and left nothing to do. */
  private releasedByBurst = false;
  /** The render holding the host's turn, if any. */
  private renderInFlight: RenderTask | undefined;
  /** Renders were queued since the last wait began: the wait ends to start them. */
  private rendersQueued = false;
  /** The wait under way is for renders only: after it, claims are tried again. */
  private claimAfterWait = false;
  /**
   * The next claim marks the run begun (hosts.run_started_at) though it needs no host record: a
   * claim or a burst released the host in Postgres and the run went on (a wake came), or the run
   * continued a previous one. Else a host woken meanwhile would look unstarted, waiting for a worker.
   */
  private markRunStartedOnNextClaim: boolean;
  private readonly waitReporter: HostWaitReporter;

  constructor(host: string, carried: HostQueueSnapshot | undefined, options: HostLoopOptions) {
    this.state = carried ? new HostQueue(carried) : HostQueue.fresh(host);
    this.hostRecordLoaded = carried !== undefined;
    this.markRunStartedOnNextClaim = carried !== undefined;
    this.options = options;
    this.waitReporter = new HostWaitReporter(this.state.host);
  }

  // Signals: each marks the loop changed, so a wait on a timer re-decides at once.
  wake(): void {
    this.woken = true;
    this.signalled();
  }
  pause(): void {
    this.state.paused = true;
    this.signalled();
  }
  resume(): void {
    this.state.paused = false;
    this.signalled();
  }
  setDelayOverride(minDelayMs: number | null): void {
    this.state.delayOverrideMs = minDelayMs === null ? null : Math.max(0, Math.floor(minDelayMs));
    this.signalled();
  }
  private signalled(): void {
    this.changed = true;
    this.signalsThisRun += 1;
  }

  /** A wake arrived (a release raced with it: the run goes on). */
  get wokenSinceRelease(): boolean {
    return this.woken;
  }

  failed(error: unknown): void {
    this.fatal ??= error;
    this.changed = true;
  }

  settleStarted(): void {
    this.pendingSettles += 1;
  }
  settleEnded(): void {
    this.pendingSettles -= 1;
  }
  parsesStarted(count: number): void {
    this.state.pendingParses += count;
  }
  parsesEnded(count: number): void {
    this.state.pendingParses -= count;
  }

  /** No request, parse or settle of this run is under way. */
  get quiet(): boolean {
    return this.state.inFlight === 0 && this.state.pendingParses === 0 && this.pendingSettles === 0;
  }
  private get idle(): boolean {
    return this.state.queue.length === 0 && this.state.renders.length === 0 && this.quiet;
  }

  status(nowMs: number): HostStatus {
    const { state } = this;
    const hold = state.holdAt(nowMs);
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
      ...(state.renders.length > 0 || this.renderInFlight ? { rendersQueued: state.renders.length + (this.renderInFlight ? 1 : 0) } : {}),
    };
  }

  snapshotForNextRun(): HostQueueSnapshot {
    return this.state.snapshotForNextRun();
  }

  /** Whether the wait of a 'wait' step is over. */
  waitIsOver(wait: HostWait): boolean {
    if (this.carriedParses.length > 0 || this.releasedByBurst || this.rendersQueued) return true;
    switch (wait) {
      case 'quiet':
        return this.quiet || this.fatal !== undefined;
      case 'idle-or-requeue':
        return this.idle || this.state.queue.length > 0 || this.woken || this.fatal !== undefined;
      case 'change':
        return this.changed;
      case 'change-or-outcome':
        return this.changed || this.state.outcomes !== this.outcomesAtWait;
    }
  }

  /** A 'wait' step ended. */
  waited(wait: HostWait): void {
    // Once the queue ran dry and work finished, the next claim may find URLs again, or release the host.
    if (wait === 'idle-or-requeue' || this.claimAfterWait) this.claimExhausted = false;
    this.claimAfterWait = false;
  }

  /** The next step at `nowMs`. */
  next(nowMs: number, history: RunHistoryFacts): HostStep {
    if (this.justClaimed) {
      this.justClaimed = false;
      return this.nextFromQueue(nowMs, history);
    }
    const { state } = this;
    if (this.fatal !== undefined) return { kind: 'fail', message: `host ${state.host}: ${String(this.fatal)}` };

    // Continue-as-new between requests, never with work in flight.
    if (history.continueAsNewSuggested || history.historyLength > MAX_HISTORY_EVENTS || this.signalsThisRun > MAX_SIGNALS_PER_RUN) {
      return this.quiet ? { kind: 'continue-as-new' } : this.waitFor('quiet');
    }

    if (this.releasedByBurst) {
      this.releasedByBurst = false;
      // A wake since the release marked the host active again: the run goes on.
      if (!this.woken && this.idle) return { kind: 'released' };
    }

    if (this.woken) {
      this.woken = false;
      this.claimExhausted = false;
    }

    // Refill the back queue from the front queues when it runs low (Mercator).
    if (state.queue.length <= 1 && !this.claimExhausted && !this.claimRiding && !this.claimRidesNextBurst(nowMs)) {
      const input: ClaimHostWorkInput = {
        host: state.host,
        maxItems: claimSize(state.policyFor(state.queue[0]).minDelayMs),
        releaseIfEmpty: this.idle,
        politeness: state.politeness,
        paused: state.paused,
        delayOverrideMs: state.delayOverrideMs,
        taskQueue: this.options.taskQueue,
        withHostRecord: !this.hostRecordLoaded,
        ...(this.markRunStartedOnNextClaim ? { markRunStarted: true } : {}),
      };
      this.markRunStartedOnNextClaim = false;
      return { kind: 'claim', input, flush: this.takeCarriedParses() };
    }
    return this.nextFromQueue(nowMs, history);
  }

  /** The step once the back queue is refilled, or need not be. */
  private nextFromQueue(nowMs: number, history: RunHistoryFacts): HostStep {
    const { state } = this;
    const render = this.renderStep(nowMs);
    if (render !== undefined) return render;
    if (state.queue.length === 0 && state.renders.length > 0) {
      // Only renders left, none startable yet: wait for the request in flight, or for the first
      // one's time. The host is not idle meanwhile, so no idle spell renews its claims: the wait
      // ends within RENDER_WAIT_CLAIM_MS to claim again (URLs of other crawls may have come).
      if (state.inFlight > 0 || this.renderInFlight) return this.waitFor('change-or-outcome');
      if (state.paused) return this.waitFor('change');
      this.claimAfterWait = true;
      return this.waitFor('change', Math.max(1, Math.min(this.renderStartAtMs(nowMs) - nowMs, RENDER_WAIT_CLAIM_MS)));
    }
    if (state.queue.length === 0) {
      // Wait for in-flight work; once idle, the next claim may release the host. A host-level
      // retry (429, 5xx, robots) requeues its URL meanwhile: that wakes the loop too.
      if (!this.idle) return this.waitFor('idle-or-requeue');
      this.claimExhausted = false;
      return this.next(nowMs, history);
    }

    // A quarantined or negatively cached host (TLS, private address, NXDOMAIN): its URLs fail
    // fast with the hold's type, without a request, instead of waiting out the hold.
    const hold = state.holdAt(nowMs);
    if (hold !== undefined) {
      const held = state.queue.shift()!;
      const until = new Date(hold.untilMs).toISOString();
      const message = `host ${state.host} is held after ${hold.reason} until ${until}; no request sent`;
      return { kind: 'settle', item: held, outcome: { kind: 'failed', failureType: hold.reason, message, stage: 'fetch', attempts: held.attempt + 1 }, flush: this.takeCarriedParses() };
    }
    // An origin whose robots.txt stayed unreachable past the crawl's patience: its URLs are deferred
    // without another request, whatever the host waits for (a throttle, a retry's backoff).
    const outOfPatience = state.queue.findIndex((queued) => (robotsPatienceEndsAtMs(state, queued) ?? Infinity) <= nowMs);
    if (outOfPatience >= 0) {
      const [deferred] = state.queue.splice(outOfPatience, 1);
      const outcome = deferredOutcome(deferred!, state.robotsUnreachableSinceMs[deferred!.origin]!, nowMs);
      return { kind: 'settle', item: deferred!, outcome, flush: this.takeCarriedParses() };
    }
    const patienceEndsAtMs = Math.min(...state.queue.map((queued) => robotsPatienceEndsAtMs(state, queued) ?? Infinity));
    // A host-level retry waits for its own backoff while other URLs of the host may go first.
    const readyAtMs = state.promoteReady(nowMs);
    if (readyAtMs !== undefined && !state.paused) {
      const timeoutMs = Math.max(1, Math.min(readyAtMs, patienceEndsAtMs) - nowMs);
      return this.waitFor('change', timeoutMs, ...this.retryWait(nowMs, nowMs + timeoutMs));
    }

    // A burst due within its own wait limit starts now; its activity waits out the rest.
    const canStart = state.canStartAt(nowMs);
    const earlyBurstAtMs = canStart ? undefined : state.earlyBurstStartAtMs(nowMs, DEFAULT_FETCH_BURST_LIMITS, 1);
    if (!canStart && earlyBurstAtMs === undefined) {
      const nextFetchAtMs = state.nextFetchAtMs(nowMs);
      if (state.paused) return this.waitFor('change');
      // The time has come (or a burst waits it out) but every slot is taken: wait for a request to finish.
      if (nextFetchAtMs <= nowMs || this.earlyBurstInFlight) return this.waitFor('change-or-outcome');
      const timeoutMs = Math.max(1, Math.min(nextFetchAtMs, patienceEndsAtMs) - nowMs);
      const reason = hostWaitReason(state.politeness, nowMs + timeoutMs, 'crawl-delay');
      return this.waitFor('change', timeoutMs, reason, this.waitReporter.reportFor(reason, nowMs, nowMs + timeoutMs));
    }

    const item = state.queue.shift()!;
    if (state.quarantinedReason !== null) {
      const outcome: SettleOutcome = { kind: 'failed', failureType: 'TlsCertificateError', message: state.quarantinedReason, stage: 'fetch', attempts: item.attempt + 1 };
      return { kind: 'settle', item, outcome, flush: this.takeCarriedParses() };
    }

    const burstSize = state.burstSizeAt(item, earlyBurstAtMs ?? nowMs, DEFAULT_FETCH_BURST_LIMITS, 1);
    // A burst refreshes stale rules itself; a URL fetched on its own waits for them here.
    if (!state.robotsFresh(item.origin, nowMs) && burstSize === 0) {
      // robots.txt is a request to the host like any other: it takes a politeness slot.
      state.queue.unshift(item);
      state.noteRequestStarted(nowMs, item);
      return { kind: 'refresh-robots', item, flush: this.takeCarriedParses() };
    }

    if (earlyBurstAtMs !== undefined && burstSize === 0) {
      // Not reachable (the same test chose the early start); never fetch one URL before its time.
      state.requeueFront(item);
      return this.waitFor('change', earlyBurstAtMs - nowMs);
    }
    // A short delay: this URL and the ready ones behind it go in one activity.
    if (burstSize > 0) return { kind: 'burst', burst: this.startBurst(item, burstSize, earlyBurstAtMs !== undefined, nowMs) };

    // One URL on its own; beside the loop, so that with several slots per host requests overlap.
    const flush = this.takeCarriedParses();
    const policy = state.policyFor(item);
    state.noteRequestStarted(nowMs, item, { spaceStarts: policy.maxConcurrentFetches > 1 });
    return { kind: 'fetch', item, input: { ...item, hostDelayMs: policy.minDelayMs }, flush };
  }

  /** The queue's one URL will go as a burst, which claims beside it: no claim of its own first. */
  private claimRidesNextBurst(nowMs: number): boolean {
    const { queue } = this.state;
    return queue.length === 1 && this.hostRecordLoaded && this.state.burstable(queue[0]!, nowMs, DEFAULT_FETCH_BURST_LIMITS);
  }

  /**
   * The next render, when one may start now: the host's one slot free, its circuit closed, not
   * paused, and its next fetch time within the wait a render's first request may make (the render
   * waits out the rest in its own pacing). A render on a held host fails at once with the hold.
   */
  private renderStep(nowMs: number): HostStep | undefined {
    const { state } = this;
    if (state.renders.length === 0 || state.paused || this.renderInFlight) return undefined;
    const index = state.renders.findIndex((task) => (task.notBeforeMs ?? 0) <= nowMs);
    if (index < 0) return undefined;
    const task = state.renders[index]!;
    const hold = state.holdAt(nowMs);
    if (hold !== undefined) {
      state.renders.splice(index, 1);
      const [followUp] = this.renderEnded(task, { kind: 'render-failed', routeKey: task.routeKey, failureType: hold.reason, message: `host ${state.host} is held after ${hold.reason}; not rendered`, attempts: 1, settlesPage: false });
      return { kind: 'settle', item: followUp!.item, outcome: followUp!.outcome, flush: this.takeCarriedParses() };
    }
    const politeness = state.politenessAt(nowMs);
    const policy = state.policyFor(task);
    if (politeness.inFlight > 0 || circuitStateAt(politeness, policy, nowMs) !== 'closed') return undefined;
    if (nextFetchAtMs(politeness, nowMs) - nowMs > MAX_SUBRESOURCE_WAIT_MS) return undefined;
    state.renders.splice(index, 1);
    const input: RenderPageInput = { task, politeness, policy, scheduledAtMs: nowMs };
    // The render holds the host's one slot until it reports back.
    state.noteRequestStarted(nowMs, task);
    this.renderInFlight = task;
    return { kind: 'render', task, input, flush: this.takeCarriedParses() };
  }

  /** When the first queued render may start, ms since epoch: its own time, and the host's within a render's first wait. */
  private renderStartAtMs(nowMs: number): number {
    const { state } = this;
    const readyAtMs = Math.min(...state.renders.map((task) => task.notBeforeMs ?? nowMs));
    return Math.max(readyAtMs, state.nextFetchAtMs(nowMs) - MAX_SUBRESOURCE_WAIT_MS);
  }

  /** A parse found the page wants renders: they join the host's queue, its page waiting for all of them. */
  queueRenders(item: HostWorkItem, fetched: FetchedResult, wanted: readonly RenderWanted[]): void {
    if (wanted.length === 0) return;
    const { state } = this;
    for (const want of wanted) {
      state.renders.push({
        ...want,
        crawlId: item.crawlId,
        fingerprint: item.fingerprint,
        generation: item.generation,
        url: item.url,
        finalUrl: fetched.finalUrl,
        origin: item.origin,
        depth: item.depth,
        bodyKey: fetched.bodyKey,
        contentType: fetched.contentType,
        fetchedAtMs: fetched.startedAtMs,
        ...(fetched.xRobotsTag === undefined ? {} : { xRobotsTag: fetched.xRobotsTag }),
        minHostDelayMs: item.minHostDelayMs,
        maxConcurrentFetches: item.maxConcurrentFetches,
        ...(item.politeness === undefined ? {} : { politeness: item.politeness }),
      });
    }
    const key = renderPageKey(item);
    state.rendersOutstanding[key] = (state.rendersOutstanding[key] ?? 0) + wanted.length;
    this.rendersQueued = true;
  }

  /** A render reported: the host takes back its politeness; routes it found join the queue; the page settles after its last render. */
  renderReported(task: RenderTask, result: RenderPageResult): FollowUp[] {
    const { state } = this;
    this.renderInFlight = undefined;
    state.adoptBurstPoliteness(result.politeness, result.requestsStarted);
    const key = renderPageKey(task);
    for (const route of result.routes) {
      const { unstartedTries: _tries, notBeforeMs: _notBefore, ...base } = task;
      state.renders.push({ ...base, ...route });
    }
    if (result.routes.length > 0) {
      state.rendersOutstanding[key] = (state.rendersOutstanding[key] ?? 1) + result.routes.length;
      this.rendersQueued = true;
    }
    return this.renderEnded(task, { kind: 'rendered' });
  }

  /**
   * A render failed for good, or found no render worker in time. The host takes back what its
   * requests did to it (or its slot, when it sent none). An unstarted render goes back to wait for
   * a worker (`report`: the wait, for the crawl's status) until it has tried enough; any other
   * failure is recorded with the render and the page keeps its HTTP result.
   */
  renderFailed(task: RenderTask, failure: RenderFailure, nowMs: number): { followUps: FollowUp[]; report?: HostWaitReport } {
    const { state } = this;
    this.renderInFlight = undefined;
    if (failure.details) state.adoptBurstPoliteness(failure.details.politeness, failure.details.requestsStarted);
    else state.noteOutcome({ kind: 'not-sent', atMs: nowMs }, task, this.options.random, nowMs);
    if (failure.type === 'unstarted') {
      const tries = (task.unstartedTries ?? 0) + 1;
      if (tries < MAX_UNSTARTED_RENDER_TRIES) {
        const waitMs = Math.min(MAX_RENDER_WORKER_RETRY_MS, RENDER_WORKER_RETRY_MS * 2 ** (tries - 1));
        state.renders.push({ ...task, unstartedTries: tries, notBeforeMs: nowMs + waitMs });
        return { followUps: [], report: { host: state.host, reason: 'render-worker', sinceMs: nowMs, untilMs: nowMs + waitMs } };
      }
      failure = { ...failure, type: 'BrowserUnavailable', message: `no render worker took the render in ${tries} tries (crawler worker --render-slots N runs one): ${failure.message}` };
    }
    return {
      followUps: this.renderEnded(task, { kind: 'render-failed', routeKey: task.routeKey, failureType: failure.type, message: failure.message, attempts: failure.attempts, settlesPage: false }),
    };
  }

  /** One render of a page ended: its settlement, and the page's when it was the last. */
  private renderEnded(task: RenderTask, outcome: Extract<SettleOutcome, { kind: 'rendered' | 'render-failed' }>): (FollowUp & { kind: 'settle' })[] {
    const { state } = this;
    const key = renderPageKey(task);
    const left = (state.rendersOutstanding[key] ?? 1) - 1;
    if (left > 0) state.rendersOutstanding[key] = left;
    else delete state.rendersOutstanding[key];
    const item = renderPageItem(task);
    if (outcome.kind === 'render-failed') return [{ kind: 'settle', item, outcome: { ...outcome, settlesPage: left <= 0 } }];
    return left <= 0 ? [{ kind: 'settle', item, outcome }] : [];
  }

  private waitFor(wait: HostWait, timeoutMs?: number, reason?: HostWaitReason, report?: HostWaitReport): HostStep {
    this.rendersQueued = false;
    if (wait === 'change' || wait === 'change-or-outcome') this.changed = false;
    this.outcomesAtWait = this.state.outcomes;
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
    const robotsSinceMs = this.state.robotsUnreachableSinceMs[first.origin];
    if (robotsSinceMs !== undefined) return ['robots-unreachable', this.waitReporter.reportFor('robots-unreachable', nowMs, untilMs, robotsSinceMs)];
    const reason = hostWaitReason(this.state.politeness, untilMs, 'retry-backoff');
    return [reason, this.waitReporter.reportFor(reason, nowMs, untilMs)];
  }

  private takeCarriedParses(): FetchedItem[] {
    const batch = this.carriedParses.splice(0);
    this.state.pendingParses -= batch.length;
    return batch;
  }

  private startBurst(first: HostWorkItem, size: number, early: boolean, nowMs: number): BurstStep {
    const { state } = this;
    const local = !this.burstStarted && this.localBurstsHere;
    this.burstStarted = true;
    const items = [first, ...state.queue.splice(0, (local ? Math.min(size, LOCAL_BURST.maxUrls) : size) - 1)];
    const politeness: HostPolitenessState = state.politenessAt(nowMs);
    let claim: BurstClaim | undefined;
    if (state.queue.length <= 1) {
      this.burstClaims += 1;
      claim = { maxItems: claimSize(state.policyFor(first).minDelayMs), claimToken: `${this.options.runKey}/burst-claim/${this.burstClaims}` };
      // Nothing else of the host in flight or queued (the carried bodies ride with the burst): the
      // burst may release the host, so a host whose work fits it needs no releasing claim after.
      if (state.queue.length === 0 && this.pendingSettles === 0 && state.inFlight === 0 && state.pendingParses === this.carriedParses.length) {
        claim.releaseIfDone = { paused: state.paused, delayOverrideMs: state.delayOverrideMs };
      }
      this.claimRiding = true;
    }
    // The burst holds the host's one slot until it reports back.
    state.noteRequestStarted(nowMs, first);
    this.earlyBurstInFlight = early;
    // Still counted in pendingParses, until the burst reports on them.
    const parsing = this.carriedParses.splice(0);
    const policy = state.policyFor(first);
    const input: FetchBurstInput = {
      host: state.host,
      items: items.map((item) => ({ ...item, hostDelayMs: policy.minDelayMs })),
      politeness,
      policy,
      limits: local ? { ...DEFAULT_FETCH_BURST_LIMITS, ...LOCAL_BURST } : DEFAULT_FETCH_BURST_LIMITS,
      ...(claim ? { claim, extendWithClaims: local ? { maxUrls: LOCAL_BURST.maxUrls } : BURST_EXTENSION } : {}),
      ...(parsing.length > 0 ? { parse: parsing.map(({ item, fetched }) => parseInputOf(item, fetched)) } : {}),
    };
    return { local, items, ...(claim ? { claim } : {}), parsing, input };
  }

  /** A claim of the loop's own returned. True: the host was released, and the run ends (unless woken meanwhile). */
  claimReported(result: ClaimHostWorkResult): boolean {
    const { state } = this;
    this.localBurstsHere = result.localBursts === true;
    if (!this.hostRecordLoaded && result.host) {
      this.hostRecordLoaded = true;
      state.politeness ??= (result.host.politeness as HostQueue['politeness']) ?? null;
      state.delayOverrideMs ??= result.host.delayOverrideMs;
      state.paused = state.paused || result.host.paused;
      state.quarantinedReason ??= result.host.quarantinedReason;
    }
    state.queue.push(...result.items);
    if (result.released) {
      this.markRunStartedOnNextClaim = true;
      return true;
    }
    this.claimExhausted = result.items.length === 0;
    this.justClaimed = true;
    return false;
  }

  /** The claim a burst could not report (it failed, or the burst did), to recover by its token. */
  burstClaimRecovery(claim: BurstClaim): ClaimHostWorkInput {
    const { state } = this;
    return {
      host: state.host,
      maxItems: claim.maxItems,
      releaseIfEmpty: false,
      politeness: state.politeness,
      paused: state.paused,
      delayOverrideMs: state.delayOverrideMs,
      taskQueue: this.options.taskQueue,
      claimToken: claim.claimToken,
      withHostRecord: false,
    };
  }

  /** The URLs a burst claimed join the back of the queue. */
  burstClaimTaken(items: readonly HostWorkItem[]): void {
    this.state.queue.push(...items);
    this.claimExhausted = items.length === 0;
    this.claimRiding = false;
  }

  /** A burst failed every retry: its carried bodies go to one parseBatch (each parse is idempotent). */
  burstFailed(burst: BurstStep): FetchedItem[] {
    this.earlyBurstInFlight = false;
    this.state.pendingParses -= burst.parsing.length;
    return burst.parsing;
  }

  /**
   * After a failed burst's claim was recovered: its URLs go back, each to be fetched on its own (a
   * set notBeforeMs keeps them out of bursts). Its last request may have ended just before it
   * failed: the next waits a full delay from now.
   */
  burstFailedRequeue(burst: BurstStep, nowMs: number): void {
    const { state } = this;
    state.noteOutcome({ kind: 'not-sent', atMs: nowMs }, burst.items[0], this.options.random, nowMs);
    state.deferNextFetchUntil(nowMs + policyDelayMs(burst.input.policy));
    state.requeueFrontAll(burst.items.map((item) => ({ ...item, notBeforeMs: nowMs })));
  }

  /** A burst reported (its claim already taken): no longer in flight. */
  burstReturned(): void {
    this.earlyBurstInFlight = false;
  }

  /**
   * Takes a burst's politeness state and ends each URL as the one-URL path would: parsed by the
   * burst, or to parseDocument when its parse failed; bodies it did not parse are carried to the
   * next burst; failures meet their policy; anything else settles or is requeued. A failure the
   * policy retries at the activity layer goes back with its delay and is retried on its own
   * (priorAttempts 1, so the fetch activity counts on from 2).
   */
  burstReported(burst: BurstStep, result: FetchBurstResult, nowMs: number): FollowUp[] {
    const { state } = this;
    state.adoptBurstPoliteness(result.politeness, result.requestsStarted);
    // Pages its parses (and the carried bodies') found to want renders: queued in the host's turn.
    burst.parsing.forEach(({ item, fetched }, index) => {
      const parsed = result.parseOutcomes?.[index];
      if (parsed?.ok === true && parsed.renders) this.queueRenders(item, fetched, parsed.renders);
    });
    // Its robots.txt refreshes, counted in its politeness already.
    for (const { origin, refreshed } of result.robots ?? []) noteRobotsRules(state, origin, refreshed);
    // A burst that sent nothing, not even its first URL, hands them all back: fetched one by one,
    // they cannot loop. One that sent its robots.txt request first made progress: its URLs stay
    // burstable (else every URL of a host whose robots.txt was slow went alone, at two activities,
    // a timer and three workflow tasks a page).
    const handBack = (result.outcomes[0] ?? { kind: 'not-attempted' }).kind === 'not-attempted' && result.requestsStarted === 0;
    const requeued: HostWorkItem[] = [];
    const followUps: FollowUp[] = [];
    // Carried bodies the burst could not parse go to parseDocument and its poison budget (settled at once if over the parse budget).
    state.pendingParses -= burst.parsing.length;
    burst.parsing.forEach(({ item, fetched }, index) => {
      if (result.parseOutcomes?.[index]?.ok !== true) followUps.push(afterFailedParse(item, fetched, result.parseOutcomes?.[index]));
    });
    const toParse: FetchedItem[] = [];
    // URLs the burst claimed and fetched itself end as the ones it was given.
    const extended = result.extended ?? [];
    const outcomes = [...burst.items.map((_, index) => result.outcomes[index] ?? { kind: 'not-attempted' as const }), ...extended.map(({ outcome }) => outcome)];
    [...burst.items, ...extended.map(({ item }) => item)].forEach((item, index) => {
      const outcome = outcomes[index]!;
      if (outcome.kind === 'not-attempted') {
        requeued.push(handBack ? { ...item, notBeforeMs: nowMs } : item);
      } else if (outcome.kind === 'failed') {
        if (outcome.retryDelayMs !== undefined) requeued.push({ ...item, priorAttempts: 1, notBeforeMs: nowMs + outcome.retryDelayMs });
        else pushDefined(followUps, decideAfterFailure(state, item, outcome.failureType, outcome.details, outcome.message, nowMs, this.options.random));
      } else if (outcome.result.kind === 'robots-stale') {
        state.robotsFreshUntilMs[item.origin] = 0;
        requeued.push(item);
      } else if (outcome.result.kind === 'fetched' && outcome.result.parse) {
        // Parsed by the burst: done, or waiting for its renders. Not parsed there: to the next
        // burst, or straight to parseDocument and its poison budget when the burst's parse failed.
        if (outcome.parsed === undefined) toParse.push({ item, fetched: outcome.result });
        else if (!outcome.parsed.ok) followUps.push(afterFailedParse(item, outcome.result, outcome.parsed));
        else if (outcome.parsed.renders) this.queueRenders(item, outcome.result, outcome.parsed.renders);
      } else if (outcome.settled !== true) {
        pushDefined(followUps, afterFetch(state, item, outcome.result));
      }
    });
    state.requeueFrontAll(requeued);
    // An unreachable robots.txt (not a held host): the origin's URLs wait for its next refresh.
    for (const { origin, refreshed } of result.robots ?? []) {
      if (refreshed.policyKind === 'disallow-all' && state.holdAt(nowMs) === undefined) followUps.push(...waitForRobotsRefresh(state, origin, refreshed.freshUntilMs, nowMs, this.options.random));
    }
    // Parsed beside the next burst's requests, or on their own by the next step that flushes.
    this.carriedParses.push(...toParse);
    state.pendingParses += toParse.length;
    // The release stands only if it left nothing here, and the operator changed nothing meanwhile
    // (else the loop's own claim releases the host again, with the settings it has now).
    const settings = burst.claim?.releaseIfDone;
    if (result.released === true) this.markRunStartedOnNextClaim = true;
    this.releasedByBurst =
      result.released === true &&
      settings !== undefined &&
      settings.paused === state.paused &&
      settings.delayOverrideMs === state.delayOverrideMs &&
      followUps.length === 0 &&
      requeued.length === 0 &&
      toParse.length === 0;
    return followUps;
  }

  /** A robots.txt refresh of the loop's own returned. */
  robotsReported(item: HostWorkItem, result: RefreshRobotsResult, nowMs: number): FollowUp[] {
    noteRobotsRules(this.state, item.origin, result);
    // A robots.txt that fails below HTTP tells about the host: a bad certificate or NXDOMAIN holds it.
    this.state.noteOutcome(hostOutcomeOfRobotsRefresh(result), item, this.options.random, nowMs);
    // (A held host's URLs fail with the hold's type instead, at the next step.)
    if (result.policyKind === 'disallow-all' && this.state.holdAt(nowMs) === undefined) return waitForRobotsRefresh(this.state, item.origin, result.freshUntilMs, nowMs, this.options.random);
    return [];
  }

  /** A one-URL fetch returned. */
  fetchReported(item: HostWorkItem, result: FetchUrlResult, nowMs: number): FollowUp | undefined {
    this.state.noteOutcome(hostOutcomeOfResult(result), item, this.options.random, nowMs);
    return afterFetch(this.state, item, result);
  }

  /** A one-URL fetch failed every activity-level retry with a typed failure. */
  fetchFailed(item: HostWorkItem, type: string, details: FetchFailureDetails | undefined, message: string, nowMs: number): FollowUp | undefined {
    // A hold (NXDOMAIN, private address) applies although no request reached the host.
    this.state.noteOutcome(hostOutcomeOfFailure(type, details, nowMs), item, this.options.random, nowMs);
    return decideAfterFailure(this.state, item, type, details, message, nowMs, this.options.random);
  }
}
