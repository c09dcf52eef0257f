// What a crawl cost Temporal: history events of every workflow run on the crawl's task queue
// (per page), and from the histories themselves where the time of an activity goes (waiting
// in the task queue vs running) and how long workflow tasks take.
import type { Client } from '@temporalio/client';
import { defaultPayloadConverter, type Payload } from '@temporalio/common';
import type { BurstStageTimings, FetchBurstResult, FrontierTickResult } from '../../src/contracts/activities.js';
import { HOST_WORKFLOW_TYPE } from '../../src/contracts/messages.js';
import { latencySummary, type LatencySummary } from './stats.js';

export interface TimingFigures {
  count: number;
  /** Scheduled to picked up by a worker: task queue wait (worker slots, poller round trips). */
  queueWait: LatencySummary;
  /** Picked up to completed: running in the worker. */
  run: LatencySummary;
}

export interface TemporalFigures {
  runs: number;
  runsByType: Record<string, number>;
  historyEvents: number;
  eventsPerPage: number;
  longestHistory: number;
  /** Runs whose histories were read for timings (all of them up to the sample limit). */
  historiesRead: number;
  /** Per page, by event kind, scaled from the histories read. */
  eventsPerPageByKind: Record<string, number>;
  activities: Record<string, TimingFigures>;
  workflowTasks: TimingFigures;
  /** What the crawl's ticks decided about admission (optional: records before it lack it). */
  admission?: AdmissionFigures;
  /** Where the sampled fetch bursts' time went, per stage (records before 2026-12-01 04:20 lack it). */
  burstStages?: Record<keyof BurstStageTimings, LatencySummary> & { urls: LatencySummary };
}

/** Backpressure over the crawl, from every frontierTick result in the crawl workflow's histories. */
export interface AdmissionFigures {
  ticks: number;
  /** Ticks (not paused or stopping) whose backpressure factor was below 1, and those stopped by the backlog. */
  throttledTicks: number;
  stoppedByBacklogTicks: number;
  minAdmitFactor: number;
  /** The largest parse backlog a tick saw, in seconds of work (-1 when it was infinite). */
  maxBacklogSeconds: number;
}

interface Timestamp {
  seconds?: { toNumber(): number } | number | string | null;
  nanos?: number | null;
}

function timeMs(ts: Timestamp | null | undefined): number {
  if (!ts) return Number.NaN;
  const seconds = ts.seconds;
  const s = typeof seconds === 'object' && seconds !== null ? seconds.toNumber() : Number(seconds ?? 0);
  return s * 1000 + (ts.nanos ?? 0) / 1e6;
}

type HistoryEvent = Record<string, unknown> & { eventId?: { toNumber(): number } | number | null; eventTime?: Timestamp | null };

function idOf(value: unknown): number {
  if (value === null || value === undefined) return -1;
  if (typeof value === 'object' && 'toNumber' in (value as object)) return (value as { toNumber(): number }).toNumber();
  return Number(value);
}

/** The event's kind from the one attributes field it carries: 'activityTaskScheduled', 'timerFired', ... */
function kindOf(event: HistoryEvent): string {
  for (const key of Object.keys(event)) {
    if (key.endsWith('EventAttributes') && event[key] !== null && event[key] !== undefined) return key.slice(0, -'EventAttributes'.length);
  }
  return 'unknown';
}

export async function waitForWorkflowsToClose(client: Client, taskQueue: string, timeoutMs: number): Promise<number> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    let running = 0;
    for await (const _ of client.workflow.list({ query: `TaskQueue = '${taskQueue}' AND ExecutionStatus = 'Running'` })) running += 1;
    if (running === 0 || Date.now() > deadline) return running;
    await new Promise((resolve) => setTimeout(resolve, 1000));
  }
}

/**
 * Terminates running workflows that earlier benchmark runs left (a run cut short leaves its host
 * workflows holding their `host/<ip>` ids on another task queue, where no worker polls: a new run
 * waking those hosts would signal them and wait forever).
 */
export async function terminateBenchWorkflows(client: Client, taskQueuePrefix: string, reason: string): Promise<number> {
  let terminated = 0;
  for await (const info of client.workflow.list({ query: `ExecutionStatus = 'Running'` })) {
    if (!info.taskQueue.startsWith(taskQueuePrefix)) continue;
    await client.workflow
      .getHandle(info.workflowId, info.runId)
      .terminate(reason)
      .then(() => (terminated += 1))
      .catch(() => undefined);
  }
  return terminated;
}

export async function temporalFigures(client: Client, taskQueue: string, pages: number, maxHistoriesRead: number): Promise<TemporalFigures> {
  const executions: { workflowId: string; runId: string; type: string; historyLength: number }[] = [];
  for await (const info of client.workflow.list({ query: `TaskQueue = '${taskQueue}'` })) {
    executions.push({ workflowId: info.workflowId, runId: info.runId, type: info.type, historyLength: info.historyLength });
  }
  const runsByType: Record<string, number> = {};
  let historyEvents = 0;
  let longestHistory = 0;
  for (const execution of executions) {
    runsByType[execution.type] = (runsByType[execution.type] ?? 0) + 1;
    historyEvents += execution.historyLength;
    longestHistory = Math.max(longestHistory, execution.historyLength);
  }

  // Every crawl workflow run, and host runs evenly spread up to the limit.
  const isHostRun = (execution: { type: string }): boolean => execution.type === HOST_WORKFLOW_TYPE;
  const crawlRuns = executions.filter((execution) => !isHostRun(execution));
  const hostRuns = executions.filter(isHostRun);
  const step = Math.max(1, Math.ceil(hostRuns.length / Math.max(1, maxHistoriesRead)));
  const sample = [...crawlRuns, ...hostRuns.filter((_, i) => i % step === 0)];

  const kinds: Record<string, number> = {};
  const activityTimes = new Map<string, { queue: number[]; run: number[] }>();
  const workflowTask = { queue: [] as number[], run: [] as number[] };
  const ticks: FrontierTickResult['admission'][] = [];
  const bursts: { stages: BurstStageTimings; urls: number }[] = [];
  let sampledEvents = 0;
  for (const execution of sample) {
    const history = await client.workflow.getHandle(execution.workflowId, execution.runId).fetchHistory();
    const events = (history.events ?? []) as HistoryEvent[];
    sampledEvents += events.length;
    const byId = new Map<number, HistoryEvent>();
    for (const event of events) {
      byId.set(idOf(event.eventId), event);
      const kind = kindOf(event);
      kinds[kind] = (kinds[kind] ?? 0) + 1;
      const attributes = event[`${kind}EventAttributes`] as Record<string, unknown>;
      if (kind === 'activityTaskCompleted' || kind === 'activityTaskFailed' || kind === 'activityTaskTimedOut') {
        const scheduled = byId.get(idOf(attributes['scheduledEventId']));
        const started = byId.get(idOf(attributes['startedEventId']));
        if (!scheduled || !started) continue;
        const type = ((scheduled['activityTaskScheduledEventAttributes'] as { activityType?: { name?: string } }).activityType?.name ?? '?') as string;
        const times = activityTimes.get(type) ?? { queue: [], run: [] };
        times.queue.push(timeMs(started.eventTime) - timeMs(scheduled.eventTime));
        times.run.push(timeMs(event.eventTime) - timeMs(started.eventTime));
        activityTimes.set(type, times);
        if (type === 'frontierTick' && kind === 'activityTaskCompleted') {
          const payload = (attributes['result'] as { payloads?: Payload[] } | undefined)?.payloads?.[0];
          if (payload) ticks.push(defaultPayloadConverter.fromPayload<FrontierTickResult>(payload).admission);
        }
        if (type === 'fetchBurst' && kind === 'activityTaskCompleted') {
          const payload = (attributes['result'] as { payloads?: Payload[] } | undefined)?.payloads?.[0];
          const result = payload ? defaultPayloadConverter.fromPayload<FetchBurstResult>(payload) : undefined;
          if (result?.stageMs) bursts.push({ stages: result.stageMs, urls: result.outcomes.filter((outcome) => outcome.kind !== 'not-attempted').length + (result.extended?.length ?? 0) });
        }
      }
      if (kind === 'workflowTaskCompleted') {
        const scheduled = byId.get(idOf(attributes['scheduledEventId']));
        const started = byId.get(idOf(attributes['startedEventId']));
        if (!scheduled || !started) continue;
        workflowTask.queue.push(timeMs(started.eventTime) - timeMs(scheduled.eventTime));
        workflowTask.run.push(timeMs(event.eventTime) - timeMs(started.eventTime));
      }
    }
  }
  // The histories read stand for all: scale their per-kind counts to the total event count.
  const scale = sampledEvents > 0 ? historyEvents / sampledEvents : 0;
  const eventsPerPageByKind = Object.fromEntries(
    Object.entries(kinds)
      .sort((a, b) => b[1] - a[1])
      .map(([kind, n]) => [kind, Math.round(((n * scale) / Math.max(1, pages)) * 100) / 100]),
  );
  const activities = Object.fromEntries(
    [...activityTimes].map(([type, times]) => [type, { count: times.run.length, queueWait: latencySummary(times.queue), run: latencySummary(times.run) }]),
  );
  const stageNames: (keyof BurstStageTimings)[] = ['waiting', 'fetching', 'parsing', 'claiming', 'finishing', 'total'];
  const burstStages =
    bursts.length === 0
      ? undefined
      : {
          ...(Object.fromEntries(stageNames.map((stage) => [stage, latencySummary(bursts.map((burst) => burst.stages[stage]))])) as Record<keyof BurstStageTimings, LatencySummary>),
          urls: latencySummary(bursts.map((burst) => burst.urls)),
        };
  // A paused or stopping crawl admits nothing by the operator's word, not by backpressure.
  const byBackpressure = ticks.filter((tick) => tick.reason !== 'paused' && tick.reason !== 'stopping');
  return {
    runs: executions.length,
    runsByType,
    historyEvents,
    eventsPerPage: Math.round((historyEvents / Math.max(1, pages)) * 100) / 100,
    longestHistory,
    historiesRead: sample.length,
    eventsPerPageByKind,
    activities,
    workflowTasks: { count: workflowTask.run.length, queueWait: latencySummary(workflowTask.queue), run: latencySummary(workflowTask.run) },
    ...(burstStages === undefined ? {} : { burstStages }),
    admission: {
      ticks: ticks.length,
      throttledTicks: byBackpressure.filter((tick) => tick.admitFactor < 1).length,
      stoppedByBacklogTicks: byBackpressure.filter((tick) => tick.reason === 'backlog').length,
      minAdmitFactor: Math.min(1, ...byBackpressure.map((tick) => tick.admitFactor)),
      maxBacklogSeconds: ticks.some((tick) => tick.backlogSeconds < 0) ? -1 : Math.max(0, ...ticks.map((tick) => tick.backlogSeconds)),
    },
  };
}
