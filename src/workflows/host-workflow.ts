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
  patched,
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
  FETCH_BURST_LIMITS_BEFORE_V4,
  hostOutcomeOfFailure,
  hostOutcomeOfResult,
  hostOutcomeOfRobotsRefresh,
  policyDelayMs,
  type FetchBurstLimits,
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

/**
 * Host holds fail queued URLs fast, holds apply to failures that sent nothing (NXDOMAIN), and
 * host-level retries wait for their failure type's backoff. Added after the committed histories.
 */
const HOST_HOLDS_AND_RETRY_BACKOFF_PATCH = 'host-holds-and-host-retry-backoff';
/**
 * A settleUrl still running holds the run open: continuing as new or ending beside it dropped the
 * activity and left its URL dispatched for good (a paused crawl's 'returned' URLs, seen in tests).
 */
const SETTLES_HOLD_THE_RUN_PATCH = 'settles-hold-continue-as-new-and-release';
/**
 * Hosts with short delays fetch a few URLs per activity (a fetch burst, src/domain/politeness/fetch-burst.ts).
 * Added after the committed histories, which fetch one URL per activity.
 */
const FETCH_BURSTS_PATCH = 'fetch-bursts-for-short-delays';
/**
 * A burst starts as soon as the previous one reports, its activity waiting out the host's delay,
 * and it claims the host's next URLs itself: between two bursts there is one workflow task and no
 * timer or claim activity. Added after the histories with bursts were recorded.
 */
const PIPELINED_BURSTS_PATCH = 'pipelined-fetch-bursts';
/**
 * Bursts parse their own bodies and claim after the parses (fetch-burst-activity.ts), so a burst
 * carries a claim whenever it leaves the queue low, even after a claim found nothing: its parses
 * may find the host's next URLs. Then one URL ready goes as a burst too, when bursts suit the host
 * (a short delay, one slot, a closed circuit, a first try), and the loop does not claim on its own
 * before such a burst: one activity where the one-URL path takes a fetch, a parse and a claim.
 * Added after hostWorkflowV2's histories, which fetch such a URL with fetchUrl.
 */
const SELF_PARSING_BURSTS_PATCH = 'self-parsing-fetch-bursts';
/** Several slots per host space their starts by the host delay too (added after histories with one slot were recorded). */
const SPACE_REQUEST_STARTS_PATCH = 'space-request-starts-by-host-delay';
/**
 * Claims run as local activities: in the worker that runs the workflow task, recorded as one
 * marker, with no activity task to dispatch and no workflow task to resume the loop after them.
 * A host's first claim and its last (the release) each cost a round trip through the task queue
 * and six history events. Added after hostWorkflowV3's histories.
 */
const LOCAL_CLAIMS_PATCH = 'claims-as-local-activities';
/**
 * A burst refreshes its host's stale robots.txt itself, as a request of its own under the same
 * politeness arithmetic, instead of the loop running a refreshRobots activity first: a host's
 * first burst needed one more activity and workflow task. Added after hostWorkflowV3's histories.
 */
const ROBOTS_IN_BURSTS_PATCH = 'robots-refreshed-in-bursts';
/**
 * A burst that hands back stale rules without having refreshed them ran on an activity worker from
 * before ROBOTS_IN_BURSTS_PATCH (a rolling upgrade): the loop refreshes robots.txt itself from then
 * on, where it would start burst after burst without a request. Reached only in that case, which no
 * earlier history has: `patched` is called there alone.
 */
const ROBOTS_FROM_LOOP_AFTER_OLD_BURST_PATCH = 'robots-from-loop-after-old-burst';
/**
 * A burst given a claim claims and fetches its host's next URLs itself, up to this many URLs in all
 * and within its span limit: one activity and one workflow task for several levels of a host's pages.
 * Activity input and result only: replay of earlier histories is unchanged (their results have no `extended`).
 */
const BURST_EXTENSION_BEFORE_V4 = Object.freeze({ maxUrls: 20 });
/** hostWorkflowV4's: its bursts plan for twice the span, and extend to twice the URLs. */
const BURST_EXTENSION = Object.freeze({ maxUrls: 40 });

/** How long and how large a host run's bursts may be: each workflow type keeps its own, so its histories replay. */
interface BurstShape {
  limits: Readonly<FetchBurstLimits>;
  extension: Readonly<{ maxUrls: number }>;
}

const BURSTS_BEFORE_V4: BurstShape = { limits: FETCH_BURST_LIMITS_BEFORE_V4, extension: BURST_EXTENSION_BEFORE_V4 };

/** The changes hostWorkflowV2 was released with; a later one is behind its patch there. */
const TAKEN_BY_V2 = new Set([HOST_HOLDS_AND_RETRY_BACKOFF_PATCH, SETTLES_HOLD_THE_RUN_PATCH, FETCH_BURSTS_PATCH, PIPELINED_BURSTS_PATCH, SPACE_REQUEST_STARTS_PATCH]);
/** The changes hostWorkflowV3 was released with; a later one is behind its patch there. */
const TAKEN_BY_V3 = new Set([...TAKEN_BY_V2, SELF_PARSING_BURSTS_PATCH]);

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

/**
 * Whether a run takes one of the loop's later changes (the patch ids above): `patched` in
 * hostWorkflow, the changes it was released with and `patched` for later ones in hostWorkflowV2,
 * always in hostWorkflowV3.
 */
type TakesChange = (patchId: string) => boolean;

/**
 * The host's back queue as first released, each later change behind its patch. Kept registered for
 * runs started before hostWorkflowV2, which continue as new as this type, and for the committed
 * histories; new runs start as hostWorkflowV3.
 */
export async function hostWorkflow(input: HostWorkflowInput): Promise<HostWorkflowResult> {
  return runBackQueue(input, patched, { hostAttributeFromStart: false, bursts: BURSTS_BEFORE_V4 });
}

/**
 * The same back queue with the changes made before it taken: no patch markers and no
 * change-version search attribute upserts, which cost each run ten history events and five
 * visibility writes (a host runs again after every idle spell). Its starter sets the host search
 * attribute, and continue-as-new carries it; a run started without it upserts it. Kept registered
 * for runs started before hostWorkflowV3 and for its committed histories: a later change is
 * behind its patch here.
 */
export async function hostWorkflowV2(input: HostWorkflowInput): Promise<HostWorkflowResult> {
  return runBackQueue(input, (patchId) => TAKEN_BY_V2.has(patchId) || patched(patchId), { hostAttributeFromStart: true, bursts: BURSTS_BEFORE_V4 });
}

/**
 * The same back queue with the changes made before it taken, as hostWorkflowV2 took those before
 * it. Kept registered for runs started before hostWorkflowV4 and for its committed histories: a
 * later change is behind its patch here.
 */
export async function hostWorkflowV3(input: HostWorkflowInput): Promise<HostWorkflowResult> {
  return runBackQueue(input, (patchId) => TAKEN_BY_V3.has(patchId) || patched(patchId), { hostAttributeFromStart: true, bursts: BURSTS_BEFORE_V4 });
}

/** The same back queue with every change taken, and longer bursts. New runs start as this type. */
export async function hostWorkflowV4(input: HostWorkflowInput): Promise<HostWorkflowResult> {
  return runBackQueue(input, () => true, { hostAttributeFromStart: true, bursts: { limits: DEFAULT_FETCH_BURST_LIMITS, extension: BURST_EXTENSION } });
}

async function runBackQueue(
  input: HostWorkflowInput,
  takes: TakesChange,
  { hostAttributeFromStart, bursts }: { hostAttributeFromStart: boolean; bursts: BurstShape },
): Promise<HostWorkflowResult> {
  const taskQueue = input.taskQueue ?? DEFAULT_TASK_QUEUE;
  const state = input.carried ? new HostQueue(input.carried) : HostQueue.fresh(input.host);
  let hostRecordLoaded = input.carried !== undefined;
  let woken = false;
  let changed = false;
  let signalsThisRun = 0;
  let pendingSettles = 0;
  const settlesHoldTheRun = takes(SETTLES_HOLD_THE_RUN_PATCH);
  const selfParsingBursts = takes(SELF_PARSING_BURSTS_PATCH);
  const claims = takes(LOCAL_CLAIMS_PATCH) ? localStoreActivities : storeActivities;
  const robotsInBursts = takes(ROBOTS_IN_BURSTS_PATCH);
  /** Bursts refresh stale robots.txt; false once one did not (ROBOTS_FROM_LOOP_AFTER_OLD_BURST_PATCH). */
  let burstsRefreshRobots = robotsInBursts;
  /** The fewest URLs a burst fetches. */
  const burstMinUrls = selfParsingBursts ? 1 : 2;
  /** The queue's one URL will go as a burst, which claims beside it: no claim of its own first. */
  const claimRidesNextBurst = (): boolean =>
    selfParsingBursts && state.queue.length === 1 && hostRecordLoaded && state.burstable(state.queue[0]!, Date.now(), bursts.limits);
  /** No request, parse or settle of this run is under way. */
  const quiet = (): boolean => state.inFlight === 0 && state.pendingParses === 0 && (pendingSettles === 0 || !settlesHoldTheRun);
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

  if (!hostAttributeFromStart || workflowInfo().typedSearchAttributes.get(HOST_SEARCH_ATTRIBUTE) === undefined) {
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
      const claim = await claims.claimHostWork({
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
      const wakeOnRequeue = takes(HOST_HOLDS_AND_RETRY_BACKOFF_PATCH);
      if (!idle()) await waitInLoop(() => idle() || (wakeOnRequeue && state.queue.length > 0) || woken || fatal !== undefined);
      claimExhausted = false;
      continue;
    }

    const nowMs = Date.now();
    if (takes(HOST_HOLDS_AND_RETRY_BACKOFF_PATCH)) {
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
    }
    // A burst due within its own wait limit starts now; its activity waits out the rest.
    let earlyBurstAtMs: number | undefined;
    if (!state.canStartAt(nowMs)) {
      earlyBurstAtMs = state.earlyBurstStartAtMs(nowMs, bursts.limits, burstMinUrls);
      if (earlyBurstAtMs !== undefined && !takes(PIPELINED_BURSTS_PATCH)) earlyBurstAtMs = undefined;
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

    // A burst refreshes stale rules itself (robotsInBursts); anything else waits for them here.
    if (!state.robotsFresh(item.origin, nowMs) && !(burstsRefreshRobots && state.burstSizeAt(item, earlyBurstAtMs ?? nowMs, bursts.limits, burstMinUrls) > 0)) {
      // robots.txt is a request to the host like any other: it takes a politeness slot.
      state.queue.unshift(item);
      flushCarriedParses();
      const refreshed = await refreshRobots(item);
      // (A held host's URLs fail with the hold's type instead, at the top of the loop.)
      if (refreshed.policyKind === 'disallow-all' && takes(HOST_HOLDS_AND_RETRY_BACKOFF_PATCH) && state.holdAt(Date.now()) === undefined) {
        await waitForRobotsRefresh(item.origin, refreshed.freshUntilMs);
      }
      continue;
    }

    // A short delay: this URL and the ready ones behind it go in one activity.
    const burstSize = state.burstSizeAt(item, earlyBurstAtMs ?? nowMs, bursts.limits, burstMinUrls);
    if (earlyBurstAtMs !== undefined && burstSize === 0) {
      // Not reachable (the same test chose the early start); never fetch one URL before its time.
      state.requeueFront(item);
      changed = false;
      await waitInLoop(() => changed, earlyBurstAtMs - nowMs);
      continue;
    }
    if (burstSize > 0 && takes(FETCH_BURSTS_PATCH)) {
      const items = [item, ...state.queue.splice(0, burstSize - 1)];
      const before = state.politenessAt(nowMs);
      const pipelined = takes(PIPELINED_BURSTS_PATCH);
      let claim: BurstClaim | undefined;
      if (state.queue.length <= 1 && (!claimExhausted || selfParsingBursts) && pipelined) {
        burstClaims += 1;
        claim = { maxItems: claimSize(state.policyFor(item).minDelayMs), claimToken: `${workflowInfo().workflowId}/${workflowInfo().runId}/burst-claim/${burstClaims}` };
        claimRiding = true;
      }
      // The burst holds the host's one slot until it reports back.
      state.noteRequestStarted(nowMs, item);
      earlyBurstInFlight = earlyBurstAtMs !== undefined;
      const parsing = carriedParses.splice(0);
      track(processBurst(items, before, { pipelined, claim, parsing }));
      continue;
    }

    // One URL on its own: the carried bodies are parsed on their own too.
    flushCarriedParses();

    const spaceStarts = state.policyFor(item).maxConcurrentFetches > 1 && takes(SPACE_REQUEST_STARTS_PATCH);
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
    state.noteOutcome(hostOutcomeOfRobotsRefresh(result, result.transportFailure !== undefined && takes(HOST_HOLDS_AND_RETRY_BACKOFF_PATCH)), item, random, Date.now());
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
    { pipelined, claim, parsing }: { pipelined: boolean; claim: BurstClaim | undefined; parsing: FetchedItem[] },
  ): Promise<void> {
    const policy = state.policyFor(items[0]);
    let result: FetchBurstResult;
    try {
      result = await burstActivities.fetchBurst({
        host: state.host,
        items: items.map((item) => ({ ...item, hostDelayMs: policy.minDelayMs })),
        politeness,
        policy,
        limits: bursts.limits,
        ...(claim ? { claim } : {}),
        ...(parsing.length > 0 ? { parse: parsing.map(({ item, fetched }) => parseInputOf(item, fetched)) } : {}),
        // Its own bodies too: a result without their outcomes (a worker from before) leaves them to us.
        parseFetched: true,
        // And the URLs its parses find, claimed and fetched while its span allows: outcomes in `extended`.
        ...(claim ? { extendWithClaims: bursts.extension } : {}),
        // And its origins' stale robots.txt: rules in `robots`.
        ...(robotsInBursts ? { refreshRobots: true } : {}),
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
    const enforced = takes(HOST_HOLDS_AND_RETRY_BACKOFF_PATCH);
    // URLs the burst claimed and fetched itself end as the ones it was given (a result from before has none).
    const extended = result.extended ?? [];
    const outcomes = [...items.map((_, index) => result.outcomes[index] ?? { kind: 'not-attempted' as const }), ...extended.map(({ outcome }) => outcome)];
    [...items, ...extended.map(({ item }) => item)].forEach((item, index) => {
      const outcome = outcomes[index]!;
      if (outcome.kind === 'not-attempted') {
        requeued.push(handBack ? { ...item, notBeforeMs: nowMs } : item);
      } else if (outcome.kind === 'failed') {
        if (outcome.retryDelayMs !== undefined) requeued.push({ ...item, priorAttempts: 1, notBeforeMs: nowMs + outcome.retryDelayMs });
        else finishing.push(decideAfterFailure(item, outcome.failureType, outcome.details, outcome.message, enforced));
      } else if (outcome.result.kind === 'robots-stale') {
        state.robotsFreshUntilMs[item.origin] = 0;
        const refreshedHere = (result.robots ?? []).some((refresh) => refresh.origin === item.origin);
        if (burstsRefreshRobots && !refreshedHere && patched(ROBOTS_FROM_LOOP_AFTER_OLD_BURST_PATCH)) burstsRefreshRobots = false;
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
    if (pipelined) {
      carriedParses.push(...toParse);
      state.pendingParses += toParse.length;
    } else if (toParse.length > 0) {
      finishing.push(parseTogether(toParse));
    }
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
        await claims.claimHostWork({
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
    const enforced = takes(HOST_HOLDS_AND_RETRY_BACKOFF_PATCH);
    // A hold (NXDOMAIN, private address) applies although no request reached the host.
    state.noteOutcome(hostOutcomeOfFailure(type, details, nowMs, enforced), item, random, nowMs);
    await decideAfterFailure(item, type, details, message, enforced);
  }

  /** A fetch's final failure (its activity-level retries spent): a host-level retry, or the URL settles as failed. */
  async function decideAfterFailure(item: HostWorkItem, type: string, details: FetchFailureDetails | undefined, message: string, enforced: boolean): Promise<void> {
    const policy = FAILURE_POLICIES[type as FetchFailureType];
    const nowMs = Date.now();
    // Before the hold existed a quarantine never ended; now the hold (and its expiry) decides.
    if (!enforced && policy?.hostEffect === 'quarantine-host') state.quarantinedReason = `${type}: ${message}`;
    const attempts = item.attempt + 1;
    const poisoned = (details?.poisonCount ?? 0) >= POISON_ATTEMPT_LIMIT;
    if (policy?.retryLayer === 'host' && attempts < policy.maxAttempts && !poisoned) {
      log.info('host-level retry', { host: state.host, url: item.url, type, attempts });
      state.requeueFront({ ...withoutPriorAttempts(item), attempt: attempts, ...(enforced ? hostRetryNotBefore(item, type as FetchFailureType, attempts, details, nowMs) : {}) });
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
      ...(enforced && details !== undefined ? { recorded: true } : {}),
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
