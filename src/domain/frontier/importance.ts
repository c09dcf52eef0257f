import { urlPriority } from './priority.js';
import { requireNumber } from './validate.js';

/**
 * How much one page linking to a URL counts, by where it stands (docs/design.md, "Front queues": link signals): a page
 * of another host is an outside vote, one of the URL's own host its site's navigation.
 */
export const CROSS_HOST_INLINK_WEIGHT = 1;
export const SAME_HOST_INLINK_WEIGHT = 0.5;

/** Weighted in-links from other hosts at which a host's importance is half way from neutral (0.5) to 1. */
export const HOST_INLINKS_FOR_HALF_IMPORTANCE = 20;

const CODE = 'FRONTIER_PRIORITY_INPUT_INVALID';

/** The weight of a link from a page on `sourceHost` to a URL on `targetHost`. */
export function inlinkWeight(sourceHost: string, targetHost: string): number {
  return sourceHost === targetHost ? SAME_HOST_INLINK_WEIGHT : CROSS_HOST_INLINK_WEIGHT;
}

/**
 * A host's importance from the weighted in-links its pages got from other hosts: neutral (0.5,
 * DEFAULT_PRIORITY_WEIGHTS.defaultHostImportance) with none, toward 1 with many. It never falls
 * below neutral: a host nobody links to yet is unknown, not unimportant.
 */
export function hostImportanceFromInlinks(inlinks: number): number {
  const n = requireNumber(CODE, 'inlinks', inlinks, { min: 0 });
  return 0.5 + 0.5 * (n / (n + HOST_INLINKS_FOR_HALF_IMPORTANCE));
}

export interface DiscoverySignals {
  /** Link hops from the nearest seed. */
  depth: number;
  /** Weighted in-links from distinct pages (inlinkWeight). Default 0. */
  inlinks?: number;
  /** The host's importance, 0..1 (operator's, else hostImportanceFromInlinks). Default neutral. */
  hostImportance?: number;
  /** From trap detection, 0..1. Default 0. */
  trapPenalty?: number;
}

/**
 * A discovered URL's priority: urlPriority over depth, in-links and host importance, bounded so
 * that importance never lifts a URL above where a URL one link closer to the seeds stands without
 * any: priority(d, importance) <= priority(d - 1, none), the same trap penalty applied to both.
 * Depth and trap penalties therefore always win over a link farm, however many in-links it makes;
 * importance orders URLs within a depth.
 */
export function discoveryPriority(signals: DiscoverySignals): number {
  const trapPenalty = signals.trapPenalty ?? 0;
  const raw = urlPriority({ depth: signals.depth, inlinks: signals.inlinks ?? 0, trapPenalty, ...(signals.hostImportance === undefined ? {} : { hostImportance: signals.hostImportance }) });
  if (signals.depth <= 0) return raw;
  return Math.min(raw, urlPriority({ depth: Math.max(0, signals.depth - 1), inlinks: 0, trapPenalty }));
}
