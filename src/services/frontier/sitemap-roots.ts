/**
 * The sitemaps a discovery crawl reads (CrawlConfig.sitemaps): those an origin's robots.txt
 * declares, and /sitemap.xml of a seed origin whose robots.txt declares none. They become
 * frontier entries of purpose 'sitemap' the first time the crawl fetches from the origin with its
 * robots.txt in hand, so they are fetched under the same robots and politeness rules as pages.
 * Registration is idempotent (the frontier's key), so each worker process does it once per crawl
 * and origin, and a second process's try adds nothing.
 */
import { sitemapDiscoveryModeOf } from '../../config/crawl-config.js';
import type { RobotsCacheEntry } from '../../domain/robots/index.js';
import { tryCanonicalizeUrl, urlFingerprint } from '../../domain/url/index.js';
import { registerFrontierEntries, type NewFrontierEntry } from '../../storage/postgres/frontier-registration.js';
import { inTransaction, type Pool } from '../../storage/postgres/pool.js';
import { upsertSitemaps, type SitemapRecordInput } from '../../storage/postgres/sitemap-repository.js';
import type { CrawlContext } from './crawl-context.js';

/** Declared sitemaps taken per origin: a robots.txt of thousands of Sitemap lines is not a reason for thousands of requests. */
export const MAX_DECLARED_SITEMAPS_PER_ORIGIN = 50;
/** Origins remembered per crawl in one process; past it an origin may be registered again (harmless). */
const MAX_ORIGINS_REMEMBERED = 100_000;

/** The sitemaps of one origin a crawl registers, from its robots.txt entry; [] when none. */
export function sitemapRootsOf(context: CrawlContext, origin: string, robots: RobotsCacheEntry): { entries: NewFrontierEntry[]; records: SitemapRecordInput[] } {
  const mode = sitemapDiscoveryModeOf(context.record.config);
  if (mode === 'off' || context.record.kind !== 'discovery') return { entries: [], records: [] };
  const declared = robots.policy.kind === 'rules' ? robots.policy.rules.sitemaps.slice(0, MAX_DECLARED_SITEMAPS_PER_ORIGIN) : [];
  const originUrl = tryCanonicalizeUrl(`${origin}/`, context.canonicalizeOptions);
  if (!originUrl.ok) return { entries: [], records: [] };
  const isSeedOrigin = context.seedHosts.has(originUrl.value.host);
  const candidates: { url: string; declaredBy: string[] }[] =
    declared.length > 0
      ? declared.map((url) => ({ url, declaredBy: [originUrl.value.origin] }))
      : mode === 'declared-and-default' && isSeedOrigin
        ? // At the origin's root, like robots.txt: it speaks for the origin, and so do the children of an index there.
          [{ url: `${originUrl.value.origin}/sitemap.xml`, declaredBy: [originUrl.value.origin] }]
        : [];
  const entries = new Map<string, NewFrontierEntry>();
  const records: SitemapRecordInput[] = [];
  for (const candidate of candidates) {
    const canonical = tryCanonicalizeUrl(candidate.url, context.canonicalizeOptions);
    // robots.txt is untrusted: a Sitemap line that is no URL is skipped.
    if (!canonical.ok) continue;
    const url = canonical.value;
    // A sitemap on another host is fetched only when the crawl's scope takes that host: a robots.txt
    // must not send the crawler anywhere it names.
    if (url.host !== originUrl.value.host && !context.scope.check(url).inScope) continue;
    const fingerprint = urlFingerprint(url.url);
    records.push({ fingerprint, url: url.url, declaredBy: candidate.declaredBy });
    entries.set(fingerprint, {
      fingerprint,
      url: url.url,
      host: url.host,
      origin: url.origin,
      canonicalizationVersion: url.version,
      depth: 0,
      // Read before the pages: what they list joins the queue at its own priority.
      priority: 1,
      tier: 0,
      purpose: 'sitemap',
      source: 'robots',
    });
  }
  return { entries: [...entries.values()], records };
}

/** Registers each origin's sitemaps once per crawl in this process (createUrlFetcher calls it before a fetch). */
export class SitemapRoots {
  private readonly done = new Map<string, Set<string>>();

  constructor(private readonly pool: Pool) {}

  /** Registers the sitemaps of `origin` for the crawl, the first time this process sees the pair. */
  async registerOnce(context: CrawlContext, origin: string, robots: RobotsCacheEntry): Promise<void> {
    const crawlId = context.record.id;
    let origins = this.done.get(crawlId);
    if (origins?.has(origin)) return;
    const { entries, records } = sitemapRootsOf(context, origin, robots);
    if (entries.length > 0) {
      await inTransaction(this.pool, async (client) => {
        await upsertSitemaps(client, records);
        // Like seeds, they spend no discovery budget: what they list does.
        await registerFrontierEntries(client, crawlId, entries, { respectDiscoveryBudget: false, includeFetched: true });
      });
    }
    if (!origins) {
      if (this.done.size > 1000) this.done.delete(this.done.keys().next().value!);
      this.done.set(crawlId, (origins = new Set()));
    }
    if (origins.size >= MAX_ORIGINS_REMEMBERED) origins.clear();
    origins.add(origin);
  }
}
