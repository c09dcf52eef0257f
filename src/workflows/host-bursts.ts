/**
 * A host's fetch bursts: several ready URLs in one activity at the host's pace, the previous
 * burst's bodies parsed beside its requests, and, when the queue runs low, a claim that rides with
 * it. Plain functions over the host's queue and loop state, called by HostLoop; no I/O.
 */
import type { BurstClaim, ClaimHostWorkInput, FetchBurstInput, FetchBurstResult, HostWorkItem } from '../contracts/activities.js';
import { parseInputOf } from '../contracts/fetch-followup.js';
import { DEFAULT_FETCH_BURST_LIMITS, policyDelayMs, type HostPolitenessState } from '../domain/politeness/index.js';
import { afterFailedParse, afterFetch, applyDecision, decideAfterFailure, waitForRobotsRefresh, type FetchedItem, type FollowUp } from './host-outcomes.js';
import type { HostLoopContext, HostLoopState } from './host-phase.js';
import type { HostQueue } from './host-queue.js';
import { queueRenders } from './host-renders.js';

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

/** How many URLs a claim asks for: enough for a few seconds of this host's pace. */
export function claimSize(minDelayMs: number): number {
  return Math.max(2, Math.min(10, Math.ceil(4000 / Math.max(1, minDelayMs))));
}

/** The carried bodies, for a step that parses them on its own (no longer counted as carried). */
export function takeCarriedParses(state: HostQueue, loop: HostLoopState): FetchedItem[] {
  const batch = loop.carriedParses.splice(0);
  state.parsesEnded(batch.length);
  return batch;
}

/** The claim a burst carries when the queue runs low, and whether it may release the host. */
function burstClaim({ queue: state, loop, options }: HostLoopContext, first: HostWorkItem): BurstClaim {
  loop.counters.burstClaims += 1;
  const claim: BurstClaim = { maxItems: claimSize(state.policyFor(first).minDelayMs), claimToken: `${options.runKey}/burst-claim/${loop.counters.burstClaims}` };
  // Nothing else of the host in flight or queued (the carried bodies ride with the burst): the
  // burst may release the host, so a host whose work fits it needs no releasing claim after.
  if (state.queue.length === 0 && loop.counters.settles === 0 && state.inFlight === 0 && state.pendingParses === loop.carriedParses.length) {
    claim.releaseIfDone = { paused: state.paused, delayOverrideMs: state.delayOverrideMs };
  }
  loop.claim = 'riding';
  return claim;
}

export function startBurst(context: HostLoopContext, first: HostWorkItem, size: number, early: boolean, nowMs: number): BurstStep {
  const { queue: state, loop } = context;
  const local = loop.localBurst === 'available';
  loop.localBurst = 'spent';
  const items = [first, ...state.takeFront((local ? Math.min(size, LOCAL_BURST.maxUrls) : size) - 1)];
  const politeness: HostPolitenessState = state.politenessAt(nowMs);
  const claim = state.queue.length <= 1 ? burstClaim(context, first) : undefined;
  // The burst holds the host's one slot until it reports back.
  state.noteRequestStarted(nowMs, first);
  loop.burst = early ? 'early' : 'in-flight';
  // Still counted in pendingParses, until the burst reports on them.
  const parsing = loop.carriedParses.splice(0);
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

/** The claim a burst could not report (it failed, or the burst did), to recover by its token. */
export function burstClaimRecovery({ queue: state, options }: HostLoopContext, claim: BurstClaim): ClaimHostWorkInput {
  return {
    host: state.host,
    maxItems: claim.maxItems,
    releaseIfEmpty: false,
    politeness: state.politeness,
    paused: state.paused,
    delayOverrideMs: state.delayOverrideMs,
    taskQueue: options.taskQueue,
    claimToken: claim.claimToken,
    withHostRecord: false,
  };
}

/** The URLs a burst claimed join the back of the queue; the loop claims on its own again. */
export function burstClaimTaken({ queue: state, loop }: HostLoopContext, items: readonly HostWorkItem[]): void {
  state.enqueue(items);
  loop.claim = items.length === 0 ? 'exhausted' : 'open';
}

/**
 * After a failed burst's claim was recovered: its URLs go back, each to be fetched on its own (a
 * set notBeforeMs keeps them out of bursts). Its last request may have ended just before it
 * failed: the next waits a full delay from now.
 */
export function burstFailedRequeue({ queue: state, options }: HostLoopContext, burst: BurstStep, nowMs: number): void {
  state.noteOutcome({ kind: 'not-sent', atMs: nowMs }, burst.items[0], options.random, nowMs);
  state.deferNextFetchUntil(nowMs + policyDelayMs(burst.input.policy));
  state.requeueFrontAll(burst.items.map((item) => ({ ...item, notBeforeMs: nowMs })));
}

/** How a burst's URLs ended: follow-ups, URLs to requeue, bodies left to parse. */
interface BurstEnding {
  followUps: FollowUp[];
  requeued: HostWorkItem[];
  toParse: FetchedItem[];
}

/**
 * Takes a burst's politeness state and ends each URL as the one-URL path would: parsed by the
 * burst, or to parseDocument when its parse failed; bodies it did not parse are carried to the
 * next burst; failures meet their policy; anything else settles or is requeued. A failure the
 * policy retries at the activity layer goes back with its delay and is retried on its own
 * (priorAttempts 1, so the fetch activity counts on from 2).
 */
export function burstReported(context: HostLoopContext, burst: BurstStep, result: FetchBurstResult, nowMs: number): FollowUp[] {
  const { queue: state, loop, options } = context;
  state.adoptBurstPoliteness(result.politeness, result.requestsStarted);
  // Pages its parses (and the carried bodies') found to want renders: queued in the host's turn.
  burst.parsing.forEach(({ item, fetched }, index) => {
    const parsed = result.parseOutcomes?.[index];
    if (parsed?.ok === true && parsed.renders) queueRenders(context, item, fetched, parsed.renders);
  });
  // Its robots.txt refreshes, counted in its politeness already.
  for (const { origin, refreshed } of result.robots ?? []) state.noteRobotsRules(origin, refreshed);
  const ending: BurstEnding = { followUps: [], requeued: [], toParse: [] };
  // Carried bodies the burst could not parse go to parseDocument and its poison budget (settled at once if over the parse budget).
  state.parsesEnded(burst.parsing.length);
  burst.parsing.forEach(({ item, fetched }, index) => {
    if (result.parseOutcomes?.[index]?.ok !== true) ending.followUps.push(afterFailedParse(item, fetched, result.parseOutcomes?.[index]));
  });
  endBurstUrls(context, burst, result, nowMs, ending);
  const { followUps, requeued, toParse } = ending;
  state.requeueFrontAll(requeued);
  // An unreachable robots.txt (not a held host): the origin's URLs wait for its next refresh.
  for (const { origin, refreshed } of result.robots ?? []) {
    if (refreshed.policyKind === 'disallow-all' && state.holdAt(nowMs) === undefined) followUps.push(...waitForRobotsRefresh(state, origin, refreshed.freshUntilMs, nowMs, options.random));
  }
  // Parsed beside the next burst's requests, or on their own by the next step that flushes.
  loop.carriedParses.push(...toParse);
  state.parsesStarted(toParse.length);
  // The release stands only if it left nothing here, and the operator changed nothing meanwhile
  // (else the loop's own claim releases the host again, with the settings it has now).
  const settings = burst.claim?.releaseIfDone;
  if (result.released === true) loop.nextClaim.markRunStarted = true;
  loop.releasedByBurst =
    result.released === true &&
    settings !== undefined &&
    settings.paused === state.paused &&
    settings.delayOverrideMs === state.delayOverrideMs &&
    followUps.length === 0 &&
    requeued.length === 0 &&
    toParse.length === 0;
  return followUps;
}

/** Ends each URL the burst was given or claimed and fetched itself, into `ending`. */
function endBurstUrls({ queue: state, loop, options }: HostLoopContext, burst: BurstStep, result: FetchBurstResult, nowMs: number, ending: BurstEnding): void {
  const { followUps, requeued, toParse } = ending;
  // A burst that sent nothing, not even its first URL, hands them all back: fetched one by one,
  // they cannot loop. One that sent its robots.txt request first made progress: its URLs stay
  // burstable (else every URL of a host whose robots.txt was slow went alone, at two activities,
  // a timer and three workflow tasks a page).
  const handBack = (result.outcomes[0] ?? { kind: 'not-attempted' }).kind === 'not-attempted' && result.requestsStarted === 0;
  // URLs the burst claimed and fetched itself end as the ones it was given.
  const extended = result.extended ?? [];
  const outcomes = [...burst.items.map((_, index) => result.outcomes[index] ?? { kind: 'not-attempted' as const }), ...extended.map(({ outcome }) => outcome)];
  [...burst.items, ...extended.map(({ item }) => item)].forEach((item, index) => {
    const outcome = outcomes[index]!;
    if (outcome.kind === 'not-attempted') {
      requeued.push(handBack ? { ...item, notBeforeMs: nowMs } : item);
    } else if (outcome.kind === 'failed') {
      if (outcome.retryDelayMs !== undefined) requeued.push({ ...item, priorAttempts: 1, notBeforeMs: nowMs + outcome.retryDelayMs });
      else followUps.push(...applyDecision(state, decideAfterFailure(state, item, outcome.failureType, outcome.details, outcome.message, nowMs, options.random)));
    } else if (outcome.result.kind === 'robots-stale') {
      state.noteRobotsFreshUntil(item.origin, 0);
      requeued.push(item);
    } else if (outcome.result.kind === 'fetched' && outcome.result.parse) {
      // Parsed by the burst: done, or waiting for its renders. Not parsed there: to the next
      // burst, or straight to parseDocument and its poison budget when the burst's parse failed.
      if (outcome.parsed === undefined) toParse.push({ item, fetched: outcome.result });
      else if (!outcome.parsed.ok) followUps.push(afterFailedParse(item, outcome.result, outcome.parsed));
      else if (outcome.parsed.renders) queueRenders({ queue: state, loop, options }, item, outcome.result, outcome.parsed.renders);
    } else if (outcome.settled !== true) {
      followUps.push(...applyDecision(state, afterFetch(item, outcome.result)));
    }
  });
}
