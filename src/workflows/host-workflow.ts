/**
 * One workflow per host, shared by every crawl: a Mercator back queue. It holds a few URLs,
 * sleeps until the host's next fetch time, fetches, hands the body to the parser, and asks the
 * frontier (Postgres, through claimHostWork) for more when it runs low. Politeness lives here,
 * in one place per host, so it holds across crawls and across worker processes.
 *
 * This file wires messages, timers and activities only. Every decision (what to claim, when the
 * next request may start, when to continue as new, what an outcome does to the host) is HostLoop's
 * (host-loop.ts), a plain class unit-tested without a server.
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
  setCurrentDetails,
  setHandler,
  upsertSearchAttributes,
  workflowInfo,
} from '@temporalio/workflow';
import type { createActivities } from '../activities/index.js';
import type {
  BurstClaim,
  FetchBurstResult,
  FetchFailureDetails,
  FetchUrlInput,
  FetchUrlResult,
  HostWaitReport,
  HostWorkItem,
  ParseBatchOutcome,
  RenderFailureDetails,
  RenderPageInput,
  RenderPageResult,
  RenderTask,
  SettleOutcome,
} from '../contracts/activities.js';
import { FAILURE_POLICIES, POISON_ATTEMPT_LIMIT, fetchActivityRetryShape, type FetchFailureType } from '../domain/failures/index.js';
import { HostLoop, type BurstStep, type FetchedItem, type FollowUp, type HostStep, type RenderFailure } from './host-loop.js';
import { afterFailedParse } from './host-outcomes.js';
import type { HostQueueSnapshot } from './host-queue.js';
import { parseInputOf, type FetchedResult } from '../contracts/fetch-followup.js';
import {
  CRAWL_IDS_SEARCH_ATTRIBUTE,
  DEFAULT_TASK_QUEUE,
  HOST_SEARCH_ATTRIBUTE,
  MAX_CRAWL_IDS_PER_HOST_RUN,
  SEARCH_ATTRIBUTES,
  hostStatusQuery,
  pauseHostSignal,
  renderTaskQueueOf,
  resumeHostSignal,
  setHostDelaySignal,
  wakeHostSignal,
} from '../contracts/messages.js';
import { describeHostFetch, describeHostWait } from './host-wait-report.js';
import { ServedCrawls } from './served-crawls.js';

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

// Store activities take milliseconds; the timeout is how long a crashed worker's task waits
// before another worker retries it. 40 attempts wait out about 18 min of Postgres outage (a
// restart, a failover) before a settle or claim fails the host's run; 10 gave up after 4 min.
const STORE_RETRY = { initialInterval: '1s', backoffCoefficient: 2, maximumInterval: '30s', maximumAttempts: 40 } as const;
const storeActivities = proxyActivities<Activities>({ startToCloseTimeout: '30s', retry: STORE_RETRY });
// Claims run in the worker that runs the workflow task: one marker, and the loop goes on in the
// same workflow task (no activity task to dispatch, no workflow task to resume after it).
const localStoreActivities = proxyLocalActivities<Activities>({ startToCloseTimeout: '30s', retry: STORE_RETRY });

// A wait's report is for the operator: a few quick tries, then the wait goes on unreported.
const reportActivities = proxyLocalActivities<Activities>({ startToCloseTimeout: '10s', retry: { initialInterval: '1s', backoffCoefficient: 2, maximumAttempts: 3 } });

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
const BURST_RETRY = { initialInterval: '5s', backoffCoefficient: 2, maximumInterval: '60s', maximumAttempts: 4 } as const;
const burstActivities = proxyActivities<Activities>({ startToCloseTimeout: '20m', heartbeatTimeout: '60s', retry: BURST_RETRY });
// A run's first, short burst (LOCAL_BURST) in the worker running the workflow. A worker that dies
// under it leaves the workflow task to time out (30 s, HostWaker) before another runs it again:
// longer than any wait inside a burst, as for the activity. The timeout is far above a local burst's length
// (5 URLs, then their parses: seconds, even on a saturated worker; bench/README.md, "Figures behind the defaults"): it ends a stuck one.
const localBurstActivities = proxyLocalActivities<Activities>({ startToCloseTimeout: '5m', retry: BURST_RETRY });

/** What parseDocument throws, once and non-retryable, for a page over its parse budget (src/parse/parse-budget.ts). */
const PARSE_BUDGET_EXCEEDED: FetchFailureType = 'ParseBudgetExceeded';

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

/**
 * A render runs on the render task queue, in a worker with browser slots. It holds the host's turn,
 * so a render no worker takes within RENDER_SCHEDULE_TO_START goes back to the host's queue for
 * later (HostLoop.renderFailed) and the host's other URLs go on meanwhile. RenderCrashed is retried
 * twice with backoff (the browser is replaced); BrowserUnavailable once; RenderTimeout never (what
 * loaded is kept by the activity itself, so a timeout thrown is one with nothing to keep).
 */
const RENDER_SCHEDULE_TO_START = '2m';
const RENDER_ATTEMPTS = FAILURE_POLICIES.RenderCrashed.maxAttempts;
function renderActivitiesOn(taskQueue: string) {
  return proxyActivities<Activities>({
    taskQueue: renderTaskQueueOf(taskQueue),
    scheduleToStartTimeout: RENDER_SCHEDULE_TO_START,
    // Navigation (15 s), settling (3 s), the paced subresources and recording, with room.
    startToCloseTimeout: '3m',
    heartbeatTimeout: '30s',
    retry: { initialInterval: '2s', backoffCoefficient: 2, maximumInterval: '30s', maximumAttempts: RENDER_ATTEMPTS, nonRetryableErrorTypes: ['RenderTimeout'] },
  });
}

export async function hostWorkflow(input: HostWorkflowInput): Promise<HostWorkflowResult> {
  const taskQueue = input.taskQueue ?? DEFAULT_TASK_QUEUE;
  const { workflowId, runId } = workflowInfo();
  // Math.random is the workflow's seeded randomness, which Temporal makes replay-safe.
  const loop = new HostLoop(input.host, input.carried, { taskQueue, runKey: `${workflowId}/${runId}`, random: () => Math.random() });
  const { state } = loop;

  setHandler(wakeHostSignal, () => loop.wake());
  setHandler(pauseHostSignal, () => loop.pause());
  setHandler(resumeHostSignal, () => loop.resume());
  setHandler(setHostDelaySignal, ({ minDelayMs }) => loop.setDelayOverride(minDelayMs));
  setHandler(hostStatusQuery, () => loop.status(Date.now()));

  const took = tagServedCrawls(state.host);

  const track = (work: Promise<void>): void => {
    work.catch((error: unknown) => loop.failed(error));
  };
  const { fetchOne, runBurst, runRender, followUp, parseTogether, settle } = hostEffects(loop, track, took, renderActivitiesOn(taskQueue));
  /**
   * Released in Postgres (by a claim or a burst): the run ends once its handlers finish. A wake that
   * raced with the release is handled by this run; later ones start a new run (HostWaker).
   */
  const endsAfterRelease = async (): Promise<boolean> => {
    await condition(allHandlersFinished);
    return !loop.wokenSinceRelease;
  };
  // Most runs end with no handler running: deciding at once spares the SDK a condition's promises.
  const endsNow = (): boolean | Promise<boolean> => (allHandlersFinished() ? !loop.wokenSinceRelease : endsAfterRelease());

  for (;;) {
    const { continueAsNewSuggested, historyLength } = workflowInfo();
    const step: HostStep = loop.next(Date.now(), { continueAsNewSuggested, historyLength });
    // Only when there is something to parse: every workflow promise costs the SDK a stack capture.
    if (step.kind !== 'burst' && step.kind !== 'fail' && step.kind !== 'continue-as-new' && step.kind !== 'released' && step.flush.length > 0) {
      track(parseTogether(step.flush));
    }
    switch (step.kind) {
      case 'fail':
        throw ApplicationFailure.create({ type: 'HostWorkflowFailed', message: step.message, nonRetryable: true });
      case 'continue-as-new':
        await condition(allHandlersFinished);
        return continueAsNew<typeof hostWorkflow>({ host: state.host, taskQueue, carried: loop.snapshotForNextRun() });
      case 'wait':
        await waitStep(loop, step, track);
        break;
      case 'released':
        if (await endsNow()) return { host: state.host, fetches: state.fetchesThisRun, runs: state.run };
        break;
      case 'claim': {
        const claimed = await localStoreActivities.claimHostWork(step.input);
        took(claimed.items);
        if (loop.claimReported(claimed) && (await endsNow())) {
          return { host: state.host, fetches: state.fetchesThisRun, runs: state.run };
        }
        break;
      }
      case 'settle':
        await settle(step.item, step.outcome);
        break;
      case 'refresh-robots': {
        const refreshed = await storeActivities.refreshRobots({ origin: step.item.origin, crawlId: step.item.crawlId });
        await followUp(loop.robotsReported(step.item, refreshed, Date.now()));
        break;
      }
      case 'fetch':
        setCurrentDetails(describeHostFetch(1, false, state.queue.length));
        track(fetchOne(step.item, step.input));
        break;
      case 'burst':
        setCurrentDetails(describeHostFetch(step.burst.items.length, true, state.queue.length));
        track(runBurst(step.burst));
        break;
      case 'render':
        track(runRender(step.task, step.input));
        break;
    }
  }
}

/**
 * Tags the run with its host (its starter sets it, and continue-as-new carries it) and returns
 * what tags it with the crawls whose URLs it took (search attributes, for the operator).
 */
function tagServedCrawls(host: string): (items: readonly HostWorkItem[]) => void {
  const startAttributes = workflowInfo().typedSearchAttributes;
  if (startAttributes.get(HOST_SEARCH_ATTRIBUTE) === undefined) {
    upsertSearchAttributes({ [SEARCH_ATTRIBUTES.host]: [host] });
  }
  const served = new ServedCrawls(startAttributes.get(CRAWL_IDS_SEARCH_ATTRIBUTE) ?? [], MAX_CRAWL_IDS_PER_HOST_RUN);
  return (items) => {
    const crawlIds = served.took(items);
    if (crawlIds !== undefined) upsertSearchAttributes({ [SEARCH_ATTRIBUTES.crawlIds]: crawlIds });
  };
}

/** Carries out a 'wait' step: its report beside it, the run's current details, then the wait until it is over or times out. */
async function waitStep(loop: HostLoop, step: Extract<HostStep, { kind: 'wait' }>, track: (work: Promise<void>) => void): Promise<void> {
  const { state } = loop;
  if (step.report) track(reportWait(step.report));
  const nowMs = Date.now();
  setCurrentDetails(
    describeHostWait({
      wait: step.wait,
      nowMs,
      ...(step.timeoutMs === undefined ? {} : { untilMs: nowMs + step.timeoutMs }),
      ...(step.reason === undefined ? {} : { reason: step.reason }),
      paused: state.paused,
      queued: state.queue.length,
      inFlight: state.inFlight,
      parsing: state.pendingParses,
    }),
  );
  await (step.timeoutMs === undefined ? condition(() => loop.waitIsOver(step.wait)) : condition(() => loop.waitIsOver(step.wait), step.timeoutMs));
  loop.waited(step.wait);
}

/**
 * Beside the wait, not before it: a report is for the operator, and must neither delay the host
 * nor fail it (Postgres down: the next long wait reports again).
 */
async function reportWait(report: HostWaitReport): Promise<void> {
  try {
    await reportActivities.reportHostWait(report);
  } catch (error) {
    log.warn('could not report a host wait', { host: report.host, reason: report.reason, error: String(error) });
  }
}

/** The activities a host step runs, and how their outcomes reach the loop. */
function hostEffects(
  loop: HostLoop,
  track: (work: Promise<void>) => void,
  took: (items: readonly HostWorkItem[]) => void,
  renderActivities: ReturnType<typeof renderActivitiesOn>,
) {
  const parsing = parseEffects(loop);
  return { ...requestEffects(loop, track, took, renderActivities, parsing), ...parsing };
}

/** What follows an outcome (settles, parses) and how parses' findings reach the loop. */
function parseEffects(loop: HostLoop) {
  const { state } = loop;

  /** Starts each follow-up at once, in order (their commands keep that order), and waits for all. */
  async function followUp(followUps: readonly (FollowUp | undefined)[]): Promise<void> {
    await Promise.all(
      followUps.map((next) => {
        if (next === undefined) return undefined;
        switch (next.kind) {
          case 'settle':
            return settle(next.item, next.outcome);
          case 'parse':
            return parse(next.item, next.fetched);
          case 'parse-batch':
            return parseTogether(next.batch);
        }
      }),
    );
  }

  /** A burst's bodies in one parseBatch; any it could not parse (or all, if it failed) go to parseDocument one by one, or are settled if over the parse budget. */
  async function parseTogether(batch: FetchedItem[]): Promise<void> {
    if (batch.length === 0) return;
    if (batch.length === 1) return parse(batch[0]!.item, batch[0]!.fetched);
    let outcomes: ParseBatchOutcome[] = [];
    loop.parsesStarted(batch.length);
    try {
      ({ outcomes } = await parseBatchActivities.parseBatch({ items: batch.map(({ item, fetched }) => parseInputOf(item, fetched)) }));
    } catch (error) {
      log.warn('parse batch failed; its bodies are parsed one by one', { host: state.host, bodies: batch.length, error: String(error) });
    } finally {
      loop.parsesEnded(batch.length);
    }
    batch.forEach(({ item, fetched }, index) => {
      const outcome = outcomes[index];
      if (outcome?.ok === true && outcome.renders) loop.queueRenders(item, fetched, outcome.renders);
    });
    await followUp(batch.map(({ item, fetched }, index) => (outcomes[index]?.ok === true ? undefined : afterFailedParse(item, fetched, outcomes[index]))));
  }

  async function parse(item: HostWorkItem, fetched: FetchedResult): Promise<void> {
    loop.parsesStarted(1);
    try {
      const parsed = await parseActivities.parseDocument(parseInputOf(item, fetched));
      if (parsed.renders) loop.queueRenders(item, fetched, parsed.renders);
    } catch (error) {
      const message = error instanceof ActivityFailure && error.cause ? error.cause.message : String(error);
      // A page over the parse budget failed once, not retried: recorded as that, not as poison.
      const overBudget = error instanceof ActivityFailure && error.cause instanceof ApplicationFailure && error.cause.type === PARSE_BUDGET_EXCEEDED;
      await settle(
        item,
        overBudget
          ? { kind: 'failed', failureType: PARSE_BUDGET_EXCEEDED, message, stage: 'parse', attempts: 1 }
          : { kind: 'failed', failureType: 'ParseFailed', message, stage: 'parse', attempts: POISON_ATTEMPT_LIMIT },
      );
    } finally {
      loop.parsesEnded(1);
    }
  }

  // A settle still running holds the run open: continuing as new or ending beside it would drop it.
  async function settle(item: HostWorkItem, outcome: SettleOutcome): Promise<void> {
    loop.settleStarted();
    try {
      await storeActivities.settleUrl({ crawlId: item.crawlId, fingerprint: item.fingerprint, generation: item.generation, url: item.url, outcome });
    } finally {
      loop.settleEnded();
    }
  }

  return { followUp, parseTogether, settle };
}

/** The requests of a step (one URL, a burst, a render) and how their outcomes reach the loop. */
function requestEffects(
  loop: HostLoop,
  track: (work: Promise<void>) => void,
  took: (items: readonly HostWorkItem[]) => void,
  renderActivities: ReturnType<typeof renderActivitiesOn>,
  { followUp, parseTogether }: ReturnType<typeof parseEffects>,
) {
  const { state } = loop;

  async function runRender(task: RenderTask, input: RenderPageInput): Promise<void> {
    let result: RenderPageResult;
    try {
      const summary = `render ${task.url}${task.routeKey} (${task.reason})`;
      result = await renderActivities.renderPage.executeWithOptions({ summary }, [input]);
    } catch (error) {
      const { followUps, report } = loop.renderFailed(task, renderFailureOf(error), Date.now());
      if (report) track(reportWait(report));
      await followUp(followUps);
      return;
    }
    await followUp(loop.renderReported(task, result));
  }

  async function fetchOne(item: HostWorkItem, fetchInput: FetchUrlInput): Promise<void> {
    let result: FetchUrlResult;
    try {
      result = await fetchActivities.fetchUrl(fetchInput);
    } catch (error) {
      const { type, details, message } = classifyActivityError(error);
      await followUp([loop.fetchFailed(item, type, details, message, Date.now())]);
      return;
    }
    await followUp([loop.fetchReported(item, result, Date.now())]);
  }

  async function runBurst(burst: BurstStep): Promise<void> {
    let result: FetchBurstResult;
    try {
      result = await (burst.local ? localBurstActivities : burstActivities).fetchBurst(burst.input);
    } catch (error) {
      // The carried bodies are parsed on their own (each parse is idempotent, whatever the burst did).
      track(parseTogether(loop.burstFailed(burst)));
      if (burst.claim) takeBurstClaim(await recoverBurstClaim(burst.claim));
      // Fetch failures come back as outcomes; this is the burst itself failing every retry.
      log.warn('fetch burst failed; its URLs are fetched one by one', { host: state.host, urls: burst.items.length, error: String(error) });
      loop.burstFailedRequeue(burst, Date.now());
      return;
    }
    loop.burstReturned();
    if (result.extended !== undefined) took(result.extended.map(({ item }) => item));
    // Before the slot is given back: a claim recovered by an activity must not leave the loop idle with none riding.
    if (burst.claim) takeBurstClaim(result.claimed ?? (await recoverBurstClaim(burst.claim)));
    // Awaited only when there is something to follow up: every workflow promise costs the SDK a stack capture.
    const followUps = loop.burstReported(burst, result, Date.now());
    if (followUps.length > 0) await followUp(followUps);
  }

  /** A claim the burst could not report, recovered by its token, so nothing it dispatched is stranded. */
  async function recoverBurstClaim(claim: BurstClaim): Promise<HostWorkItem[]> {
    return (await localStoreActivities.claimHostWork(loop.burstClaimRecovery(claim))).items;
  }

  /** The URLs a burst claimed join the queue. */
  function takeBurstClaim(items: HostWorkItem[]): void {
    took(items);
    loop.burstClaimTaken(items);
  }

  return { fetchOne, runBurst, runRender };
}

/** A render activity's final failure as the loop reads it: its type, and the politeness its requests left (details). */
function renderFailureOf(error: unknown): RenderFailure {
  if (error instanceof ActivityFailure) {
    const cause = error.cause;
    if (cause instanceof TimeoutFailure && cause.timeoutType === 'SCHEDULE_TO_START') {
      return { type: 'unstarted', message: 'no render worker took it within the schedule-to-start timeout', attempts: 0 };
    }
    if (cause instanceof ApplicationFailure) {
      const details = cause.details?.[0] as RenderFailureDetails | undefined;
      return { type: cause.type ?? 'RenderCrashed', message: cause.message, attempts: details?.attempt ?? RENDER_ATTEMPTS, ...(details ? { details } : {}) };
    }
    // The worker holding the render stopped heartbeating or died on every attempt: its browser went with it.
    return { type: 'RenderCrashed', message: cause?.message ?? error.message, attempts: RENDER_ATTEMPTS };
  }
  return { type: 'RenderCrashed', message: String(error), attempts: RENDER_ATTEMPTS };
}

/** A fetch activity's final failure as its typed failure (src/domain/failures), from the error Temporal hands back. */
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
