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

export async function crawlWorkflow(input: CrawlWorkflowInput): Promise<CrawlSummary> {
  const taskQueue = input.taskQueue ?? DEFAULT_TASK_QUEUE;
  const tickIntervalMs = input.options?.tickIntervalMs ?? 1000;
  const maxHostsToWake = input.options?.maxHostsToWakePerTick ?? 500;
  const carried = input.carried;
  let paused = carried?.paused ?? false;
  let stopping = carried?.stopping ?? false;
  let maxInFlight = carried?.maxInFlight ?? input.config.maxInFlight;
  const startedAtMs = carried?.startedAtMs ?? Date.now();
  let controlChanged = false;
  let signalsThisRun = 0;

  let status: CrawlStatus = carried?.lastStatus ?? {
    crawlId: input.crawlId,
    state: 'starting',
    counts: { queuedByTier: [], queued: 0, inFlight: 0, done: 0, failed: 0, dead: 0, dropped: 0, discovered: 0, admitted: 0, fetched: 0, notModified: 0 },
    admission: { maxInFlight, admitFactor: 1, backlogSeconds: 0, reason: 'ok' },
    activeHosts: 0,
    errorsByType: {},
    startedAtMs,
    updatedAtMs: startedAtMs,
  };

  const onControl = (): void => {
    controlChanged = true;
    signalsThisRun += 1;
  };
  setHandler(pauseCrawlSignal, () => {
    paused = true;
    onControl();
  });
  setHandler(resumeCrawlSignal, () => {
    paused = false;
    onControl();
  });
  setHandler(stopCrawlSignal, () => {
    stopping = true;
    onControl();
  });
  setHandler(setCrawlLimitsSignal, (limits) => {
    if (limits.maxInFlight !== undefined && Number.isInteger(limits.maxInFlight) && limits.maxInFlight > 0) {
      maxInFlight = limits.maxInFlight;
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
  setHandler(crawlStatusQuery, () => status);

  upsertSearchAttributes({ [SEARCH_ATTRIBUTES.crawlId]: [input.crawlId] });

  if (!carried && !input.resume) {
    await store.registerSeeds({ crawlId: input.crawlId, config: input.config, seeds: input.seeds, createCrawl: true });
  }

  const stateNow = (): CrawlState => (stopping ? 'stopping' : paused ? 'paused' : 'running');
  let lastPublishedState: CrawlState | undefined;

  const publish = (tick: FrontierTickResult): void => {
    const state = stateNow();
    status = {
      crawlId: input.crawlId,
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
  };

  for (;;) {
    const tick = await store.frontierTick({
      crawlId: input.crawlId,
      control: { paused, stopping, maxInFlight },
      maxHostsToWake,
      taskQueue,
    });
    publish(tick);
    if (tick.finished) break;

    const info = workflowInfo();
    if (info.continueAsNewSuggested || info.historyLength > 8000 || signalsThisRun > 4000) {
      await condition(allHandlersFinished);
      // The next run's memo starts with these counters, not empty until its first tick.
      await makeContinueAsNewFunc<typeof crawlWorkflow>({ memo: memoOf(status.counts) })({
        ...input,
        seeds: [],
        carried: { paused, stopping, maxInFlight, startedAtMs, lastStatus: status },
      });
    }

    controlChanged = false;
    await condition(() => controlChanged, tickIntervalMs);
  }

  await condition(allHandlersFinished);
  const summary = await store.finishCrawl({ crawlId: input.crawlId, stopped: stopping, startedAtMs });
  status = { ...status, state: summary.state, updatedAtMs: summary.finishedAtMs };
  upsertSearchAttributes({ [SEARCH_ATTRIBUTES.state]: [summary.state] });
  setCurrentDetails(
    `**${summary.state}** · fetched ${summary.pagesFetched} · discovered ${summary.urlsDiscovered} in ${(summary.durationMs / 1000).toFixed(1)} s${summary.end === undefined ? '' : `\n\n${describeCrawlEnd(summary.end)}`}`,
  );
  return summary;
}

/** The live counters the Temporal UI shows for a crawl (its memo). */
function memoOf(counts: CrawlStatus['counts']): Record<string, number> {
  return { fetched: counts.fetched, queued: counts.queued, inFlight: counts.inFlight, discovered: counts.discovered, failed: counts.failed };
}
