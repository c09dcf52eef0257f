/**
 * A host's renders (src/render): queued by parses that found a page wants one, started in the
 * host's turn (a render holds the host's one slot, as a burst does), and settled with their page
 * once the last of them ends. Plain functions over the host's queue and loop state, called by
 * HostLoop; no I/O.
 */
import type { HostWaitReport, HostWorkItem, RenderFailureDetails, RenderPageInput, RenderPageResult, RenderTask, RenderWanted, SettleOutcome } from '../contracts/activities.js';
import type { FetchedResult } from '../contracts/fetch-followup.js';
import { circuitStateAt, nextFetchAtMs } from '../domain/politeness/index.js';
import { MAX_SUBRESOURCE_WAIT_MS } from '../domain/render/index.js';
import type { FollowUp } from './host-outcomes.js';
import type { HostLoopContext } from './host-phase.js';
import { renderPageKey, type HostQueue } from './host-queue.js';

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

/** How a render activity failed for good, as the workflow read it. */
export interface RenderFailure {
  /** RenderCrashed, RenderTimeout, BrowserUnavailable; or 'unstarted': no render worker took it in time. */
  type: string;
  message: string;
  attempts: number;
  details?: RenderFailureDetails;
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

/** What the next render step is: one to start now, one to fail at once (a held host), or none yet. */
export type RenderStart =
  | { kind: 'render'; task: RenderTask; input: RenderPageInput }
  | { kind: 'settle'; item: HostWorkItem; outcome: SettleOutcome };

/**
 * The next render, when one may start now: the host's one slot free, its circuit closed, not
 * paused, and its next fetch time within the wait a render's first request may make (the render
 * waits out the rest in its own pacing). A render on a held host fails at once with the hold.
 */
export function nextRender({ queue: state, loop }: HostLoopContext, nowMs: number): RenderStart | undefined {
  if (state.renders.length === 0 || state.paused || loop.renderInFlight) return undefined;
  const index = state.renders.findIndex((task) => (task.notBeforeMs ?? 0) <= nowMs);
  if (index < 0) return undefined;
  const task = state.renders[index]!;
  const hold = state.holdAt(nowMs);
  if (hold !== undefined) {
    state.takeRenderAt(index);
    const [followUp] = renderEnded(state, task, { kind: 'render-failed', routeKey: task.routeKey, failureType: hold.reason, message: `host ${state.host} is held after ${hold.reason}; not rendered`, attempts: 1, settlesPage: false });
    return { kind: 'settle', item: followUp!.item, outcome: followUp!.outcome };
  }
  const politeness = state.politenessAt(nowMs);
  const policy = state.policyFor(task);
  if (politeness.inFlight > 0 || circuitStateAt(politeness, policy, nowMs) !== 'closed') return undefined;
  if (nextFetchAtMs(politeness, nowMs) - nowMs > MAX_SUBRESOURCE_WAIT_MS) return undefined;
  state.takeRenderAt(index);
  const input: RenderPageInput = { task, politeness, policy, scheduledAtMs: nowMs };
  // The render holds the host's one slot until it reports back.
  state.noteRequestStarted(nowMs, task);
  loop.renderInFlight = task;
  return { kind: 'render', task, input };
}

/** When the first queued render may start, ms since epoch: its own time, and the host's within a render's first wait. */
export function renderStartAtMs(state: HostQueue, nowMs: number): number {
  const readyAtMs = Math.min(...state.renders.map((task) => task.notBeforeMs ?? nowMs));
  return Math.max(readyAtMs, state.nextFetchAtMs(nowMs) - MAX_SUBRESOURCE_WAIT_MS);
}

/** A parse found the page wants renders: they join the host's queue, its page waiting for all of them. */
export function queueRenders({ queue: state, loop }: HostLoopContext, item: HostWorkItem, fetched: FetchedResult, wanted: readonly RenderWanted[]): void {
  if (wanted.length === 0) return;
  for (const want of wanted) {
    state.queueRender({
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
  state.addOutstandingRenders(key, wanted.length, 0);
  loop.counters.rendersQueued += 1;
}

/** A render reported: the host takes back its politeness; routes it found join the queue; the page settles after its last render. */
export function renderReported({ queue: state, loop }: HostLoopContext, task: RenderTask, result: RenderPageResult): FollowUp[] {
  delete loop.renderInFlight;
  state.adoptBurstPoliteness(result.politeness, result.requestsStarted);
  const key = renderPageKey(task);
  for (const route of result.routes) {
    const { unstartedTries: _tries, notBeforeMs: _notBefore, ...base } = task;
    state.queueRender({ ...base, ...route });
  }
  if (result.routes.length > 0) {
    state.addOutstandingRenders(key, result.routes.length, 1);
    loop.counters.rendersQueued += 1;
  }
  return renderEnded(state, task, { kind: 'rendered' });
}

/**
 * A render failed for good, or found no render worker in time. The host takes back what its
 * requests did to it (or its slot, when it sent none). An unstarted render goes back to wait for
 * a worker (`report`: the wait, for the crawl's status) until it has tried enough; any other
 * failure is recorded with the render and the page keeps its HTTP result.
 */
export function renderFailed({ queue: state, loop, options }: HostLoopContext, task: RenderTask, failure: RenderFailure, nowMs: number): { followUps: FollowUp[]; report?: HostWaitReport } {
  delete loop.renderInFlight;
  if (failure.details) state.adoptBurstPoliteness(failure.details.politeness, failure.details.requestsStarted);
  else state.noteOutcome({ kind: 'not-sent', atMs: nowMs }, task, options.random, nowMs);
  if (failure.type === 'unstarted') {
    const tries = (task.unstartedTries ?? 0) + 1;
    if (tries < MAX_UNSTARTED_RENDER_TRIES) {
      const waitMs = Math.min(MAX_RENDER_WORKER_RETRY_MS, RENDER_WORKER_RETRY_MS * 2 ** (tries - 1));
      state.queueRender({ ...task, unstartedTries: tries, notBeforeMs: nowMs + waitMs });
      return { followUps: [], report: { host: state.host, reason: 'render-worker', sinceMs: nowMs, untilMs: nowMs + waitMs } };
    }
    failure = { ...failure, type: 'BrowserUnavailable', message: `no render worker took the render in ${tries} tries (crawler worker --render-slots N runs one): ${failure.message}` };
  }
  return {
    followUps: renderEnded(state, task, { kind: 'render-failed', routeKey: task.routeKey, failureType: failure.type, message: failure.message, attempts: failure.attempts, settlesPage: false }),
  };
}

/** One render of a page ended: its settlement, and the page's when it was the last. */
function renderEnded(state: HostQueue, task: RenderTask, outcome: Extract<SettleOutcome, { kind: 'rendered' | 'render-failed' }>): (FollowUp & { kind: 'settle' })[] {
  const left = state.endOutstandingRender(renderPageKey(task));
  const item = renderPageItem(task);
  if (outcome.kind === 'render-failed') return [{ kind: 'settle', item, outcome: { ...outcome, settlesPage: left <= 0 } }];
  return left <= 0 ? [{ kind: 'settle', item, outcome }] : [];
}
