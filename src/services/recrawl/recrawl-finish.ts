/**
 * Closing a recrawl cycle: what it found and cost, against its plan, saved with the cycle's record.
 */
import { markCrawlFinished } from '../../storage/postgres/crawl-repository.js';
import { stalenessReport } from '../../storage/postgres/freshness-repository.js';
import { getRecrawlCycle, recrawlCycleFigures, saveRecrawlCycleSummary } from '../../storage/postgres/recrawl-repository.js';
import { crawlCostReport } from '../costs/crawl-cost-report.js';
import type { FinishRecrawlInput, PlanRecrawlResult, RecrawlCycleSummary } from '../../contracts/activities.js';
import type { ActivityDeps } from '../deps.js';

export async function finishRecrawlCycle(deps: ActivityDeps, input: FinishRecrawlInput): Promise<RecrawlCycleSummary> {
  // Nothing was planned, so no frontier workflow ran to close the crawl record.
  if (!input.crawl) await markCrawlFinished(deps.pool, input.crawlId, 'finished');
  const cycle = await getRecrawlCycle(deps.pool, input.crawlId);
  const plan = cycle?.plan as unknown as PlanRecrawlResult | undefined;
  const figures = await recrawlCycleFigures(deps.pool, input.crawlId);
  const changed = figures.verdicts['changed'] ?? 0;
  const summary: RecrawlCycleSummary = {
    crawlId: input.crawlId,
    planned: plan?.planned ?? { recrawl: 0, reestimation: 0, verification: 0, tombstone: 0, total: 0 },
    requests: figures.requests,
    notModified: figures.notModified,
    fullFetches: figures.fullFetches,
    failed: figures.failed,
    changed,
    unchanged: figures.verdicts['unchanged'] ?? 0,
    baselines: figures.verdicts['baseline'] ?? 0,
    bytes: figures.bytes,
    wireBytes: figures.wireBytes,
    newBodies: figures.newBodies,
    changesPerRequest: figures.requests > 0 ? changed / figures.requests : 0,
    wireBytesPerChange: changed > 0 ? figures.wireBytes / changed : null,
    byPurpose: figures.byPurpose,
    state: input.crawl?.state ?? 'empty',
    ...(plan === undefined ? {} : { cost: await crawlCostReport(deps.pool, input.crawlId, plan.config) }),
    staleness: await stalenessReport(deps.pool, deps.now()),
    ...(plan?.sla === undefined || plan.sla.shortfalls.length === 0 ? {} : { slaShortfalls: plan.sla.shortfalls }),
  };
  await saveRecrawlCycleSummary(deps.pool, input.crawlId, summary);
  return summary;
}
