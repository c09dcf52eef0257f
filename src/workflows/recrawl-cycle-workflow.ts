/**
 * One recrawl cycle (docs/design.md, "Cost per detected change"), started by a Temporal Schedule: first sweep the cheap change signals
 * (the sitemaps robots.txt declared for the origins it may revisit, and the configured listing
 * pages, whose item summaries show which items changed), then plan which known URLs to revisit under
 * the cycle's budget (value × freshness gain / cost, with reserved shares for discovery,
 * re-estimation and verification, and due 404/410 tombstones), then run them as a crawl of kind
 * 'recrawl' through the ordinary frontier workflow, so politeness, conditional requests,
 * idempotency and change detection are the same code as any crawl. Ends with the cycle's figures.
 */
import { ParentClosePolicy, executeChild, proxyActivities, setCurrentDetails, workflowInfo } from '@temporalio/workflow';
import type { createActivities } from '../activities/index.js';
import type { PlanRecrawlResult, RecrawlCycleSummary, RecrawlSettings, SignalSweepSummary } from '../contracts/activities.js';
import type { CrawlConfig } from '../config/crawl-config.js';
import { crawlWorkflow, type CrawlWorkflowOptions } from './crawl-workflow.js';
import { DEFAULT_TASK_QUEUE, crawlWorkflowId, recrawlCrawlIdOf } from '../contracts/messages.js';
import type { CrawlSummary } from '../contracts/status.js';

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
  /** The signal sweep before planning; absent when skipped (signalBudget 0). */
  signals?: SignalSweepSummary;
}

/** The sweep runs as its own crawl, named after the cycle's. */
export const signalSweepCrawlIdOf = (cycleCrawlId: string): string => `${cycleCrawlId}-signals`;

const store = proxyActivities<Activities>({
  // Planning reads bounded candidate pools and writes the plan in one transaction.
  startToCloseTimeout: '5m',
  retry: { initialInterval: '2s', backoffCoefficient: 2, maximumInterval: '60s', maximumAttempts: 10, nonRetryableErrorTypes: ['RecrawlInputError', 'FrontierInputError'] },
});

export async function recrawlCycleWorkflow(input: RecrawlCycleInput): Promise<RecrawlCycleResult> {
  const taskQueue = input.taskQueue ?? DEFAULT_TASK_QUEUE;
  const { workflowId } = workflowInfo();
  const crawlId = recrawlCrawlIdOf(workflowId);

  const signals = await sweepSignals(input, crawlId, taskQueue);

  const plan = await store.planRecrawl({
    crawlId,
    workflowId,
    ...(input.scheduleId === undefined ? {} : { scheduleId: input.scheduleId }),
    config: input.config,
    settings: input.settings,
  });
  const planned = plan.planned;
  const slaShort = (plan.sla?.shortfalls ?? []).reduce((sum, shortfall) => sum + shortfall.unplannedUrls, 0);
  setCurrentDetails(
    `**planned** ${planned.total} visits (${planned.sla === undefined ? '' : `SLA ${planned.sla}${slaShort > 0 ? `, **${slaShort} SLA URLs over budget**` : ''}, `}recrawl ${planned.recrawl}, re-estimation ${planned.reestimation}, verification ${planned.verification}, tombstones ${planned.tombstone}) of ${plan.candidates} candidates, discovery ${plan.budget.discovery}; cheap signals: ${plan.cheapSignals?.changed ?? 0} changed, ${plan.cheapSignals?.unchanged ?? 0} unchanged; crawl ${crawlId}`,
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
  return { crawlId, plan, ...(crawl ? { crawl } : {}), summary, ...(signals ? { signals } : {}) };
}

/** Reads sitemaps and listing pages through the ordinary crawl machinery, so the plan sees fresh signals. */
async function sweepSignals(input: RecrawlCycleInput, cycleCrawlId: string, taskQueue: string): Promise<SignalSweepSummary | undefined> {
  const maxFetches = input.settings.signalBudget ?? Math.max(10, Math.floor(input.settings.budget / 10));
  if (maxFetches <= 0) return undefined;
  const crawlId = signalSweepCrawlIdOf(cycleCrawlId);
  const sweep = await store.planSignalSweep({ crawlId, config: input.config, maxFetches });
  if (sweep.sitemaps + sweep.listingPages > 0) {
    setCurrentDetails(`**reading** ${sweep.sitemaps} declared sitemaps and ${sweep.listingPages} listing pages (up to ${maxFetches} fetches); crawl ${crawlId}`);
    await executeChild(crawlWorkflow, {
      workflowId: crawlWorkflowId(crawlId),
      taskQueue,
      args: [{ crawlId, config: sweep.config, seeds: [], taskQueue, resume: true, ...(input.crawlOptions ? { options: input.crawlOptions } : {}) }],
      parentClosePolicy: ParentClosePolicy.TERMINATE,
      staticSummary: `Signal sweep of recrawl cycle ${cycleCrawlId}: ${sweep.sitemaps} sitemaps, ${sweep.listingPages} listing pages`,
    });
  }
  return store.finishSignalSweep({ crawlId });
}
