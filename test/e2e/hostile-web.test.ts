// A crawl of the hostile test web (issue 4) on the real stack: robots.txt that is unreachable,
// missing or written for our token only, a host that answers 429 with Retry-After, one that
// answers 503 for a while, a slow host, an oversized body and a gzip bomb. Every politeness
// claim is checked from the test web's own request log, every outcome from Postgres.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hostileWeb, politenessReport, requestsByHost, startTestWeb, type RequestLogEntry, type TestWeb } from '../support/test-web/index.js';
import { createHarness, type Harness } from '../support/crawler-harness.js';
import { hostStatusQuery, hostWorkflowId } from '../../src/contracts/messages.js';

const MIB = 1024 * 1024;
const MIN_DELAY_MS = 300;
const ROBOTS_UNREACHABLE_RETRY_MS = 1500;
const THROTTLE_BASE_DELAY_MS = 1000;
const MAX_BODY_BYTES = 1 * MIB;

describe('the hostile web: robots, politeness and fetch limits on the real stack', () => {
  let harness: Harness;
  let web: TestWeb;
  const hostile = hostileWeb({
    base: '127.31.0.1',
    retryAfterSeconds: 2,
    unavailableTimes: 2,
    slowDelayMs: 400,
    // Streamed without Content-Length: only counting the bytes can cut it off.
    oversizedBytes: 128 * MIB,
    oversizedDeclaresLength: false,
    bombDecompressedBytes: 256 * MIB,
  });
  const { hosts } = hostile;
  const crawlId = 'e2e-hostile';
  let summary: Awaited<ReturnType<Harness['runCrawl']>>;
  /** The main crawl's requests (a later test crawls again). */
  let log: readonly RequestLogEntry[] = [];
  const config = {
    minHostDelayMs: MIN_DELAY_MS,
    maxPages: 200,
    maxDepth: 5,
    maxBodyBytes: MAX_BODY_BYTES,
    maxDecompressedBytes: 4 * MIB,
    politeness: {
      throttleBaseDelayMs: THROTTLE_BASE_DELAY_MS,
      maxThrottleDelayMs: 4 * THROTTLE_BASE_DELAY_MS,
      retryDelayScale: 0.005,
      robotsUnreachableRetryMs: ROBOTS_UNREACHABLE_RETRY_MS,
    },
  };

  beforeAll(async () => {
    web = await startTestWeb(hostile.spec);
    harness = await createHarness('e2e-hostile');
    await harness.startWorker();
    const crawl = await harness.startCrawl({ crawlId, seeds: hostile.seeds(web.port), config });
    summary = await withDiagnostics(harness, crawlId, crawl.result(), 240_000);
    log = [...web.log()];
  });

  afterAll(async () => {
    await harness?.close();
    await web?.close();
  });

  const url = (host: string, path: string): string => `http://${host}:${web.port}${path}`;
  const requestsTo = (host: string): RequestLogEntry[] => requestsByHost(log).get(host) ?? [];
  const frontier = async (): Promise<Map<string, { state: string; outcome: string | null; attempts: number }>> => {
    const rows = await harness.pool.query<{ url: string; state: string; outcome: string | null; attempts: number }>(
      'SELECT url, state, outcome, attempts FROM frontier WHERE crawl_id = $1',
      [crawlId],
    );
    return new Map(rows.rows.map((row) => [row.url, row]));
  };

  it('finishes, and fetches every page a polite crawler may fetch', () => {
    expect(summary.state).toBe('finished');
    const fetched = new Set(log.map((entry) => url(entry.host, entry.path)));
    for (const expected of hostile.expectedReachable(web.port)) expect(fetched, expected).toContain(expected);
  });

  it('fetches nothing robots.txt disallows or makes unreachable', () => {
    const disallowed = hostile.disallowed(web.port);
    expect(disallowed.size).toBeGreaterThan(0);
    const fetchedDisallowed = log.filter((entry) => disallowed.has(url(entry.host, entry.path)));
    expect(fetchedDisallowed).toEqual([]);
    // Where robots.txt answers 503, robots.txt is the only thing ever asked for.
    const unreachable = requestsTo(hosts.robotsUnreachable);
    expect(unreachable.length).toBeGreaterThan(1);
    expect(new Set(unreachable.map((entry) => entry.path))).toEqual(new Set(['/robots.txt']));
  });

  it('keeps the URLs of an unreachable robots.txt waiting for its refresh, then fails them as RobotsUnreachable', async () => {
    const rows = await frontier();
    const root = rows.get(url(hosts.robotsUnreachable, '/'));
    expect(root).toMatchObject({ state: 'failed', outcome: 'RobotsUnreachable' });
    // Refreshed at most once per retry interval (plus the host's throttle after each 503).
    const robots = requestsTo(hosts.robotsUnreachable);
    for (let i = 1; i < robots.length; i += 1) {
      expect(robots[i]!.startedAtMs - robots[i - 1]!.finishedAtMs).toBeGreaterThanOrEqual(ROBOTS_UNREACHABLE_RETRY_MS);
    }
  });

  it('obeys a 404 robots.txt as allow-all and the group for our product token only', async () => {
    for (const path of ['/', '/a.html', '/b.html']) expect(requestsTo(hosts.robotsMissing).map((e) => e.path)).toContain(path);
    const paths = requestsTo(hosts.productTokenRules).map((entry) => entry.path);
    expect(paths).toContain('/private/open.html'); // Allow wins for the longer match
    expect(paths).toContain('/other-only.html'); // OtherBot's Disallow: / is not ours
    expect(paths).not.toContain('/private/secret.html');
    const rows = await frontier();
    expect(rows.get(url(hosts.productTokenRules, '/private/secret.html'))).toMatchObject({ state: 'dropped', outcome: 'robots-disallowed' });
  });

  it('sends nothing to the 429 host before its Retry-After has passed', () => {
    const entries = requestsTo(hosts.tooManyRequests);
    const throttled = entries.filter((entry) => entry.status === 429);
    expect(throttled).toHaveLength(1);
    const after = entries.filter((entry) => entry.startedAtMs > throttled[0]!.startedAtMs);
    expect(after.length).toBeGreaterThan(0);
    // Host-wide: the first request of any path after the 429.
    expect(after[0]!.startedAtMs - throttled[0]!.finishedAtMs).toBeGreaterThanOrEqual(hostile.retryAfterMs);
    expect(entries.filter((entry) => entry.path === '/' && entry.status === 200)).toHaveLength(1);
  });

  it('backs off the whole 503 host after each 503, then crawls it', () => {
    const entries = requestsTo(hosts.unavailableForAWhile);
    const unavailable = entries.filter((entry) => entry.status === 503);
    expect(unavailable).toHaveLength(2);
    for (const failure of unavailable) {
      const next = entries.find((entry) => entry.startedAtMs > failure.startedAtMs)!;
      // Throttle backoff min(base * 2^(n-1), max) * jitter(0.5..1.5): at least half the base.
      expect(next.startedAtMs - failure.finishedAtMs).toBeGreaterThanOrEqual(THROTTLE_BASE_DELAY_MS / 2);
    }
    expect(entries.filter((entry) => entry.status === 200).map((entry) => entry.path)).toEqual(expect.arrayContaining(['/', '/a.html']));
  });

  it('never comes closer to a host than its delay, and never has two requests to one host at once', () => {
    const report = politenessReport(log, MIN_DELAY_MS);
    expect(report.overlaps).toEqual([]);
    expect(report.violations).toEqual([]);
  });

  it('slows down adaptively for the slow host: each gap is at least ten times the response before it', () => {
    const slow = requestsTo(hosts.slow);
    expect(slow.length).toBeGreaterThanOrEqual(5);
    const gaps: number[] = [];
    for (let i = 1; i < slow.length; i += 1) {
      const previous = slow[i - 1]!;
      const gapMs = slow[i]!.startedAtMs - previous.finishedAtMs;
      // The crawler measures the response from its side, which is never shorter than the server's.
      expect(gapMs).toBeGreaterThanOrEqual(10 * (previous.finishedAtMs - previous.startedAtMs));
      gaps.push(gapMs);
    }
    // Every answer takes at least slowDelayMs, so no gap is shorter than ten times that: far above the policy delay.
    expect(Math.min(...gaps)).toBeGreaterThanOrEqual(10 * hostile.slowDelayMs);
  });

  it('cuts off the oversized body and the gzip bomb once each, and records the typed failure', async () => {
    const rows = await frontier();
    expect(rows.get(url(hosts.oversized, '/big.html'))).toMatchObject({ state: 'failed', outcome: 'BodyTooLarge' });
    expect(rows.get(url(hosts.gzipBomb, '/bomb.html'))).toMatchObject({ state: 'failed', outcome: 'DecompressedTooLarge' });
    expect(rows.get(url(hosts.oversized, '/ok.html'))).toMatchObject({ state: 'done', outcome: 'ok' });
    expect(rows.get(url(hosts.gzipBomb, '/ok.html'))).toMatchObject({ state: 'done', outcome: 'ok' });

    const big = requestsTo(hosts.oversized).filter((entry) => entry.path === '/big.html');
    expect(big).toHaveLength(1);
    expect(big[0]!.aborted).toBe(true);
    expect(big[0]!.bytesSent).toBeLessThan(hostile.oversizedBytes / 4);
    expect(requestsTo(hosts.gzipBomb).filter((entry) => entry.path === '/bomb.html')).toHaveLength(1);

    const fetches = await harness.pool.query<{ url: string; outcome: string; body_key: string | null }>(
      `SELECT url, outcome, body_key FROM fetches WHERE crawl_id = $1 AND outcome IN ('BodyTooLarge', 'DecompressedTooLarge')`,
      [crawlId],
    );
    expect(new Set(fetches.rows.map((row) => row.url))).toEqual(new Set([url(hosts.oversized, '/big.html'), url(hosts.gzipBomb, '/bomb.html')]));
    expect(fetches.rows.every((row) => row.body_key === null)).toBe(true);
  });

  it('fetches the oversized body and the bomb again without the worker growing by their size', async () => {
    // A second, small crawl of just those two URLs, after the first warmed the worker up (workflow
    // bundle, connections): what its resident set gains is what the bodies cost.
    const memoryCrawlId = 'e2e-hostile-memory';
    const seeds = [url(hosts.oversized, '/big.html'), url(hosts.gzipBomb, '/bomb.html')];
    const logBefore = web.log().length;
    const baselineBytes = process.memoryUsage().rss;
    let peakBytes = baselineBytes;
    const sampler = setInterval(() => {
      peakBytes = Math.max(peakBytes, process.memoryUsage().rss);
    }, 5);
    try {
      const crawl = await harness.startCrawl({ crawlId: memoryCrawlId, seeds, config: { ...config, maxDepth: 0 } });
      await withDiagnostics(harness, memoryCrawlId, crawl.result(), 120_000);
    } finally {
      clearInterval(sampler);
    }
    const again = web.log().slice(logBefore).filter((entry) => entry.path !== '/robots.txt');
    expect(again.map((entry) => entry.path).sort()).toEqual(['/big.html', '/bomb.html']);
    const growthBytes = peakBytes - baselineBytes;
    console.log(
      `worker RSS ${(baselineBytes / MIB).toFixed(0)} MiB; peak growth while fetching a ${hostile.oversizedBytes / MIB} MiB body and a ` +
        `${hostile.bombDecompressedBytes / MIB} MiB gzip bomb: ${(growthBytes / MIB).toFixed(1)} MiB`,
    );
    expect(growthBytes).toBeLessThan(hostile.oversizedBytes / 4);
  });
});

/** The crawl's result, or, past `timeoutMs`, a failure that says what is still open and why. */
async function withDiagnostics<T>(harness: Harness, crawlId: string, result: Promise<T>, timeoutMs: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      void (async () => {
        const open = await harness.pool.query<{ url: string; state: string; outcome: string | null; attempts: number }>(
          `SELECT url, state, outcome, attempts FROM frontier WHERE crawl_id = $1 AND state NOT IN ('done', 'failed', 'dead', 'dropped')`,
          [crawlId],
        );
        const hosts = [...new Set(open.rows.map((row) => new URL(row.url).hostname))];
        const statuses = await Promise.all(
          hosts.map((host) =>
            harness.client.workflow
              .getHandle(hostWorkflowId(host))
              .query(hostStatusQuery)
              .catch((error: unknown) => String(error)),
          ),
        );
        reject(new Error(`crawl ${crawlId} still running after ${timeoutMs} ms: ${JSON.stringify({ open: open.rows, hosts: statuses }, null, 1)}`));
      })();
    }, timeoutMs);
  });
  try {
    return await Promise.race([result, timeout]);
  } finally {
    clearTimeout(timer);
  }
}
