import type { CrawlTrapConfig } from '../../config/crawl-config.js';
import type { BloomFilter } from '../../domain/frontier/index.js';
import { compileQueryPolicies, createScopeChecker, type CanonicalizeOptions, type OriginQueryPolicy, type ScopeChecker } from '../../domain/url/index.js';
import { getCrawl, type CrawlRecord } from '../../storage/postgres/crawl-repository.js';
import { endedCrawls } from '../../storage/postgres/url-scope-repository.js';
import type { Pool } from '../../storage/postgres/pool.js';
import { SeenFilters } from './seen-filters.js';

/**
 * A crawl's record and the compiled forms of its config, cached briefly per process: every fetch
 * and parse needs them, and a crawl's control state may change (pause, stop) at any time, so the
 * cache lives only a second (and serves a few more while one load refreshes it).
 */
export interface CrawlContext {
  record: CrawlRecord;
  canonicalizeOptions: CanonicalizeOptions;
  seedHosts: ReadonlySet<string>;
  /** The crawl's scope, compiled once against its seed hosts. */
  scope: ScopeChecker;
  /** Trap thresholds (crawls stored before they existed get {}: the defaults). */
  traps: CrawlTrapConfig;
  /** This process's Bloom filter for the crawl's seen test; undefined when off or the crawl ended. */
  seenFilter: BloomFilter | undefined;
}

const TTL_MS = 1000;
/**
 * Past its TTL a context still serves, for this long since it was loaded, while one load refreshes
 * it: every fetch and parse asks, and without it each caller in the moment of expiry queried the
 * crawl itself (about one query per page under load). Older than this, callers wait for the load.
 */
const SERVE_WHILE_REFRESHING_MS = 5000;
/** How often the Bloom filters of crawls that ended elsewhere are looked for and dropped. */
const FILTER_SWEEP_MS = 60_000;

export class CrawlContextCache {
  private readonly entries = new Map<string, { context: CrawlContext; loadedAtMs: number }>();
  /** At most one load per crawl at a time; callers of the moment share it. */
  private readonly loads = new Map<string, Promise<CrawlContext>>();
  private readonly compiled = new Map<string, CanonicalizeOptions>();
  private readonly scopes = new Map<string, { key: string; checker: ScopeChecker }>();
  readonly seenFilters: SeenFilters;
  private lastFilterSweepMs = 0;

  constructor(
    private readonly pool: Pool,
    private readonly now: () => number,
  ) {
    this.seenFilters = new SeenFilters(now);
  }

  async get(crawlId: string): Promise<CrawlContext> {
    await this.sweepEndedCrawls();
    const cached = this.entries.get(crawlId);
    const ageMs = cached === undefined ? Infinity : this.now() - cached.loadedAtMs;
    if (cached && ageMs < TTL_MS) return cached.context;
    const load = this.loadOnce(crawlId);
    if (cached && ageMs < SERVE_WHILE_REFRESHING_MS) {
      // Its failure reaches the callers that wait for a load, not this one.
      load.catch(() => undefined);
      return cached.context;
    }
    return load;
  }

  private loadOnce(crawlId: string): Promise<CrawlContext> {
    let load = this.loads.get(crawlId);
    if (load === undefined) {
      load = this.load(crawlId).finally(() => this.loads.delete(crawlId));
      this.loads.set(crawlId, load);
    }
    return load;
  }

  private async load(crawlId: string): Promise<CrawlContext> {
    const record = await getCrawl(this.pool, crawlId);
    if (!record) throw new Error(`crawl ${crawlId} does not exist in the database; was it created against another DATABASE_URL?`);
    let canonicalizeOptions = this.compiled.get(crawlId);
    if (!canonicalizeOptions) {
      canonicalizeOptions = { queryPolicies: compileQueryPolicies(record.config.queryPolicies as OriginQueryPolicy[]) };
      this.compiled.set(crawlId, canonicalizeOptions);
    }
    const context: CrawlContext = {
      record,
      canonicalizeOptions,
      seedHosts: new Set(record.seedHosts),
      scope: this.scopeOf(record),
      traps: record.config.traps ?? {},
      seenFilter: this.seenFilters.forCrawl(record),
    };
    this.entries.set(crawlId, { context, loadedAtMs: this.now() });
    if (this.entries.size > 1000) this.entries.delete(this.entries.keys().next().value!);
    if (this.scopes.size > 1000) this.scopes.delete(this.scopes.keys().next().value!);
    return context;
  }

  /** A crawl may end on another worker: its filter here is dropped within a minute, not only when next used. */
  private async sweepEndedCrawls(): Promise<void> {
    const nowMs = this.now();
    if (nowMs - this.lastFilterSweepMs < FILTER_SWEEP_MS || this.seenFilters.size === 0) return;
    this.lastFilterSweepMs = nowMs;
    for (const crawlId of await endedCrawls(this.pool, this.seenFilters.crawlIds())) this.seenFilters.drop(crawlId);
  }

  /** Seeds can be added while a crawl runs, so the checker is rebuilt when the seed hosts change. */
  private scopeOf(record: CrawlRecord): ScopeChecker {
    const key = JSON.stringify([record.seedHosts, record.config.scope]);
    const cached = this.scopes.get(record.id);
    if (cached?.key === key) return cached.checker;
    const { mode, allowPrefixes, denyPrefixes } = record.config.scope;
    const checker = createScopeChecker(new Set(record.seedHosts), { mode, allowPrefixes, denyPrefixes });
    this.scopes.set(record.id, { key, checker });
    return checker;
  }
}
