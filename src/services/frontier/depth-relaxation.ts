/**
 * A URL's depth is its shortest link distance from the seeds, so that maxDepth means what it
 * says whatever order pages are parsed in. Hosts are crawled side by side and bursts parse late,
 * so a page can be reached first by a longer path: registration then lowers a known URL's depth
 * when a shorter path finds it (lowerFrontierDepths). A page already parsed at its old depth
 * registered its links one level too deep, and refused some beyond maxDepth: they are registered
 * again, from the link graph, at the page's new depth.
 *
 * A URL lowered after its claim (in flight or parsed) is marked; once parsed, the frontier tick
 * relinks marked pages a few at a time, each in its own transaction, so a shorter path into a
 * large site never makes one long transaction. Depth only falls, so the work ends; the crawl does
 * not finish while parsed pages are marked.
 */
import { followedLinkTargets } from '../../storage/postgres/document-repository.js';
import { takeStaleLinkPage } from '../../storage/postgres/frontier-depths.js';
import { inTransaction, type Pool, type PoolClient } from '../../storage/postgres/pool.js';
import type { CrawlContext } from './crawl-context.js';
import { registerDiscoveredUrls } from './link-registration.js';

/**
 * Registers a parsed page's followed links, from the link graph, at `page.depth + 1`: again at a
 * new depth here, or for a page unchanged since the crawl that parsed it (a 304, url-settlement.ts).
 * Pages this lowers in turn are marked.
 */
export async function registerStoredLinks(client: PoolClient, context: CrawlContext, page: { fingerprint: string; depth: number }, nowMs: number): Promise<void> {
  const targets = await followedLinkTargets(client, page.fingerprint);
  if (targets.length === 0) return;
  await registerDiscoveredUrls(client, context, {
    sourceFingerprint: page.fingerprint,
    depth: page.depth + 1,
    urls: targets.map((target) => ({ absoluteUrl: target.url, anchorText: target.anchorText, rel: target.rel, ...(target.feed ? { purpose: 'feed' } : {}) })),
    kind: 'link',
    nowMs,
  });
}

/** Relinks up to `maxPages` marked parsed pages of a crawl, the shallowest first, one transaction each. */
export async function relinkStalePages(pool: Pool, context: CrawlContext, maxPages: number, nowMs: number): Promise<void> {
  for (let pages = 0; pages < maxPages; pages += 1) {
    const relinked = await inTransaction(pool, async (client) => {
      const page = await takeStaleLinkPage(client, context.record.id);
      if (page !== undefined) await registerStoredLinks(client, context, page, nowMs);
      return page !== undefined;
    });
    if (!relinked) return;
  }
}
