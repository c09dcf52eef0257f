// Every fetch failure type we can provoke with a local server reaches its documented policy
// (docs/failures.md) on the real dev server: how many requests the server saw and how far apart,
// the type recorded in frontier.outcome and fetches, holds on the host, and no dead letter.
import { readFileSync } from 'node:fs';
import { createServer as createHttpServer, type IncomingMessage, type Server as HttpServer, type ServerResponse } from 'node:http';
import { createServer as createHttpsServer, type Server as HttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FAILURE_POLICIES, NOT_FOUND_RECHECK_MS, HOST_HOLD_RECHECK_MS } from '../../../src/domain/failures/index.js';
import type { CrawlConfig } from '../../../src/config/crawl-config.js';
import { politenessReport, requestsByHost, startTestWeb, type RequestLogEntry, type TestWeb, type WebSpec } from '../../support/test-web/index.js';
import { createHarness, type Harness } from '../../support/crawler-harness.js';

const MIB = 1024 * 1024;
const MIN_DELAY_MS = 400;
const CIRCUIT_COOLDOWN_MS = 4000;
/** Caps the adaptive penalty (policy delay * 2^n after n overload signals) below the circuit's cooldown, so the two can be told apart. */
const MAX_ADAPTIVE_DELAY_MS = 1000;
const THROTTLE_BASE_DELAY_MS = 500;
const RETRY_DELAY_SCALE = 0.05;
/** How much closer than the delay two request starts may arrive with several slots (activity pick-up time varies). */
const START_JITTER_TOLERANCE_MS = 350;

const POLICY_CONFIG: Partial<CrawlConfig> = {
  minHostDelayMs: MIN_DELAY_MS,
  maxDepth: 2,
  firstByteTimeoutMs: 1500,
  bodyTimeoutMs: 1500,
  maxBodyBytes: 1 * MIB,
  maxDecompressedBytes: 4 * MIB,
  politeness: {
    retryDelayScale: RETRY_DELAY_SCALE,
    maxAdaptiveDelayMs: MAX_ADAPTIVE_DELAY_MS,
    throttleBaseDelayMs: THROTTLE_BASE_DELAY_MS,
    maxThrottleDelayMs: 4 * THROTTLE_BASE_DELAY_MS,
    circuitCooldownMs: CIRCUIT_COOLDOWN_MS,
    maxCircuitCooldownMs: 2 * CIRCUIT_COOLDOWN_MS,
  },
};

/** One host per scenario: host-wide effects (throttles, the circuit, holds) must not mix. */
const H = {
  notFound: '127.32.0.1',
  requestTimeout: '127.32.0.2',
  firstByteTimeout: '127.32.0.3',
  bodyTimeout: '127.32.0.4',
  tooManyRequests: '127.32.0.5',
  serverErrors: '127.32.0.6',
  unavailable: '127.32.0.7',
  limits: '127.32.0.8',
  redirects: '127.32.0.9',
  conditional: '127.32.0.10',
  concurrent: '127.32.0.11',
  // Servers of our own, for what the test web cannot do (reset, refuse, TLS).
  reset: '127.32.0.20',
  refused: '127.32.0.21',
  tls: '127.32.0.22',
  privateNetwork: '127.32.0.23',
};

const page = (path: string, extra: Partial<WebSpec['hosts'][number]['pages'][number]> = {}) => ({
  path,
  body: `<!doctype html><html><head><title>${path}</title></head><body><p>${path}</p></body></html>`,
  ...extra,
});

const SPEC: WebSpec = {
  hosts: [
    { host: H.notFound, pages: [page('/gone', { status: 410 })] },
    { host: H.requestTimeout, pages: [page('/r408', { behavior: { kind: 'fail-times', status: 408, times: 99 } })] },
    { host: H.firstByteTimeout, pages: [page('/slow-head', { delayMs: 4000 })] },
    { host: H.bodyTimeout, pages: [page('/stall', { body: 'x'.repeat(64 * 1024), bodyDelayMs: 4000 })] },
    {
      host: H.tooManyRequests,
      pages: [page('/a', { behavior: { kind: 'retry-after', status: 429, retryAfter: '2', times: 1 } }), page('/b')],
    },
    {
      host: H.serverErrors,
      pages: [
        page('/e500', { behavior: { kind: 'fail-times', status: 500, times: 99 } }),
        page('/e502', { behavior: { kind: 'fail-times', status: 502, times: 99 } }),
        page('/e504', { behavior: { kind: 'fail-times', status: 504, times: 99 } }),
      ],
    },
    { host: H.unavailable, pages: [page('/u', { behavior: { kind: 'fail-times', status: 503, times: 99 } })] },
    {
      host: H.limits,
      pages: [
        // Far past what loopback can buffer (the kernel's receive buffer grows to 32 MiB here): a
        // smaller body can land whole in socket buffers before the client reads past its limit.
        page('/big', { behavior: { kind: 'oversized', bytes: 512 * MIB, declareLength: false } }),
        page('/bomb', { behavior: { kind: 'gzip-bomb', decompressedBytes: 64 * MIB } }),
        page('/bin', { contentType: 'application/octet-stream', body: 'binary' }),
      ],
    },
    {
      host: H.redirects,
      pages: [
        page('/loop-a', { behavior: { kind: 'redirect', status: 302, location: '/loop-b' } }),
        page('/loop-b', { behavior: { kind: 'redirect', status: 302, location: '/loop-a' } }),
      ],
    },
    {
      host: H.conditional,
      pages: [page('/validated', { headers: { etag: '"v1"', 'last-modified': 'Wed, 01 Jan 2025 00:00:00 GMT' } })],
    },
    { host: H.concurrent, pages: ['/c1', '/c2', '/c3', '/c4', '/c5', '/c6'].map((path) => page(path, { delayMs: 800 })) },
  ],
};

interface OwnServer {
  port: number;
  requests: string[];
  close(): Promise<void>;
}

/** robots.txt answers 404 on a closing connection, then the listener goes: every later connect is refused. */
async function refusingAfterRobots(host: string): Promise<OwnServer> {
  const requests: string[] = [];
  const server = createHttpServer((req, res) => {
    requests.push(req.url ?? '');
    res.writeHead(404, { 'content-type': 'text/plain', connection: 'close' });
    res.end('no robots here');
    server.close();
  });
  return listenOwn(server, host, requests);
}

/** robots.txt answers 404; every other request has its connection reset. */
async function resettingPages(host: string): Promise<OwnServer> {
  const requests: string[] = [];
  const server = createHttpServer((req: IncomingMessage, res: ServerResponse) => {
    requests.push(req.url ?? '');
    if (req.url === '/robots.txt') {
      res.writeHead(404, { 'content-type': 'text/plain' });
      res.end('none');
      return;
    }
    req.socket.destroy();
  });
  return listenOwn(server, host, requests);
}

/** HTTPS with the committed self-signed certificate: counts handshakes tried and requests served. */
async function selfSignedTls(host: string): Promise<OwnServer & { handshakeFailures: () => number }> {
  const requests: string[] = [];
  let handshakeFailures = 0;
  const server = createHttpsServer(
    { key: readFileSync('test/unit/http/fixtures/self-signed.key'), cert: readFileSync('test/unit/http/fixtures/self-signed.crt') },
    (req, res) => {
      requests.push(req.url ?? '');
      res.end('should never be served');
    },
  );
  server.on('tlsClientError', () => {
    handshakeFailures += 1;
  });
  return { ...(await listenOwn(server, host, requests)), handshakeFailures: () => handshakeFailures };
}

async function listenOwn(server: HttpServer | HttpsServer, host: string, requests: string[]): Promise<OwnServer> {
  await new Promise<void>((resolve) => server.listen(0, host, resolve));
  const { port } = server.address() as AddressInfo;
  return {
    port,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
        if (!server.listening) resolve();
      }),
  };
}

describe('fetch failure policies on the real dev server', () => {
  let harness: Harness;
  let web: TestWeb;
  let refused: OwnServer;
  let reset: OwnServer;
  let tls: OwnServer & { handshakeFailures: () => number };
  let log: readonly RequestLogEntry[] = [];
  const crawlId = 'wf-failure-policies';

  const url = (host: string, path: string): string => `http://${host}:${web.port}${path}`;
  const requestsTo = (host: string, path?: string): RequestLogEntry[] =>
    (requestsByHost(log).get(host) ?? []).filter((entry) => (path === undefined ? entry.path !== '/robots.txt' : entry.path === path));
  const gapsMs = (entries: readonly RequestLogEntry[]): number[] => entries.slice(1).map((entry, i) => entry.startedAtMs - entries[i]!.finishedAtMs);

  interface Outcome {
    state: string;
    outcome: string | null;
    attempts: number;
    fetchOutcome: string | null;
    fetchStatus: number | null;
    dead: boolean;
  }
  const outcomeOf = async (forCrawl: string, pageUrl: string): Promise<Outcome | undefined> => {
    const result = await harness.pool.query<Outcome>(
      `SELECT f.state, f.outcome, f.attempts, x.outcome AS "fetchOutcome", x.status AS "fetchStatus",
              EXISTS (SELECT 1 FROM dead_letters d WHERE d.fingerprint = f.fingerprint AND d.crawl_id = f.crawl_id) AS dead
       FROM frontier f LEFT JOIN fetches x ON x.fingerprint = f.fingerprint AND x.generation = f.generation
       WHERE f.crawl_id = $1 AND f.url = $2`,
      [forCrawl, pageUrl],
    );
    return result.rows[0];
  };
  const attemptsOf = async (pageUrl: string) =>
    (
      await harness.pool.query<{ failure_type: string; attempt_key: string; at: Date }>(
        `SELECT a.failure_type, a.attempt_key, a.at FROM attempts a JOIN urls u ON u.fingerprint = a.fingerprint WHERE u.url = $1 ORDER BY a.at`,
        [pageUrl],
      )
    ).rows;

  beforeAll(async () => {
    [web, refused, reset, tls] = await Promise.all([startTestWeb(SPEC), refusingAfterRobots(H.refused), resettingPages(H.reset), selfSignedTls(H.tls)]);
    harness = await createHarness('wf-failure-policies');
    await harness.startWorker();
    const seeds = [
      url(H.notFound, '/missing'),
      url(H.notFound, '/gone'),
      url(H.requestTimeout, '/r408'),
      url(H.firstByteTimeout, '/slow-head'),
      url(H.bodyTimeout, '/stall'),
      url(H.tooManyRequests, '/a'),
      url(H.tooManyRequests, '/b'),
      url(H.serverErrors, '/e500'),
      url(H.serverErrors, '/e502'),
      url(H.serverErrors, '/e504'),
      url(H.unavailable, '/u'),
      url(H.limits, '/big'),
      url(H.limits, '/bomb'),
      url(H.limits, '/bin'),
      url(H.redirects, '/loop-a'),
      url(H.conditional, '/validated'),
      `http://${H.refused}:${refused.port}/page`,
      `http://${H.reset}:${reset.port}/page`,
      `https://${H.tls}:${tls.port}/`,
      `https://${H.tls}:${tls.port}/two`,
    ];
    const summary = await harness.runCrawl({ crawlId, seeds, config: POLICY_CONFIG });
    expect(summary.state).toBe('finished');
    log = [...web.log()];
  });

  afterAll(async () => {
    await harness?.close();
    await Promise.all([web?.close(), refused?.close(), reset?.close(), tls?.close()]);
  });

  it('404 and 410: one request each, never retried, NotFound with a tombstone recheck on the URL record', async () => {
    for (const [path, status] of [
      ['/missing', 404],
      ['/gone', 410],
    ] as const) {
      expect(requestsTo(H.notFound, path)).toHaveLength(1);
      expect(await outcomeOf(crawlId, url(H.notFound, path))).toMatchObject({ state: 'failed', outcome: 'NotFound', fetchOutcome: 'NotFound', fetchStatus: status, dead: false });
      const record = await harness.pool.query<{ state: string; next_fetch_at: Date }>('SELECT state, next_fetch_at FROM urls WHERE url = $1', [url(H.notFound, path)]);
      expect(record.rows[0]!.state).toBe('gone');
      const recheckInMs = record.rows[0]!.next_fetch_at.getTime() - Date.now();
      expect(recheckInMs).toBeGreaterThan(NOT_FOUND_RECHECK_MS - 3_600_000);
      expect(recheckInMs).toBeLessThanOrEqual(NOT_FOUND_RECHECK_MS);
    }
  });

  it('408: retried by the activity to 3 attempts, each at least the host delay apart, then RequestTimeout', async () => {
    const requests = requestsTo(H.requestTimeout, '/r408');
    expect(requests).toHaveLength(FAILURE_POLICIES.RequestTimeout.maxAttempts);
    for (const gap of gapsMs(requests)) expect(gap).toBeGreaterThanOrEqual(MIN_DELAY_MS);
    expect(await outcomeOf(crawlId, url(H.requestTimeout, '/r408'))).toMatchObject({ state: 'failed', outcome: 'RequestTimeout', fetchStatus: 408, attempts: 3, dead: false });
  });

  it.each([
    ['FirstByteTimeout', H.firstByteTimeout, '/slow-head'],
    ['BodyTimeout', H.bodyTimeout, '/stall'],
  ] as const)('%s: the connection is cut at its deadline, retried to 3 attempts with backoff, then recorded', async (type, host, path) => {
    const requests = requestsTo(host, path);
    expect(requests).toHaveLength(FAILURE_POLICIES[type].maxAttempts);
    expect(requests.every((entry) => entry.aborted)).toBe(true);
    for (const gap of gapsMs(requests)) expect(gap).toBeGreaterThanOrEqual(MIN_DELAY_MS);
    expect(await outcomeOf(crawlId, url(host, path))).toMatchObject({ state: 'failed', outcome: type, fetchOutcome: type, dead: false });
    expect((await attemptsOf(url(host, path))).map((row) => row.failure_type)).toEqual([type, type, type]);
  });

  it('429: Retry-After holds the whole host, then the URL is fetched', async () => {
    const all = requestsTo(H.tooManyRequests);
    const throttled = all.filter((entry) => entry.status === 429);
    expect(throttled).toHaveLength(1);
    const next = all.find((entry) => entry.startedAtMs > throttled[0]!.startedAtMs);
    expect(next).toBeDefined();
    expect(next!.startedAtMs - throttled[0]!.finishedAtMs).toBeGreaterThanOrEqual(2000);
    expect(await outcomeOf(crawlId, url(H.tooManyRequests, '/a'))).toMatchObject({ state: 'done', outcome: 'ok' });
    expect(await outcomeOf(crawlId, url(H.tooManyRequests, '/b'))).toMatchObject({ state: 'done', outcome: 'ok' });
  });

  it('500/502/504: 3 attempts each, then ServerError; five in a row open the circuit, and a failed probe reopens it for longer', async () => {
    for (const [path, status] of [
      ['/e500', 500],
      ['/e502', 502],
      ['/e504', 504],
    ] as const) {
      expect(requestsTo(H.serverErrors, path)).toHaveLength(FAILURE_POLICIES.ServerError.maxAttempts);
      expect(await outcomeOf(crawlId, url(H.serverErrors, path))).toMatchObject({ state: 'failed', outcome: 'ServerError', fetchStatus: status, dead: false });
    }
    const requests = requestsTo(H.serverErrors);
    expect(requests).toHaveLength(9);
    const gaps = gapsMs(requests);
    // Gap i follows request i+1: the 5th consecutive failure opens the circuit for the cooldown,
    // the failed half-open probe (6th) for twice as long (the cap here). Nothing else waits that
    // long: a URL's backoff, 10 s * scale * 2^(n-1) * jitter, is at most 1.5 s, the adaptive penalty 1 s.
    expect(Math.max(...gaps.slice(0, 4))).toBeLessThan(CIRCUIT_COOLDOWN_MS);
    expect(gaps[4]).toBeGreaterThanOrEqual(CIRCUIT_COOLDOWN_MS);
    expect(gaps[5]).toBeGreaterThanOrEqual(2 * CIRCUIT_COOLDOWN_MS);
    // The breaker's state outlives the run (saved with the host when its workflow ends).
    const saved = await waitFor(async () => {
      const row = await harness.pool.query<{ politeness: { consecutiveFailures: number; circuitOpenings: number } | null; workflow_active: boolean }>(
        'SELECT politeness, workflow_active FROM hosts WHERE host = $1',
        [H.serverErrors],
      );
      return row.rows[0]?.workflow_active === false ? row.rows[0].politeness : undefined;
    });
    expect(saved).toMatchObject({ consecutiveFailures: 9 });
    expect(saved!.circuitOpenings).toBeGreaterThanOrEqual(2);
  });

  it('503: limited host-level retries (4 attempts), each after a host-wide throttle that grows, then ServiceUnavailable', async () => {
    const requests = requestsTo(H.unavailable, '/u');
    expect(requests).toHaveLength(FAILURE_POLICIES.ServiceUnavailable.maxAttempts);
    gapsMs(requests).forEach((gap, i) => {
      // min(base * 2^(n-1), max) * jitter(0.5..1.5), n = throttles so far.
      expect(gap).toBeGreaterThanOrEqual(Math.min(THROTTLE_BASE_DELAY_MS * 2 ** i, 4 * THROTTLE_BASE_DELAY_MS) * 0.5);
    });
    expect(await outcomeOf(crawlId, url(H.unavailable, '/u'))).toMatchObject({ state: 'failed', outcome: 'ServiceUnavailable', fetchStatus: 503, dead: false });
  });

  it('connection refused and connection reset: ConnectionFailed, retried by the activity to 3 attempts, then recorded', async () => {
    expect(refused.requests).toEqual(['/robots.txt']);
    expect(reset.requests).toEqual(['/robots.txt', '/page', '/page', '/page']);
    for (const pageUrl of [`http://${H.refused}:${refused.port}/page`, `http://${H.reset}:${reset.port}/page`]) {
      expect(await outcomeOf(crawlId, pageUrl)).toMatchObject({ state: 'failed', outcome: 'ConnectionFailed', fetchOutcome: 'ConnectionFailed', dead: false });
      const attempts = await attemptsOf(pageUrl);
      expect(attempts.map((row) => row.failure_type)).toEqual(['ConnectionFailed', 'ConnectionFailed', 'ConnectionFailed']);
      for (let i = 1; i < attempts.length; i += 1) {
        expect(attempts[i]!.at.getTime() - attempts[i - 1]!.at.getTime()).toBeGreaterThanOrEqual(MIN_DELAY_MS - 50);
      }
    }
  });

  it('a self-signed certificate: the host is quarantined after one handshake, never bypassed, and its URLs fail as TlsCertificateError', async () => {
    expect(tls.requests).toEqual([]);
    expect(tls.handshakeFailures()).toBe(1);
    for (const path of ['/', '/two']) {
      expect(await outcomeOf(crawlId, `https://${H.tls}:${tls.port}${path}`)).toMatchObject({ state: 'failed', outcome: 'TlsCertificateError', dead: false });
    }
  });

  it('body and decoding limits, unsupported types: one request each, never retried, the typed failure recorded', async () => {
    for (const [path, type] of [
      ['/big', 'BodyTooLarge'],
      ['/bomb', 'DecompressedTooLarge'],
      ['/bin', 'UnsupportedContentType'],
    ] as const) {
      expect(requestsTo(H.limits, path)).toHaveLength(1);
      expect(FAILURE_POLICIES[type].retryLayer).toBe('none');
      expect(await outcomeOf(crawlId, url(H.limits, path))).toMatchObject({ state: 'failed', outcome: type, fetchOutcome: type, dead: false });
    }
    const [big] = requestsTo(H.limits, '/big');
    expect(big!.aborted).toBe(true);
    expect(big!.bytesSent).toBeLessThan(128 * MIB);
  });

  it('a redirect loop: each hop fetched once, the loop recorded as RedirectLoop', async () => {
    expect(requestsTo(H.redirects, '/loop-a')).toHaveLength(1);
    expect(requestsTo(H.redirects, '/loop-b')).toHaveLength(1);
    expect(await outcomeOf(crawlId, url(H.redirects, '/loop-b'))).toMatchObject({ state: 'failed', outcome: 'RedirectLoop', fetchOutcome: 'RedirectLoop', dead: false });
  });

  it('politeness holds throughout: no two requests to one host closer than the delay, never two at once', () => {
    const report = politenessReport(log, MIN_DELAY_MS);
    expect(report.overlaps).toEqual([]);
    expect(report.violations).toEqual([]);
  });

  it('a second crawl refetches a known URL conditionally (If-None-Match, If-Modified-Since)', async () => {
    const first = requestsTo(H.conditional, '/validated');
    expect(first).toHaveLength(1);
    expect(first[0]!.ifNoneMatch).toBeUndefined();
    const before = web.log().length;
    const summary = await harness.runCrawl({ crawlId: `${crawlId}-again`, seeds: [url(H.conditional, '/validated')], config: { ...POLICY_CONFIG, maxDepth: 0 } });
    expect(summary.state).toBe('finished');
    const again = web.log().slice(before).filter((entry) => entry.path === '/validated');
    expect(again).toHaveLength(1);
    expect(again[0]!.ifNoneMatch).toBe('"v1"');
    expect(again[0]!.ifModifiedSince).toBe('Wed, 01 Jan 2025 00:00:00 GMT');
  });

  it('NXDOMAIN and a private address: the host is held for 24 h after one try, its URLs fail fast, and the hold outlives the workflow run', async () => {
    const dnsCrawl = `${crawlId}-dns`;
    const nowhere = 'nothing-here.invalid';
    const privateSeeds = [url(H.privateNetwork, '/one'), url(H.privateNetwork, '/two')];
    const before = web.log().length;
    const summary = await harness.runCrawl({
      crawlId: dnsCrawl,
      seeds: [`http://${nowhere}/one`, `http://${nowhere}/two`, ...privateSeeds],
      config: { ...POLICY_CONFIG, maxDepth: 0, allowPrivateNetworks: false },
    });
    expect(summary.state).toBe('finished');
    expect(web.log().slice(before).filter((entry) => entry.host === H.privateNetwork)).toEqual([]);
    for (const pageUrl of [`http://${nowhere}/one`, `http://${nowhere}/two`]) {
      expect(await outcomeOf(dnsCrawl, pageUrl)).toMatchObject({ state: 'failed', outcome: 'DnsNotFound', dead: false });
    }
    for (const pageUrl of privateSeeds) expect(await outcomeOf(dnsCrawl, pageUrl)).toMatchObject({ state: 'failed', outcome: 'PrivateNetworkRefused', dead: false });
    // The fetch activity never ran for them: the robots.txt attempt set the hold, the URLs failed on it.
    for (const pageUrl of [`http://${nowhere}/one`, ...privateSeeds]) {
      expect((await attemptsOf(pageUrl)).every((row) => row.attempt_key.endsWith('/settled'))).toBe(true);
    }
    // Saved with the host when its workflow ends: the next run keeps the negative cache.
    const hold = await waitFor(async () => {
      const row = await harness.pool.query<{ politeness: { holdReason?: string; holdUntilMs: number } | null; workflow_active: boolean }>(
        'SELECT politeness, workflow_active FROM hosts WHERE host = $1',
        [nowhere],
      );
      return row.rows[0]?.workflow_active === false ? row.rows[0].politeness : undefined;
    });
    expect(hold?.holdReason).toBe('DnsNotFound');
    expect(hold!.holdUntilMs - Date.now()).toBeGreaterThan(HOST_HOLD_RECHECK_MS - 600_000);
  });

  it('more than one slot per host: at most that many requests at once, and starts still spaced by the delay', async () => {
    // Without the Mercator factor: with it, starts 10x the response time apart never overlap.
    const before = web.log().length;
    const seeds = ['/c1', '/c2', '/c3', '/c4', '/c5', '/c6'].map((path) => url(H.concurrent, path));
    const summary = await harness.runCrawl({
      crawlId: `${crawlId}-concurrent`,
      seeds,
      config: { ...POLICY_CONFIG, maxDepth: 0, maxConcurrentFetchesPerHost: 2, politeness: { ...POLICY_CONFIG.politeness, adaptiveFactor: 0 } },
    });
    expect(summary.state).toBe('finished');
    const requests = web.log().slice(before).filter((entry) => entry.host === H.concurrent).sort((a, b) => a.startedAtMs - b.startedAtMs);
    expect(requests.filter((entry) => entry.path !== '/robots.txt')).toHaveLength(6);
    let maxAtOnce = 0;
    for (const entry of requests) {
      maxAtOnce = Math.max(maxAtOnce, requests.filter((other) => other.startedAtMs <= entry.startedAtMs && other.finishedAtMs > entry.startedAtMs).length);
    }
    expect(maxAtOnce).toBeLessThanOrEqual(2);
    expect(maxAtOnce).toBe(2);
    // Starts are spaced on the workflow's clock when it schedules them; the time an activity takes
    // to be picked up varies, so two arrivals can come a little closer than that (docs/politeness.md).
    expect(politenessReport(requests, MIN_DELAY_MS, { measure: 'start-to-start', toleranceMs: START_JITTER_TOLERANCE_MS }).violations).toEqual([]);
  });
});

async function waitFor<T>(probe: () => Promise<T | undefined>, timeoutMs = 20_000): Promise<T | undefined> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined || Date.now() > deadline) return value;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}
