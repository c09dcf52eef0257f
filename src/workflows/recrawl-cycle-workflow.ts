/**
 * One recrawl cycle (001), started by a Temporal Schedule: first sweep the sitemaps robots.txt
 * declared for the origins it may revisit (their lastmods are cheap change signals), then plan which known URLs to revisit under
 * the cycle's budget (value × freshness gain / cost, with reserved shares for discovery,
 * re-estimation and verification, and due 404/410 tombstones), then run them as a crawl of kind
 * 'recrawl' through the ordinary frontier workflow, so politeness, conditional requests,
 * idempotency and change detection are the same code as any crawl. Ends with the cycle's figures.
 */
import { ParentClosePolicy, executeChild, patched, proxyActivities, setCurrentDetails, workflowInfo } from '@temporalio/workflow';
import type { createActivities } from '../activities/index.js';
import type { PlanRecrawlResult, RecrawlCycleSummary, RecrawlSettings, SitemapSweepSummary } from '../activities/contracts.js';
import type { CrawlConfig } from '../config/crawl-config.js';
import { crawlWorkflow, type CrawlWorkflowOptions } from './crawl-workflow.js';
import { DEFAULT_TASK_QUEUE, crawlWorkflowId, recrawlCrawlIdOf } from './messages.js';
import type { CrawlSummary } from './status.js';

type Activities = ReturnType<typeof createActivities>;

export interface RecrawlCycleInput {
  /** The Schedule that starts this cycle, for the record. */
  scheduleId?: string;
  settings: RecrawlSettings;
  /** The crawl settings the cycle's fetches follow (User-Agent, delays, scope, limits). */
  config: CrawlConfig;
  /** Task queue of the cycle's crawl and host workflows. Default 'crawler'. */
  taskQueue?: string;
  crawlOptions?: CrawlWorkflowOptions;
}

export interface RecrawlCycleResult {
  crawlId: string;
  plan: PlanRecrawlResult;
  crawl?: CrawlSummary;
  summary: RecrawlCycleSummary;
  /** The sitemap sweep before planning; absent when skipped (sitemapBudget 0, or a cycle older than the sweep). */
  sitemaps?: SitemapSweepSummary;
}

/** Cycles started before the sweep existed replay without it. */
const SITEMAP_SWEEP_PATCH = 'sitemap-sweep-before-plan';
/** The sweep runs as its own crawl, named after the cycle's. */
export const sitemapSweepCrawlIdOf = (cycleCrawlId: string): string => `${cycleCrawlId}-sitemaps`;

const store = proxyActivities<Activities>({
  // Planning reads bounded candidate pools and writes the plan in one transaction.
  startToCloseTimeout: '5m',
  retry: { initialInterval: '2s', backoffCoefficient: 2, maximumInterval: '60s', maximumAttempts: 10, nonRetryableErrorTypes: ['RecrawlInputError', 'FrontierInputError'] },
});

export async function recrawlCycleWorkflow(input: RecrawlCycleInput): Promise<RecrawlCycleResult> {
  const taskQueue = input.taskQueue ?? DEFAULT_TASK_QUEUE;
  const { workflowId } = workflowInfo();
  const crawlId = recrawlCrawlIdOf(workflowId);

  const sitemaps = patched(SITEMAP_SWEEP_PATCH) ? await sweepSitemaps(input, crawlId, taskQueue) : undefined;

  const plan = await store.planRecrawl({
    crawlId,
    workflowId,
    ...(input.scheduleId === undefined ? {} : { scheduleId: input.scheduleId }),
    config: input.config,
    settings: input.settings,
  });
  const planned = plan.planned;
  setCurrentDetails(
    `**planned** ${planned.total} visits (recrawl ${planned.recrawl}, re-estimation ${planned.reestimation}, verification ${planned.verification}, tombstones ${planned.tombstone}) of ${plan.candidates} candidates, discovery ${plan.budget.discovery}; sitemap signals: ${plan.cheapSignals?.changed ?? 0} changed, ${plan.cheapSignals?.unchanged ?? 0} unchanged; crawl ${crawlId}`,
  );

  let crawl: CrawlSummary | undefined;
  if (planned.total > 0) {
    crawl = await executeChild(crawlWorkflow, {
      workflowId: crawlWorkflowId(crawlId),
      taskQueue,
      // The plan registered the crawl and its frontier: the frontier workflow only runs it.
      args: [{ crawlId, config: plan.config, seeds: [], taskQueue, resume: true, ...(input.crawlOptions ? { options: input.crawlOptions } : {}) }],
      // A cycle cancelled or terminated takes its crawl with it; the next cycle plans afresh.
      parentClosePolicy: ParentClosePolicy.TERMINATE,
      staticSummary: `Recrawl cycle ${crawlId}: ${planned.total} planned visits`,
    });
  }

  const summary = await store.finishRecrawlCycle({ crawlId, ...(crawl ? { crawl } : {}) });
  setCurrentDetails(
    `**${summary.state}** · ${summary.requests} requests · ${summary.notModified} not modified · ${summary.changed} changed · ${summary.newBodies} new bodies · ${summary.changesPerRequest.toFixed(2)} changes/request`,
  );
  return { crawlId, plan, ...(crawl ? { crawl } : {}), summary, ...(sitemaps ? { sitemaps } : {}) };
}

/** Reads the declared sitemaps through the ordinary crawl machinery, so the plan sees fresh lastmods. */
async function sweepSitemaps(input: RecrawlCycleInput, cycleCrawlId: string, taskQueue: string): Promise<SitemapSweepSummary | undefined> {
  const maxSitemaps = input.settings.sitemapBudget ?? Math.max(10, Math.floor(input.settings.budget / 10));
  if (maxSitemaps <= 0) return undefined;
  const crawlId = sitemapSweepCrawlIdOf(cycleCrawlId);
  const sweep = await store.planSitemapSweep({ crawlId, config: input.config, maxSitemaps });
  if (sweep.sitemaps > 0) {
    setCurrentDetails(`**reading** ${sweep.sitemaps} declared sitemaps (up to ${maxSitemaps} fetches); crawl ${crawlId}`);
    await executeChild(crawlWorkflow, {
      workflowId: crawlWorkflowId(crawlId),
      taskQueue,
      args: [{ crawlId, config: sweep.config, seeds: [], taskQueue, resume: true, ...(input.crawlOptions ? { options: input.crawlOptions } : {}) }],
      parentClosePolicy: ParentClosePolicy.TERMINATE,
      staticSummary: `Sitemap sweep of recrawl cycle ${cycleCrawlId}: ${sweep.sitemaps} declared sitemaps`,
    });
  }
  return store.finishSitemapSweep({ crawlId });
}
