// A batch of parsed pages recorded in one transaction ends exactly as the same pages recorded one
// at a time, in order: the same frontier (a URL two pages found registered once, from the first;
// a shorter path from a later page lowering it; a session-id twin of an earlier page's URL
// dropped), the same documents, links, visits, clusters (two copies in one batch clustered) and
// figures. On two fresh databases of the real Postgres.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CrawlContextCache } from '../../../src/services/frontier/crawl-context.js';
import type { ActivityDeps } from '../../../src/services/deps.js';
import { analyzePage, type AnalyzedPage } from '../../../src/services/documents/page-analysis.js';
import { recordAnalyzedPages } from '../../../src/services/documents/record-pages.js';
import { resolveCrawlConfig } from '../../../src/config/crawl-config.js';
import { urlFingerprint } from '../../../src/domain/url/index.js';
import { createCrawl } from '../../../src/storage/postgres/crawl-repository.js';
import { registerFrontierEntries, type NewFrontierEntry } from '../../../src/storage/postgres/frontier-registration.js';
import { fingerprintToBytes } from '../../../src/storage/postgres/sql-codec.js';
import { migrate } from '../../../src/storage/postgres/migrate.js';
import { createPool, type Pool, type PoolClient } from '../../../src/storage/postgres/pool.js';
import { freshDatabase } from '../../support/stack-context.js';

const HOST = '127.72.0.1';
const OTHER = '127.72.0.2';
const crawlId = 'record-pages';
const GENERATION = 1;
const url = (path: string, host = HOST): string => `http://${host}${path}`;

/** The pages parsed, in order: [path, depth, body]. */
const PAGES: [string, number, string][] = [
  ['/deep', 2, '<title>deep</title><p>a page found far from the seeds</p><a href="/shared">s</a><a href="/lowered">l</a><a href="/y">y</a>'],
  ['/copy-a', 0, '<title>copy a</title><p>the very same words on two pages of the site</p><a href="/shared">s</a><a href="/y?sessionid=123">y</a>'],
  ['/copy-b', 0, '<title>copy b</title><p>the very same words on two pages of the site</p><a href="/lowered">l</a><a href="http://127.72.0.2/out">out</a>'],
  ['/empty', 1, '<title>empty</title><a href="/shared">s</a><a href="/deep">back</a>'],
];

interface Store {
  pool: Pool;
  deps: ActivityDeps;
  crawls: CrawlContextCache;
}

async function storeWithCrawl(name: string): Promise<Store> {
  const pool = createPool({ connectionString: await freshDatabase(name), maxConnections: 3 });
  await migrate(pool);
  const config = resolveCrawlConfig({ allowPrivateNetworks: true, maxDepth: 5, scope: { mode: 'same-host', allowPrefixes: [], denyPrefixes: [] } });
  await createCrawl(pool, { id: crawlId, config, seedHosts: [HOST] });
  const entries: NewFrontierEntry[] = PAGES.map(([path, depth]) => ({
    fingerprint: urlFingerprint(url(path)),
    url: url(path),
    host: HOST,
    origin: `http://${HOST}`,
    canonicalizationVersion: 1,
    depth,
    priority: 1,
    tier: 0,
  }));
  await registerFrontierEntries(pool, crawlId, entries, { respectDiscoveryBudget: false });
  await pool.query(`UPDATE frontier SET state = 'fetched', generation = $2 WHERE crawl_id = $1`, [crawlId, GENERATION]);
  const deps = { pool, now: () => Date.UTC(2026, 11, 2, 12) } as unknown as ActivityDeps;
  return { pool, deps, crawls: new CrawlContextCache(pool, deps.now) };
}

async function analyzed(store: Store): Promise<AnalyzedPage[]> {
  const context = await store.crawls.get(crawlId);
  return Promise.all(
    PAGES.map(([path, depth, body]) =>
      analyzePage(
        store.deps,
        context,
        {
          crawlId,
          fingerprint: urlFingerprint(url(path)),
          generation: GENERATION,
          url: url(path),
          finalUrl: url(path),
          depth,
          bodyKey: 'unused: the body is held',
          contentType: 'text/html; charset=utf-8',
          fetchedAtMs: Date.UTC(2026, 11, 2, 11),
        },
        { heldBody: Buffer.from(`<!doctype html><html><head>${body.slice(0, body.indexOf('</title>') + 8)}</head><body>${body.slice(body.indexOf('</title>') + 8)}</body></html>`) },
      ),
    ),
  );
}

/** Everything a parse writes, without times. */
async function snapshot(pool: Pool): Promise<Record<string, unknown>> {
  const rows = async (sql: string) => (await pool.query(sql)).rows;
  return {
    frontier: await rows(`SELECT encode(f.fingerprint, 'hex') AS f, u.url, f.depth, f.priority, f.tier, f.state, f.outcome, f.links_stale, f.demotion IS NOT NULL AS demoted,
                                 encode(f.discovered_from, 'hex') AS discovered_from, f.content_counted
                          FROM frontier f JOIN urls u USING (fingerprint) ORDER BY u.url`),
    urls: await rows(`SELECT url, encode(near_duplicate_of, 'hex') AS near_duplicate_of, change_observations, last_change_key FROM urls ORDER BY url`),
    documents: await rows(`SELECT encode(fingerprint, 'hex') AS f, title, links_found, links_registered, normalized_hash IS NULL AS no_text, minhash IS NULL AS no_minhash FROM documents ORDER BY 1`),
    links: await rows(`SELECT encode(source, 'hex') AS s, encode(target, 'hex') AS t, kind, anchor_text FROM links ORDER BY 1, 2`),
    observations: await rows(`SELECT encode(fingerprint, 'hex') AS f, verdict, source, change_key FROM url_observations ORDER BY 1`),
    clusters: await rows(`SELECT encode(fingerprint, 'hex') AS f, encode(cluster_id, 'hex') AS c, method, encode(matched, 'hex') AS m FROM near_duplicates ORDER BY 1`),
    counters: await rows(`SELECT sum(settled)::int AS settled, sum(returned)::int AS returned, sum(discovered)::int AS discovered FROM crawl_counters`),
    hostStats: await rows(`SELECT host, urls, demoted, dropped FROM crawl_host_stats ORDER BY host`),
    depthStats: await rows(`SELECT host, depth, pages, new_content FROM crawl_depth_stats ORDER BY host, depth`),
    rejections: await rows(`SELECT reason, sum(urls)::int AS urls FROM crawl_rejection_counts GROUP BY reason ORDER BY reason`),
    rejectedUrls: await rows(`SELECT url, reason FROM crawl_rejections ORDER BY url`),
    // The Bloom filter decides differently (in a batch an earlier page's URL is not in it yet), but
    // every in-scope URL is checked once either way.
    seenChecked: await rows(`SELECT sum(checked)::int AS checked FROM crawl_seen_stats`),
  };
}

describe('recordAnalyzedPages', () => {
  let batched: Store;
  let alone: Store;

  beforeAll(async () => {
    [batched, alone] = await Promise.all([storeWithCrawl('record_pages_batched'), storeWithCrawl('record_pages_alone')]);
    const batchPages = await analyzed(batched);
    await recordAnalyzedPages(batched.deps, batchPages);
    for (const page of await analyzed(alone)) await recordAnalyzedPages(alone.deps, [page]);
  });

  afterAll(async () => {
    await Promise.all([batched?.pool.end(), alone?.pool.end()]);
  });

  it('ends as the same pages recorded one at a time, in order', async () => {
    expect(await snapshot(batched.pool)).toEqual(await snapshot(alone.pool));
  });

  it('registers a URL two pages found once, from the first; a later, shorter path lowers it; a twin of an earlier URL is dropped', async () => {
    const frontier = (await snapshot(batched.pool)).frontier as { url: string; depth: number; discovered_from: string | null }[];
    const byUrl = new Map(frontier.map((row) => [row.url, row]));
    // /deep found both at depth 3, then /copy-a (/shared) and /copy-b (/lowered) at depth 1.
    expect(byUrl.get(url('/shared'))).toMatchObject({ depth: 1, discovered_from: urlFingerprint(url('/deep')) });
    expect(byUrl.get(url('/lowered'))).toMatchObject({ depth: 1, discovered_from: urlFingerprint(url('/deep')) });
    // /y: depth 3 from /deep, not lowered by its twin's link on /copy-a.
    expect(byUrl.get(url('/y'))).toMatchObject({ depth: 3 });
    expect(byUrl.has(url('/y?sessionid=123'))).toBe(false);
    const rejections = (await snapshot(batched.pool)).rejections as { reason: string }[];
    expect(rejections.map((row) => row.reason)).toEqual(expect.arrayContaining(['trap:session-id', 'out-of-scope:host']));
    expect(byUrl.has(url('/out', OTHER))).toBe(false);
  });

  it('clusters the two copies of one batch: the first represents, the second joins it', async () => {
    const clusters = (await snapshot(batched.pool)).clusters as { f: string; c: string; method: string }[];
    const first = urlFingerprint(url('/copy-a'));
    expect(clusters).toEqual(
      expect.arrayContaining([
        { f: first, c: first, method: 'representative', m: null },
        { f: urlFingerprint(url('/copy-b')), c: first, method: 'minhash', m: first },
      ]),
    );
    expect(clusters).toHaveLength(2);
    const rows = await batched.pool.query(`SELECT encode(near_duplicate_of, 'hex') AS of FROM urls WHERE fingerprint = $1`, [fingerprintToBytes(urlFingerprint(url('/copy-b')))]);
    expect(rows.rows).toEqual([{ of: first }]);
  });

  it('sends nothing between the near-duplicate step, whose key locks last to COMMIT, and COMMIT when no page gives or awaits a hint', async () => {
    const store = await storeWithCrawl('record_pages_statements');
    const statements: string[] = [];
    const connect = store.pool.connect.bind(store.pool) as (...args: unknown[]) => unknown;
    // Every statement a transaction sends, in order (pool.query's own connect, with a callback, passes through).
    store.pool.connect = ((...args: unknown[]) => (args.length > 0 ? connect(...args) : traced())) as typeof store.pool.connect;
    const traced = async (): Promise<unknown> => {
      const client = (await connect()) as PoolClient;
      const query = client.query.bind(client) as (...args: unknown[]) => unknown;
      client.query = ((...args: unknown[]) => {
        const [first] = args;
        statements.push(typeof first === 'string' ? first : String((first as { text?: string }).text));
        return query(...args);
      }) as typeof client.query;
      return client;
    };
    try {
      await recordAnalyzedPages(store.deps, await analyzed(store));
    } finally {
      await store.pool.end();
    }
    const nearDuplicateStep = statements.findIndex((text) => text.includes('near_duplicate_candidates('));
    expect(nearDuplicateStep).toBeGreaterThan(0);
    expect(statements[nearDuplicateStep + 1]).toMatch(/COMMIT\s*$/);
  });
});
