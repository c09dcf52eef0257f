import { FrontierInputError } from './errors.js';
import { requireNumber } from './validate.js';

/** What the frontier knows about a URL when it ranks it (docs/design.md, "Front queues"). */
export interface PrioritySignals {
  /** Link hops from the nearest seed, >= 0. Deeper URLs rank lower. */
  depth: number;
  /** In-links seen so far, >= 0. More rank higher, with diminishing returns. */
  inlinks: number;
  /** Importance of the URL's host, 0..1. Absent: `defaultHostImportance`. */
  hostImportance?: number;
  /**
   * Value of refetching, 0..1, from the recrawl scheduler. Absent for URLs never fetched: they
   * are then ranked on link signals alone, since no history exists to score them on (docs/design.md, "Front queues").
   */
  recrawlValue?: number;
  /** Demotion from trap detection (docs/design.md, "Crawler traps"), 0..1: 1 drops the priority to 0. */
  trapPenalty?: number;
  /** In a near-duplicate cluster (docs/design.md, "Near-duplicates"): demoted by `nearDuplicateFactor`, never dropped. */
  nearDuplicate?: boolean;
}

/** How the signals combine. Every field is optional; defaults are in {@link DEFAULT_PRIORITY_WEIGHTS}. */
export interface PriorityWeights {
  /** Weight of the depth score in the weighted mean, >= 0. Default 0.35: BFS order matters most for discovery. */
  depth?: number;
  /** Weight of the in-link score, >= 0. Default 0.25. */
  inlinks?: number;
  /** Weight of host importance, >= 0. Default 0.2. */
  hostImportance?: number;
  /** Weight of the recrawl value when it is present, >= 0. Default 0.2. */
  recrawlValue?: number;
  /** Depth at which the depth score halves (score = 1 / (1 + depth / depthHalfScore)), > 0. Default 3. */
  depthHalfScore?: number;
  /** In-links that earn the full in-link score (log scale below it), >= 1. Default 1000. */
  inlinksForFullScore?: number;
  /** Host importance assumed when none is known, 0..1. Default 0.5 (neutral). */
  defaultHostImportance?: number;
  /** Multiplier for near-duplicates, 0..1. Default 0.25: crawled late, still crawled. */
  nearDuplicateFactor?: number;
}

/** The weights {@link urlPriority} uses for any field a caller leaves out. */
export const DEFAULT_PRIORITY_WEIGHTS: Readonly<Required<PriorityWeights>> = Object.freeze({
  depth: 0.35,
  inlinks: 0.25,
  hostImportance: 0.2,
  recrawlValue: 0.2,
  depthHalfScore: 3,
  inlinksForFullScore: 1000,
  defaultHostImportance: 0.5,
  nearDuplicateFactor: 0.25,
});

const CODE = 'FRONTIER_PRIORITY_INPUT_INVALID';

/**
 * A URL's priority in 0..1, higher first: the weighted mean of the depth, in-link, host and
 * (when known) recrawl scores, times the penalties. Monotone by construction: a deeper URL never
 * ranks higher, more in-links never rank lower, and penalties only multiply by factors <= 1.
 *
 * Priority orders URLs within the front queues only; it never lets a URL bypass its host's next
 * fetch time (the back queues enforce that).
 *
 * @throws FrontierInputError `FRONTIER_PRIORITY_INPUT_INVALID` naming the bad signal or weight.
 */
export function urlPriority(signals: PrioritySignals, weights: PriorityWeights = {}): number {
  const w = resolvePriorityWeights(weights);
  const depth = requireNumber(CODE, 'signals.depth', signals.depth, { min: 0 });
  const inlinks = requireNumber(CODE, 'signals.inlinks', signals.inlinks, { min: 0 });
  const host = unitOrDefault('signals.hostImportance', signals.hostImportance, w.defaultHostImportance);
  const trapPenalty = unitOrDefault('signals.trapPenalty', signals.trapPenalty, 0);

  const depthScore = 1 / (1 + depth / w.depthHalfScore);
  const inlinkScore = Math.min(1, Math.log1p(inlinks) / Math.log1p(w.inlinksForFullScore));

  let weighted = w.depth * depthScore + w.inlinks * inlinkScore + w.hostImportance * host;
  let totalWeight = w.depth + w.inlinks + w.hostImportance;
  if (signals.recrawlValue !== undefined) {
    weighted += w.recrawlValue * unitOrDefault('signals.recrawlValue', signals.recrawlValue, 0);
    totalWeight += w.recrawlValue;
  }
  if (totalWeight <= 0) {
    throw new FrontierInputError(CODE, 'weights', totalWeight, 'give at least one signal that applies a positive weight');
  }

  let priority = weighted / totalWeight;
  priority *= 1 - trapPenalty;
  if (signals.nearDuplicate === true) priority *= w.nearDuplicateFactor;
  return Math.min(1, Math.max(0, priority));
}

/** Fills defaults and validates every weight once. */
export function resolvePriorityWeights(weights: PriorityWeights = {}): Required<PriorityWeights> {
  const w = { ...DEFAULT_PRIORITY_WEIGHTS, ...stripUndefined(weights) };
  for (const field of ['depth', 'inlinks', 'hostImportance', 'recrawlValue'] as const) {
    requireNumber(CODE, `weights.${field}`, w[field], { min: 0 });
  }
  requireNumber(CODE, 'weights.depthHalfScore', w.depthHalfScore, { min: 0, minExclusive: true });
  requireNumber(CODE, 'weights.inlinksForFullScore', w.inlinksForFullScore, { min: 1 });
  requireNumber(CODE, 'weights.defaultHostImportance', w.defaultHostImportance, { min: 0, max: 1 });
  requireNumber(CODE, 'weights.nearDuplicateFactor', w.nearDuplicateFactor, { min: 0, max: 1 });
  return w;
}

function unitOrDefault(field: string, value: number | undefined, fallback: number): number {
  return value === undefined ? fallback : requireNumber(CODE, field, value, { min: 0, max: 1 });
}

function stripUndefined<T extends object>(value: T): Partial<T> {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as Partial<T>;
}
