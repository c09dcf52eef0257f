// Fetch bursts on the real dev server: a host with a short delay fetches several URLs per
// activity, parses each body inside the burst that fetched it and claims after those parses, and
// still keeps its delay (from the server's log); a failure
// inside a burst ends up under its type's policy exactly as on the one-URL path: a 408 is retried
// on its own, counting the burst's try as attempt 1; a 429 holds the host for its Retry-After.
import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Client, WorkflowExecutionInfo } from '@temporalio/client';
import { ApplicationFailure, defaultPayloadConverter } from '@temporalio/common';
import { FAILURE_POLICIES } from '../../../src/domain/failures/index.js';
import { nextRobotsCacheEntry } from '../../../src/domain/robots/index.js';
import { saveRobotsEntry } from '../../../src/storage/postgres/robots-repository.js';
import { DEFAULT_FETCH_BURST_LIMITS } from '../../../src/domain/politeness/index.js';
import { hostWorkflowId } from '../../../src/contracts/messages.js';
import { LOCAL_BURST } from '../../../src/workflows/host-loop.js';
import type { ClaimHostWorkInput, FetchBurstInput, FetchBurstResult, FetchUrlInput, ParseBatchInput, SettleUrlInput } from '../../../src/contracts/activities.js';
import { isPackKey } from '../../../src/storage/object-store/body-key.js';
import { createHarness, type Harness } from '../../support/crawler-harness.js';
import { localActivityOf } from '../../support/local-activity-marker.js';
import { politenessReport, requestsByHost, startTestWeb, type RequestLogEntry, type TestWeb, type WebSpec } from '../../support/test-web/index.js';

const DELAY_MS = 150;
const PAGES = 24;
// A host no other test crawls: host workflows are shared by every crawl on the stack, and their histories are read here.
const HOST = '127.65.0.1';
/** 408 on the first request: RequestTimeout, retried at the activity layer. */
const TIMED_OUT_PAGE = '/p5';
/** 429 with Retry-After 2 s on the first request: a host-level retry after a host-wide hold. */
const THROTTLED_PAGE = '/p11';
/** Not HTML: stored, not parsed. */
const PLAIN_PAGE = '/p17';
const RETRY_AFTER_MS = 2000;

const pagePath = (i: number): string => `/p${i}`;
const SPEC: WebSpec = {
  hosts: [
    {
      host: HOST,
      robotsTxt: 'User-agent: *\nDisallow: /private/\n',
      pages: Array.from({ length: PAGES }, (_, i) => {
        const path = pagePath(i);
        const body = `<!doctype html><html><head><title>${path}</title></head><body><p>Page ${path}, with words of its own: ${'lorem '.repeat(i + 3)}</p></body></html>`;
        if (path === TIMED_OUT_PAGE) return { path, body, behavior: { kind: 'fail-times' as const, status: 408, times: 1 } };
        if (path === THROTTLED_PAGE) return { path, body, behavior: { kind: 'retry-after' as const, status: 429, retryAfter: String(RETRY_AFTER_MS / 1000), times: 1 } };
        if (path === PLAIN_PAGE) return { path, body: 'plain text', contentType: 'text/plain; charset=utf-8' };
        return { path, body };
      }),
    },
  ],
};

interface ScheduledActivities {
  /** Every burst, local ones (a run's first) included, in scheduling order. */
  bursts: FetchBurstInput[];
  /** Bursts run as local activities, in scheduling order (also in `bursts`). */
  localBursts: FetchBurstInput[];
  /** Per completed burst: how many URLs it tried (fetched, answered or failed), its extension's included, in scheduling order. */
  burstAttempts: number[];
  /** Per completed burst: the URLs it claimed and fetched itself (extendWithClaims). */
  extended: string[][];
  singleFetches: FetchUrlInput[];
  parses: number;
  parseBatches: ParseBatchInput[];
  claims: number;
  /** Bursts that released the host themselves (claim.releaseIfDone), ending the run without a claim after them. */
  releasedByBursts: number;
  /** Bursts scheduled before the host's next fetch time (their activity waited it out). */
  earlyBursts: number;
  /** URLs whose body the burst that fetched it parsed (its outcome says so). */
  parsedInBursts: string[];
  /** URLs the burst that fetched them settled without a parse (its outcome says so). */
  settledInBursts: string[];
  /** URLs settled by a settleUrl activity of their own. */
  settles: string[];
  /** refreshRobots activities. */
  robotsActivities: number;
  /** Origins whose robots.txt a burst refreshed, one entry per refresh. */
  robotsInBursts: string[];
}

/**
 * Every run of a host workflow once all have closed: the crawl's result can come before its hosts'
 * last runs end, and the list is the server's visibility store, which catches up a moment later.
 */
async function closedRuns(client: Client, workflowId: string): Promise<WorkflowExecutionInfo[]> {
  const deadline = Date.now() + 60_000;
  for (;;) {
    const runs: WorkflowExecutionInfo[] = [];
    for await (const run of client.workflow.list({ query: `WorkflowId = '${workflowId}'` })) runs.push(run);
    const latest = await client.workflow.getHandle(workflowId).describe();
    const settled = runs.length > 0 && runs.every((run) => run.status.name !== 'RUNNING') && runs.some((run) => run.runId === latest.runId);
    if (settled || Date.now() > deadline) return runs;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

async function scheduledActivities({ client, localBurstInputs }: Pick<Harness, 'client' | 'localBurstInputs'>, workflowId: string): Promise<ScheduledActivities> {
  const runs = await closedRuns(client, workflowId);
  const found: ScheduledActivities = {
    bursts: [],
    localBursts: [],
    burstAttempts: [],
    extended: [],
    singleFetches: [],
    parses: 0,
    parseBatches: [],
    claims: 0,
    releasedByBursts: 0,
    earlyBursts: 0,
    parsedInBursts: [],
    settledInBursts: [],
    settles: [],
    robotsActivities: 0,
    robotsInBursts: [],
  };
  for (const run of runs) {
    const history = await client.workflow.getHandle(workflowId, run.runId).fetchHistory();
    const burstsByEventId = new Map<string, FetchBurstInput>();
    for (const event of history.events ?? []) {
      const completed = event.activityTaskCompletedEventAttributes;
      // A run's first burst may be a local activity: its marker holds the result, the harness its input.
      const local = localActivityOf(event);
      const localBurst = local?.type === 'fetchBurst' ? localBurstInputs.get(`${workflowId}/${run.runId}/${local.activityId}`) : undefined;
      if (local?.type === 'fetchBurst') {
        expect(localBurst, `the input of local burst ${local.activityId} of run ${run.runId}`).toBeDefined();
        found.bursts.push(localBurst!);
        found.localBursts.push(localBurst!);
      }
      const completedBurst = completed ? burstsByEventId.get(String(completed.scheduledEventId)) : localBurst;
      const resultPayload = completed ? completed.result?.payloads?.[0] : local?.result;
      if (completedBurst && resultPayload) {
        const result = defaultPayloadConverter.fromPayload<FetchBurstResult>(resultPayload);
        // The URLs the burst was given, then those it claimed and fetched itself (extended).
        const tried = [
          ...result.outcomes.map((outcome, index) => ({ url: completedBurst.items[index]!.url, outcome })),
          ...(result.extended ?? []).map(({ item, outcome }) => ({ url: item.url, outcome })),
        ];
        found.burstAttempts.push(tried.filter(({ outcome }) => outcome.kind !== 'not-attempted').length);
        found.extended.push((result.extended ?? []).map(({ item }) => item.url));
        found.robotsInBursts.push(...(result.robots ?? []).map(({ origin }) => origin));
        if (result.released) found.releasedByBursts += 1;
        for (const { url, outcome } of tried) {
          if (outcome.kind === 'done' && outcome.parsed?.ok) found.parsedInBursts.push(url);
          if (outcome.kind === 'done' && outcome.settled) found.settledInBursts.push(url);
        }
      }
      const scheduled = event.activityTaskScheduledEventAttributes;
      const type = scheduled?.activityType?.name;
      const input = scheduled?.input?.payloads?.[0];
      if (type === 'fetchBurst') {
        const burst = defaultPayloadConverter.fromPayload<FetchBurstInput>(input!);
        found.bursts.push(burst);
        burstsByEventId.set(String(event.eventId), burst);
        const scheduledAtMs = Number(event.eventTime!.seconds) * 1000 + Math.floor((event.eventTime!.nanos ?? 0) / 1e6);
        if (burst.politeness.nextFetchAtMs > scheduledAtMs) found.earlyBursts += 1;
      }
      if (type === 'claimHostWork' || local?.type === 'claimHostWork') found.claims += 1;
      if (type === 'fetchUrl') found.singleFetches.push(defaultPayloadConverter.fromPayload<FetchUrlInput>(input!));
      if (type === 'parseDocument') found.parses += 1;
      if (type === 'refreshRobots') found.robotsActivities += 1;
      if (type === 'settleUrl') found.settles.push(defaultPayloadConverter.fromPayload<SettleUrlInput>(input!).url);
      if (type === 'parseBatch') found.parseBatches.push(defaultPayloadConverter.fromPayload<ParseBatchInput>(input!));
    }
  }
  return found;
}

describe('fetch bursts for a host with a short delay', () => {
  let harness: Harness;
  let web: TestWeb;
  let log: RequestLogEntry[] = [];
  let activities: ScheduledActivities;
  const crawlId = 'wf-fetch-bursts';
  const url = (path: string): string => `http://${HOST}:${web.port}${path}`;

  beforeAll(async () => {
    web = await startTestWeb(SPEC);
    harness = await createHarness('wf-fetch-bursts');
    await harness.startWorker();
    const seeds = Array.from({ length: PAGES }, (_, i) => url(pagePath(i)));
    // adaptiveFactor 1: on a loaded machine, ten times a slow response would exceed the burst's
    // wait limit and end bursts early (the unit tests cover that); this test is about the rest.
    const config = { minHostDelayMs: DELAY_MS, maxDepth: 0, politeness: { retryDelayScale: 0.1, adaptiveFactor: 1 } };
    const summary = await harness.runCrawl({ crawlId, seeds, config });
    expect(summary.state).toBe('finished');
    log = (requestsByHost(web.log()).get(HOST) ?? []).filter((entry) => entry.path !== '/robots.txt');
    activities = await scheduledActivities(harness, hostWorkflowId(HOST));
  });

  afterAll(async () => {
    await harness?.close();
    await web?.close();
  });

  it('fetches most URLs in bursts, several per activity, within the burst limits', () => {
    const inBursts = [...activities.bursts.flatMap((burst) => burst.items.map((item) => item.url)), ...activities.extended.flat()].map((url) => new URL(url).pathname);
    console.log(
      `[bursts] ${activities.bursts.length} bursts (${activities.bursts.map((burst, i) => `${activities.burstAttempts[i]}/${burst.items.length}+${activities.extended[i]?.length ?? 0}`).join(', ')} URLs tried/given+extended), ${activities.singleFetches.length} single fetches, ` +
        `${activities.parsedInBursts.length} bodies parsed in their bursts, ${activities.parseBatches.length} parse batches, ${activities.parses} single parses for ${PAGES} pages; ` +
        `${activities.earlyBursts} bursts started early, ${activities.bursts.filter((burst) => burst.claim).length} claims in bursts and ${activities.claims} on their own`,
    );
    expect(activities.bursts.length).toBeGreaterThanOrEqual(2);
    for (const burst of activities.bursts) {
      expect(burst.items.length).toBeGreaterThanOrEqual(1);
      expect(burst.items.length).toBeLessThanOrEqual(DEFAULT_FETCH_BURST_LIMITS.maxUrls);
      expect(burst.policy.minDelayMs).toBe(DELAY_MS);
      // Only first tries ride in a burst.
      expect(burst.items.every((item) => item.notBeforeMs === undefined && item.attempt === 0)).toBe(true);
    }
    expect(new Set(inBursts).size).toBeGreaterThanOrEqual(PAGES - 4);
    // Most URLs were tried inside bursts, several per activity: fewer fetch activities than pages.
    expect(activities.burstAttempts).toHaveLength(activities.bursts.length);
    const triedInBursts = activities.burstAttempts.reduce((sum, n) => sum + n, 0);
    expect(triedInBursts).toBeGreaterThanOrEqual(PAGES / 2);
    expect(Math.max(...activities.burstAttempts)).toBeGreaterThanOrEqual(3);
    expect(activities.bursts.length + activities.singleFetches.length).toBeLessThan(PAGES * 0.75);
  });

  it("runs each run's first burst as a local activity within LOCAL_BURST, and later ones as activities", () => {
    expect(activities.localBursts.length).toBeGreaterThanOrEqual(1);
    for (const burst of activities.localBursts) {
      expect(burst.limits).toEqual({ ...DEFAULT_FETCH_BURST_LIMITS, ...LOCAL_BURST });
      expect(burst.items.length).toBeLessThanOrEqual(LOCAL_BURST.maxUrls);
      expect(burst.extendWithClaims?.maxUrls ?? LOCAL_BURST.maxUrls).toBe(LOCAL_BURST.maxUrls);
    }
    // The host's 24 URLs need more than a local burst's 5: the rest went in bursts that are activities.
    expect(activities.bursts.length - activities.localBursts.length).toBeGreaterThanOrEqual(1);
    // A burst parses the bodies it fetched; a parse activity comes only with a one-URL fetch (the
    // retried URLs), and no body waits for the next burst or a parse batch.
    const parsedInBursts = activities.parsedInBursts.map((url) => new URL(url).pathname);
    expect(new Set(parsedInBursts).size).toBe(parsedInBursts.length);
    expect(parsedInBursts).not.toContain(PLAIN_PAGE);
    expect(parsedInBursts.length).toBeGreaterThanOrEqual(PAGES - 4);
    expect(activities.parses).toBeLessThanOrEqual(activities.singleFetches.length);
    expect(activities.parseBatches).toEqual([]);
    expect(activities.bursts.every((burst) => burst.parse === undefined)).toBe(true);
  });

  it('settles the text page inside the burst that fetched it, without a settleUrl activity', () => {
    expect(activities.settledInBursts.map((url) => new URL(url).pathname)).toEqual([PLAIN_PAGE]);
    expect(activities.settles.map((url) => new URL(url).pathname)).not.toContain(PLAIN_PAGE);
  });

  it('refills the back queue inside bursts, each claim under its own token', () => {
    const riding = activities.bursts.filter((burst) => burst.claim !== undefined);
    expect(riding.length).toBeGreaterThanOrEqual(1);
    expect(new Set(riding.map((burst) => burst.claim!.claimToken)).size).toBe(riding.length);
    // The first claim of the run is its own activity (it loads the host record); later ones ride when the queue runs low.
    expect(activities.claims).toBeLessThan(activities.bursts.length + activities.singleFetches.length);
  });

  it('keeps the host delay between every two requests, bursts or not, and never overlaps them', () => {
    expectHostDelayKept(log, DELAY_MS);
  });

  it('stores and parses every page once: a document for each HTML page, the text page stored unparsed', async () => {
    const fetched = await harness.pool.query<{ url: string; n: number }>(`SELECT url, count(*)::int AS n FROM fetches WHERE crawl_id = $1 AND outcome = 'ok' GROUP BY url`, [crawlId]);
    expect(fetched.rows).toHaveLength(PAGES);
    expect(fetched.rows.every((row) => row.n === 1)).toBe(true);
    const settled = await harness.pool.query<{ state: string; n: number }>(`SELECT state, count(*)::int AS n FROM frontier WHERE crawl_id = $1 GROUP BY state`, [crawlId]);
    expect(Object.fromEntries(settled.rows.map((row) => [row.state, row.n]))).toEqual({ done: PAGES });
    const documents = await harness.pool.query<{ url: string }>(
      `SELECT u.url FROM documents d JOIN urls u ON u.fingerprint = d.fingerprint JOIN frontier f ON f.fingerprint = d.fingerprint AND f.crawl_id = $1`,
      [crawlId],
    );
    const documented = new Set(documents.rows.map((row) => new URL(row.url).pathname));
    expect(documented.size).toBe(PAGES - 1);
    expect(documented.has(PLAIN_PAGE)).toBe(false);
  });

  it('a 408 inside a burst is retried on its own as attempt 2 of its policy, after at least the host delay', async () => {
    const requests = log.filter((entry) => entry.path === TIMED_OUT_PAGE);
    expect(requests.map((entry) => entry.status)).toEqual([408, 200]);
    expect(requests[1]!.startedAtMs - requests[0]!.finishedAtMs).toBeGreaterThanOrEqual(DELAY_MS);
    expect(FAILURE_POLICIES.RequestTimeout.retryLayer).toBe('activity');
    const retried = activities.singleFetches.filter((input) => new URL(input.url).pathname === TIMED_OUT_PAGE);
    expect(retried).toHaveLength(1);
    expect(retried[0]!.priorAttempts).toBe(1);
    const attempts = await harness.pool.query<{ failure_type: string; attempt_key: string }>(
      `SELECT a.failure_type, a.attempt_key FROM attempts a JOIN urls u ON u.fingerprint = a.fingerprint WHERE u.url = $1`,
      [url(TIMED_OUT_PAGE)],
    );
    // The burst's try is attempt 1 under the policy: the retry's record, had it failed, would be /2.
    expect(attempts.rows.map((row) => [row.failure_type, row.attempt_key.split('/').at(-1)])).toEqual([['RequestTimeout', '1']]);
  });

  it('a 429 inside a burst ends it: the host waits out Retry-After in the workflow, then the URL is fetched', () => {
    const throttled = log.find((entry) => entry.path === THROTTLED_PAGE && entry.status === 429)!;
    expect(throttled).toBeDefined();
    const next = log.find((entry) => entry.startedAtMs > throttled.startedAtMs);
    expect(next).toBeDefined();
    expect(next!.startedAtMs - throttled.finishedAtMs).toBeGreaterThanOrEqual(RETRY_AFTER_MS);
    expect(log.filter((entry) => entry.path === THROTTLED_PAGE).map((entry) => entry.status)).toEqual([429, 200]);
  });
});

/** A crawl of one host whose pages all answer, every page a seed, on a harness of its own. */
interface OneHostCrawl {
  harness: Harness;
  web: TestWeb;
  /** The server's log of page requests (robots.txt left out). */
  log: RequestLogEntry[];
  /** The server's log of every request to the host, robots.txt included. */
  withRobots: RequestLogEntry[];
  activities: ScheduledActivities;
}

async function crawlOneHost(options: {
  name: string;
  host: string;
  pages: number;
  delayMs: number;
  worker?: Parameters<Harness['startWorker']>[0];
  /** Pages form a binary tree (page i links to 2i+1 and 2i+2) crawled from its root alone; else every page is a seed. */
  tree?: boolean;
  /** Runs on the crawl's database before the crawl starts (fault injection); `origin` is the host's. */
  beforeCrawl?: (harness: Harness, origin: string) => Promise<void>;
  /** The host's robots.txt. Default: allow everything. */
  robotsTxt?: string;
  /** robots.txt answers after this long, ms. Default: at once. */
  robotsSlowMs?: number;
  /** Mercator's factor (the host waits this many times its response time). Default 1: the delay alone. */
  adaptiveFactor?: number;
}): Promise<OneHostCrawl> {
  const children = (i: number): string =>
    options.tree ? [2 * i + 1, 2 * i + 2].filter((child) => child < options.pages).map((child) => `<a href="${pagePath(child)}">page ${child}</a>`).join(' ') : '';
  const web = await startTestWeb({
    hosts: [
      {
        host: options.host,
        robotsTxt: {
          status: 200,
          body: options.robotsTxt ?? 'User-agent: *\nAllow: /\n',
          ...(options.robotsSlowMs === undefined ? {} : { behavior: { kind: 'slow' as const, delayMs: options.robotsSlowMs } }),
        },
        pages: Array.from({ length: options.pages }, (_, i) => ({
          path: pagePath(i),
          body: `<!doctype html><html><head><title>${i}</title></head><body><p>Page ${i} of ${options.name}: ${'ipsum '.repeat(i + 5)}</p>${children(i)}</body></html>`,
        })),
      },
    ],
  });
  const harness = await createHarness(options.name);
  await harness.startWorker(options.worker);
  await options.beforeCrawl?.(harness, `http://${options.host}:${web.port}`);
  const seeds = Array.from({ length: options.tree ? 1 : options.pages }, (_, i) => `http://${options.host}:${web.port}${pagePath(i)}`);
  const config = { minHostDelayMs: options.delayMs, maxDepth: options.tree ? 10 : 0, politeness: { adaptiveFactor: options.adaptiveFactor ?? 1 } };
  const summary = await harness.runCrawl({ crawlId: options.name, seeds, config });
  expect(summary.state).toBe('finished');
  const withRobots = requestsByHost(web.log()).get(options.host) ?? [];
  const log = withRobots.filter((entry) => entry.path !== '/robots.txt');
  return { harness, web, log, withRobots, activities: await scheduledActivities(harness, hostWorkflowId(options.host)) };
}

/** crawlOneHost before the describe block's tests and closed after them; returns the crawl, once it ran. */
function crawlOneHostAround(options: Parameters<typeof crawlOneHost>[0]): () => OneHostCrawl {
  let crawl: OneHostCrawl | undefined;
  beforeAll(async () => {
    crawl = await crawlOneHost(options);
  });
  afterAll(async () => {
    await crawl?.harness.close();
    await crawl?.web.close();
  });
  return () => {
    if (crawl === undefined) throw new Error(`the crawl ${options.name} did not run`);
    return crawl;
  };
}

/** The server's log of one host: every two requests at least the delay apart, never two at once. */
function expectHostDelayKept(log: RequestLogEntry[], delayMs: number): void {
  const report = politenessReport(log, delayMs);
  expect(report.overlaps).toEqual([]);
  expect(report.violations).toEqual([]);
}

describe('pipelined fetch bursts on a host that answers every request', () => {
  const CLEAN_PAGES = 60;
  // Long enough that a workflow task usually runs before the host is due, even on a loaded machine.
  const CLEAN_DELAY_MS = 250;
  const crawlId = 'wf-pipelined-bursts';
  const crawled = crawlOneHostAround({ name: crawlId, host: '127.65.0.2', pages: CLEAN_PAGES, delayMs: CLEAN_DELAY_MS });

  it('parses every body inside the burst that fetched it, and claims inside bursts', async () => {
    const { activities, harness } = crawled();
    console.log(
      `[pipelined] ${activities.bursts.length} bursts (${activities.bursts.map((burst, i) => `${burst.items.length}+${activities.extended[i]?.length ?? 0}`).join(', ')} URLs given+extended), ${activities.earlyBursts} started early; ` +
        `${activities.parsedInBursts.length} bodies parsed in their bursts, ${activities.parseBatches.length} parse batches, ${activities.parses} single parses; ` +
        `${activities.bursts.filter((burst) => burst.claim).length} claims in bursts, ${activities.claims} on their own`,
    );
    expect(activities.singleFetches).toEqual([]);
    expect(activities.parsedInBursts).toHaveLength(CLEAN_PAGES);
    expect(new Set(activities.parsedInBursts).size).toBe(CLEAN_PAGES);
    expect(activities.parses + activities.parseBatches.length).toBe(0);
    // Whether a burst starts early depends on when its workflow task runs against the host's due
    // time (0 or 2 here from run to run, on a quiet machine too): the log line says; the early
    // start's arithmetic is test/unit/workflows/host-queue.test.ts's, its politeness expectHostDelayKept's.
    // Claims of their own remain where a run starts (it loads the host record) and ends (it releases the host).
    expect(activities.bursts.filter((burst) => burst.claim).length).toBeGreaterThanOrEqual(2);
    const documents = await harness.pool.query<{ n: number }>(
      `SELECT count(DISTINCT d.fingerprint)::int AS n FROM documents d JOIN frontier f ON f.fingerprint = d.fingerprint AND f.crawl_id = $1 AND f.state = 'done'`,
      [crawlId],
    );
    expect(documents.rows[0]!.n).toBe(CLEAN_PAGES);
  });

  it('keeps the host delay between every two requests although bursts start before the host is due', () => {
    expect(crawled().log).toHaveLength(CLEAN_PAGES);
    expectHostDelayKept(crawled().log, CLEAN_DELAY_MS);
  });
});

describe("a host's robots.txt refreshed inside its first burst", () => {
  const ROBOTS_PAGES = 12;
  const ROBOTS_DELAY_MS = 150;
  const crawled = crawlOneHostAround({
    name: 'wf-robots-in-burst',
    host: '127.65.0.7',
    pages: ROBOTS_PAGES,
    delayMs: ROBOTS_DELAY_MS,
    robotsTxt: 'User-agent: *\nDisallow: /p3\n',
  });

  it('needs no refreshRobots activity: the burst asks for robots.txt once, and obeys it', () => {
    const { activities, withRobots, log } = crawled();
    expect(activities.robotsActivities).toBe(0);
    expect(activities.robotsInBursts).toHaveLength(1);
    expect(withRobots.filter((entry) => entry.path === '/robots.txt')).toHaveLength(1);
    expect(withRobots[0]!.path).toBe('/robots.txt');
    expect(log.map((entry) => entry.path)).not.toContain('/p3');
    expect(log).toHaveLength(ROBOTS_PAGES - 1);
  });

  it('keeps the host delay between robots.txt and the pages, as between any two requests', () => {
    expectHostDelayKept(crawled().withRobots, ROBOTS_DELAY_MS);
  });
});

describe('a robots.txt that answers slowly, at the factor that makes its wait longer than maxHostDelayMs', () => {
  const PAGES_HERE = 8;
  const ROBOTS_SLOW_MS = 150;
  const crawled = crawlOneHostAround({ name: 'wf-slow-robots', host: '127.65.0.10', pages: PAGES_HERE, delayMs: 150, robotsSlowMs: ROBOTS_SLOW_MS, adaptiveFactor: 10 });

  it("keeps the pages in bursts: the next burst waits out the host's pace (10 x robots.txt's response time)", () => {
    const { activities, withRobots, log } = crawled();
    // Before, the burst that asked for robots.txt handed every URL back untried, and each went on
    // its own: a fetch and a parse activity, a timer and three workflow tasks a page.
    expect(activities.singleFetches).toEqual([]);
    expect(activities.burstAttempts.reduce((sum, tried) => sum + tried, 0)).toBe(PAGES_HERE);
    expect(log).toHaveLength(PAGES_HERE);
    const [robots, firstPage] = withRobots;
    expect(robots!.path).toBe('/robots.txt');
    expect(firstPage!.startedAtMs - robots!.finishedAtMs).toBeGreaterThanOrEqual(10 * ROBOTS_SLOW_MS);
    expectHostDelayKept(withRobots, 150);
  });
});

describe('a robots.txt left unreachable by an earlier run, past its retry time', () => {
  const PAGES_HERE = 6;
  const crawlId = 'wf-robots-unreachable-before';
  const crawled = crawlOneHostAround({
    name: crawlId,
    host: '127.65.0.9',
    pages: PAGES_HERE,
    delayMs: 150,
    // What a 503 an hour ago left in the shared cache: everything disallowed until its retry time, 50 minutes ago.
    beforeCrawl: async (harness, origin) => {
      const atMs = Date.now() - 60 * 60_000;
      const entry = nextRobotsCacheEntry({ kind: 'unreachable', reason: 'HTTP 503', status: 503 }, undefined, atMs, undefined, { unreachableRetryMs: 10 * 60_000 });
      expect(entry).toMatchObject({ policy: { kind: 'disallow-all' }, unreachableSinceMs: atMs });
      await saveRobotsEntry(harness.pool, { origin, owner: 'an earlier run', entry, sitemaps: [] });
    },
  });

  it('is asked for again by the first burst, before any URL fails for it', async () => {
    const { activities, withRobots, log, harness } = crawled();
    // A fetch would have failed its URL as RobotsUnreachable (an attempt of 4, 5 minutes apart) and
    // ended the burst, each burst again, without asking for the file.
    const failures = await harness.pool.query(`SELECT 1 FROM attempts WHERE crawl_id = $1 AND failure_type = 'RobotsUnreachable'`, [crawlId]);
    expect(failures.rowCount).toBe(0);
    expect(activities.robotsInBursts).toHaveLength(1);
    expect(activities.robotsActivities).toBe(0);
    expect(withRobots[0]!.path).toBe('/robots.txt');
    expect(withRobots.filter((entry) => entry.path === '/robots.txt')).toHaveLength(1);
    expect(log.map((entry) => entry.path).sort()).toEqual(Array.from({ length: PAGES_HERE }, (_, i) => pagePath(i)).sort());
    expectHostDelayKept(withRobots, 150);
  });
});

describe('a Crawl-delay beyond the burst limit, learned inside a burst', () => {
  const PAGES_HERE = 4;
  const CRAWL_DELAY_MS = 1500;
  const crawled = crawlOneHostAround({
    name: 'wf-crawl-delay-in-burst',
    host: '127.65.0.8',
    pages: PAGES_HERE,
    delayMs: 150,
    robotsTxt: `User-agent: *\nCrawl-delay: ${CRAWL_DELAY_MS / 1000}\n`,
  });

  it('ends the burst at robots.txt, and fetches the pages one by one at the Crawl-delay', () => {
    const { activities, withRobots, log } = crawled();
    expect(activities.robotsInBursts).toHaveLength(1);
    expect(activities.robotsActivities).toBe(0);
    expect(log).toHaveLength(PAGES_HERE);
    // No page went in the burst that learned the delay, nor in a later one.
    expect(activities.burstAttempts.reduce((sum, tried) => sum + tried, 0)).toBe(0);
    expect(activities.singleFetches).toHaveLength(PAGES_HERE);
    expectHostDelayKept(withRobots, CRAWL_DELAY_MS);
  });
});

describe('a host discovered from its root, one level per claim', () => {
  // 31 pages in five levels (1, 2, 4, 8, 16): each level is known only once the one before is parsed.
  const TREE_PAGES = 31;
  const TREE_DELAY_MS = 150;
  const crawlId = 'wf-tree-bursts';
  const crawled = crawlOneHostAround({ name: crawlId, host: '127.65.0.4', pages: TREE_PAGES, delayMs: TREE_DELAY_MS, tree: true });

  it("fetches its root as a burst of one, and each burst's claim takes the links its own parses found", () => {
    const { activities } = crawled();
    console.log(
      `[tree] ${activities.bursts.length} bursts (${activities.bursts.map((burst, i) => `${burst.items.length}${burst.claim ? `+claim+${activities.extended[i]?.length ?? 0} extended` : ''}`).join(', ')} URLs); ` +
        `${activities.parsedInBursts.length} bodies parsed in their bursts, ${activities.parses} single parses, ${activities.parseBatches.length} parse batches; ` +
        `${activities.singleFetches.length} single fetches, ${activities.claims} claims on their own`,
    );
    expect(crawled().log).toHaveLength(TREE_PAGES);
    expect(activities.singleFetches).toEqual([]);
    expect(activities.parsedInBursts).toHaveLength(TREE_PAGES);
    expect(activities.parses + activities.parseBatches.length).toBe(0);
    expect(activities.bursts[0]!.items.map((item) => new URL(item.url).pathname)).toEqual([pagePath(0)]);
    // A claim after the parses finds the next level at once, and the last burst, whose claim finds
    // nothing, releases the host: the run's one claim of its own is its first (it loads the host
    // record); one more if a wake comes between (3 when a claim of its own released the host, 4
    // when bursts claimed beside their requests, before their bodies were parsed).
    expect(activities.bursts.slice(0, -1).every((burst) => burst.claim !== undefined)).toBe(true);
    expect(activities.releasedByBursts).toBe(1);
    expect(activities.claims).toBeLessThanOrEqual(2);
    // The root's burst claims and fetches the next levels itself (extendWithClaims), within the
    // extension's size and the burst's span: a level per claim, not a level per burst (was 6 bursts).
    expect(activities.extended[0]!.length).toBeGreaterThanOrEqual(2);
    for (const [i, burst] of activities.bursts.entries()) expect(activities.burstAttempts[i]).toBeLessThanOrEqual(burst.extendWithClaims?.maxUrls ?? burst.items.length);
    expect(activities.bursts.length).toBeLessThanOrEqual(4);
  });

  it('keeps the host delay between every two requests', () => {
    expectHostDelayKept(crawled().log, TREE_DELAY_MS);
  });

  it("leaves the host released by its last burst: idle, with the burst's politeness state for the next run", async () => {
    const { harness } = crawled();
    const { rows } = await harness.pool.query<{ workflow_active: boolean; politeness: { nextFetchAtMs: number; inFlight: number } | null }>(
      'SELECT workflow_active, politeness FROM hosts WHERE host = $1',
      ['127.65.0.4'],
    );
    expect(rows).toHaveLength(1);
    expect(rows[0]!.workflow_active).toBe(false);
    expect(rows[0]!.politeness).toMatchObject({ inFlight: 0 });
    // The next run may not ask sooner than a delay after the last request (2 ms: whole-ms clocks).
    const lastRequestAtMs = Math.max(...crawled().log.map((entry) => entry.startedAtMs));
    expect(rows[0]!.politeness!.nextFetchAtMs).toBeGreaterThanOrEqual(lastRequestAtMs + TREE_DELAY_MS - 2);
  });
});

describe('a pipelined burst that fails after its requests and its claim', () => {
  const HOST_FAILING = '127.65.0.3';
  const FAILING_PAGES = 30;
  const FAILING_DELAY_MS = 150;
  const crawlId = 'wf-failing-burst';
  let failedClaimToken: string | undefined;
  /** What every claim of the host's workflow asked for (they run as local activities of this worker). */
  const claimInputs: ClaimHostWorkInput[] = [];
  // The first burst that claims runs for real (its requests and its claim happen), then fails
  // for good: the workflow must recover the claim by its token and lose no URL.
  const crawled = crawlOneHostAround({
    name: crawlId,
    host: HOST_FAILING,
    pages: FAILING_PAGES,
    delayMs: FAILING_DELAY_MS,
    worker: {
      wrapActivities: (created) => ({
        ...created,
        async claimHostWork(input) {
          claimInputs.push(input);
          return created.claimHostWork(input);
        },
        async fetchBurst(input) {
          const result = await created.fetchBurst(input);
          if (input.claim && failedClaimToken === undefined) {
            failedClaimToken = input.claim.claimToken;
            throw ApplicationFailure.nonRetryable(`injected: the burst failed after its requests (claimed ${result.claimed?.length ?? 0})`, 'InjectedBurstFailure');
          }
          return result;
        },
      }),
    },
  });

  it('recovers what the failed burst claimed, by its token', async () => {
    expect(failedClaimToken).toBeDefined();
    // Retries of a local activity call it again: one call by the workflow may be several here.
    expect(new Set(claimInputs.filter((input) => input.claimToken === failedClaimToken).map((input) => JSON.stringify(input))).size).toBe(1);
    const open = await crawled().harness.pool.query(`SELECT url FROM frontier WHERE crawl_id = $1 AND state <> 'done'`, [crawlId]);
    expect(open.rows).toEqual([]);
  });

  it("fetches and parses every page once: the failed burst's pages are answered from their fetch records", async () => {
    const { log, harness, activities } = crawled();
    expect(new Set(log.map((entry) => entry.path)).size).toBe(FAILING_PAGES);
    expect(log).toHaveLength(FAILING_PAGES);
    const fetched = await harness.pool.query<{ n: number }>(`SELECT count(*)::int AS n FROM fetches WHERE crawl_id = $1 AND outcome = 'ok'`, [crawlId]);
    expect(fetched.rows[0]!.n).toBe(FAILING_PAGES);
    const documents = await harness.pool.query<{ n: number }>(
      `SELECT count(DISTINCT d.fingerprint)::int AS n FROM documents d JOIN frontier f ON f.fingerprint = d.fingerprint AND f.crawl_id = $1`,
      [crawlId],
    );
    expect(documents.rows[0]!.n).toBe(FAILING_PAGES);
    expect(activities.singleFetches.length).toBeGreaterThanOrEqual(1);
  });

  it('keeps the host delay across the failure', () => {
    expectHostDelayKept(crawled().log, FAILING_DELAY_MS);
  });
});

describe('crawls again of pages whose bodies are stored', () => {
  // A page fetched again with the same body finds it stored: its records go in its parse's
  // transaction too, and its object is checked once they commit (a prune may have removed it).
  const STORED_PAGES = 8;
  const STORED_DELAY_MS = 60;
  const HOST_STORED = '127.65.0.6';
  const crawlId = 'wf-burst-stored-bodies';
  const crawled = crawlOneHostAround({ name: crawlId, host: HOST_STORED, pages: STORED_PAGES, delayMs: STORED_DELAY_MS });
  const again = `${crawlId}-again`;
  const packsGone = `${crawlId}-packs-gone`;
  let objectsAfterFirst: string[] = [];
  let objectsAfterAgain: string[] = [];
  /** The second crawl's fetch records, each with whether its document's transaction wrote it. */
  let fetchesAgain: { url: string; same_transaction: boolean }[] = [];

  const objectNames = async (harness: Harness): Promise<string[]> => {
    const names: string[] = [];
    for await (const item of harness.bodies.client.listObjectsV2(harness.bodies.bucket, '', true) as AsyncIterable<{ name?: string }>) if (item.name) names.push(item.name);
    return names.sort();
  };
  const crawlAgain = async (harness: Harness, web: TestWeb, id: string): Promise<void> => {
    const seeds = Array.from({ length: STORED_PAGES }, (_, i) => `http://${HOST_STORED}:${web.port}${pagePath(i)}`);
    const summary = await harness.runCrawl({ crawlId: id, seeds, config: { minHostDelayMs: STORED_DELAY_MS, maxDepth: 0, politeness: { adaptiveFactor: 1 } } });
    expect(summary.state).toBe('finished');
  };

  beforeAll(async () => {
    const { harness, web } = crawled();
    objectsAfterFirst = await objectNames(harness);
    await crawlAgain(harness, web, again);
    objectsAfterAgain = await objectNames(harness);
    // Read before the records are moved below (a move rewrites the rows).
    const rows = await harness.pool.query<{ url: string; same_transaction: boolean }>(
      `SELECT f.url, f.xmin::text = d.xmin::text AS same_transaction
         FROM fetches f JOIN documents d ON d.fingerprint = f.fingerprint AND d.generation = f.generation AND d.crawl_id = f.crawl_id
        WHERE f.crawl_id = $1 AND f.outcome = 'ok' ORDER BY f.url`,
      [again],
    );
    fetchesAgain = rows.rows;
    // As if `crawler bodies prune` had removed every pack between the next crawl's lookups of its
    // bodies and its records' commits (a prune removes only packs nothing points into, which these
    // are not: staged). A new worker: this one found the packs after its records and trusts them.
    for (const name of objectsAfterAgain.filter(isPackKey)) await harness.bodies.client.removeObject(harness.bodies.bucket, name);
    await harness.stopWorker();
    await harness.startWorker();
    await crawlAgain(harness, web, packsGone);
  });

  it("writes each page's fetch record in the transaction that records its document, and stores no body again", async () => {
    expect(fetchesAgain).toHaveLength(STORED_PAGES);
    expect(fetchesAgain.filter((row) => !row.same_transaction)).toEqual([]);
    expect(objectsAfterFirst.some(isPackKey)).toBe(true);
    expect(objectsAfterAgain).toEqual(objectsAfterFirst);
  });

  it('stores again each body whose pack was removed, and points every record of it there', async () => {
    const { harness } = crawled();
    const fetches = await harness.pool.query<{ crawl_id: string; url: string; raw_hash: Buffer; body_key: string }>(
      `SELECT crawl_id, url, raw_hash, body_key FROM fetches WHERE crawl_id = ANY($1) AND outcome = 'ok' ORDER BY crawl_id, url`,
      [[crawlId, again, packsGone]],
    );
    expect(fetches.rows).toHaveLength(3 * STORED_PAGES);
    for (const row of fetches.rows) {
      const body = await harness.bodies.getBody(row.body_key).catch((error: unknown) => `${row.crawl_id} ${row.url}: ${row.body_key} unreadable: ${String(error)}`);
      expect(typeof body === 'string' ? body : createHash('sha256').update(body).digest('hex'), `${row.crawl_id} ${row.url}`).toBe(row.raw_hash.toString('hex'));
    }
  });

  it('keeps the host delay across the three crawls', () => {
    const log = (requestsByHost(crawled().web.log()).get(HOST_STORED) ?? []).filter((entry) => entry.path !== '/robots.txt');
    expect(log).toHaveLength(3 * STORED_PAGES);
    expectHostDelayKept(log, STORED_DELAY_MS);
  });
});

/** The activity type a local activity's marker records (host workflows claim through local activities). */
describe('a page whose parse fails inside the burst that fetched it', () => {
  // The burst leaves a page's fetch records to its parse's transaction; a parse that fails rolls
  // them back, so the burst writes them on their own before the workflow retries the parse.
  const PAGES_HERE = 6;
  const FAILING = 3;
  const crawlId = 'wf-burst-parse-fails';
  const crawled = crawlOneHostAround({
    name: crawlId,
    host: '127.65.0.5',
    pages: PAGES_HERE,
    delayMs: 100,
    beforeCrawl: async (harness) => {
      // Every insert of page 3's document fails, in the burst's parse and in parseDocument's retries.
      await harness.pool.query(`CREATE FUNCTION fail_document_of_page_3() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN IF NEW.title = '${FAILING}' THEN RAISE EXCEPTION 'injected: the document of page ${FAILING} cannot be stored'; END IF; RETURN NEW; END $$`);
      await harness.pool.query('CREATE TRIGGER fail_document BEFORE INSERT ON documents FOR EACH ROW EXECUTE FUNCTION fail_document_of_page_3()');
    },
  });

  it('keeps the fetch record of the page whose parse failed, fetches it once, and settles it as a parse failure', async () => {
    const { harness, log } = crawled();
    const rows = await harness.pool.query<{ url: string; state: string; outcome: string | null; fetched: boolean; documented: boolean }>(
      `SELECT f.url, f.state, f.outcome,
              EXISTS (SELECT 1 FROM fetches x WHERE x.fingerprint = f.fingerprint AND x.outcome = 'ok') AS fetched,
              EXISTS (SELECT 1 FROM documents d WHERE d.fingerprint = f.fingerprint) AS documented
         FROM frontier f WHERE f.crawl_id = $1 ORDER BY f.url`,
      [crawlId],
    );
    expect(rows.rows).toHaveLength(PAGES_HERE);
    for (const row of rows.rows) {
      expect(row.fetched).toBe(true);
      // Dead-lettered: its parse failed on every try of the poison budget.
      if (row.url.endsWith(pagePath(FAILING))) expect([row.state, row.outcome, row.documented]).toEqual(['dead', 'ParseFailed', false]);
      else expect([row.state, row.documented]).toEqual(['done', true]);
    }
    // The failed parse was retried on the stored body: the page was requested once.
    expect(log.filter((entry) => entry.path === pagePath(FAILING))).toHaveLength(1);
    expect(log).toHaveLength(PAGES_HERE);
  });
});
