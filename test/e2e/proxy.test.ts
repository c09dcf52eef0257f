// Crawling through a real proxy nobody here wrote (tinyproxy, with Basic credentials and its own
// exit address): `crawler crawl --proxy` covers the web with the worker's credentials and stays
// polite, the proxy carries every request, the credentials show up in no log, status or export,
// and a proxy that dies or refuses mid-crawl gives ProxyFailed, charged to no host, until it is
// back and the crawl carries on; a target the live proxy cannot reach is the host's failure.
import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { gunzipSync } from 'node:zlib';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { resolveCrawlConfig } from '../../src/config/crawl-config.js';
import type { CrawlSummary } from '../../src/contracts/status.js';
import { ProxyCredentials } from '../../src/http/index.js';
import { findFreePorts } from '../../src/stack/free-port.js';
import { saveRobotsEntry } from '../../src/storage/postgres/robots-repository.js';
import { createHarness, type Harness } from '../support/crawler-harness.js';
import { runCrawlerCli } from '../support/crawler-process.js';
import { politenessReport, startTestWeb, type RequestLogEntry, type TestWeb, type WebSpec } from '../support/test-web/index.js';
import { startTinyproxy, type Tinyproxy } from '../support/tinyproxy.js';
import { waitFor } from '../support/wait-for.js';

const HOSTS = ['127.86.0.1', '127.86.0.2', '127.86.0.3'];
const PAGES_PER_HOST = 10;
const DELAY_MS = 300;
const USER = 'crawler';
const PASSWORD = 'Tr0ub4dor-proxy-pw';
/** tinyproxy connects to the targets from here, so the web's log tells proxied requests apart. */
const EXIT_ADDRESS = '127.0.0.9';

function webSpec(): WebSpec {
  return {
    hosts: HOSTS.map((host) => ({
      host,
      robotsTxt: 'User-agent: *\nAllow: /\n',
      pages: [
        { path: '/', body: `<!doctype html><html><head><title>${host}</title></head><body>${Array.from({ length: PAGES_PER_HOST }, (_, i) => `<a href="/p${i}">p${i}</a>`).join(' ')}</body></html>` },
        ...Array.from({ length: PAGES_PER_HOST }, (_, i) => ({ path: `/p${i}`, body: `<!doctype html><html><head><title>${host} p${i}</title></head><body><p>Page ${i} of ${host}</p></body></html>` })),
      ],
    })),
  };
}

describe('crawling through a proxy (tinyproxy)', () => {
  let harness: Harness;
  let web: TestWeb;
  let proxy: Tinyproxy;
  const pageCount = HOSTS.length * (PAGES_PER_HOST + 1);
  const seeds = (): string[] => HOSTS.map((host) => web.url(host, '/'));
  const secrets = [PASSWORD, Buffer.from(`${USER}:${PASSWORD}`).toString('base64')];
  const expectNoSecret = (text: string, where: string): void => {
    for (const secret of secrets) expect(text.includes(secret), `${where} holds the proxy credentials`).toBe(false);
  };

  beforeAll(async () => {
    web = await startTestWeb(webSpec());
    harness = await createHarness('e2e-proxy');
    proxy = await startTinyproxy({ dir: path.join(harness.dataDir, 'tinyproxy'), basicAuth: { user: USER, password: PASSWORD }, bindAddress: EXIT_ADDRESS });
  });

  afterAll(async () => {
    await harness?.close();
    await proxy?.stop();
    await web?.close();
  });

  describe('`crawler crawl --proxy` with the credentials in its environment', () => {
    const crawlId = 'proxy-cli';
    let summary: CrawlSummary;
    let output = '';
    let log: RequestLogEntry[];

    beforeAll(async () => {
      web.clearLog();
      const args = ['bin/crawler.js', 'crawl', ...seeds(), '--crawl-id', crawlId, '--max-depth', '1', '--min-host-delay-ms', String(DELAY_MS), '--sitemaps', 'declared'];
      args.push('--allow-private-networks', '--proxy', proxy.url, '--task-queue', harness.taskQueue, '--data-dir', harness.dataDir, '--json');
      const child = spawn('node', args, { env: { ...harness.childEnv, CRAWLER_PROXY_CREDENTIALS: `${USER}:${PASSWORD}` }, stdio: ['ignore', 'pipe', 'pipe'] });
      let stdout = '';
      let stderr = '';
      child.stdout!.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
      child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
      const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
      output = `${stdout}\n${stderr}`;
      expect(code, stderr).toBe(0);
      summary = JSON.parse(stdout) as CrawlSummary;
      log = [...web.log()];
    });

    it('covers the web, every request carried by the proxy', () => {
      expect(summary.pagesFetched).toBe(pageCount);
      expect(summary.errorsByType).toEqual({});
      const pages = log.filter((entry) => entry.path !== '/robots.txt');
      expect(new Set(pages.map((entry) => `${entry.host}${entry.path}`)).size).toBe(pageCount);
      // Every request the web saw, robots.txt included, came out of the proxy...
      expect(log.filter((entry) => entry.remoteAddress !== EXIT_ADDRESS)).toEqual([]);
      // ...through tunnels the proxy logged, to every host.
      expect(new Set(proxy.connects())).toEqual(new Set(HOSTS.map((host) => `${host}:${web.port}`)));
      console.info(`proxy e2e: ${pages.length} page requests and ${log.length - pages.length} robots.txt through ${proxy.connects().length} CONNECTs; ${pageCount} of ${pageCount} pages`);
    });

    it('stays polite: a host’s rate is the host’s, whatever exits the traffic', () => {
      const report = politenessReport(log, DELAY_MS);
      expect(report.overlaps).toEqual([]);
      expect(report.violations).toEqual([]);
    });

    it('shows the credentials in no log, status, export or record', async () => {
      expectNoSecret(output, 'the crawl’s output');
      const status = await runCrawlerCli(harness, ['status', '--crawl', crawlId, '--json']);
      expect(status.code, status.stderr).toBe(0);
      expect(JSON.parse(status.stdout)).toMatchObject({ crawlId });
      expectNoSecret(status.stdout + status.stderr, 'crawler status');
      const jsonl = await runCrawlerCli(harness, ['export', '--crawl', crawlId]);
      expect(jsonl.stdout.trim().split('\n')).toHaveLength(pageCount);
      expectNoSecret(jsonl.stdout + jsonl.stderr, 'the JSON lines export');
      const warcDir = mkdtempSync(path.join(tmpdir(), 'proxy-warc-'));
      const warc = await runCrawlerCli(harness, ['export', '--crawl', crawlId, '--format', 'warc', '--output', warcDir]);
      expect(warc.code, warc.stderr).toBe(0);
      const files = readdirSync(warcDir);
      expect(files.length).toBeGreaterThan(0);
      for (const file of files) {
        const bytes = readFileSync(path.join(warcDir, file));
        expectNoSecret((file.endsWith('.gz') ? gunzipSync(bytes) : bytes).toString('latin1'), `WARC file ${file}`);
      }
      const stored = await harness.pool.query<{ text: string }>(
        `SELECT concat_ws(' ', (SELECT string_agg(config::text, ' ') FROM crawls),
                              (SELECT string_agg(headers::text || coalesce(request_headers::text, ''), ' ') FROM fetches),
                              (SELECT string_agg(coalesce(message, ''), ' ') FROM attempts)) AS text`,
      );
      expectNoSecret(stored.rows[0]?.text ?? '', 'Postgres');
      // The proxy itself is stored, without its credentials.
      expect(stored.rows[0]?.text).toContain(proxy.url);
    });
  });

  it('gives ProxyFailed while the proxy is dead or refuses our credentials, charges no host, and carries on once it is back', async () => {
    await harness.startWorker({ proxyCredentials: ProxyCredentials.parse(`${USER}:${PASSWORD}`, 'test') });
    const crawlId = 'proxy-outage';
    web.clearLog();
    const { result } = await harness.startCrawl({
      crawlId,
      seeds: seeds(),
      config: {
        maxDepth: 1,
        minHostDelayMs: DELAY_MS,
        proxy: resolveCrawlConfig({ proxy: { urls: [proxy.url], sessionRequests: 100 } }).proxy!,
        // Host-level retries after 2 s, 4 s, 8 s...: the outage below is a few seconds.
        politeness: { retryDelayScale: 0.2 },
      },
    });
    await waitFor(() => web.log().filter((entry) => entry.path !== '/robots.txt').length, (pages) => pages >= 4, { timeoutMs: 60_000, what: 'the crawl to fetch a few pages' });
    await proxy.kill();
    await new Promise((resolve) => setTimeout(resolve, 2_500));
    // Back, but asking for a password the worker does not have: 407 or 401 to every CONNECT.
    await proxy.restart({ basicAuth: { user: USER, password: 'rotated-elsewhere' } });
    await new Promise((resolve) => setTimeout(resolve, 3_000));
    await proxy.restart({ basicAuth: { user: USER, password: PASSWORD } });
    const summary = await result();

    expect(summary.pagesFetched + summary.pagesNotModified).toBe(pageCount);
    const failures = await harness.pool.query<{ message: string }>(`SELECT message FROM attempts WHERE crawl_id = $1 AND failure_type = 'ProxyFailed'`, [crawlId]);
    const messages = failures.rows.map((row) => row.message);
    expect(messages.length).toBeGreaterThan(0);
    expect(messages.some((message) => /refused our credentials \(40[17]\)/.test(message)), messages.join('\n')).toBe(true);
    for (const message of messages) expectNoSecret(message, 'a ProxyFailed message');
    // Not the hosts' fault: no failure streak, no throttle, no open circuit left on any of them.
    const hosts = await harness.pool.query<{ host: string; politeness: { consecutiveFailures: number; recentThrottles: number; circuitOpenings: number } }>(
      'SELECT host, politeness FROM hosts WHERE host = ANY($1::text[])',
      [HOSTS],
    );
    expect(hosts.rows).toHaveLength(HOSTS.length);
    for (const row of hosts.rows) expect(row.politeness, row.host).toMatchObject({ consecutiveFailures: 0, recentThrottles: 0, circuitOpenings: 0 });
    const report = politenessReport(web.log(), DELAY_MS);
    expect(report.overlaps).toEqual([]);
    expect(report.violations).toEqual([]);
    console.info(`proxy outage e2e: ${messages.length} ProxyFailed attempts, ${summary.pagesFetched + summary.pagesNotModified} of ${pageCount} pages`);
    // A CONNECT refused with 407 or 401 cost what crossed: our CONNECT, the proxy's answer.
    const refused = await harness.pool.query<{ sent: string; received: string }>(
      `SELECT sent_bytes AS sent, received_bytes AS received FROM attempts WHERE crawl_id = $1 AND failure_type = 'ProxyFailed' AND message ~ 'refused our credentials'`,
      [crawlId],
    );
    expect(refused.rows.length).toBeGreaterThan(0);
    for (const row of refused.rows) {
      expect(Number(row.sent)).toBeGreaterThan(0);
      expect(Number(row.received)).toBeGreaterThan(0);
    }
  });

  it('takes a target the live proxy cannot reach (tinyproxy’s 500 Unable to connect) for the host’s ConnectionFailed, not ProxyFailed', async () => {
    await harness.stopWorker();
    await harness.startWorker({ proxyCredentials: ProxyCredentials.parse(`${USER}:${PASSWORD}`, 'test') });
    const crawlId = 'proxy-dead-target';
    // Nothing listens there. Its robots.txt is held fresh, so the page itself is asked for.
    const deadHost = '127.86.0.4';
    const origin = `http://${deadHost}:${(await findFreePorts(1))[0]!}`;
    const nowMs = Date.now();
    await saveRobotsEntry(harness.pool, { origin, owner: 'test', entry: { policy: { kind: 'allow-all', reason: 'held fresh by the test' }, fetchedAtMs: nowMs, expiresAtMs: nowMs + 3_600_000 }, sitemaps: [] });
    const summary = await harness.runCrawl({
      crawlId,
      seeds: [`${origin}/`],
      config: { maxDepth: 0, minHostDelayMs: DELAY_MS, proxy: resolveCrawlConfig({ proxy: { urls: [proxy.url], sessionRequests: 100 } }).proxy!, politeness: { retryDelayScale: 0.2 } },
    });
    expect(summary.errorsByType).toEqual({ ConnectionFailed: 1 });
    const attempts = await harness.pool.query<{ failure_type: string; message: string; sent: string; received: string }>(
      'SELECT failure_type, message, sent_bytes AS sent, received_bytes AS received FROM attempts WHERE crawl_id = $1',
      [crawlId],
    );
    expect(attempts.rows.length).toBeGreaterThan(0);
    for (const row of attempts.rows) {
      expect(row.failure_type).toBe('ConnectionFailed');
      expect(row.message).toContain('could not reach the target: its CONNECT was answered 500 "Unable to connect"');
      // Each attempt's CONNECT and the proxy's answer, charged.
      expect(Number(row.sent)).toBeGreaterThan(0);
      expect(Number(row.received)).toBeGreaterThan(0);
    }
    // Charged to the host: its failures count towards its circuit breaker.
    const host = await harness.pool.query<{ politeness: { consecutiveFailures: number } }>('SELECT politeness FROM hosts WHERE host = $1', [deadHost]);
    expect(host.rows[0]?.politeness.consecutiveFailures).toBeGreaterThan(0);
    console.info(`proxy dead-target e2e: ${attempts.rows.length} ConnectionFailed attempts, ${attempts.rows.map((row) => `${row.sent}+${row.received}`).join(', ')} bytes`);
  });
});
