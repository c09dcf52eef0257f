import { describe, expect, it } from 'vitest';
import { CrawlContextCache } from '../../../src/services/frontier/crawl-context.js';
import { SeenFilters } from '../../../src/services/frontier/seen-filters.js';
import { resolveCrawlConfig, type CrawlConfig } from '../../../src/config/crawl-config.js';

const crawl = (id: string, config: Partial<CrawlConfig> = {}, state: 'running' | 'finished' | 'stopped' = 'running') => ({
  id,
  state,
  config: resolveCrawlConfig({ seenFilterCapacity: 10_000, ...config }),
});
const fp = 'a'.repeat(32);

describe('SeenFilters: one bounded Bloom filter per crawl per process', () => {
  it('returns the same filter for the same crawl, sized from its config', () => {
    const filters = new SeenFilters(() => 0);
    const first = filters.forCrawl(crawl('c1', { seenFilterCapacity: 20_000, seenFilterFalsePositiveRate: 0.001 }));
    first?.add(fp);
    const again = filters.forCrawl(crawl('c1', { seenFilterCapacity: 20_000, seenFilterFalsePositiveRate: 0.001 }));
    expect(again).toBe(first);
    expect(again?.mightContain(fp)).toBe(true);
    expect(first?.sizing).toMatchObject({ capacity: 20_000, falsePositiveRate: 0.001 });
  });

  it('is off for capacity 0 and for crawls stored before the option existed uses the default rule', () => {
    const filters = new SeenFilters(() => 0);
    expect(filters.forCrawl(crawl('off', { seenFilterCapacity: 0 }))).toBeUndefined();
    const legacy = crawl('legacy');
    const { seenFilterCapacity: _c, seenFilterFalsePositiveRate: _r, ...old } = legacy.config;
    expect(filters.forCrawl({ ...legacy, config: old as CrawlConfig })?.sizing.capacity).toBe(20_000);
  });

  it('drops the filter of a finished or stopped crawl', () => {
    const filters = new SeenFilters(() => 0);
    filters.forCrawl(crawl('c1'));
    filters.forCrawl(crawl('c2'));
    expect(filters.size).toBe(2);
    expect(filters.forCrawl(crawl('c1', {}, 'finished'))).toBeUndefined();
    expect(filters.forCrawl(crawl('c2', {}, 'stopped'))).toBeUndefined();
    expect(filters.size).toBe(0);
  });

  it('keeps at most maxFilters and maxTotalBytes, evicting the least recently used', () => {
    const now = 0;
    const filters = new SeenFilters(() => now, { maxFilters: 2 });
    filters.forCrawl(crawl('a'));
    filters.forCrawl(crawl('b'));
    filters.forCrawl(crawl('a')); // a is now the most recent
    filters.forCrawl(crawl('c'));
    expect(filters.size).toBe(2);
    const a = filters.forCrawl(crawl('a'));
    a?.add(fp);
    expect(filters.forCrawl(crawl('a'))?.mightContain(fp)).toBe(true);
    const one = filters.forCrawl(crawl('x'))!.sizing.bytes;
    const small = new SeenFilters(() => now, { maxTotalBytes: one * 2 });
    for (const id of ['p', 'q', 'r', 's']) small.forCrawl(crawl(id));
    expect(small.totalBytes).toBeLessThanOrEqual(one * 2);
    // A filter larger than the whole budget is not kept: that crawl runs on the exact store alone.
    expect(small.forCrawl(crawl('huge', { seenFilterCapacity: 10_000_000 }))).toBeUndefined();
  });

  it('drops filters idle longer than idleMs', () => {
    let now = 0;
    const filters = new SeenFilters(() => now, { idleMs: 1000 });
    filters.forCrawl(crawl('a'));
    now = 5000;
    filters.forCrawl(crawl('b'));
    expect(filters.size).toBe(1);
  });
});

/** A crawls row as getCrawl reads it. */
function crawlRow(id: string, state: string | undefined, config: Parameters<typeof resolveCrawlConfig>[0] = {}) {
  return {
    id,
    kind: 'discovery',
    state,
    config: resolveCrawlConfig(config),
    seed_hosts: ['h.example'],
    created_at: new Date(0),
    finished_at: null,
    max_in_flight: 10,
    admit_factor: 1,
    admitted: 0,
  };
}

describe('CrawlContextCache: filters of crawls that ended on another worker are swept', () => {
  it('drops them on the next sweep, a minute later, while running crawls keep theirs', async () => {
    const states = new Map<string, string>([
      ['a', 'running'],
      ['b', 'running'],
    ]);
    const row = (id: string) => crawlRow(id, states.get(id), { seenFilterCapacity: 10_000 });
    // Answers the two queries the cache makes: one crawl by id, and which crawls still run.
    const pool = {
      query: async (sql: string, params: unknown[]) => {
        if (/FROM crawls WHERE id = \$1/.test(sql)) return { rows: [row(params[0] as string)] };
        const ids = params[0] as string[];
        return { rows: ids.filter((id) => !['finished', 'stopped'].includes(states.get(id) ?? 'finished')).map((id) => ({ id })) };
      },
    };
    let now = 0;
    const cache = new CrawlContextCache(pool as never, () => now);
    expect((await cache.get('a')).seenFilter).toBeDefined();
    expect((await cache.get('b')).seenFilter).toBeDefined();
    expect(cache.seenFilters.size).toBe(2);
    states.set('b', 'finished');
    now = 61_000;
    await cache.get('a');
    expect(cache.seenFilters.crawlIds()).toEqual(['a']);
  });
});

describe('CrawlContextCache: one load per crawl at a time', () => {
  it('shares a cold load, serves the cached context while one load refreshes it, and waits for a load once the context is too old', async () => {
    let loads = 0;
    let state = 'running';
    let release: (() => void) | undefined;
    const row = () => crawlRow('a', state);
    // Each load of the crawl waits until the test releases it, as a busy pool would.
    const pool = {
      query: async () => {
        loads += 1;
        const answer = row();
        await new Promise<void>((resolve) => (release = resolve));
        return { rows: [answer] };
      },
    };
    let now = 0;
    const cache = new CrawlContextCache(pool as never, () => now);
    const cold = Array.from({ length: 20 }, () => cache.get('a'));
    await new Promise((resolve) => setImmediate(resolve));
    release!();
    expect(new Set(await Promise.all(cold)).size).toBe(1);
    expect(loads).toBe(1);

    // Past the TTL: every caller of the moment gets the cached context at once, and one load runs.
    state = 'paused';
    now = 1500;
    const stale = await Promise.all(Array.from({ length: 20 }, () => cache.get('a')));
    expect(stale.every((context) => context.record.state === 'running')).toBe(true);
    expect(loads).toBe(2);
    release!();
    await new Promise((resolve) => setImmediate(resolve));
    expect((await cache.get('a')).record.state).toBe('paused');
    expect(loads).toBe(2);

    // Too old to serve: the caller waits for the load.
    state = 'stopping';
    now = 10_000;
    const waiting = cache.get('a');
    await new Promise((resolve) => setImmediate(resolve));
    release!();
    expect((await waiting).record.state).toBe('stopping');
    expect(loads).toBe(3);
  });
});
