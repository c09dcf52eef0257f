/**
 * The Bloom tier of the seen test (docs/design.md, "Seen test"): one filter per crawl in this worker process,
 * sized from the crawl's config. Memory stays bounded: a finished or stopped crawl's filter is
 * dropped the next time the crawl is looked at, idle filters are dropped after a while, and the
 * least recently used go first when the count or byte budget is exceeded. Dropping a filter is
 * always safe: the exact store (the frontier's primary key) decides, the filter only saves lookups.
 */
import type { CrawlConfig } from '../../config/crawl-config.js';
import { BloomFilter } from '../../domain/frontier/index.js';
import type { CrawlRecord } from '../../storage/postgres/crawl-repository.js';

export interface SeenFiltersOptions {
  /** Filters kept at once (one per active crawl). Default 64. */
  maxFilters?: number;
  /** Bytes of bit arrays kept at once, all crawls together; a crawl whose filter alone is larger runs without one. Default 512 MiB. */
  maxTotalBytes?: number;
  /** A filter not used for this long is dropped (its crawl may have moved to other workers). Default 30 minutes. */
  idleMs?: number;
}

interface Entry {
  filter: BloomFilter;
  key: string;
  lastUsedMs: number;
}

export class SeenFilters {
  private readonly entries = new Map<string, Entry>();
  private readonly maxFilters: number;
  private readonly maxTotalBytes: number;
  private readonly idleMs: number;

  constructor(
    private readonly now: () => number,
    options: SeenFiltersOptions = {},
  ) {
    this.maxFilters = options.maxFilters ?? 64;
    this.maxTotalBytes = options.maxTotalBytes ?? 512 * 1024 * 1024;
    this.idleMs = options.idleMs ?? 30 * 60 * 1000;
  }

  /** The crawl's filter in this process, created on first use; undefined when it is off, too large, or the crawl has ended. */
  forCrawl(crawl: Pick<CrawlRecord, 'id' | 'state' | 'config'>): BloomFilter | undefined {
    const nowMs = this.now();
    this.evictIdle(nowMs);
    if (crawl.state === 'finished' || crawl.state === 'stopped') {
      this.entries.delete(crawl.id);
      return undefined;
    }
    const { capacity, rate } = sizingOf(crawl.config);
    if (capacity === 0) return undefined;
    const key = `${capacity}/${rate}`;
    const existing = this.entries.get(crawl.id);
    if (existing && existing.key === key) {
      existing.lastUsedMs = nowMs;
      // Map order is the LRU order: move to the end.
      this.entries.delete(crawl.id);
      this.entries.set(crawl.id, existing);
      return existing.filter;
    }
    const filter = BloomFilter.create(capacity, rate);
    if (filter.sizing.bytes > this.maxTotalBytes) return undefined;
    this.entries.delete(crawl.id);
    this.entries.set(crawl.id, { filter, key, lastUsedMs: nowMs });
    this.evictOverBudget(crawl.id);
    return filter;
  }

  /** Forgets a crawl's filter (its crawl ended). */
  drop(crawlId: string): void {
    this.entries.delete(crawlId);
  }

  /** Crawls that have a filter in this process. */
  crawlIds(): string[] {
    return [...this.entries.keys()];
  }

  get size(): number {
    return this.entries.size;
  }

  get totalBytes(): number {
    let bytes = 0;
    for (const entry of this.entries.values()) bytes += entry.filter.sizing.bytes;
    return bytes;
  }

  private evictIdle(nowMs: number): void {
    for (const [crawlId, entry] of this.entries) {
      if (nowMs - entry.lastUsedMs > this.idleMs) this.entries.delete(crawlId);
    }
  }

  private evictOverBudget(keep: string): void {
    for (const crawlId of this.entries.keys()) {
      if (this.entries.size <= this.maxFilters && this.totalBytes <= this.maxTotalBytes) return;
      if (crawlId !== keep) this.entries.delete(crawlId);
    }
  }
}

/** Crawls stored before the seen filter existed have no sizing in their config: use the defaults' rule. */
function sizingOf(config: CrawlConfig): { capacity: number; rate: number } {
  const capacity = config.seenFilterCapacity ?? Math.max(10_000, config.maxDiscoveredUrls ?? 0);
  return { capacity, rate: config.seenFilterFalsePositiveRate ?? 0.01 };
}
