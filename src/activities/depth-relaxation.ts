/**
 * A URL's depth is its shortest link distance from the seeds, so that maxDepth means what it
 * says whatever order pages are parsed in. Hosts are crawled side by side and bursts parse late,
 * so a page can be reached first by a longer path: registration then lowers a known URL's depth
 * when a shorter path finds it (lowerFrontierDepths). A page already parsed at its old depth
 * registered its links one level too deep, and refused some beyond maxDepth: they are registered
 * again, from the link graph, at the page's new depth.
 *
 * A page in flight learns its new depth when its own parse settles and relinks there. A page
 * already parsed is marked, and the frontier tick relinks marked pages a few at a time, each in
 * its own transaction, so a shorter path into a large site never makes one long transaction.
 * Depth only falls, so the work ends; the crawl does not finish while pages are marked.
 */
import { followedLinkTargets } from '../storage/postgres/document-repository.js';
import { takeStaleLinkPage } from '../storage/postgres/frontier-repository.js';
import { inTransaction, type Pool, type PoolClient } from '../storage/postgres/pool.js';
import type { CrawlContext } from './crawl-context.js';
import { registerDiscoveredUrls } from './link-registration.js';

export interface ShallowerPage {
  fingerprint: string;
  /** The page's new (lower) depth. */
  depth: number;
}

/**
 * Registers a page's followed links again at its new depth, inside the caller's transaction.
 * Pages this lowers in turn are marked for the tick. Returns how many URLs it newly admitted.
 */
export async function relinkAtShallowerDepth(client: PoolClient, context: CrawlContext, page: ShallowerPage, nowMs: number): Promise<number> {
  const targets = await followedLinkTargets(client, page.fingerprint);
  if (targets.length === 0) return 0;
  const registration = await registerDiscoveredUrls(client, context, {
    sourceFingerprint: page.fingerprint,
    depth: page.depth + 1,
    urls: targets.map((target) => ({ absoluteUrl: target.url, anchorText: target.anchorText, rel: target.rel })),
    kind: 'link',
    nowMs,
  });
  return registration.registered;
}

/**
 * Relinks up to `maxPages` marked pages of a crawl, the shallowest first, one transaction each.
 * Returns how many pages it relinked and how many URLs that admitted.
 */
export async function relinkStalePages(pool: Pool, context: CrawlContext, maxPages: number, nowMs: number): Promise<{ pages: number; registered: number }> {
  let pages = 0;
  let registered = 0;
  while (pages < maxPages) {
    const admitted = await inTransaction(pool, async (client) => {
      const page = await takeStaleLinkPage(client, context.record.id);
      return page === undefined ? undefined : relinkAtShallowerDepth(client, context, page, nowMs);
    });
    if (admitted === undefined) break;
    pages += 1;
    registered += admitted;
  }
  return { pages, registered };
}
