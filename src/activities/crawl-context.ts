import { compileQueryPolicies, type CanonicalizeOptions, type OriginQueryPolicy } from '../domain/url/index.js';
import { getCrawl, type CrawlRecord } from '../storage/postgres/crawl-repository.js';
import type { Pool } from '../storage/postgres/pool.js';

/**
 * A crawl's record and the compiled forms of its config, cached briefly per process: every fetch
 * and parse needs them, and a crawl's control state may change (pause, stop) at any time, so the
 * cache lives only a second.
 */
export interface CrawlContext {
  record: CrawlRecord;
  canonicalizeOptions: CanonicalizeOptions;
  seedHosts: ReadonlySet<string>;
}

const TTL_MS = 1000;

export class CrawlContextCache {
  private readonly entries = new Map<string, { context: CrawlContext; loadedAtMs: number }>();
  private readonly compiled = new Map<string, CanonicalizeOptions>();

  constructor(
    private readonly pool: Pool,
    private readonly now: () => number,
  ) {}

  async get(crawlId: string): Promise<CrawlContext> {
    const cached = this.entries.get(crawlId);
    if (cached && this.now() - cached.loadedAtMs < TTL_MS) return cached.context;
    const record = await getCrawl(this.pool, crawlId);
    if (!record) throw new Error(`crawl ${crawlId} does not exist in the database; was it created against another DATABASE_URL?`);
    let canonicalizeOptions = this.compiled.get(crawlId);
    if (!canonicalizeOptions) {
      canonicalizeOptions = { queryPolicies: compileQueryPolicies(record.config.queryPolicies as OriginQueryPolicy[]) };
      this.compiled.set(crawlId, canonicalizeOptions);
    }
    const context = { record, canonicalizeOptions, seedHosts: new Set(record.seedHosts) };
    this.entries.set(crawlId, { context, loadedAtMs: this.now() });
    if (this.entries.size > 1000) this.entries.delete(this.entries.keys().next().value!);
    return context;
  }
}
