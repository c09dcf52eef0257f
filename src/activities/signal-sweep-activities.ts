/**
 * A recrawl cycle's signal sweep (docs/design.md, "Cost per detected change": cheap signals before expensive fetches): register the
 * sitemaps robots.txt declared for the origins the cycle may revisit, and the known pages under
 * the crawl's listing prefixes, as a crawl of kind 'signals', which the ordinary frontier and
 * host workflows run (politeness, robots, retries), and afterwards report what the readings found.
 */
import type { PlanSignalSweepInput, PlanSignalSweepResult, SignalSweepSummary } from '../contracts/activities.js';
import type { ActivityDeps } from '../services/deps.js';
import { finishSignalSweep as sweepFigures, planSignalSweep as planSweep } from '../services/recrawl/signal-sweep.js';

export function createSignalSweepActivities(deps: ActivityDeps) {
  async function planSignalSweep(input: PlanSignalSweepInput): Promise<PlanSignalSweepResult> {
    return planSweep(deps, input);
  }

  async function finishSignalSweep(input: { crawlId: string }): Promise<SignalSweepSummary> {
    return sweepFigures(deps, input);
  }

  return { planSignalSweep, finishSignalSweep };
}
