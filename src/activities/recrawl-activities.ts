/**
 * Activities of the recrawl-cycle workflow (docs/design.md, "Cost per detected change"): plan a cycle (which known URLs to revisit,
 * by purpose, under the budget split) and register it as a crawl of kind 'recrawl', which the
 * ordinary frontier and host workflows then run; afterwards, report what the cycle found and cost.
 */
import type { FinishRecrawlInput, PlanRecrawlInput, PlanRecrawlResult, RecrawlCycleSummary } from '../contracts/activities.js';
import type { ActivityDeps } from '../services/deps.js';
import { finishRecrawlCycle as closeCycle } from '../services/recrawl/recrawl-finish.js';
import { planRecrawl as planCycle } from '../services/recrawl/recrawl-planning.js';

export type { RecrawlPurpose } from '../services/recrawl/recrawl-planning.js';

export function createRecrawlActivities(deps: ActivityDeps) {
  async function planRecrawl(input: PlanRecrawlInput): Promise<PlanRecrawlResult> {
    return planCycle(deps, input);
  }

  async function finishRecrawlCycle(input: FinishRecrawlInput): Promise<RecrawlCycleSummary> {
    return closeCycle(deps, input);
  }

  return { planRecrawl, finishRecrawlCycle };
}
