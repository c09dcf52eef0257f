/**
 * One workflow per host, shared by every crawl: a Mercator back queue. It holds a few URLs,
 * sleeps until the host's next fetch time, fetches, hands the body to the parser, and asks the
 * frontier (Postgres, through claimHostWork) for more when it runs low. Politeness lives here,
 * in one place per host, so it holds across crawls and across worker processes.
 */
import {
  ActivityFailure,
  ApplicationFailure,
  TimeoutFailure,
  allHandlersFinished,
  condition,
  continueAsNew,
  log,
  proxyActivities,
  proxyLocalActivities,
  setHandler,
  upsertSearchAttributes,
  workflowInfo,
} from '@temporalio/workflow';
import type { createActivities } from '../activities/index.js';
import type {
  BurstClaim,
  FetchBurstResult,
  FetchFailureDetails,
  FetchUrlResult,
  HostWorkItem,
  ParseBatchOutcome,
  RefreshRobotsResult,
  SettleOutcome,
} from '../activities/contracts.js';
import {
  FAILURE_POLICIES,
  POISON_ATTEMPT_LIMIT,
  fetchActivityRetryShape,
  retryDelayMs,
  type FetchFailureType,
} from '../domain/failures/index.js';
import { retryDelayScaleOf } from '../config/politeness-config.js';
import {
  DEFAULT_FETCH_BURST_LIMITS,
  hostOutcomeOfFailure,
  hostOutcomeOfResult,
  hostOutcomeOfRobotsRefresh,
  policyDelayMs,
  type HostPolitenessState,
} from '../domain/politeness/index.js';
import { HostQueue, type HostQueueSnapshot } from './host-queue.js';
import { parseInputOf, plainSettlementOf, type FetchedResult } from './fetch-followup.js';
import {
  DEFAULT_TASK_QUEUE,
  HOST_SEARCH_ATTRIBUTE,
  SEARCH_ATTRIBUTES,
  hostStatusQuery,
  pauseHostSignal,
  resumeHostSignal,
  setHostDelaySignal,
  wakeHostSignal,
} from './messages.js';
import type { HostStatus } from './status.js';

type Activities = ReturnType<typeof createActivities>;

export interface HostWorkflowInput {
  host: string;
  /** Task queue the host's activities and later runs use. Default 'crawler'. */
  taskQueue?: string;
  /** State carried from the previous run (continue-as-new). */
  carried?: HostQueueSnapshot;
}

export interface HostWorkflowResult {
  host: string;
  fetches: number;
  runs: number;
}

const retryShape = fetchActivityRetryShape();

/** How far a burst given a claim extends itself with the host's next URLs: this many URLs in all, within its span limit. */
const BURST_EXTENSION = Object.freeze({ maxUrls: 40 });

// Store activities take milliseconds; the timeout is how long a crashed worker's task waits
// before another worker retries it.
const storeActivities = proxyActivities<Activities>({
  startToCloseTimeout: '30s',
  retry: { initialInterval: '1s', backoffCoefficient: 2, maximumInterval: '30s', maximumAttempts: 10 },
});

// The same store work, run by the workflow's own worker (LOCAL_CLAIMS_PATCH); the same retries.
const localStoreActivities = proxyLocalActivities<Activities>({
  startToCloseTimeout: '30s',
  retry: { initialInterval: '1s', backoffCoefficient: 2, maximumInterval: '30s', maximumAttempts: 10 },
});

const fetchActivities = proxyActivities<Activities>({
  // connect + first byte + whole body deadlines of the HTTP layer, plus storing the body.
  startToCloseTimeout: '150s',
  heartbeatTimeout: '30s',
  retry: {
    initialInterval: retryShape.initialIntervalMs,
    backoffCoefficient: retryShape.backoffCoefficient,
    maximumInterval: retryShape.maximumIntervalMs,
    maximumAttempts: retryShape.maximumAttempts,
    nonRetryableErrorTypes: retryShape.nonRetryableErrorTypes,
  },
});

// A burst reports fetch failures as outcomes; what Temporal retries here is the burst itself
// failing (a crashed worker, the store unreachable). The first retry waits longer than any wait
// inside a burst, so a retried burst cannot come sooner than the host's delay.
const burstActivities = proxyActivities<Activities>({
  startToCloseTimeout: '20m',
  heartbeatTimeout: '60s',
  retry: { initialInterval: '5s', backoffCoefficient: 2, maximumInterval: '60s', maximumAttempts: 4 },
});

const parseActivities = proxyActivities<Activities>({
  startToCloseTimeout: '60s',
  retry: { initialInterval: '2s', backoffCoefficient: 2, maximumInterval: '60s', maximumAttempts: POISON_ATTEMPT_LIMIT },
});

// A batch reports each body's parse failure; what is retried here is the batch itself failing (a
// crashed worker). Bodies it could not parse go to parseDocument and its poison budget.
const parseBatchActivities = proxyActivities<Activities>({
  startToCloseTimeout: '120s',
  retry: { initialInterval: '2s', backoffCoefficient: 2, maximumInterval: '30s', maximumAttempts: 2 },
});

/** How many URLs a claim asks for: enough for a few seconds of this host's pace. */
function claimSize(minDelayMs: number): number {
  return Math.max(2, Math.min(10, Math.ceil(4000 / Math.max(1, minDelayMs))));
}

/** Seeded by the workflow's own randomness, which Temporal makes replay-safe. */
const random = (): number => Math.random();

export async function hostWorkflow(input: HostWorkflowInput): Promise<HostWorkflowResult> {
  const taskQueue = input.taskQueue ?? DEFAULT_TASK_QUEUE;
  const state = input.carried ? new HostQueue(input.carried) : HostQueue.fresh(input.host);
  let hostRecordLoaded = input.carried !== undefined;
  let woken = false;
  let changed = false;
  let signalsThisRun = 0;
  let pendingSettles = 0;
  /** The queue's one URL will go as a burst, which claims beside it: no claim of its own first. */
  const claimRidesNextBurst = (): boolean =>
    state.queue.length === 1 && hostRecordLoaded && state.burstable(state.queue[0]!, Date.now(), DEFAULT_FETCH_BURST_LIMITS);
  /** No request, parse or settle of this run is under way. */
  const quiet = (): boolean => state.inFlight === 0 && state.pendingParses === 0 && pendingSettles === 0;
  const idle = (): boolean => state.queue.length === 0 && quiet();

  setHandler(wakeHostSignal, () => {
    woken = true;
    changed = true;
    signalsThisRun += 1;
  });
  setHandler(pauseHostSignal, () => {
    state.paused = true;
    changed = true;
    signalsThisRun += 1;
  });
  setHandler(resumeHostSignal, () => {
    state.paused = false;
    changed = true;
    signalsThisRun += 1;
  });
  setHandler(setHostDelaySignal, ({ minDelayMs }) => {
    state.delayOverrideMs = minDelayMs === null ? null : Math.max(0, Math.floor(minDelayMs));
    changed = true;
    signalsThisRun += 1;
  });
  setHandler(hostStatusQuery, (): HostStatus => ({
    host: state.host,
    queueLength: state.queue.length,
    inFlight: state.inFlight,
    pendingParses: state.pendingParses,
    nextFetchAtMs: state.peekNextFetchAtMs(Date.now()),
    paused: state.paused,
    delayOverrideMs: state.delayOverrideMs,
    quarantinedReason: state.quarantinedReason ?? heldReason(state.holdAt(Date.now())),
    fetchesThisRun: state.fetchesThisRun,
    run: state.run,
  }));

  if (workflowInfo().typedSearchAttributes.get(HOST_SEARCH_ATTRIBUTE) === undefined) {
    upsertSearchAttributes({ [SEARCH_ATTRIBUTES.host]: [state.host] });
  }

  const historyIsLarge = (): boolean =>
    workflowInfo().continueAsNewSuggested || workflowInfo().historyLength > 8000 || signalsThisRun > 4000;

  let claimExhausted = false;
  /** A fetch burst in flight is refilling the back queue: the loop does not claim beside it. */
  let claimRiding = false;
  let burstClaims = 0;
  /** A burst started before the host's next fetch time is under way: wait for it, not for a timer. */
  let earlyBurstInFlight = false;
  /**
   * Bodies of the last burst, to be parsed beside the next burst's requests (one activity for
   * both). Counted in pendingParses. The loop parses them on their own before anything that would
   * make it wait, so they are only carried when the next burst starts at once.
   */
  const carriedParses: FetchedItem[] = [];
  const flushCarriedParses = (): void => {
    if (carriedParses.length === 0) return;
    const batch = carriedParses.splice(0);
    state.pendingParses -= batch.length;
    track(parseTogether(batch));
  };
  /**
   * Every wait of the loop: carried bodies are parsed first, and a burst that reports meanwhile
   * with bodies wakes the loop, so bodies never sit behind a pause, a long delay or an empty queue.
   */
  const waitInLoop = (until: () => boolean, timeoutMs?: number): Promise<unknown> => {
    flushCarriedParses();
    const woke = (): boolean => until() || carriedParses.length > 0;
    return timeoutMs === undefined ? condition(woke) : condition(woke, timeoutMs);
  };
  // A failure no activity retry could absorb (the store unreachable for many minutes): fail
  // the run visibly rather than leave a workflow that looks alive and does nothing.
  let fatal: unknown;
  const track = (work: Promise<void>): void => {
    work.catch((error: unknown) => {
      fatal ??= error;
      changed = true;
    });
  };

  for (;;) {
    if (fatal !== undefined) {
      throw ApplicationFailure.create({ type: 'HostWorkflowFailed', message: `host ${state.host}: ${String(fatal)}`, nonRetryable: true });
    }

    // Continue-as-new between requests, never with work in flight.
    if (historyIsLarge()) {
      if (quiet()) {
        await condition(allHandlersFinished);
        await continueAsNew<typeof hostWorkflow>({ host: state.host, taskQueue, carried: state.snapshotForNextRun() });
      }
      await waitInLoop(() => quiet() || fatal !== undefined);
      continue;
    }

    if (woken) {
      woken = false;
      claimExhausted = false;
    }

    // Refill the back queue from the front queues when it runs low (Mercator).
    if (state.queue.length <= 1 && !claimExhausted && !claimRiding && !claimRidesNextBurst()) {
      flushCarriedParses();
      const claim = await localStoreActivities.claimHostWork({
        host: state.host,
        maxItems: claimSize(state.policyFor(state.queue[0]).minDelayMs),
        releaseIfEmpty: idle(),
        politeness: state.politeness,
        paused: state.paused,
        delayOverrideMs: state.delayOverrideMs,
        taskQueue,
        withHostRecord: !hostRecordLoaded,
      });
      if (!hostRecordLoaded && claim.host) {
        hostRecordLoaded = true;
        state.politeness ??= (claim.host.politeness as HostQueue['politeness']) ?? null;
        state.delayOverrideMs ??= claim.host.delayOverrideMs;
        state.paused = state.paused || claim.host.paused;
        state.quarantinedReason ??= claim.host.quarantinedReason;
      }
      state.queue.push(...claim.items);
      if (claim.released) {
        // Released in Postgres: a wake that raced with the release is handled by this run,
        // later ones start a new run through signal-with-start.
        await condition(allHandlersFinished);
        if (woken) continue;
        return { host: state.host, fetches: state.fetchesThisRun, runs: state.run };
      }
      claimExhausted = claim.items.length === 0;
    }

    if (state.queue.length === 0) {
      // Wait for in-flight work; once idle, the next claim may release the host. A host-level
      // retry (429, 5xx, robots) requeues its URL meanwhile: that must wake the loop too.
      if (!idle()) await waitInLoop(() => idle() || state.queue.length > 0 || woken || fatal !== undefined);
      claimExhausted = false;
      continue;
    }

    const nowMs = Date.now();
    // A quarantined or negatively cached host (TLS, private address, NXDOMAIN): its URLs fail
    // fast with the hold's type, without a request, instead of waiting out the hold.
    const hold = state.holdAt(nowMs);
    if (hold !== undefined) {
      flushCarriedParses();
      const held = state.queue.shift()!;
      const until = new Date(hold.untilMs).toISOString();
      await settle(held, { kind: 'failed', failureType: hold.reason, message: `host ${state.host} is held after ${hold.reason} until ${until}; no request sent`, stage: 'fetch', attempts: held.attempt + 1 });
      continue;
    }
    // A host-level retry waits for its own backoff while other URLs of the host may go first.
    const readyAtMs = state.promoteReady(nowMs);
    if (readyAtMs !== undefined && !state.paused) {
      changed = false;
      await waitInLoop(() => changed, Math.max(1, readyAtMs - nowMs));
      continue;
    }
    // A burst due within its own wait limit starts now; its activity waits out the rest.
    let earlyBurstAtMs: number | undefined;
    if (!state.canStartAt(nowMs)) {
      earlyBurstAtMs = state.earlyBurstStartAtMs(nowMs, DEFAULT_FETCH_BURST_LIMITS, 1);
    }
    if (!state.canStartAt(nowMs) && earlyBurstAtMs === undefined) {
      const outcomesBefore = state.outcomes;
      changed = false;
      const nextFetchAtMs = state.nextFetchAtMs(nowMs);
      if (state.paused) {
        await waitInLoop(() => changed);
      } else if (nextFetchAtMs <= nowMs || earlyBurstInFlight) {
        // The time has come (or a burst waits it out) but every slot is taken: wait for a request to finish.
        await waitInLoop(() => changed || state.outcomes !== outcomesBefore);
      } else {
        await waitInLoop(() => changed, nextFetchAtMs - nowMs);
      }
      continue;
    }

    const item = state.queue.shift()!;
    if (state.quarantinedReason !== null) {
      flushCarriedParses();
      await settle(item, { kind: 'failed', failureType: 'TlsCertificateError', message: state.quarantinedReason, stage: 'fetch', attempts: item.attempt + 1 });
      continue;
    }

    // A burst refreshes stale rules itself; anything else waits for them here.
    if (!state.robotsFresh(item.origin, nowMs) && state.burstSizeAt(item, earlyBurstAtMs ?? nowMs, DEFAULT_FETCH_BURST_LIMITS, 1) === 0) {
      // robots.txt is a request to the host like any other: it takes a politeness slot.
      state.queue.unshift(item);
      flushCarriedParses();
      const refreshed = await refreshRobots(item);
      // (A held host's URLs fail with the hold's type instead, at the top of the loop.)
      if (refreshed.policyKind === 'disallow-all' && state.holdAt(Date.now()) === undefined) {
        await waitForRobotsRefresh(item.origin, refreshed.freshUntilMs);
      }
      continue;
    }

    // A short delay: this URL and the ready ones behind it go in one activity.
    const burstSize = state.burstSizeAt(item, earlyBurstAtMs ?? nowMs, DEFAULT_FETCH_BURST_LIMITS, 1);
    if (earlyBurstAtMs !== undefined && burstSize === 0) {
      // Not reachable (the same test chose the early start); never fetch one URL before its time.
      state.requeueFront(item);
      changed = false;
      await waitInLoop(() => changed, earlyBurstAtMs - nowMs);
      continue;
    }
    if (burstSize > 0) {
      const items = [item, ...state.queue.splice(0, burstSize - 1)];
      const before = state.politenessAt(nowMs);
      let claim: BurstClaim | undefined;
      if (state.queue.length <= 1) {
        burstClaims += 1;
        claim = { maxItems: claimSize(state.policyFor(item).minDelayMs), claimToken: `${workflowInfo().workflowId}/${workflowInfo().runId}/burst-claim/${burstClaims}` };
        claimRiding = true;
      }
      // The burst holds the host's one slot until it reports back.
      state.noteRequestStarted(nowMs, item);
      earlyBurstInFlight = earlyBurstAtMs !== undefined;
      const parsing = carriedParses.splice(0);
      track(processBurst(items, before, { claim, parsing }));
      continue;
    }

    // One URL on its own: the carried bodies are parsed on their own too.
    flushCarriedParses();

    const spaceStarts = state.policyFor(item).maxConcurrentFetches > 1;
    state.noteRequestStarted(nowMs, item, { spaceStarts });
    // Runs beside the loop so that, with maxConcurrentFetches > 1, slots overlap; the loop only
    // starts the next request when politeness allows, and parsing never holds a slot.
    track(processItem(item));
  }

  async function refreshRobots(item: HostWorkItem): Promise<RefreshRobotsResult> {
    state.noteRequestStarted(Date.now(), item);
    const result = await storeActivities.refreshRobots({ origin: item.origin, crawlId: item.crawlId });
    noteRobotsRules(item.origin, result);
    // A robots.txt that fails below HTTP tells about the host: a bad certificate or NXDOMAIN holds it.
    state.noteOutcome(hostOutcomeOfRobotsRefresh(result), item, random, Date.now());
    return result;
  }

  /** What a refresh of an origin's robots.txt says for its next requests: how long the rules hold, and their Crawl-delay. */
  function noteRobotsRules(origin: string, result: RefreshRobotsResult): void {
    state.robotsFreshUntilMs[origin] = result.freshUntilMs;
    if (result.crawlDelayMs !== undefined) state.robotsCrawlDelayMs[origin] = result.crawlDelayMs;
    else delete state.robotsCrawlDelayMs[origin];
  }

  /**
   * robots.txt is unreachable (5xx, network error: RFC 9309 §2.3.1.4, disallow everything for now):
   * every ready URL of the origin waits for the file's next refresh (RobotsUnreachable, a host-level
   * retry), or fails as RobotsUnreachable once its attempts are spent. Decided here, at once and
   * without a request: waiting for another politeness slot would find the rules stale again.
   */
  async function waitForRobotsRefresh(origin: string, refreshAtMs: number): Promise<void> {
    const nowMs = Date.now();
    const waiting = state.queue.filter((queued) => queued.origin === origin && (queued.notBeforeMs ?? 0) <= nowMs);
    state.queue = state.queue.filter((queued) => !waiting.includes(queued));
    for (const queued of waiting) {
      const attempts = queued.attempt + 1;
      const delayMs = retryDelayMs('RobotsUnreachable', attempts, random, { nowMs, retryAfterAtMs: Math.max(nowMs, refreshAtMs), scale: retryDelayScaleOf(queued.politeness) });
      if (delayMs !== undefined) {
        state.queue.push({ ...queued, attempt: attempts, notBeforeMs: nowMs + delayMs });
      } else {
        await settle(queued, { kind: 'failed', failureType: 'RobotsUnreachable', message: `robots.txt of ${origin} stayed unreachable for ${attempts} attempts; nothing else was fetched there`, stage: 'fetch', attempts });
      }
    }
  }

  async function processItem(item: HostWorkItem): Promise<void> {
    let result: FetchUrlResult;
    try {
      result = await fetchActivities.fetchUrl({ ...item, hostDelayMs: state.policyFor(item).minDelayMs });
    } catch (error) {
      await handleFetchFailure(item, error);
      return;
    }
    state.noteOutcome(hostOutcomeOfResult(result), item, random, Date.now());
    await afterFetch(item, result);
  }

  /** What follows a fetch that returned, its host outcome already noted. */
  async function afterFetch(item: HostWorkItem, result: FetchUrlResult): Promise<void> {
    const plain = plainSettlementOf(result);
    if (plain !== undefined) {
      await settle(item, plain);
      return;
    }
    switch (result.kind) {
      case 'fetched':
        await parse(item, result);
        return;
      case 'robots-stale':
        state.robotsFreshUntilMs[item.origin] = 0;
        state.requeueFront(item);
        return;
      case 'skipped':
        if (result.reason === 'crawl-paused') await settle(item, { kind: 'returned', reason: result.reason });
        else await settle(item, { kind: 'dropped', reason: result.reason });
        return;
    }
  }

  /**
   * Runs a fetch burst and takes its politeness state. Each URL then ends as it would on the
   * one-URL path: its bodies are parsed together in one parseBatch (beside the next burst: parsing
   * never holds the host's slot); anything else is settled or requeued here. A failure the policy
   * retries at the activity layer goes back with its delay and is retried on its own (priorAttempts
   * 1, so the fetch activity counts on from 2).
   */
  async function processBurst(
    items: HostWorkItem[],
    politeness: HostPolitenessState,
    { claim, parsing }: { claim: BurstClaim | undefined; parsing: FetchedItem[] },
  ): Promise<void> {
    const policy = state.policyFor(items[0]);
    let result: FetchBurstResult;
    try {
      result = await burstActivities.fetchBurst({
        host: state.host,
        items: items.map((item) => ({ ...item, hostDelayMs: policy.minDelayMs })),
        politeness,
        policy,
        limits: DEFAULT_FETCH_BURST_LIMITS,
        ...(claim ? { claim } : {}),
        ...(parsing.length > 0 ? { parse: parsing.map(({ item, fetched }) => parseInputOf(item, fetched)) } : {}),
        // And the URLs its parses find, claimed and fetched while its span allows: outcomes in `extended`.
        ...(claim ? { extendWithClaims: BURST_EXTENSION } : {}),
      });
    } catch (error) {
      earlyBurstInFlight = false;
      // The carried bodies are parsed on their own (each parse is idempotent, whatever the burst did).
      state.pendingParses -= parsing.length;
      track(parseTogether(parsing));
      if (claim) await takeBurstClaim(claim, undefined);
      // Fetch failures come back as outcomes; this is the burst itself failing every retry. Its
      // URLs go back, each to be fetched on its own (a set notBeforeMs keeps them out of bursts).
      // Its last request may have ended just before it failed: the next waits a full delay from now.
      const nowMs = Date.now();
      log.warn('fetch burst failed; its URLs are fetched one by one', { host: state.host, urls: items.length, error: String(error) });
      state.noteOutcome({ kind: 'not-sent', atMs: nowMs }, items[0], random, nowMs);
      state.deferNextFetchUntil(nowMs + policyDelayMs(policy));
      state.requeueFrontAll(items.map((item) => ({ ...item, notBeforeMs: nowMs })));
      return;
    }
    earlyBurstInFlight = false;
    // Before the slot is given back: a claim recovered by an activity must not leave the loop idle with none riding.
    if (claim) await takeBurstClaim(claim, result.claimed);
    state.adoptBurstPoliteness(result.politeness, result.requestsStarted);
    // Its robots.txt refreshes, counted in its politeness already.
    for (const { origin, refreshed } of result.robots ?? []) noteRobotsRules(origin, refreshed);
    const nowMs = Date.now();
    // A burst that could not start its first URL hands them all back; fetched one by one, they cannot loop.
    const handBack = (result.outcomes[0] ?? { kind: 'not-attempted' }).kind === 'not-attempted';
    const requeued: HostWorkItem[] = [];
    const finishing: Promise<void>[] = [];
    // Carried bodies the burst could not parse go to parseDocument and its poison budget.
    state.pendingParses -= parsing.length;
    parsing.forEach(({ item, fetched }, index) => {
      if (result.parseOutcomes?.[index]?.ok !== true) finishing.push(parse(item, fetched));
    });
    const toParse: FetchedItem[] = [];
    // URLs the burst claimed and fetched itself end as the ones it was given (a result from before has none).
    const extended = result.extended ?? [];
    const outcomes = [...items.map((_, index) => result.outcomes[index] ?? { kind: 'not-attempted' as const }), ...extended.map(({ outcome }) => outcome)];
    [...items, ...extended.map(({ item }) => item)].forEach((item, index) => {
      const outcome = outcomes[index]!;
      if (outcome.kind === 'not-attempted') {
        requeued.push(handBack ? { ...item, notBeforeMs: nowMs } : item);
      } else if (outcome.kind === 'failed') {
        if (outcome.retryDelayMs !== undefined) requeued.push({ ...item, priorAttempts: 1, notBeforeMs: nowMs + outcome.retryDelayMs });
        else finishing.push(decideAfterFailure(item, outcome.failureType, outcome.details, outcome.message));
      } else if (outcome.result.kind === 'robots-stale') {
        state.robotsFreshUntilMs[item.origin] = 0;
        requeued.push(item);
      } else if (outcome.result.kind === 'fetched' && outcome.result.parse) {
        // Parsed by the burst: done. Not parsed there: to the parse stage, or straight to
        // parseDocument and its poison budget when the burst's parse failed.
        if (outcome.parsed === undefined) toParse.push({ item, fetched: outcome.result });
        else if (!outcome.parsed.ok) finishing.push(parse(item, outcome.result));
      } else if (outcome.settled !== true) {
        finishing.push(afterFetch(item, outcome.result));
      }
    });
    state.requeueFrontAll(requeued);
    // An unreachable robots.txt (not a held host): the origin's URLs wait for its next refresh.
    for (const { origin, refreshed } of result.robots ?? []) {
      if (refreshed.policyKind === 'disallow-all' && state.holdAt(Date.now()) === undefined) finishing.push(waitForRobotsRefresh(origin, refreshed.freshUntilMs));
    }
    // Parsed beside the next burst's requests, or on their own before the loop waits (flushCarriedParses).
    carriedParses.push(...toParse);
    state.pendingParses += toParse.length;
    await Promise.all(finishing);
  }

  /**
   * The URLs a burst claimed join the back of the queue; a claim the burst could not report (it
   * failed, or the burst did) is recovered by its token, so nothing it dispatched is stranded.
   */
  async function takeBurstClaim(claim: BurstClaim, claimed: HostWorkItem[] | undefined): Promise<void> {
    const items =
      claimed ??
      (
        await localStoreActivities.claimHostWork({
          host: state.host,
          maxItems: claim.maxItems,
          releaseIfEmpty: false,
          politeness: state.politeness,
          paused: state.paused,
          delayOverrideMs: state.delayOverrideMs,
          taskQueue,
          claimToken: claim.claimToken,
          withHostRecord: false,
        })
      ).items;
    state.queue.push(...items);
    claimExhausted = items.length === 0;
    claimRiding = false;
  }

  /** A burst's bodies in one parseBatch; any it could not parse (or all, if it failed) go to parseDocument one by one. */
  async function parseTogether(batch: FetchedItem[]): Promise<void> {
    if (batch.length === 0) return;
    if (batch.length === 1) return parse(batch[0]!.item, batch[0]!.fetched);
    let outcomes: ParseBatchOutcome[] = [];
    state.pendingParses += batch.length;
    try {
      ({ outcomes } = await parseBatchActivities.parseBatch({ items: batch.map(({ item, fetched }) => parseInputOf(item, fetched)) }));
    } catch (error) {
      log.warn('parse batch failed; its bodies are parsed one by one', { host: state.host, bodies: batch.length, error: String(error) });
    } finally {
      state.pendingParses -= batch.length;
    }
    await Promise.all(batch.filter((_, index) => outcomes[index]?.ok !== true).map(({ item, fetched }) => parse(item, fetched)));
  }

  async function parse(item: HostWorkItem, fetched: FetchedResult): Promise<void> {
    state.pendingParses += 1;
    try {
      await parseActivities.parseDocument(parseInputOf(item, fetched));
    } catch (error) {
      const message = error instanceof ActivityFailure && error.cause ? error.cause.message : String(error);
      await settle(item, { kind: 'failed', failureType: 'ParseFailed', message, stage: 'parse', attempts: POISON_ATTEMPT_LIMIT });
    } finally {
      state.pendingParses -= 1;
    }
  }

  async function handleFetchFailure(item: HostWorkItem, error: unknown): Promise<void> {
    const { type, details, message } = classifyActivityError(error);
    const nowMs = Date.now();
    // A hold (NXDOMAIN, private address) applies although no request reached the host.
    state.noteOutcome(hostOutcomeOfFailure(type, details, nowMs), item, random, nowMs);
    await decideAfterFailure(item, type, details, message);
  }

  /** A fetch's final failure (its activity-level retries spent): a host-level retry, or the URL settles as failed. */
  async function decideAfterFailure(item: HostWorkItem, type: string, details: FetchFailureDetails | undefined, message: string): Promise<void> {
    const policy = FAILURE_POLICIES[type as FetchFailureType];
    const nowMs = Date.now();
    const attempts = item.attempt + 1;
    const poisoned = (details?.poisonCount ?? 0) >= POISON_ATTEMPT_LIMIT;
    if (policy?.retryLayer === 'host' && attempts < policy.maxAttempts && !poisoned) {
      log.info('host-level retry', { host: state.host, url: item.url, type, attempts });
      state.requeueFront({ ...withoutPriorAttempts(item), attempt: attempts, ...hostRetryNotBefore(item, type as FetchFailureType, attempts, details, nowMs) });
      return;
    }
    await settle(item, {
      kind: 'failed',
      failureType: type,
      message,
      stage: 'fetch',
      attempts,
      ...(details?.status === undefined ? {} : { status: details.status }),
      // The activity recorded the attempt when its failure carried details.
      ...(details !== undefined ? { recorded: true } : {}),
    });
  }

  /**
   * When a host-level retry may go: the failure type's backoff (scaled by the crawl), never before
   * a Retry-After or the robots.txt refresh the failure names. Independently, 429 and 503 hold the
   * whole host through its politeness state (Retry-After, else the throttle backoff).
   */
  function hostRetryNotBefore(item: HostWorkItem, type: FetchFailureType, attempts: number, details: FetchFailureDetails | undefined, nowMs: number): { notBeforeMs?: number } {
    const delayMs = retryDelayMs(type, attempts, random, {
      nowMs,
      scale: retryDelayScaleOf(item.politeness),
      ...(details?.retryAfterAtMs === undefined ? {} : { retryAfterAtMs: details.retryAfterAtMs }),
    });
    return delayMs === undefined ? {} : { notBeforeMs: nowMs + delayMs };
  }

  async function settle(item: HostWorkItem, outcome: SettleOutcome): Promise<void> {
    pendingSettles += 1;
    try {
      await storeActivities.settleUrl({
        crawlId: item.crawlId,
        fingerprint: item.fingerprint,
        generation: item.generation,
        url: item.url,
        outcome,
      });
    } finally {
      pendingSettles -= 1;
    }
  }
}

interface FetchedItem {
  item: HostWorkItem;
  fetched: FetchedResult;
}

function heldReason(hold: ReturnType<HostQueue['holdAt']>): string | null {
  return hold === undefined ? null : `${hold.reason} until ${new Date(hold.untilMs).toISOString()}`;
}

/** A host-level retry starts a new count of activity-level attempts. */
function withoutPriorAttempts(item: HostWorkItem): HostWorkItem {
  const { priorAttempts, ...rest } = item;
  return priorAttempts === undefined ? item : rest;
}

function classifyActivityError(error: unknown): { type: string; details: FetchFailureDetails | undefined; message: string } {
  if (error instanceof ActivityFailure) {
    const cause = error.cause;
    if (cause instanceof ApplicationFailure) {
      return { type: cause.type ?? 'ConnectionFailed', details: cause.details?.[0] as FetchFailureDetails | undefined, message: cause.message };
    }
    if (cause instanceof TimeoutFailure) {
      // The worker holding the fetch stopped heartbeating or ran out of time on every attempt.
      return { type: 'BodyTimeout', details: undefined, message: `fetch activity ${cause.timeoutType} timeout` };
    }
    return { type: 'ConnectionFailed', details: undefined, message: cause?.message ?? error.message };
  }
  return { type: 'ConnectionFailed', details: undefined, message: String(error) };
}
