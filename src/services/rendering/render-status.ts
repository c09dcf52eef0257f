/** A crawl's rendering as status and summaries show it (CrawlRenderStatus). */
import { renderConfigOf } from '../../config/render-config.js';
import type { CrawlConfig } from '../../config/crawl-config.js';
import { renderTaskQueueOf } from '../../contracts/messages.js';
import type { CrawlRenderStatus } from '../../contracts/status.js';
import { crawlRenderFigures } from '../../storage/postgres/render-repository.js';
import type { ActivityDeps } from '../deps.js';

/** temporal.api.enums.v1.TaskQueueType.TASK_QUEUE_TYPE_ACTIVITY. */
const TASK_QUEUE_TYPE_ACTIVITY = 2;
/** A poller not seen for this long has stopped (a live worker polls again within about a minute). */
const POLLER_GONE_AFTER_MS = 75_000;

/** The crawl's render status; undefined when it renders nothing and never did. */
export async function crawlRenderStatus(deps: Pick<ActivityDeps, 'pool' | 'temporal' | 'now'>, crawlId: string, config: CrawlConfig, taskQueue: string | undefined): Promise<CrawlRenderStatus | undefined> {
  const render = renderConfigOf(config);
  const figures = await crawlRenderFigures(deps.pool, crawlId);
  if (render.mode === 'never' && figures.renders === 0 && figures.deferred === 0) return undefined;
  const pending = figures.byState['pending'] ?? 0;
  return {
    pending,
    rendered: figures.byState['rendered'] ?? 0,
    partial: figures.byState['partial'] ?? 0,
    failed: (figures.byState['failed'] ?? 0) + (figures.byState['dead'] ?? 0),
    failedByType: figures.failedByType,
    deferred: figures.deferred,
    renders: figures.renders,
    cpuSeconds: Math.round(figures.cpuMs / 100) / 10,
    budget: { ...render.budget },
    oldestPendingAtMs: figures.oldestPendingAtMs,
    noRenderWorker: pending > 0 && taskQueue !== undefined && !(await renderWorkerPolls(deps, taskQueue)),
  };
}

/** Whether a live worker polls the render task queue of `taskQueue`; true when Temporal cannot say (no false alarm). */
async function renderWorkerPolls(deps: Pick<ActivityDeps, 'temporal' | 'now'>, taskQueue: string): Promise<boolean> {
  try {
    const { pollers } = await deps.temporal.workflowService.describeTaskQueue({
      namespace: deps.temporal.options.namespace,
      taskQueue: { name: renderTaskQueueOf(taskQueue) },
      taskQueueType: TASK_QUEUE_TYPE_ACTIVITY,
    });
    const nowMs = deps.now();
    return (pollers ?? []).some((poller) => nowMs - (poller.lastAccessTime ? Number(poller.lastAccessTime.seconds ?? 0) * 1000 : nowMs) <= POLLER_GONE_AFTER_MS);
  } catch {
    return true;
  }
}

