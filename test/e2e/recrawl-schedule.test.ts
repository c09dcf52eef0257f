// Cost-aware recrawl driven by a Temporal Schedule, on the real stack: a first crawl of a web whose
// pages change (ETag, Last-Modified, 304s), then recrawl cycles triggered through the Schedule the
// CLI created. Facts come from the test server's request log, Postgres and MinIO.
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { promisify } from 'node:util';
import { ScheduleNotFoundError } from '@temporalio/client';
import { MockActivityEnvironment } from '@temporalio/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ParseDocumentInput } from '../../src/contracts/activities.js';
import { resolveCrawlConfig } from '../../src/config/crawl-config.js';
import type { RecrawlCycleResult } from '../../src/workflows/recrawl-cycle-workflow.js';
import { activitiesOf, createHarness, type Harness } from '../support/crawler-harness.js';
import { readStoredBodies, type StoredBodies } from '../support/stored-bodies.js';
import { politenessReport, startTestWeb, type HostSpec, type PageSpec, type RequestLogEntry, type TestWeb, type WebSpec } from '../support/test-web/index.js';

const execFileAsync = promisify(execFile);
const A = '127.36.0.1';
const B = '127.36.0.2';
const MIN_DELAY_MS = 100;
const BUDGET = 40;

const html = (title: string, paragraphs: string[], links: string[] = []): string =>
  `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${title}</title></head><body>` +
  `<nav><ul>${links.map((href) => `<li><a href="${href}">${href}</a></li>`).join('')}</ul></nav>` +
  `<h1>${title}</h1>${paragraphs.map((text) => `<p>${text}</p>`).join('')}</body></html>`;

// Long texts one word apart: a SimHash distance of at most 3 (near-duplicates by SimHash).
const harbour = (word: string): string =>
  `The harbour master reported that the morning tide brought in eleven fishing boats, two cargo ships and a small ${word} sailing yacht that had crossed the bay overnight. ` +
  'Dock workers unloaded crates of apples, barrels of oil and a long shipment of timber bound for the sawmill on the northern shore. ' +
  'Weather in the afternoon turned grey, with a light westerly wind and occasional rain over the lighthouse. ' +
  'The ferry to the islands kept its usual timetable and carried about forty passengers, most of them returning from the market in town.';
// Short texts (under 300 characters) a few characters apart: MinHash decides (docs/design.md, "Near-duplicates").
const hours = (ending: string): string => `Opening hours: Monday to Friday, nine to five. Closed on public holidays. Call the front desk for ${ending}.`;

const changing = (ratePerDay: number, seed: number): PageSpec['behavior'] => ({ kind: 'changing', ratePerDay, seed });

function webSpec(phase: 'first' | 'second'): WebSpec {
  const rootLinks = ['/static-1', '/static-2', '/news-1', '/news-2', '/ticker', '/dup-a', '/dup-b', `http://${B}:{port}/dup-c`, '/short-a', '/short-b'];
  const a: HostSpec = {
    host: A,
    robotsTxt: 'User-agent: *\nAllow: /\n',
    pages: [
      // The first crawl links to /gone, which then disappears; the second links to /new-page instead.
      { path: '/', body: html('Home', ['Welcome to the harbour town pages.'], phase === 'first' ? [...rootLinks, '/gone'] : [...rootLinks, '/new-page']) },
      { path: '/static-1', body: html('Static one', ['The museum collection of ship models is permanent and never changes.']), behavior: changing(0, 11) },
      { path: '/static-2', body: html('Static two', ['The town charter from the fifteenth century hangs in the council hall.']), behavior: changing(0, 12) },
      // About twenty changes a second: always changed by the next cycle.
      { path: '/news-1', body: html('News one', ['Live report from the quay, updated as boats come in.']), behavior: changing(86_400 * 20, 13) },
      { path: '/news-2', body: html('News two', ['Live report from the fish market, updated as prices move.']), behavior: changing(86_400 * 20, 14) },
      // New bytes on every request (a clock and a session token), the same content: never a change.
      {
        path: '/ticker',
        body: (ctx) => html('Ticker', [`Market ticker. Updated ${new Date(ctx.nowMs).toISOString()} session ${randomBytes(16).toString('hex')}.`, 'Prices are unchanged today.']),
      },
      { path: '/dup-a', body: html('Harbour notes', [harbour('white')]) },
      { path: '/dup-b', body: html('Harbour notes', [harbour('red')]) },
      { path: '/short-a', body: html('Hours', [hours('appointments')]) },
      { path: '/short-b', body: html('Hours', [hours('an appointment')]) },
      ...(phase === 'first' ? [{ path: '/gone', body: html('Soon gone', ['This notice will be withdrawn.']) }] : [{ path: '/new-page', body: html('New page', ['A page the first crawl never saw.']) }]),
    ],
  };
  const b: HostSpec = {
    host: B,
    robotsTxt: 'User-agent: *\nAllow: /\n',
    pages: [{ path: '/dup-c', body: html('Harbour notes', [harbour('blue'), 'Mirrored copy.']) }],
  };
  return { hosts: [a, b] };
}

describe('recrawl cycles triggered by a Temporal Schedule', () => {
  let harness: Harness;
  let web: TestWeb;
  const crawlId = 'recrawl-first';
  const scheduleId = `recrawl-e2e-${randomBytes(3).toString('hex')}`;
  let firstLog: RequestLogEntry[];
  let cycleLog: RequestLogEntry[];
  let storedBefore: StoredBodies;
  let storedAfter: StoredBodies;
  let cycle: RecrawlCycleResult;
  const url = (path: string, host = A): string => `http://${host}:${web.port}${path}`;

  const crawler = async (...args: string[]): Promise<string> => (await execFileAsync('node', ['bin/crawler.js', ...args], { env: harness.childEnv })).stdout;

  const readStored = (): Promise<StoredBodies> => readStoredBodies(harness.pool, harness.bodies);

  /** Triggers the Schedule and waits for the cycle it starts (the n-th action overall). */
  async function triggerCycle(n: number): Promise<RecrawlCycleResult> {
    const handle = harness.client.schedule.getHandle(scheduleId);
    await handle.trigger();
    for (let i = 0; i < 300; i += 1) {
      const actions = (await handle.describe()).info.recentActions;
      const action = actions[n - 1];
      if (action) return (await harness.client.workflow.getHandle(action.action.workflow.workflowId).result()) as RecrawlCycleResult;
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
    throw new Error(`schedule ${scheduleId} took no action ${n} within a minute`);
  }

  let emptyCycle: RecrawlCycleResult;

  beforeAll(async () => {
    web = await startTestWeb(webSpec('first'));
    harness = await createHarness('e2e-recrawl');
    await harness.startWorker();
    // A cycle before anything was crawled: nothing to plan.
    emptyCycle = (await harness.client.workflow.execute('recrawlCycleWorkflow', {
      workflowId: `recrawl/${scheduleId}-empty`,
      taskQueue: harness.taskQueue,
      args: [{ settings: { budget: 10, everyMs: 3_600_000 }, config: resolveCrawlConfig({ allowPrivateNetworks: true }), taskQueue: harness.taskQueue }],
    })) as RecrawlCycleResult;
    const summary = await harness.runCrawl({ crawlId, seeds: [url('/')], config: { minHostDelayMs: MIN_DELAY_MS, maxDepth: 3 } });
    expect(summary.state).toBe('finished');
    firstLog = [...web.log()];
    storedBefore = await readStored();

    web.update(webSpec('second'));
    web.clearLog();
    await crawler(
      'schedule', 'create', '--id', scheduleId, '--every', '1h', '--budget', String(BUDGET), '--task-queue', harness.taskQueue,
      '--allow-private-networks', '--scope', 'any', '--min-host-delay-ms', String(MIN_DELAY_MS), '--tick-interval-ms', '500',
    );
    cycle = await triggerCycle(1);
    cycleLog = [...web.log()];
    storedAfter = await readStored();
  });

  afterAll(async () => {
    await harness?.client.schedule.getHandle(scheduleId).delete().catch(() => undefined);
    await harness?.close();
    await web?.close();
  });

  const pageRequests = (log: readonly RequestLogEntry[]) => log.filter((entry) => entry.path !== '/robots.txt');
  const requestOf = (log: readonly RequestLogEntry[], path: string, host = A) => {
    const found = pageRequests(log).filter((entry) => entry.path === path && entry.host === host);
    expect(found, `${host}${path} requested once`).toHaveLength(1);
    return found[0]!;
  };
  const urlRecord = async (path: string, host = A) =>
    (
      await harness.pool.query<{
        fingerprint: Buffer;
        state: string;
        change_observations: number;
        changes_observed: number;
        observed_days: number;
        change_rate_per_day: number;
        change_rate_method: string;
        version_dates_confirmed: number;
        change_streak: number;
        last_observed_at: Date;
        next_fetch_at: Date;
        near_duplicate_of: Buffer | null;
        fetch_generation: number;
      }>('SELECT * FROM urls WHERE url = $1', [url(path, host)])
    ).rows[0]!;
  const verdictsOf = async (path: string, host = A) =>
    (
      await harness.pool.query<{ verdict: string; source: string; crawl_id: string }>(
        `SELECT o.verdict, o.source, o.crawl_id FROM url_observations o JOIN urls u USING (fingerprint) WHERE u.url = $1 ORDER BY o.generation`,
        [url(path, host)],
      )
    ).rows;

  it('ends a cycle with nothing to revisit without starting a crawl, and closes its record', async () => {
    expect(emptyCycle.plan.planned.total).toBe(0);
    expect(emptyCycle.crawl).toBeUndefined();
    expect(emptyCycle.summary).toMatchObject({ state: 'empty', requests: 0 });
    const crawl = await harness.pool.query<{ kind: string; state: string }>('SELECT kind, state FROM crawls WHERE id = $1', [emptyCycle.crawlId]);
    expect(crawl.rows[0]).toEqual({ kind: 'recrawl', state: 'finished' });
  });

  it('runs the cycle as a crawl of kind recrawl, planned by purpose within the budget', async () => {
    expect(cycle.summary.state).toBe('finished');
    expect(cycle.plan.budget).toEqual({ total: BUDGET, discovery: 12, recrawl: 24, reestimation: 3, verification: 1 });
    // Every page that answered 200 in the first crawl is planned (the budget is larger than the web), /gone too.
    expect(cycle.plan.planned.total).toBe(12);
    expect(cycle.plan.planned.verification).toBe(1);
    const crawl = await harness.pool.query<{ kind: string; max_pages: number }>('SELECT kind, max_pages FROM crawls WHERE id = $1', [cycle.crawlId]);
    expect(crawl.rows[0]).toEqual({ kind: 'recrawl', max_pages: 12 + 12 });
    const purposes = await harness.pool.query<{ purpose: string; n: number }>(
      'SELECT purpose, count(*)::int AS n FROM frontier WHERE crawl_id = $1 GROUP BY purpose ORDER BY purpose',
      [cycle.crawlId],
    );
    expect(Object.fromEntries(purposes.rows.map((row) => [row.purpose, row.n]))).toEqual({ discovery: 1, recrawl: 11, verification: 1 });
    const stored = await harness.pool.query<{ summary: { changed: number } }>('SELECT summary FROM recrawl_cycles WHERE crawl_id = $1', [cycle.crawlId]);
    expect(stored.rows[0]?.summary.changed).toBe(cycle.summary.changed);
  });

  it('sends the stored validators: unchanged pages cost a 304 and no body', () => {
    for (const path of ['/static-1', '/static-2', '/news-1', '/news-2']) {
      const first = requestOf(firstLog, path);
      const again = requestOf(cycleLog, path);
      expect(first.ifNoneMatch, `${path} first fetch is unconditional`).toBeUndefined();
      expect(again.ifNoneMatch, `${path} recrawl sends If-None-Match`).toMatch(/^"c\d+-v\d+"$/);
      expect(again.ifModifiedSince).toBeDefined();
    }
    for (const path of ['/static-1', '/static-2']) {
      expect(requestOf(cycleLog, path)).toMatchObject({ status: 304, bytesSent: 0 });
    }
    for (const path of ['/news-1', '/news-2']) expect(requestOf(cycleLog, path).status).toBe(200);
    expect(cycle.summary.notModified).toBe(2);
  });

  it('stores a changed body once, and adds nothing for unchanged ones', async () => {
    const added = [...storedAfter.rows.keys()].filter((sha256) => !storedBefore.rows.has(sha256));
    // news-1, news-2 (new revisions), / (new links), /ticker (new bytes, same content), /new-page.
    expect(added).toHaveLength(5);
    expect(cycle.summary.newBodies).toBe(5);
    const hashes = await harness.pool.query<{ n: number }>('SELECT count(DISTINCT raw_hash)::int AS n FROM fetches WHERE raw_hash IS NOT NULL');
    expect(storedAfter.rows.size).toBe(hashes.rows[0]!.n);
    // Unchanged bodies fetched again were not stored again: every stored byte is one body's.
    expect(storedAfter.unreferencedBytes).toBe(0);
    const notModified = await harness.pool.query<{ body_key: string | null; bytes: number }>(`SELECT body_key, bytes FROM fetches WHERE crawl_id = $1 AND outcome = 'not-modified'`, [
      cycle.crawlId,
    ]);
    expect(notModified.rows).toHaveLength(2);
    for (const row of notModified.rows) expect(row).toEqual({ body_key: null, bytes: 0 });
    // The refetched pages whose bytes did not change point at the body stored the first time.
    const reused = await harness.pool.query<{ url: string; n: number }>(
      `SELECT url, count(DISTINCT raw_hash)::int AS n FROM fetches WHERE url = ANY($1) GROUP BY url`,
      [[url('/dup-a'), url('/dup-b'), url('/short-a'), url('/dup-c', B)]],
    );
    expect(reused.rows.map((row) => row.n)).toEqual([1, 1, 1, 1]);
  });

  it('detects changes in the normalized content, not in bytes or timestamps', async () => {
    expect((await verdictsOf('/news-1')).map((o) => o.verdict)).toEqual(['baseline', 'changed']);
    expect((await verdictsOf('/static-1')).map((o) => [o.verdict, o.source])).toEqual([
      ['baseline', 'content'],
      ['unchanged', 'not-modified'],
    ]);
    // New bytes on every fetch, the same text once dates and tokens are masked.
    expect((await verdictsOf('/ticker')).map((o) => o.verdict)).toEqual(['baseline', 'unchanged']);
    // New links in the navigation: page chrome, not content.
    expect((await verdictsOf('/')).map((o) => o.verdict)).toEqual(['baseline', 'unchanged']);
    expect((await verdictsOf('/new-page')).map((o) => o.verdict)).toEqual(['baseline']);
    expect(cycle.summary).toMatchObject({ requests: 13, changed: 2, unchanged: 9, baselines: 1 });
    expect(cycle.summary.changesPerRequest).toBeCloseTo(2 / 13, 10);
  });

  it('updates the change-rate evidence and the next due time on the URL records', async () => {
    const news = await urlRecord('/news-1');
    // The test web dates its versions truthfully: the change is dated by its Last-Modified.
    expect(news).toMatchObject({ change_observations: 1, changes_observed: 1, change_streak: 1, change_rate_method: 'dated-mle+prior', version_dates_confirmed: 1 });
    const still = await urlRecord('/static-1');
    expect(still).toMatchObject({ state: 'not-modified', change_observations: 1, changes_observed: 0, change_streak: 0, change_rate_method: 'censored-mle+prior' });
    for (const record of [news, still]) {
      expect(record.observed_days).toBeGreaterThan(0);
      expect(record.observed_days).toBeLessThan(1 / 24);
      expect(record.change_rate_per_day).toBeGreaterThan(0);
      expect(record.next_fetch_at.getTime()).toBeGreaterThan(record.last_observed_at.getTime());
    }
  });

  it('clusters near-duplicates by SimHash and by MinHash, and demotes the members without deleting them', async () => {
    const clusters = await harness.pool.query<{ fingerprint: Buffer; cluster_id: Buffer; method: string; distance: number | null; similarity: number | null; url: string }>(
      'SELECT n.*, u.url FROM near_duplicates n JOIN urls u USING (fingerprint) ORDER BY u.url',
    );
    const byUrl = new Map(clusters.rows.map((row) => [row.url, row]));
    const harbourUrls = [url('/dup-a'), url('/dup-b'), url('/dup-c', B)];
    const hoursUrls = [url('/short-a'), url('/short-b')];
    expect(new Set(byUrl.keys())).toEqual(new Set([...harbourUrls, ...hoursUrls]));
    for (const group of [harbourUrls, hoursUrls]) {
      const ids = new Set(group.map((u) => byUrl.get(u)!.cluster_id.toString('hex')));
      expect(ids.size, `${group.join(', ')} in one cluster`).toBe(1);
      expect(group.filter((u) => byUrl.get(u)!.method === 'representative')).toHaveLength(1);
    }
    for (const u of harbourUrls.filter((x) => byUrl.get(x)!.method !== 'representative')) {
      expect(byUrl.get(u)).toMatchObject({ method: 'simhash' });
      expect(byUrl.get(u)!.distance).toBeLessThanOrEqual(3);
    }
    const shortMember = hoursUrls.map((u) => byUrl.get(u)!).find((row) => row.method !== 'representative')!;
    expect(shortMember.method).toBe('minhash');
    expect(shortMember.similarity).toBeGreaterThanOrEqual(0.8);

    // Members point at their representative; all are still fetched, parsed and stored.
    for (const row of clusters.rows) {
      const record = await harness.pool.query<{ near_duplicate_of: Buffer | null }>('SELECT near_duplicate_of FROM urls WHERE fingerprint = $1', [row.fingerprint]);
      expect(record.rows[0]!.near_duplicate_of?.toString('hex') ?? null).toBe(row.method === 'representative' ? null : row.cluster_id.toString('hex'));
      const documents = await harness.pool.query<{ n: number }>('SELECT count(*)::int AS n FROM documents WHERE fingerprint = $1', [row.fingerprint]);
      expect(documents.rows[0]!.n).toBe(2);
    }
    // The indexes hold each URL's latest document only: a refetch's keys replace the first fetch's.
    const staleKeys = await harness.pool.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM (SELECT fingerprint, generation, parser_version FROM simhash_blocks
                                       UNION ALL SELECT fingerprint, generation, parser_version FROM minhash_bands) k
       WHERE (k.generation, k.parser_version) <> (SELECT max(d.generation), max(d.parser_version) FROM documents d WHERE d.fingerprint = k.fingerprint)`,
    );
    expect(staleKeys.rows[0]!.n).toBe(0);
    const indexed = await harness.pool.query<{ n: number }>(
      `SELECT count(DISTINCT fingerprint)::int AS n FROM (SELECT fingerprint FROM simhash_blocks UNION ALL SELECT fingerprint FROM minhash_bands) k
       WHERE fingerprint = ANY($1::bytea[])`,
      [clusters.rows.map((row) => row.fingerprint)],
    );
    expect(indexed.rows[0]!.n).toBe(clusters.rows.length);
    // Demoted in the recrawl plan: value x 0.25 puts a member after its representative.
    const planned = await harness.pool.query<{ fingerprint: Buffer; priority: number; purpose: string }>('SELECT fingerprint, priority, purpose FROM frontier WHERE crawl_id = $1', [
      cycle.crawlId,
    ]);
    const priorityOf = new Map(planned.rows.filter((row) => row.purpose === 'recrawl').map((row) => [row.fingerprint.toString('hex'), row.priority]));
    for (const row of clusters.rows.filter((r) => r.method !== 'representative')) {
      const member = priorityOf.get(row.fingerprint.toString('hex'));
      const representative = priorityOf.get(row.cluster_id.toString('hex'));
      if (member !== undefined && representative !== undefined) expect(member).toBeLessThan(representative);
    }
  });

  it('follows links to new URLs only (the discovery share), and turns a vanished page into a tombstone', async () => {
    // /new-page is the only URL the changed home page led to that was never fetched; known ones were not re-registered.
    const discovered = await harness.pool.query<{ url: string }>(`SELECT url FROM frontier WHERE crawl_id = $1 AND purpose = 'discovery'`, [cycle.crawlId]);
    expect(discovered.rows.map((row) => row.url)).toEqual([url('/new-page')]);
    const gone = await urlRecord('/gone');
    expect(gone.state).toBe('gone');
    const days = (gone.next_fetch_at.getTime() - Date.now()) / 86_400_000;
    expect(days).toBeGreaterThan(29);
    expect(days).toBeLessThan(31);
  });

  it('stays polite in the recrawl', () => {
    const report = politenessReport(cycleLog, MIN_DELAY_MS);
    expect(report.overlaps).toEqual([]);
    expect(report.violations).toEqual([]);
  });

  it('rechecks a tombstone once it is due, in the next cycle', async () => {
    // Thirty days pass for the tombstone.
    await harness.pool.query(`UPDATE urls SET next_fetch_at = now() - interval '1 second' WHERE url = $1`, [url('/gone')]);
    web.clearLog();
    const second = await triggerCycle(2);
    expect(second.plan.planned.tombstone).toBe(1);
    expect(requestOf(web.log(), '/gone').status).toBe(404);
    const purposes = await harness.pool.query<{ purpose: string }>('SELECT f.purpose FROM frontier f JOIN urls u USING (fingerprint) WHERE f.crawl_id = $1 AND u.url = $2', [
      second.crawlId,
      url('/gone'),
    ]);
    expect(purposes.rows.map((row) => row.purpose)).toEqual(['tombstone']);
    expect((await urlRecord('/gone')).next_fetch_at.getTime()).toBeGreaterThan(Date.now() + 29 * 86_400_000);
  });

  it('stores nothing twice when a parse is replayed for the same generation', async () => {
    const activities = activitiesOf(harness, 'a replayed parse');
    const counts = async () => {
      const result = await harness.pool.query<Record<string, number>>(
        `SELECT (SELECT count(*) FROM documents)::int AS documents, (SELECT count(*) FROM url_observations)::int AS observations,
                (SELECT count(*) FROM links)::int AS links, (SELECT count(*) FROM simhash_blocks)::int AS blocks,
                (SELECT count(*) FROM minhash_bands)::int AS bands, (SELECT count(*) FROM near_duplicates)::int AS clusters,
                (SELECT count(*) FROM bodies)::int AS bodies, (SELECT count(*) FROM frontier)::int AS frontier,
                (SELECT json_agg(u ORDER BY fingerprint)::text FROM (SELECT fingerprint, change_observations, changes_observed, observed_days,
                   change_rate_per_day, next_fetch_at, near_duplicate_of, last_change_key FROM urls) u) AS urls,
                (SELECT json_agg(n ORDER BY fingerprint)::text FROM near_duplicates n) AS membership`,
      );
      return { ...result.rows[0], objects: (await readStored()).objects.size };
    };
    const fetches = await harness.pool.query<{ fingerprint: Buffer; generation: number; crawl_id: string; url: string; final_url: string; body_key: string; content_type: string }>(
      `SELECT fingerprint, generation, crawl_id, url, final_url, body_key, content_type FROM fetches
       WHERE crawl_id = $1 AND outcome = 'ok' AND url = ANY($2)`,
      [cycle.crawlId, [url('/news-1'), url('/dup-b'), url('/short-b')]],
    );
    expect(fetches.rows).toHaveLength(3);
    const before = await counts();
    const env = new MockActivityEnvironment();
    for (const row of fetches.rows) {
      const input: ParseDocumentInput = {
        crawlId: row.crawl_id,
        fingerprint: row.fingerprint.toString('hex'),
        generation: row.generation,
        url: row.url,
        finalUrl: row.final_url,
        depth: 0,
        bodyKey: row.body_key,
        contentType: row.content_type,
      };
      for (let replay = 0; replay < 2; replay += 1) await env.run(activities.parseDocument, input);
    }
    expect(await counts()).toEqual(before);
  });

  it('lists, describes, pauses, unpauses and deletes the Schedule from the CLI', async () => {
    const [list, describe] = await Promise.all([crawler('schedule', 'list', '--json'), crawler('schedule', 'describe', '--id', scheduleId, '--json')]);
    const listed = JSON.parse(list) as { id: string; workflowType: string }[];
    expect(listed.find((row) => row.id === scheduleId)).toMatchObject({ workflowType: 'recrawlCycleWorkflow' });
    const described = JSON.parse(describe) as { overlap: string; actions: number; intervals: number[] };
    expect(described).toMatchObject({ overlap: 'SKIP', actions: 2, intervals: [3_600_000] });
    const handle = harness.client.schedule.getHandle(scheduleId);
    await crawler('schedule', 'pause', '--id', scheduleId);
    expect((await handle.describe()).state.paused).toBe(true);
    await crawler('schedule', 'unpause', '--id', scheduleId);
    expect((await handle.describe()).state.paused).toBe(false);
    await crawler('schedule', 'delete', '--id', scheduleId);
    await expect(handle.describe()).rejects.toBeInstanceOf(ScheduleNotFoundError);
  });
});
