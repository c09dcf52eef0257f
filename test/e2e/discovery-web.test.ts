// The crawler discovers what sites tell it, on a web of 21 hosts (test/support/discovery-web.ts):
// pages only their sitemaps list (an index with a gzipped child, the default /sitemap.xml), pages
// only their feeds list, canonical hints of each kind, a link farm. Each page once, nothing
// robots.txt disallows asked for (a declared sitemap included), politeness held, canonical edges
// and verdicts in Postgres and in the export, home-linked pages before the farm's targets.
import { mkdtemp, readFile, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CrawlSummary } from '../../src/contracts/status.js';
import { urlFingerprint } from '../../src/domain/url/index.js';
import { readWarcRecords, warcField } from '../../src/export/warc-reader.js';
import { createHarness, type Harness } from '../support/crawler-harness.js';
import { runCrawlerCli } from '../support/crawler-process.js';
import { coverageByClass, discoveryWeb } from '../support/discovery-web.js';
import { politenessReport, startTestWeb, type TestWeb } from '../support/test-web/index.js';

const DELAY_MS = 50;
const CRAWL_ID = 'discovery-web';

describe('discovering what sites tell us, on 21 hosts', () => {
  const site = discoveryWeb();
  let harness: Harness;
  let web: TestWeb;
  let summary: CrawlSummary;
  let dir: string;

  beforeAll(async () => {
    web = await startTestWeb({ hosts: site.specs });
    harness = await createHarness('e2e-discovery-web');
    await harness.startWorker();
    summary = await harness.runCrawl({ crawlId: CRAWL_ID, seeds: site.seeds(web.port), config: { minHostDelayMs: DELAY_MS, sitemaps: 'declared-and-default', scope: { mode: 'any', allowPrefixes: [], denyPrefixes: [] } } });
    dir = await mkdtemp(path.join(tmpdir(), 'discovery-export-'));
  }, 300_000);

  afterAll(async () => {
    await harness?.close();
    await web?.close();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  const url = (host: string, p: string): string => `http://${host}:${web.port}${p}`;
  const fp = (host: string, p: string): Buffer => Buffer.from(urlFingerprint(url(host, p)), 'hex');

  it('fetches every page a sitemap or a feed alone leads to, and every page at most once', () => {
    expect(summary.state).toBe('finished');
    const coverage = coverageByClass(site, web.log());
    console.log(`[discovery web] coverage by class: ${JSON.stringify(coverage)}; found by: ${JSON.stringify(summary.discovery)}`);
    for (const kind of ['seed', 'link', 'sitemap', 'feed', 'canonical', 'farm'] as const) expect(coverage[kind], kind).toEqual({ fetched: coverage[kind].total, total: coverage[kind].total });
    const counts = new Map<string, number>();
    for (const entry of web.log()) if (entry.path !== '/robots.txt') counts.set(`${entry.host} ${entry.path}`, (counts.get(`${entry.host} ${entry.path}`) ?? 0) + 1);
    expect([...counts].filter(([, n]) => n > 1)).toEqual([]);
    expect(summary.discovery?.bySource['sitemap']?.fetched).toBe(site.sites.length * 3);
    expect(summary.discovery?.bySource['feed']?.fetched).toBe(site.sites.length);
  });

  it('`crawler status --crawl` counts the URLs found and the pages fetched by source', async () => {
    const status = await runCrawlerCli(harness, ['status', '--crawl', CRAWL_ID, '--json']);
    expect(status.code, status.stderr).toBe(0);
    const figures = JSON.parse(status.stdout) as { discovery: CrawlSummary['discovery'] };
    expect(figures.discovery).toEqual(summary.discovery);
    const text = await runCrawlerCli(harness, ['status', '--crawl', CRAWL_ID]);
    expect(text.stdout).toMatch(/found by: links \d+ \(fetched \d+\), sitemaps 36 \(fetched 36\), feeds 12 \(fetched 12\), canonicals \d+ \(fetched \d+\)/);
    // Every sitemap was read but the /private/ ones robots.txt disallows, which are said apart from failures.
    const sitemaps = summary.discovery!.sitemaps;
    expect(sitemaps.failed).toBe(0);
    expect(sitemaps.disallowed).toBeGreaterThan(0);
    expect(sitemaps.read + sitemaps.disallowed!).toBe(sitemaps.registered);
    expect(text.stdout).toContain(`sitemaps read ${sitemaps.read} of ${sitemaps.registered} (${sitemaps.disallowed} disallowed by robots.txt)`);
  });

  it('asks for nothing robots.txt disallows, a declared sitemap included, and keeps every host polite', () => {
    expect(web.log().filter((entry) => entry.path.startsWith('/private/'))).toEqual([]);
    expect(politenessReport(web.log(), DELAY_MS).violations).toEqual([]);
    const farmed = web.log().filter((entry) => entry.host === site.farmed && entry.path !== '/robots.txt');
    for (let i = 1; i < farmed.length; i++) expect(farmed[i]!.startedAtMs - farmed[i - 1]!.finishedAtMs).toBeGreaterThanOrEqual(990);
  });

  it('records canonical edges and what each hint became', async () => {
    const [s0, s1] = site.sites as [string, string];
    const verdict = async (from: string, fromPath: string, to: string, toPath: string) =>
      (
        await harness.pool.query<{ verdict: string; reason: string | null }>('SELECT verdict, reason FROM canonical_hints WHERE source = $1 AND target = $2', [fp(from, fromPath), fp(to, toPath)])
      ).rows[0];
    expect(await verdict(s0, '/l1', s0, '/c-target')).toEqual({ verdict: 'obeyed', reason: 'exact' });
    expect(await verdict(s0, '/l2', s0, '/c-other')).toEqual({ verdict: 'evidence', reason: 'different-content' });
    expect(await verdict(s0, '/l3', s1, '/l3')).toEqual({ verdict: 'evidence', reason: 'cross-host' });
    expect(await verdict(s1, '/l1', s1, '/mid')).toEqual({ verdict: 'evidence', reason: 'non-canonical' });
    expect(await verdict(s1, '/mid', s1, '/end')).toEqual({ verdict: 'obeyed', reason: 'exact' });
    expect(await verdict(s1, '/l2', s1, '/moved')).toEqual({ verdict: 'evidence', reason: 'redirect' });
    const edges = await harness.pool.query<{ n: number }>(`SELECT count(*)::int AS n FROM links WHERE kind = 'canonical' AND crawl_id = $1`, [CRAWL_ID]);
    expect(edges.rows[0]?.n).toBe(6);
    // The obeyed hint made its target the cluster's representative; the hinting page is its member.
    const clusters = await harness.pool.query<{ fingerprint: Buffer; cluster_id: Buffer; method: string }>('SELECT fingerprint, cluster_id, method FROM near_duplicates WHERE fingerprint = ANY($1)', [
      [fp(s0, '/l1'), fp(s0, '/c-target')],
    ]);
    const byFingerprint = new Map(clusters.rows.map((row) => [row.fingerprint.toString('hex'), row]));
    expect(byFingerprint.get(fp(s0, '/c-target').toString('hex'))).toMatchObject({ method: 'representative', cluster_id: fp(s0, '/c-target') });
    expect(byFingerprint.get(fp(s0, '/l1').toString('hex'))).toMatchObject({ method: 'canonical', cluster_id: fp(s0, '/c-target') });
    // Near-duplicate lookups then find the pair through the representative alone.
    const leaders = await harness.pool.query<{ fingerprint: Buffer; leader: boolean }>('SELECT DISTINCT fingerprint, leader FROM simhash_blocks WHERE fingerprint = ANY($1)', [
      [fp(s0, '/l1'), fp(s0, '/c-target')],
    ]);
    expect(Object.fromEntries(leaders.rows.map((row) => [row.fingerprint.equals(fp(s0, '/l1')) ? 'member' : 'representative', row.leader]))).toEqual({ member: false, representative: true });
  });

  it('carries the canonical edges in the JSONL and WARC exports', async () => {
    const jsonl = await runCrawlerCli(harness, ['export', '--crawl', CRAWL_ID]);
    expect(jsonl.code, jsonl.stderr).toBe(0);
    const lines = jsonl.stdout.trim().split('\n').map((line) => JSON.parse(line) as { url: string; canonical?: { url: string; verdict: string; reason: string | null } });
    expect(lines.find((line) => line.url === url(site.sites[0]!, '/l1'))?.canonical).toEqual({ url: url(site.sites[0]!, '/c-target'), verdict: 'obeyed', reason: 'exact' });
    expect(lines.filter((line) => line.canonical !== undefined)).toHaveLength(6);
    const warc = await runCrawlerCli(harness, ['export', '--format', 'warc', '--crawl', CRAWL_ID, '--output', dir]);
    expect(warc.code, warc.stderr).toBe(0);
    const records = (await Promise.all((await readdir(dir)).map(async (file) => readWarcRecords(await readFile(path.join(dir, file)))))).flat();
    const metadata = records.filter((record) => warcField(record, 'WARC-Type') === 'metadata');
    expect(metadata).toHaveLength(6);
    const l1 = metadata.find((record) => warcField(record, 'WARC-Target-URI') === url(site.sites[0]!, '/l1'));
    expect(l1?.block.toString('utf8')).toBe(`canonical: ${url(site.sites[0]!, '/c-target')}\r\ncanonical-verdict: obeyed exact\r\n`);
  });

  it("counts the farm's links as in-links, of its targets and of their host, and ranks the targets below the home-linked pages anyway", async () => {
    const host = await harness.pool.query<{ inlinks: number }>('SELECT inlinks FROM crawl_host_stats WHERE crawl_id = $1 AND host = $2', [CRAWL_ID, site.farmed]);
    // Eight farm hosts, five targets each, one cross-host vote a link.
    expect(host.rows[0]?.inlinks).toBe(site.farm.length * 5);
    const rows = await harness.pool.query<{ url: string; inlinks: number; priority: number; depth: number }>(
      `SELECT url, inlinks, priority, depth FROM frontier WHERE crawl_id = $1 AND host = $2 AND url ~ '/[af][0-9]$'`,
      [CRAWL_ID, site.farmed],
    );
    const farmTargets = rows.rows.filter((row) => /\/f\d$/.test(row.url));
    const homeLinked = rows.rows.filter((row) => /\/a\d$/.test(row.url));
    expect(farmTargets).toHaveLength(5);
    for (const target of farmTargets) expect(target.inlinks).toBeGreaterThan(1);
    expect(Math.max(...farmTargets.map((row) => row.priority))).toBeLessThan(Math.min(...homeLinked.map((row) => row.priority)));
  });

  it('takes an operator\'s host importance, and refuses a bad one', async () => {
    const set = await runCrawlerCli(harness, ['hosts', 'set-importance', '--host', site.farmed.toUpperCase(), '--importance', '0.9']);
    expect(set.code, set.stderr).toBe(0);
    const row = await harness.pool.query<{ importance: number }>('SELECT importance FROM hosts WHERE host = $1', [site.farmed]);
    expect(row.rows[0]?.importance).toBeCloseTo(0.9, 5);
    const bad = await runCrawlerCli(harness, ['hosts', 'set-importance', '--host', site.farmed, '--importance', '2']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/--importance expects a number from 0 to 1/);
  });

  it("fetches the pages a site links from its home page before the link farm's targets", () => {
    const order = web.log().filter((entry) => entry.host === site.farmed && /^\/[af]\d$/.test(entry.path)).map((entry) => entry.path);
    const lastHomeLinked = Math.max(...order.map((p, i) => (p.startsWith('/a') ? i : -1)));
    const firstFarmed = order.findIndex((p) => p.startsWith('/f'));
    expect(order.filter((p) => p.startsWith('/f'))).toHaveLength(5);
    expect(lastHomeLinked).toBeLessThan(firstFarmed);
  });
});
