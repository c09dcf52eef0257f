// URL identity and crawler traps on the real stack (issue 3): a test web with a tracking-parameter
// page family, a session-id trap, an infinite calendar, a redirect chain, a redirect loop and a
// redirect into a robots-disallowed path. What the crawl fetched comes from the server's own
// request log; what it refused, demoted and deduplicated comes from Postgres and `crawler status`.
import { execFile } from 'node:child_process';
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { urlFingerprint } from '../../src/domain/url/index.js';
import { readSeenStats } from '../../src/storage/postgres/url-scope-repository.js';
import { renderHtmlPage, startTestWeb, trapWeb, type RequestLogEntry, type TestWeb, type TrapFamily } from '../support/test-web/index.js';
import { createHarness, type Harness } from '../support/crawler-harness.js';

const MIN_DELAY_MS = 20;
const MAX_PAGES = 300;
const MAX_DEPTH = 6;
const NOW = new Date();
// The calendar starts at the current month, so "far in the future" means the same in any year.
const CALENDAR_START = { year: NOW.getUTCFullYear(), month: NOW.getUTCMonth() + 1 };
// A small site: dates more than one year out are demoted, more than three years out dropped.
const CALENDAR_YEARS_WINDOW = 1;

interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

function runCli(args: string[], env: NodeJS.ProcessEnv): Promise<CliResult> {
  return new Promise((resolve) => {
    execFile('node', ['bin/crawler.js', ...args], { env, maxBuffer: 16 * 1024 * 1024 }, (error, stdout, stderr) => {
      const code = error ? (typeof error.code === 'number' ? error.code : 1) : 0;
      resolve({ code, stdout, stderr });
    });
  });
}

const pageRequests = (web: TestWeb): readonly RequestLogEntry[] => web.log().filter((entry) => entry.path !== '/robots.txt');
const urlOf = (web: TestWeb, entry: RequestLogEntry): string => `http://${entry.host}:${web.port}${entry.path}`;
const countBy = <T>(items: readonly T[], key: (item: T) => string): Map<string, number> => {
  const counts = new Map<string, number>();
  for (const item of items) counts.set(key(item), (counts.get(key(item)) ?? 0) + 1);
  return counts;
};
const fp = (url: string): Buffer => Buffer.from(urlFingerprint(url), 'hex');

describe('crawler traps, redirects and the seen test on the real stack', () => {
  const traps = trapWeb({ base: '127.53.0.0', calendarStart: CALENDAR_START });
  const crawlId = 'traps-main';
  let harness: Harness;
  let web: TestWeb;
  let summary: Awaited<ReturnType<Harness['runCrawl']>>;

  beforeAll(async () => {
    web = await startTestWeb(traps.spec);
    harness = await createHarness('traps');
    await harness.startWorker();
    summary = await harness.runCrawl({
      crawlId,
      seeds: traps.seeds(web.port),
      config: { minHostDelayMs: MIN_DELAY_MS, maxPages: MAX_PAGES, maxDepth: MAX_DEPTH, traps: { calendarYearsWindow: CALENDAR_YEARS_WINDOW } },
    });
  });

  afterAll(async () => {
    await harness?.close();
    await web?.close();
  });

  const fetchedUrls = (): string[] => pageRequests(web).map((entry) => urlOf(web, entry));
  const family = (url: string): TrapFamily => traps.classify(url);

  it('terminates by itself, within its budgets: nothing left queued, page budget not reached', async () => {
    expect(summary.state).toBe('finished');
    const crawl = await harness.pool.query<{ admitted: string; max_pages: number }>(
      'SELECT a.admitted, c.max_pages FROM crawls c JOIN crawl_admission a ON a.crawl_id = c.id WHERE c.id = $1',
      [crawlId],
    );
    expect(Number(crawl.rows[0]!.admitted)).toBeLessThan(MAX_PAGES);
    const queued = await harness.pool.query(`SELECT 1 FROM frontier WHERE crawl_id = $1 AND state IN ('queued', 'dispatched', 'fetched')`, [crawlId]);
    expect(queued.rowCount).toBe(0);
  });

  it('fetches every real page, each redirect hop and the loop once, and nothing twice', () => {
    const fetched = fetchedUrls();
    const counts = countBy(fetched, (url) => url);
    expect([...counts].filter(([, n]) => n > 1)).toEqual([]);
    const real = traps.realPages(web.port);
    expect(new Set(fetched.filter((url) => real.has(url)))).toEqual(real);
    for (const hop of [...traps.redirects.chain, ...traps.redirects.loop, ...traps.redirects.intoDisallowed.slice(0, 1), traps.redirects.crossHost]) {
      expect(counts.get(web.url(traps.hosts.redirects, hop)), hop).toBe(1);
    }
    expect(fetched.filter((url) => family(url) === 'unknown')).toEqual([]);
  });

  it('never fetches the robots-disallowed redirect target, and says why it did not follow', async () => {
    const disallowed = traps.disallowed(web.port);
    expect(fetchedUrls().filter((url) => disallowed.has(url))).toEqual([]);
    const target = [...disallowed][0]!;
    const rejection = await harness.pool.query<{ reason: string }>('SELECT reason FROM crawl_rejections WHERE crawl_id = $1 AND fingerprint = $2', [crawlId, fp(target)]);
    expect(rejection.rows[0]?.reason).toMatch(/^robots-disallowed: .*disallows \/private\/secret/);
    const inFrontier = await harness.pool.query('SELECT 1 FROM frontier WHERE crawl_id = $1 AND fingerprint = $2', [crawlId, fp(target)]);
    expect(inFrontier.rowCount).toBe(0);
  });

  it('records the redirect loop as a terminal RedirectLoop failure, and each hop as a redirect edge', async () => {
    const [x, y] = traps.redirects.loop.map((hop) => web.url(traps.hosts.redirects, hop)) as [string, string];
    const rows = await harness.pool.query<{ url: string; state: string; outcome: string }>(
      'SELECT url, state, outcome FROM frontier WHERE crawl_id = $1 AND fingerprint = ANY($2::bytea[]) ORDER BY url',
      [crawlId, [fp(x), fp(y)]],
    );
    expect(rows.rows).toEqual([
      { url: x, state: 'done', outcome: 'redirect' },
      { url: y, state: 'failed', outcome: 'RedirectLoop' },
    ]);
    const fetch = await harness.pool.query<{ outcome: string; redirect_location: string }>('SELECT outcome, redirect_location FROM fetches WHERE crawl_id = $1 AND fingerprint = $2', [crawlId, fp(y)]);
    expect(fetch.rows).toEqual([{ outcome: 'RedirectLoop', redirect_location: '/loop/x' }]);
    expect(summary.errorsByType).toEqual({ RedirectLoop: 1 });

    const chain = traps.redirects.chain.map((hop) => web.url(traps.hosts.redirects, hop));
    const edges = await harness.pool.query<{ source: Buffer; target: Buffer }>(`SELECT source, target FROM links WHERE crawl_id = $1 AND kind = 'redirect'`, [crawlId]);
    const edgeSet = new Set(edges.rows.map((row) => `${row.source.toString('hex')}>${row.target.toString('hex')}`));
    for (let i = 0; i + 1 < chain.length; i++) expect(edgeSet.has(`${urlFingerprint(chain[i]!)}>${urlFingerprint(chain[i + 1]!)}`), `${chain[i]} → ${chain[i + 1]}`).toBe(true);
    const hops = await harness.pool.query<{ url: string; redirect_hops: number }>('SELECT url, redirect_hops FROM frontier WHERE crawl_id = $1 AND fingerprint = $2', [crawlId, fp(chain.at(-1)!)]);
    expect(hops.rows[0]?.redirect_hops).toBe(chain.length - 1);
  });

  it('the trap hosts consume a bounded, reported share of the budget', async () => {
    const byFamily = countBy(fetchedUrls(), family);
    const share = (n: number): string => `${n} (${((100 * n) / MAX_PAGES).toFixed(1)}% of maxPages ${MAX_PAGES})`;
    // The figures an operator would look at; printed so a run shows them.
    console.log(`trap web fetches by family: ${JSON.stringify(Object.fromEntries(byFamily))}; session ${share(byFamily.get('session') ?? 0)}, calendar ${share(byFamily.get('calendar') ?? 0)}, tracking ${share(byFamily.get('tracking') ?? 0)}`);
    // Session ids: the session-free page is known, so fresh ids are dropped but for a tiny sample.
    expect(byFamily.get('session') ?? 0).toBeLessThanOrEqual(5);
    // The calendar: bounded by the date window (future) and the depth limit (past), a few dozen pages.
    const calendar = fetchedUrls().filter((url) => family(url) === 'calendar');
    expect(calendar.length).toBeLessThanOrEqual(40);
    const farthestYear = Math.max(...calendar.map((url) => Number(/\/calendar\/(\d+)\//.exec(url)?.[1])));
    expect(farthestYear).toBeLessThanOrEqual(CALENDAR_START.year + 3 * CALENDAR_YEARS_WINDOW);
    // The tracking family has no policy here: a finite set, each variant once.
    expect(byFamily.get('tracking') ?? 0).toBeLessThanOrEqual(traps.trackingVariants(web.port).size);
    const trapFetches = (byFamily.get('session') ?? 0) + calendar.length + (byFamily.get('tracking') ?? 0);
    expect(trapFetches).toBeLessThan(MAX_PAGES / 3);

    const stats = await harness.pool.query<{ host: string; urls: number; demoted: number; dropped: number }>('SELECT host, urls, demoted, dropped FROM crawl_host_stats WHERE crawl_id = $1', [crawlId]);
    const byHost = new Map(stats.rows.map((row) => [row.host, row]));
    console.log(`crawl_host_stats: ${JSON.stringify(stats.rows)}`);
    expect(byHost.get(traps.hosts.calendar)).toMatchObject({ demoted: expect.any(Number), dropped: expect.any(Number) });
    expect(byHost.get(traps.hosts.calendar)!.demoted).toBeGreaterThan(0);
    expect(byHost.get(traps.hosts.calendar)!.dropped).toBeGreaterThan(0);
    expect(byHost.get(traps.hosts.session)!.dropped).toBeGreaterThan(0);
    expect(byHost.get(traps.hosts.main)).toMatchObject({ demoted: 0, dropped: 0 });
  });

  it('shows operators why: demotion reasons on frontier entries, refusals by reason with sample URLs', async () => {
    const demoted = await harness.pool.query<{ url: string; demotion: { code: string; action: string; detail: string }[] }>(
      `SELECT url, demotion FROM frontier WHERE crawl_id = $1 AND host = $2 AND demotion IS NOT NULL`,
      [crawlId, traps.hosts.calendar],
    );
    expect(demoted.rows.length).toBeGreaterThan(0);
    for (const row of demoted.rows) {
      expect(row.demotion.map((reason) => reason.code)).toContain('calendar');
      expect(row.demotion[0]!.detail).toMatch(/years ahead|before/);
    }
    const counts = await harness.pool.query<{ reason: string; urls: string }>('SELECT reason, sum(urls) AS urls FROM crawl_rejection_counts WHERE crawl_id = $1 GROUP BY reason', [crawlId]);
    const reasons = Object.fromEntries(counts.rows.map((row) => [row.reason, Number(row.urls)]));
    console.log(`refusals by reason: ${JSON.stringify(reasons)}`);
    expect(reasons['trap:calendar']).toBeGreaterThan(0);
    expect(reasons['trap:session-id']).toBeGreaterThan(0);
    expect(reasons['depth']).toBeGreaterThan(0);
    expect(reasons['robots-disallowed']).toBe(1);
    const samples = await harness.pool.query<{ url: string; reason: string }>(`SELECT url, reason FROM crawl_rejections WHERE crawl_id = $1 AND reason LIKE 'trap:session-id%'`, [crawlId]);
    expect(samples.rows.length).toBeGreaterThan(0);
    for (const row of samples.rows) {
      expect(family(row.url)).toBe('session');
      expect(row.reason).toMatch(/without its session id \(http:\/\/[^)]+\/shop\/item\/\d\) is already in the crawl/);
    }
  });

  it('measures unique content by depth: the tracking variants add pages but no new content', async () => {
    const depths = await harness.pool.query<{ depth: number; pages: number; new_content: number }>(
      'SELECT depth, pages, new_content FROM crawl_depth_stats WHERE crawl_id = $1 AND host = $2 ORDER BY depth',
      [crawlId, traps.hosts.tracking],
    );
    const deepest = depths.rows.at(-1)!;
    expect(depths.rows[0]!.new_content).toBeGreaterThan(0);
    expect(deepest.pages).toBeGreaterThan(10);
    expect(deepest.new_content).toBe(0);
  });

  it('registers a page linked from many pages once, with the seen test confirming Bloom positives in Postgres', async () => {
    const article2 = web.url(traps.hosts.tracking, '/article/2');
    const edges = await harness.pool.query('SELECT 1 FROM links WHERE crawl_id = $1 AND target = $2', [crawlId, fp(article2)]);
    expect(edges.rowCount).toBeGreaterThanOrEqual(5);
    const rows = await harness.pool.query('SELECT 1 FROM frontier WHERE crawl_id = $1 AND fingerprint = $2', [crawlId, fp(article2)]);
    expect(rows.rowCount).toBe(1);
    expect(fetchedUrls().filter((url) => url === article2)).toHaveLength(1);

    // The figures are sharded (one row per counter shard): the crawl's seen test is their sum.
    const seen = await readSeenStats(harness.pool, crawlId);
    console.log(`seen test: ${JSON.stringify(seen)}; crawl took ${summary.durationMs} ms for ${summary.pagesFetched} pages`);
    expect(seen.checked).toBe(seen.negatives + seen.positives);
    // Every page links back to pages already registered: most links are Bloom positives, confirmed.
    expect(seen.positives).toBeGreaterThan(seen.negatives / 4);
    expect(seen.falsePositives).toBeLessThanOrEqual(seen.positives);
    expect(seen.filterFillRatio).toBeGreaterThan(0);
  });

  it('`crawler status --crawl` shows the seen test, refusals by reason and the trap hosts', async () => {
    const { code, stdout, stderr } = await runCli(['status', '--crawl', crawlId, '--json', '--data-dir', harness.dataDir], harness.childEnv);
    expect(stderr).toBe('');
    expect(code).toBe(0);
    const status = JSON.parse(stdout) as {
      seenTest: { checked: number; negatives: number; positives: number; falsePositives: number };
      rejections: Record<string, number>;
      trapHosts: { host: string; demoted: number; dropped: number }[];
    };
    expect(status.seenTest.positives).toBeGreaterThan(0);
    expect(status.seenTest.checked).toBe(status.seenTest.negatives + status.seenTest.positives);
    expect(status.rejections['trap:calendar']).toBeGreaterThan(0);
    expect(status.trapHosts.map((host) => host.host)).toEqual(expect.arrayContaining([traps.hosts.calendar, traps.hosts.session]));
    const text = await runCli(['status', '--crawl', crawlId, '--data-dir', harness.dataDir], harness.childEnv);
    expect(text.stdout).toMatch(/seen test: \d+ checked; Bloom negatives \d+, positives \d+ \(confirmed in Postgres\), false positives \d+/);
    expect(text.stdout).toContain(`trap host ${traps.hosts.calendar}`);
  });

  describe('a verified query policy, set from the command line', () => {
    const policyWeb = trapWeb({ base: '127.54.0.0', calendarStart: CALENDAR_START });
    const main = policyWeb.spec.hosts.find((host) => host.host === policyWeb.hosts.main)!;
    // Another origin with a utm_ link: no policy covers it, so its query is kept.
    const campaign = '/about.html?utm_source=newsletter';
    const root = main.pages.find((page) => page.path === '/')!;
    root.body = renderHtmlPage({
      title: 'Trap web',
      paragraphs: ['Trap web with a campaign link.'],
      links: [
        { href: '/about.html', text: 'About' },
        { href: campaign, text: 'About (from the newsletter)' },
        { href: 'news/', text: 'News' },
        { href: `http://${policyWeb.hosts.tracking}:{port}/`, text: 'Articles' },
        { href: `http://${policyWeb.hosts.session}:{port}/`, text: 'Shop' },
      ],
    });
    main.pages.push({ path: campaign, body: renderHtmlPage({ title: 'About, campaign edition', paragraphs: ['Different text for newsletter readers.'], links: [] }) });
    let web2: TestWeb;
    let cli: CliResult;
    const policyCrawlId = 'traps-policy';

    beforeAll(async () => {
      web2 = await startTestWeb(policyWeb.spec);
      const dir = path.join(harness.dataDir, 'traps-policy');
      await mkdir(dir, { recursive: true });
      const policies = path.join(dir, 'query-policies.json');
      await writeFile(
        policies,
        JSON.stringify([{ origin: `http://${policyWeb.hosts.tracking}:${web2.port}`, stripParamPrefixes: ['utm_'], note: 'test web: article bodies are identical with and without utm_*' }]),
      );
      const origin = (host: string): string => `http://${host}:${web2.port}/`;
      cli = await runCli(
        [
          'crawl', ...policyWeb.seeds(web2.port),
          '--no-worker', '--task-queue', harness.taskQueue, '--crawl-id', policyCrawlId, '--data-dir', harness.dataDir, '--json',
          '--scope', 'any', '--allow-prefix', origin(policyWeb.hosts.main), '--allow-prefix', origin(policyWeb.hosts.tracking),
          '--query-policies', policies, '--allow-private-networks', '--min-host-delay-ms', String(MIN_DELAY_MS), '--max-depth', String(MAX_DEPTH),
          // Its request log is compared page by page: no seed origin's /sitemap.xml in it.
          '--sitemaps', 'declared',
        ],
        harness.childEnv,
      );
    });

    afterAll(async () => {
      await web2?.close();
    });

    it('collapses the tracking family to one fetch per real page on the verified origin only', () => {
      expect(cli.stderr).not.toMatch(/error/i);
      expect(cli.code).toBe(0);
      expect(JSON.parse(cli.stdout)).toMatchObject({ crawlId: policyCrawlId, state: 'finished' });
      const fetched = pageRequests(web2).map((entry) => urlOf(web2, entry));
      expect([...countBy(fetched, (url) => url)].filter(([, n]) => n > 1)).toEqual([]);
      const tracking = fetched.filter((url) => url.startsWith(`http://${policyWeb.hosts.tracking}:`));
      expect(new Set(tracking)).toEqual(new Set(['/', '/article/1', '/article/2', '/article/3', '/article/4', '/article/5'].map((p) => web2.url(policyWeb.hosts.tracking, p))));
      // The main origin has no policy: its utm_ link is a different URL and is fetched as such.
      const mainPaths = fetched.filter((url) => url.startsWith(`http://${policyWeb.hosts.main}:`)).map((url) => new URL(url).pathname + new URL(url).search);
      expect(mainPaths.sort()).toEqual(['/', '/about.html', campaign, '/news/'].sort());
    });

    it('keeps out of scope what no allow prefix covers, without a single request there', async () => {
      const hosts = new Set(web2.log().map((entry) => entry.host));
      expect(hosts).toEqual(new Set([policyWeb.hosts.main, policyWeb.hosts.tracking]));
      const counts = await harness.pool.query<{ reason: string; urls: string }>('SELECT reason, sum(urls) AS urls FROM crawl_rejection_counts WHERE crawl_id = $1 GROUP BY reason', [policyCrawlId]);
      expect(Object.fromEntries(counts.rows.map((row) => [row.reason, Number(row.urls)]))).toMatchObject({ 'out-of-scope:no-allow-prefix': 1 });
      const config = await harness.pool.query<{ config: { queryPolicies: { origin: string }[]; scope: { allowPrefixes: string[] } } }>('SELECT config FROM crawls WHERE id = $1', [policyCrawlId]);
      expect(config.rows[0]!.config.queryPolicies).toHaveLength(1);
      expect(config.rows[0]!.config.scope.allowPrefixes).toHaveLength(2);
    });

    it('refuses a bad policy file before starting anything, naming the file, entry and field (exit 2)', async () => {
      const bad = path.join(harness.dataDir, 'traps-policy', 'bad-policies.json');
      await writeFile(bad, JSON.stringify([{ origin: 'https://ok.example' }, { origin: 'https://shop.example', stripParam: ['utm_source'] }]));
      const result = await runCli(['crawl', 'https://shop.example/', '--query-policies', bad, '--data-dir', harness.dataDir], harness.childEnv);
      expect(result.code).toBe(2);
      expect(result.stderr).toContain(bad);
      expect(result.stderr).toContain('entry 1');
      expect(result.stderr).toContain('field "stripParam"');
      const crawls = await harness.pool.query(`SELECT 1 FROM crawls WHERE config->'queryPolicies' @> '[{"origin": "https://ok.example"}]'`);
      expect(crawls.rowCount).toBe(0);
    });
  });
});
