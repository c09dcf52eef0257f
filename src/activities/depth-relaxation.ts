/**
 * A URL's depth is its shortest link distance from the seeds, so that maxDepth means what it
 * says whatever order pages are parsed in. Hosts are crawled side by side and bursts parse late,
 * so a page can be reached first by a longer path: registration then lowers a known URL's depth
 * when a shorter path finds it. A page already parsed at its old depth registered its links one
 * level too deep (some refused beyond maxDepth): here they are registered again, from the link
 * graph, at the page's new depth, and so on down the pages that lowers. Depth only falls, so the
 * work ends; each page is registered again at most once per depth it loses.
 */
import { followedLinkTargets } from '../storage/postgres/document-repository.js';
import type { PoolClient } from '../storage/postgres/pool.js';
import type { CrawlContext } from './crawl-context.js';
import { registerDiscoveredUrls, type RegistrationResult } from './link-registration.js';

export interface ShallowerPage {
  fingerprint: string;
  /** The page's new (lower) depth. */
  depth: number;
}

/** The parsed pages among a registration's lowered URLs, at the depth it found them. */
export function parsedPagesLowered(registration: RegistrationResult, depth: number): ShallowerPage[] {
  return registration.lowered.filter((entry) => entry.state === 'done').map((entry) => ({ fingerprint: entry.fingerprint, depth }));
}

/**
 * Registers again, inside the caller's transaction, the followed links of pages whose depth fell
 * after they were parsed. Returns how many URLs that newly admitted.
 */
export async function registerAtShallowerDepth(client: PoolClient, context: CrawlContext, pages: readonly ShallowerPage[], nowMs: number): Promise<number> {
  const pending = [...pages];
  const doneAtDepth = new Map<string, number>();
  let registered = 0;
  for (let page = pending.shift(); page !== undefined; page = pending.shift()) {
    if ((doneAtDepth.get(page.fingerprint) ?? Infinity) <= page.depth) continue;
    doneAtDepth.set(page.fingerprint, page.depth);
    const targets = await followedLinkTargets(client, page.fingerprint);
    if (targets.length === 0) continue;
    const registration = await registerDiscoveredUrls(client, context, {
      sourceFingerprint: page.fingerprint,
      depth: page.depth + 1,
      urls: targets.map((target) => ({ absoluteUrl: target.url, anchorText: target.anchorText, rel: target.rel })),
      kind: 'link',
      nowMs,
    });
    registered += registration.registered;
    pending.push(...parsedPagesLowered(registration, page.depth + 1));
  }
  return registered;
}
