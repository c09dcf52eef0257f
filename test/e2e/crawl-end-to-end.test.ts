// A whole crawl on the real stack: Temporal dev server, Postgres, MinIO and a test web of
// several loopback hosts. Facts are checked from the server's own request log and the stores.
import { createHash } from 'node:crypto';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateWeb, politenessReport, startTestWeb, type TestWeb } from '../support/test-web/index.js';
import { createHarness, type Harness } from '../support/crawler-harness.js';
import { readStoredBodies } from '../support/stored-bodies.js';

const execFileAsync = promisify(execFile);
const MIN_DELAY_MS = 250;

describe('a crawl end to end on the real stack', () => {
  let harness: Harness;
  let web: TestWeb;
  const generated = generateWeb({ hosts: 5, pagesPerHost: 8, linksPerPage: 4, crossHostLinkRatio: 0.3, seed: 7, base: '127.21.0.1', robots: 'some-disallow', duplicatePages: 2 });
  let summary: Awaited<ReturnType<Harness['runCrawl']>>;
  const crawlId = 'e2e-basic';

  beforeAll(async () => {
    web = await startTestWeb(generated.spec);
    harness = await createHarness('e2e-basic');
    await harness.startWorker();
    summary = await harness.runCrawl({
      crawlId,
      seeds: generated.seeds(web.port),
      config: { minHostDelayMs: MIN_DELAY_MS, maxPages: 1000, maxDepth: 20 },
    });
  });

  afterAll(async () => {
    await harness?.close();
    await web?.close();
  });

  const pageRequests = () => web.log().filter((entry) => !entry.path.startsWith('/robots.txt'));

  it('finishes and reports what it fetched', () => {
    expect(summary.state).toBe('finished');
    expect(summary.pagesFetched).toBe(generated.expectedReachable(web.port).size);
  });

  it('fetches every allowed reachable page exactly once', () => {
    const fetched = pageRequests().map((entry) => `http://${entry.host}:${web.port}${entry.path}`);
    expect(new Set(fetched).size).toBe(fetched.length);
    expect(new Set(fetched)).toEqual(generated.expectedReachable(web.port));
  });

  it('fetches nothing robots.txt disallows', () => {
    const disallowed = generated.disallowed(web.port);
    expect(disallowed.size).toBeGreaterThan(0);
    const fetched = pageRequests().map((entry) => `http://${entry.host}:${web.port}${entry.path}`);
    expect(fetched.filter((url) => disallowed.has(url))).toEqual([]);
  });

  it('asks for robots.txt before any page of a host, and sends our User-Agent', () => {
    for (const [host, entries] of groupByHost(web.log())) {
      expect(entries[0]!.path, `first request to ${host}`).toBe('/robots.txt');
      for (const entry of entries) expect(entry.userAgent).toMatch(/^DurableCrawler\//);
    }
  });

  it('never comes closer to a host than its delay, and never overlaps requests', () => {
    const report = politenessReport(web.log(), MIN_DELAY_MS);
    expect(report.overlaps).toEqual([]);
    expect(report.violations).toEqual([]);
  });

  it('stores each distinct body once in MinIO, in packs, retrievable by its hash', async () => {
    const stored = await readStoredBodies(harness.pool, harness.bodies);
    const hashes = await harness.pool.query<{ raw_hash: Buffer }>(`SELECT DISTINCT raw_hash FROM fetches WHERE crawl_id = $1 AND raw_hash IS NOT NULL`, [crawlId]);
    expect([...stored.rows.keys()].sort()).toEqual(hashes.rows.map((row) => row.raw_hash.toString('hex')).sort());
    // The generated web has byte-identical copies: fewer bodies than pages, and no byte stored twice.
    expect(hashes.rows.length).toBeLessThan(summary.pagesFetched);
    expect(stored.unreferencedBytes).toBe(0);
    // Small pages share packs: fewer objects than bodies.
    expect([...stored.objects.keys()].every((key) => key.startsWith('packs/'))).toBe(true);
    expect(stored.objects.size).toBeLessThan(stored.rows.size);
    for (const [hash, key] of stored.rows) {
      const body = await harness.bodies.getBody(key);
      expect(createHash('sha256').update(body).digest('hex')).toBe(hash);
    }
  });

  it('analyzes its tables when it ends, so that the next crawl plans by them', async () => {
    const unanalyzed = await harness.pool.query<{ relname: string }>(
      "SELECT relname FROM pg_stat_user_tables WHERE schemaname = current_schema() AND last_analyze IS NULL ORDER BY relname",
    );
    expect(unanalyzed.rows).toEqual([]);
  });

  it('leaves one fetch record per page in Postgres, with its body', async () => {
    const rows = await harness.pool.query<{ url: string; n: number; ok: number }>(
      `SELECT url, count(*)::int AS n, count(*) FILTER (WHERE outcome = 'ok' AND body_key IS NOT NULL)::int AS ok FROM fetches WHERE crawl_id = $1 GROUP BY url`,
      [crawlId],
    );
    const okUrls = new Set(rows.rows.filter((row) => row.ok === 1).map((row) => row.url));
    expect(okUrls).toEqual(generated.expectedReachable(web.port));
    expect(rows.rows.every((row) => row.n === 1)).toBe(true);
  });

  it('`crawler export` prints the records as JSON lines', async () => {
    const { stdout } = await execFileAsync('node', ['bin/crawler.js', 'export', '--crawl', crawlId], { env: harness.childEnv });
    const lines = stdout.trim().split('\n').map((line) => JSON.parse(line) as Record<string, unknown>);
    const ok = lines.filter((line) => line['status'] === 200);
    expect(new Set(ok.map((line) => line['url']))).toEqual(generated.expectedReachable(web.port));
    for (const line of ok) {
      expect(line).toMatchObject({ finalUrl: expect.any(String), fetchedAt: expect.any(String), contentHash: expect.stringMatching(/^[0-9a-f]{64}$/), bodyKey: expect.any(String), generation: expect.any(Number) });
    }
  });
});

function groupByHost<T extends { host: string }>(entries: readonly T[]): Map<string, T[]> {
  const groups = new Map<string, T[]>();
  for (const entry of entries) groups.set(entry.host, [...(groups.get(entry.host) ?? []), entry]);
  return groups;
}
