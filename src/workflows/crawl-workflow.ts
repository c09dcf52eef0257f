/**
 * The frontier workflow, one per crawl. It owns the crawl's lifecycle, its admission (how many
 * URLs may be in flight, the budget, backpressure) and waking the hosts that have work. The
 * frontier's bulk lives in Postgres; this workflow holds only control state and the latest
 * figures, so it stays small however large the crawl grows.
 */
import {
  allHandlersFinished,
  condition,
  makeContinueAsNewFunc,
  proxyActivities,
  setCurrentDetails,
  setHandler,
  upsertMemo,
  upsertSearchAttributes,
  workflowInfo,
} from '@temporalio/workflow';
import type { createActivities } from '../activities/index.js';
import type { FrontierTickResult } from '../contracts/activities.js';
import type { CrawlConfig } from '../config/crawl-config.js';
import {
  DEFAULT_TASK_QUEUE,
  SEARCH_ATTRIBUTES,
  addSeedsUpdate,
  crawlStatusQuery,
  pauseCrawlSignal,
  resumeCrawlSignal,
  setCrawlLimitsSignal,
  stopCrawlSignal,
} from '../contracts/messages.js';
import type { CrawlState, CrawlStatus, CrawlSummary } from '../contracts/status.js';
import { describeCrawlWaits, describeRenders } from '../contracts/describe-waits.js';
import { describeCrawlEnd } from '../contracts/describe-crawl-end.js';

type Activities = ReturnType<typeof createActivities>;

export interface CrawlWorkflowOptions {
  /** How often the frontier looks at Postgres when nothing signals it, in ms. Default 1,000. */
  tickIntervalMs?: number;
  /** Idle hosts woken per tick at most. Default 500. */
  maxHostsToWakePerTick?: number;
}

export interface CrawlWorkflowInput {
  crawlId: string;
  config: CrawlConfig;
  seeds: string[];
  taskQueue?: string;
  options?: CrawlWorkflowOptions;
  /** Control state carried from the previous run (continue-as-new). */
  carried?: CrawlCarriedState;
  /** Reopening an existing crawl (requeued dead letters): its record and frontier exist already. */
  resume?: boolean;
}

export interface CrawlCarriedState {
  paused: boolean;
  stopping: boolean;
  maxInFlight: number;
  startedAtMs: number;
  lastStatus: CrawlStatus;
}

const store = proxyActivities<Activities>({
  startToCloseTimeout: '60s',
  retry: { initialInterval: '1s', backoffCoefficient: 2, maximumInterval: '60s', maximumAttempts: 30 },
});

/** The crawl's operator controls as this run holds them; a signal or an update marks them changed, so the wait between ticks ends. */
interface CrawlControl {
  paused: boolean;
  stopping: boolean;
  maxInFlight: number;
  changed: boolean;
  signalsThisRun: number;
}

export async function crawlWorkflow(input: CrawlWorkflowInput): Promise<CrawlSummary> {
  const taskQueue = input.taskQueue ?? DEFAULT_TASK_QUEUE;
  const tickIntervalMs = input.options?.tickIntervalMs ?? 1000;
  const maxHostsToWake = input.options?.maxHostsToWakePerTick ?? 500;
  const carried = input.carried;
  const control: CrawlControl = {
    paused: carried?.paused ?? false,
    stopping: carried?.stopping ?? false,
    maxInFlight: carried?.maxInFlight ?? input.config.maxInFlight,
    changed: false,
    signalsThisRun: 0,
  };
  const startedAtMs = carried?.startedAtMs ?? Date.now();
  const run = { status: carried?.lastStatus ?? initialStatus(input.crawlId, control.maxInFlight, startedAtMs) };

  handleControls(input, control);
  setHandler(crawlStatusQuery, () => run.status);

  upsertSearchAttributes({ [SEARCH_ATTRIBUTES.crawlId]: [input.crawlId] });

  if (!carried && !input.resume) {
    await store.registerSeeds({ crawlId: input.crawlId, config: input.config, seeds: input.seeds, createCrawl: true });
  }

  const publish = statusPublisher(input.crawlId, startedAtMs);
  for (;;) {
    const { paused, stopping, maxInFlight } = control;
    const tick = await store.frontierTick({ crawlId: input.crawlId, control: { paused, stopping, maxInFlight }, maxHostsToWake, taskQueue });
    // The state as the controls stand now: a signal may have come during the tick.
    run.status = publish(tick, control.stopping ? 'stopping' : control.paused ? 'paused' : 'running');
    if (tick.finished) break;

    const info = workflowInfo();
    if (info.continueAsNewSuggested || info.historyLength > 8000 || control.signalsThisRun > 4000) {
      await condition(allHandlersFinished);
      // The next run's memo starts with these counters, not empty until its first tick.
      await makeContinueAsNewFunc<typeof crawlWorkflow>({ memo: memoOf(run.status.counts) })({
        ...input,
        seeds: [],
        carried: { paused: control.paused, stopping: control.stopping, maxInFlight: control.maxInFlight, startedAtMs, lastStatus: run.status },
      });
    }

    control.changed = false;
    await condition(() => control.changed, tickIntervalMs);
  }

  await condition(allHandlersFinished);
  const summary = await store.finishCrawl({ crawlId: input.crawlId, stopped: control.stopping, startedAtMs });
  run.status = { ...run.status, state: summary.state, updatedAtMs: summary.finishedAtMs };
  upsertSearchAttributes({ [SEARCH_ATTRIBUTES.state]: [summary.state] });
  setCurrentDetails(
    `**${summary.state}** · fetched ${summary.pagesFetched} · discovered ${summary.urlsDiscovered} in ${(summary.durationMs / 1000).toFixed(1)} s${summary.end === undefined ? '' : `\n\n${describeCrawlEnd(summary.end)}`}`,
  );
  return summary;
}

/** The status a crawl reports before its first tick. */
function initialStatus(crawlId: string, maxInFlight: number, startedAtMs: number): CrawlStatus {
  return {
    crawlId,
    state: 'starting',
    counts: { queuedByTier: [], queued: 0, inFlight: 0, done: 0, failed: 0, dead: 0, dropped: 0, discovered: 0, admitted: 0, fetched: 0, notModified: 0 },
    admission: { maxInFlight, admitFactor: 1, backlogSeconds: 0, reason: 'ok' },
    activeHosts: 0,
    errorsByType: {},
    startedAtMs,
    updatedAtMs: startedAtMs,
  };
}

/** The operator's signals and the addSeeds update change `control`. */
function handleControls(input: CrawlWorkflowInput, control: CrawlControl): void {
  const onControl = (): void => {
    control.changed = true;
    control.signalsThisRun += 1;
  };
  setHandler(pauseCrawlSignal, () => {
    control.paused = true;
    onControl();
  });
  setHandler(resumeCrawlSignal, () => {
    control.paused = false;
    onControl();
  });
  setHandler(stopCrawlSignal, () => {
    control.stopping = true;
    onControl();
  });
  setHandler(setCrawlLimitsSignal, (limits) => {
    if (limits.maxInFlight !== undefined && Number.isInteger(limits.maxInFlight) && limits.maxInFlight > 0) {
      control.maxInFlight = limits.maxInFlight;
    }
    onControl();
  });
  setHandler(
    addSeedsUpdate,
    async ({ urls }) => {
      const result = await store.registerSeeds({ crawlId: input.crawlId, config: input.config, seeds: urls, createCrawl: false });
      onControl();
      return result;
    },
    {
      validator: ({ urls }) => {
        if (!Array.isArray(urls) || urls.length === 0) throw new Error('addSeeds needs at least one URL');
        if (urls.length > 10_000) throw new Error('addSeeds takes at most 10,000 URLs per update; send several');
      },
    },
  );
}

/** Publishes a tick's figures (the run's current details, its memo, its state search attribute when it changed) and returns the status it makes. */
function statusPublisher(crawlId: string, startedAtMs: number): (tick: FrontierTickResult, state: CrawlState) => CrawlStatus {
  let lastPublishedState: CrawlState | undefined;
  return (tick, state) => {
    const counts = tick.counts;
    const waits = describeCrawlWaits(tick.waits);
    const renders = describeRenders(tick.renders);
    setCurrentDetails(
      `**${state}** · fetched ${counts.fetched} · in flight ${counts.inFlight} · queued ${counts.queued} · discovered ${counts.discovered} · hosts ${tick.activeHosts} · backlog ${tick.admission.backlogSeconds.toFixed(1)} s${renders ? ` · ${renders}` : ''}${waits.length > 0 ? `\n\nwaiting: ${waits.join('; ')}` : ''}`,
    );
    upsertMemo(memoOf(counts));
    if (state !== lastPublishedState) {
      upsertSearchAttributes({ [SEARCH_ATTRIBUTES.state]: [state] });
      lastPublishedState = state;
    }
    return {
      crawlId,
      state,
      counts: tick.counts,
      admission: tick.admission,
      activeHosts: tick.activeHosts,
      errorsByType: tick.errorsByType,
      waits: tick.waits,
      ...(tick.renders === undefined ? {} : { renders: tick.renders }),
      startedAtMs,
      updatedAtMs: tick.nowMs,
    };
  };
}

/** The live counters the Temporal UI shows for a crawl (its memo). */
function memoOf(counts: CrawlStatus['counts']): Record<string, number> {
  return { fetched: counts.fetched, queued: counts.queued, inFlight: counts.inFlight, discovered: counts.discovered, failed: counts.failed };
}
