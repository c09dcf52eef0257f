import { RenderInputError } from './errors.js';

/**
 * What a crawl may spend on rendering (docs/design.md, "Rendering": a render costs about a hundred times a fetch and
 * parse, so it has a budget of its own). Past it, pages keep their HTTP result and count as
 * `render-deferred`.
 */
export interface RenderBudget {
  /** Renders the crawl may start, hash routes included. Default 1,000. */
  maxRenders: number;
  /** Browser CPU the crawl's renders may use, in seconds (summed over the browser's processes). Default 3,600. */
  maxCpuSeconds: number;
  /** Renders per host and crawl. Default 200. */
  maxRendersPerHost: number;
}

export const DEFAULT_RENDER_BUDGET: Readonly<RenderBudget> = Object.freeze({ maxRenders: 1000, maxCpuSeconds: 3600, maxRendersPerHost: 200 });

/** What a crawl has spent so far. */
export interface RenderSpending {
  /** Renders started (scheduled) by the crawl. */
  renders: number;
  /** Browser CPU its finished renders used, ms. */
  cpuMs: number;
  /** Renders started for the page's host. */
  hostRenders: number;
}

export type RenderBudgetVerdict = { within: true } | { within: false; spent: 'renders' | 'cpu' | 'host-renders' };

/** Whether one more render fits the budget. */
export function renderBudgetVerdict(spending: RenderSpending, budget: RenderBudget): RenderBudgetVerdict {
  if (spending.renders >= budget.maxRenders) return { within: false, spent: 'renders' };
  if (spending.cpuMs >= budget.maxCpuSeconds * 1000) return { within: false, spent: 'cpu' };
  if (spending.hostRenders >= budget.maxRendersPerHost) return { within: false, spent: 'host-renders' };
  return { within: true };
}

/** What is left, for status lines: renders, CPU seconds (rounded down, never below 0). */
export function renderBudgetLeft(spending: Omit<RenderSpending, 'hostRenders'>, budget: RenderBudget): { renders: number; cpuSeconds: number } {
  return { renders: Math.max(0, budget.maxRenders - spending.renders), cpuSeconds: Math.max(0, Math.floor(budget.maxCpuSeconds - spending.cpuMs / 1000)) };
}

/** Throws RENDER_BUDGET_INVALID naming the first bad field. */
export function validateRenderBudget(budget: RenderBudget, field = 'renderBudget'): void {
  for (const key of ['maxRenders', 'maxCpuSeconds', 'maxRendersPerHost'] as const) {
    const value = budget[key];
    if (!Number.isSafeInteger(value) || value < 0) throw new RenderInputError('RENDER_BUDGET_INVALID', `${field}.${key}`, value, 'pass an integer >= 0');
  }
}
