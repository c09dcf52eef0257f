/**
 * Seeds into the frontier: canonicalized with the crawl's query policies (a seed and the same
 * page found as a link get one fingerprint), registered at depth 0 outside the discovery budget.
 * The registerSeeds activity calls it for a workflow's seeds and addSeeds updates; `crawler crawl`
 * calls it directly, in batches, for a seeds file too large for a workflow's input.
 */
import type { RegisterSeedsInput, RegisterSeedsResult } from '../../contracts/activities.js';
import { compileQueryPolicies, redactUserinfo, tryCanonicalizeUrl, urlFingerprint } from '../../domain/url/index.js';
import { addSeedHosts, createCrawl } from '../../storage/postgres/crawl-repository.js';
import { markHostsPaced } from '../../storage/postgres/subresource-repository.js';
import { renderConfigOf } from '../../config/render-config.js';
import { registerFrontierEntries, type NewFrontierEntry } from '../../storage/postgres/frontier-registration.js';
import { inTransaction, type Pool } from '../../storage/postgres/pool.js';
import { priorityOfDiscovery } from './link-registration.js';

/** Registers a batch of seeds in one transaction (with the crawl record on the first); a repeated batch registers nothing twice. */
export async function registerSeedBatch(pool: Pool, input: RegisterSeedsInput): Promise<RegisterSeedsResult> {
  const rejected: RegisterSeedsResult['rejected'] = [];
  const entries: NewFrontierEntry[] = [];
  const canonicalizeOptions = { queryPolicies: compileQueryPolicies(input.config.queryPolicies ?? []) };
  for (const seed of input.seeds) {
    const result = tryCanonicalizeUrl(seed, canonicalizeOptions);
    if (!result.ok) {
      rejected.push({ url: redactUserinfo(seed), reason: `${result.error.code}: ${result.error.message}` });
      continue;
    }
    const url = result.value;
    const { priority, tier } = priorityOfDiscovery({ depth: 0, trapPenalty: 0 });
    entries.push({ fingerprint: urlFingerprint(url.url), url: url.url, host: url.host, origin: url.origin, canonicalizationVersion: url.version, depth: 0, priority, tier, source: 'seed' });
  }
  const seedHosts = [...new Set(entries.map((entry) => entry.host))];
  const registered = await inTransaction(pool, async (client) => {
    if (input.createCrawl) {
      await createCrawl(client, { id: input.crawlId, config: input.config, seedHosts });
      // Hosts its renders may reach as other origins join the pacing ledger before anything renders (docs/rendering.md).
      await markHostsPaced(client, renderConfigOf(input.config).allowOrigins.map((origin) => new URL(origin).hostname));
    }
    else await addSeedHosts(client, input.crawlId, seedHosts);
    // Seeds are what the operator asked for: they do not spend the discovery budget.
    return registerFrontierEntries(client, input.crawlId, entries, { respectDiscoveryBudget: false });
  });
  return { registered: registered.length, rejected };
}
