/**
 * Why a crawl ended, from its figures at the end. A crawl that stops at a limit looks, in its
 * page count alone, like one that ran out of pages; an operator needs to know which, how much it
 * left behind, and which limit to raise.
 */

/**
 * - `stopped`: the operator stopped it (`crawler stop`, Ctrl-C, a stopCrawl signal).
 * - `page-budget`: it admitted `maxPages` URLs with more still queued.
 * - `discovery-budget`: nothing was left to fetch, but it refused to register URLs once it had
 *   registered `maxDiscoveredUrls`.
 * - `depth-limit`: nothing was left to fetch, but it refused links beyond `maxDepth`.
 * - `nothing-left`: every URL it found within its limits was fetched (or failed).
 */
export type CrawlEndReason = 'stopped' | 'page-budget' | 'discovery-budget' | 'depth-limit' | 'nothing-left';

/** The limits of a crawl config that can end a crawl. */
export type CrawlLimitField = 'maxPages' | 'maxDiscoveredUrls' | 'maxDepth';

export interface CrawlEndFacts {
  stopped: boolean;
  /** URLs still queued at the end. */
  queued: number;
  /** URLs admitted to host queues (what the page budget counts). */
  admitted: number;
  maxPages: number;
  maxDiscoveredUrls: number;
  maxDepth: number;
  /** Discovered URLs left out because the discovery budget was spent, and not registered since. */
  refusedOverDiscoveryBudget: number;
  /** Discovered URLs refused for lying beyond maxDepth, and not admitted since by a shorter path. */
  refusedBeyondDepth: number;
}

export interface CrawlEnd {
  reason: CrawlEndReason;
  /** URLs left queued, never fetched by this crawl. */
  queuedLeft: number;
  /** The limit that ended the crawl, and its value. Absent for `stopped` and `nothing-left`. */
  limit?: { field: CrawlLimitField; value: number };
  /** URLs the limit left out (discovery budget, depth). */
  refused?: number;
}

/**
 * Which reason ended the crawl. Several can hold at once; the first of stopped, page budget,
 * discovery budget, depth limit is the one reported, because raising it is what lets the next
 * crawl go further: with URLs still queued, a larger discovery budget or depth fetches nothing more.
 */
export function crawlEndOf(facts: CrawlEndFacts): CrawlEnd {
  const queuedLeft = Math.max(0, facts.queued);
  if (facts.stopped) return { reason: 'stopped', queuedLeft };
  if (queuedLeft > 0 && facts.admitted >= facts.maxPages) return { reason: 'page-budget', queuedLeft, limit: { field: 'maxPages', value: facts.maxPages } };
  if (facts.refusedOverDiscoveryBudget > 0) {
    return { reason: 'discovery-budget', queuedLeft, limit: { field: 'maxDiscoveredUrls', value: facts.maxDiscoveredUrls }, refused: facts.refusedOverDiscoveryBudget };
  }
  if (facts.refusedBeyondDepth > 0) return { reason: 'depth-limit', queuedLeft, limit: { field: 'maxDepth', value: facts.maxDepth }, refused: facts.refusedBeyondDepth };
  return { reason: 'nothing-left', queuedLeft };
}
