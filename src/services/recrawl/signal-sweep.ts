/**
 * A recrawl cycle's signal sweep in the store (docs/design.md, "Cost per detected change"): the
 * sitemaps robots.txt declared for the origins the cycle may revisit and the known pages under the
 * crawl's listing prefixes, registered as a crawl of kind 'signals'; afterwards, what the readings found.
 */
import type { CrawlConfig } from '../../config/crawl-config.js';
import { canonicalizeUrl, compileQueryPolicies, tryCanonicalizeUrl, urlFingerprint } from '../../domain/url/index.js';
import { createCrawl, getCrawl, markCrawlFinished } from '../../storage/postgres/crawl-repository.js';
import { registerFrontierEntries, type NewFrontierEntry } from '../../storage/postgres/frontier-registration.js';
import { listingPagesToReread, listingSweepFigures } from '../../storage/postgres/listing-repository.js';
import { inTransaction } from '../../storage/postgres/pool.js';
import {
  declaredSitemapsOfRecrawlableOrigins,
  sitemapSweepFigures,
  sweepRootCount,
  upsertSitemaps,
  type SitemapRecordInput,
} from '../../storage/postgres/sitemap-repository.js';
import type { PlanSignalSweepInput, PlanSignalSweepResult, SignalSweepSummary } from '../../contracts/activities.js';
import type { ActivityDeps } from '../deps.js';

export async function planSignalSweep(deps: ActivityDeps, input: PlanSignalSweepInput): Promise<PlanSignalSweepResult> {
  // The crawl's pages and discovery budgets are the sweep's: index children spend the same budget.
  const config: CrawlConfig = { ...input.config, maxPages: Math.max(1, input.maxFetches), maxDiscoveredUrls: Math.max(1, input.maxFetches) };
  // Retried after the plan committed: answer from the record.
  const existing = await getCrawl(deps.pool, input.crawlId);
  if (existing) return { crawlId: input.crawlId, config: existing.config, ...(await sweepRootCount(deps.pool, input.crawlId)) };

  const canonicalizeOptions = { queryPolicies: compileQueryPolicies(input.config.queryPolicies ?? []) };
  const records = new Map<string, SitemapRecordInput>();
  const entries = new Map<string, NewFrontierEntry>();
  for (const declared of await declaredSitemapsOfRecrawlableOrigins(deps.pool, input.maxFetches)) {
    const canonical = tryCanonicalizeUrl(declared.url, canonicalizeOptions);
    // robots.txt is untrusted: a Sitemap line that is no URL is skipped, as the reader skips bad entries.
    if (!canonical.ok) continue;
    const fingerprint = urlFingerprint(canonical.value.url);
    const record = records.get(fingerprint);
    records.set(fingerprint, { fingerprint, url: canonical.value.url, declaredBy: [...(record?.declaredBy ?? []), declared.declaredBy] });
    entries.set(fingerprint, {
      fingerprint,
      url: canonical.value.url,
      host: canonical.value.host,
      origin: canonical.value.origin,
      canonicalizationVersion: canonical.value.version,
      depth: 0,
      priority: 1,
      tier: 0,
      purpose: 'sitemap',
      source: 'robots',
    });
  }
  const sitemaps = [...entries.values()];
  // Listing pages take what the sitemaps leave of the budget.
  const listingPrefixes = (input.config.listingPages ?? []).map((prefix) => ({ prefix, host: canonicalizeUrl(prefix).host }));
  const listings: NewFrontierEntry[] = (await listingPagesToReread(deps.pool, listingPrefixes, input.maxFetches - sitemaps.length)).map((page) => ({
    ...page,
    depth: 0,
    priority: 1,
    tier: 0,
    purpose: 'listing',
  }));
  const registered = [...sitemaps, ...listings];
  await inTransaction(deps.pool, async (client) => {
    await createCrawl(client, { id: input.crawlId, kind: 'signals', config, seedHosts: [...new Set(registered.map((entry) => entry.host))] });
    await upsertSitemaps(client, [...records.values()]);
    await registerFrontierEntries(client, input.crawlId, registered, { respectDiscoveryBudget: false, includeFetched: true });
    // Nothing to read: no frontier workflow will run to close the record.
    if (registered.length === 0) await markCrawlFinished(client, input.crawlId, 'finished');
  });
  return { crawlId: input.crawlId, config, sitemaps: sitemaps.length, listingPages: listings.length };
}

export async function finishSignalSweep(deps: ActivityDeps, input: { crawlId: string }): Promise<SignalSweepSummary> {
  const [sitemaps, listings] = await Promise.all([sitemapSweepFigures(deps.pool, input.crawlId), listingSweepFigures(deps.pool, input.crawlId)]);
  return { crawlId: input.crawlId, ...sitemaps, ...listings };
}
