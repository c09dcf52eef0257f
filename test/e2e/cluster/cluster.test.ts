// The production topology, proven: Temporal as a real server (test/support/temporal-cluster.ts:
// the release docker-compose.yml runs, Postgres persistence and SQL visibility set up by the
// server's own schema tool, the compose file's dynamic config, frontend, history, matching and
// worker in processes of their own), the crawler's search attributes created by the command the
// compose file's setup service runs, three `crawler worker` processes started as the compose file
// starts its workers, and `crawler crawl --no-worker` over a 200-host web. One worker is killed
// mid-crawl. The crawl completes with every page fetched, none twice but those the killed worker
// had in flight, every host's delay held; `crawler status`, `crawler replay --query` and the
// Temporal UI's searches (README) work against the server.
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import type { Client, Connection } from '@temporalio/client';
import { generateWeb, politenessReport, startTestWeb, type TestWeb } from '../../support/test-web/index.js';
import { freshBucket, freshDatabase } from '../../support/stack-context.js';
import { runCrawlerCli } from '../../support/crawler-process.js';
import { waitFor } from '../../support/wait-for.js';
import { createPool, type Pool } from '../../../src/storage/postgres/pool.js';
import { crawlWorkflowId, hostWorkflowId } from '../../../src/contracts/messages.js';
import { clusterCrawlerEnv, clusterSetupEnv, composeCommand, readComposeFile, runToExit, startTemporalCluster, type TemporalCluster } from '../../support/temporal-cluster.js';
import { connectClusterClient, historyEventsMatching, runClusterCrawl, workflowIdsMatching, type ClusterCrawlResult } from '../../support/cluster-crawl.js';

const DELAY_MS = 250;
const generated = generateWeb({ hosts: 200, pagesPerHost: 4, linksPerPage: 3, crossHostLinkRatio: 0.2, seed: 52, base: '127.150.0.1', seedHosts: 200 });
const crawlId = 'cluster-200-hosts';

describe('the crawler on a real Temporal server: three workers, one killed mid-crawl', () => {
  const stack = inject('stack');
  const dir = path.join(inject('stackDataDir'), 'temporal-cluster');
  let cluster: TemporalCluster;
  let web: TestWeb;
  let pool: Pool;
  let client: Client;
  let connection: Connection;
  let crawlerEnv: Record<string, string>;
  let setup: { code: number; stdout: string; stderr: string };
  let result: ClusterCrawlResult;
  const dataDir = path.join(dir, 'crawler');
  const harnessLike = () => ({ dataDir, childEnv: { ...process.env, ...crawlerEnv } }) as Parameters<typeof runCrawlerCli>[0];

  beforeAll(async () => {
    const postgresUrl = new URL(stack.postgres.url);
    const startedAtMs = Date.now();
    cluster = await startTemporalCluster({
      dir,
      postgres: { host: '127.0.0.1', port: Number(postgresUrl.port), user: decodeURIComponent(postgresUrl.username), password: decodeURIComponent(postgresUrl.password) },
      log: (line) => console.log(`[cluster] ${line}`),
    });
    const [adminDatabaseUrl, s3] = await Promise.all([freshDatabase('cluster'), freshBucket('cluster')]);
    // The crawler's own role, as the compose file's workers connect: the setup below makes it.
    const databaseUrl = new URL(adminDatabaseUrl);
    databaseUrl.username = `crawler_cluster_${randomBytes(4).toString('hex')}`;
    databaseUrl.password = randomBytes(16).toString('hex');
    const compose = readComposeFile();
    crawlerEnv = clusterCrawlerEnv(compose, {
      temporalAddress: cluster.address,
      databaseUrl: databaseUrl.toString(),
      s3: { endpoint: `http://${s3.endPoint}:${s3.port}`, accessKey: s3.accessKey, secretKey: s3.secretKey, bucket: s3.bucket, region: s3.region },
    });
    // The compose file's one-shot setup: makes the crawler's Postgres role over the administrator's
    // connection, waits for the services, creates our search attributes through the operator API
    // and the bucket.
    const setupEnv = { ...process.env, ...clusterSetupEnv(compose, crawlerEnv, stack.postgres.url) };
    setup = await runToExit(composeCommand(compose, 'crawler-setup'), setupEnv);
    if (setup.code !== 0) throw new Error(`the compose setup command failed: ${setup.stderr}`);
    console.log(`[cluster] Temporal serving and set up after ${((Date.now() - startedAtMs) / 1000).toFixed(1)} s`);
    pool = createPool({ connectionString: crawlerEnv['DATABASE_URL']!, maxConnections: 3 });
    ({ client, connection } = await connectClusterClient(cluster.address));
    web = await startTestWeb(generated.spec);
    result = await runClusterCrawl({
      dir,
      dataDir,
      crawlId,
      generated,
      web,
      crawlerEnv,
      workers: 3,
      minHostDelayMs: DELAY_MS,
      killWorkerAtShare: 0.3,
      temporalCpuSeconds: () => cluster.cpuSeconds(),
      log: (line) => console.log(`[cluster] ${line}`),
    });
    const pages = result.summary.pagesFetched;
    const events = await historyEventsMatching(client, `CrawlIds = '${crawlId}' OR CrawlId = '${crawlId}'`);
    console.log(
      `[cluster] ${pages} pages of ${generated.hosts.length} hosts in ${result.seconds.toFixed(1)} s, a worker killed; ` +
        `${events.runs} runs, ${(events.events / pages).toFixed(1)} history events/page; Temporal CPU ${((result.temporalCpuSeconds * 1000) / pages).toFixed(1)} ms/page`,
    );
    // Four server processes, their schemas, three workers and a 200-host crawl: minutes on a loaded 2-core machine.
  }, 900_000);

  afterAll(async () => {
    await result?.stopWorkers();
    await connection?.close();
    await pool?.end();
    await web?.close();
    await cluster?.stop();
  });

  it('creates the search attributes with the compose file’s setup command', () => {
    expect(setup.stdout).toContain('registered search attributes CrawlId, CrawlHost, CrawlState, CrawlIds');
  });

  it("runs the workers as the crawler's own Postgres role, which the setup made without superuser, role or database rights", async () => {
    expect(setup.stdout).toMatch(/Postgres role crawler_cluster_[0-9a-f]+ created \(no superuser, role or database rights\)/);
    const { rows } = await pool.query<{ rolsuper: boolean; rolcreaterole: boolean; rolcreatedb: boolean }>('SELECT rolsuper, rolcreaterole, rolcreatedb FROM pg_roles WHERE rolname = current_user');
    expect(rows[0]).toEqual({ rolsuper: false, rolcreaterole: false, rolcreatedb: false });
  });

  it('spreads the crawl over the three workers', () => {
    for (const pid of result.workerPids) expect(result.pollerIdentities.some((identity) => identity.endsWith(`/${pid}`))).toBe(true);
  });

  it('completes the crawl: every reachable page fetched, no fetch recorded twice, nothing left open', async () => {
    expect(result.crawlExitCode).toBe(0);
    expect(result.summary.state).toBe('finished');
    const fetched = await pool.query<{ url: string; n: number }>(`SELECT url, count(*)::int AS n FROM fetches WHERE crawl_id = $1 AND outcome = 'ok' GROUP BY url`, [crawlId]);
    expect(new Set(fetched.rows.map((row) => row.url))).toEqual(generated.expectedReachable(web.port));
    expect(fetched.rows.filter((row) => row.n > 1)).toEqual([]);
    const open = await pool.query(`SELECT 1 FROM frontier WHERE crawl_id = $1 AND state IN ('queued', 'dispatched', 'fetched')`, [crawlId]);
    expect(open.rowCount).toBe(0);
  });

  it('requests no page twice but those the killed worker had in flight, and never a disallowed one', async () => {
    const pages = web.log().filter((entry) => entry.path !== '/robots.txt');
    const requests = new Map<string, { host: string; starts: number[] }>();
    for (const entry of pages) {
      const page = `${entry.host}${entry.path}`;
      requests.set(page, { host: entry.host, starts: [...(requests.get(page)?.starts ?? []), entry.startedAtMs] });
    }
    const twice = [...requests].filter(([, { starts }]) => starts.length > 1);
    // The killed worker's own requests are those that started before it was seen gone: the kill
    // takes effect a moment after it is sent, and a request can start in between.
    const straddling = twice.filter(([, { starts }]) => Math.min(...starts) < result.deadAtMs! && Math.max(...starts) > result.deadAtMs!);
    console.log(`[cluster] ${twice.length} pages requested twice, ${straddling.length} of them first before the kill and again after it`);
    // Requested again only after the kill, first while the killed worker held it. Any other page
    // fetched twice names what its host run's history shows: a workflow task that timed out
    // (a worker starved of CPU past the task's timeout) runs its local burst again elsewhere.
    for (const [page, { host, starts }] of twice) {
      let why = '';
      if (!straddling.some(([other]) => other === page)) {
        let timedOut = 0;
        for await (const execution of client.workflow.list({ query: `WorkflowId = '${hostWorkflowId(host)}'` })) {
          const history = await client.workflow.getHandle(execution.workflowId, execution.runId).fetchHistory();
          timedOut += (history.events ?? []).filter((event) => event.workflowTaskTimedOutEventAttributes).length;
        }
        why = `; requested at ${starts.map((ms) => ms - result.killAtMs!).join(' and ')} ms from the kill, its host's runs had ${timedOut} workflow task timeouts`;
      }
      expect(starts, `${page}${why}`).toHaveLength(2);
      expect(Math.min(...starts), `${page}${why}`).toBeLessThan(result.deadAtMs!);
      expect(Math.max(...starts), `${page}${why}`).toBeGreaterThan(result.deadAtMs!);
    }
    const disallowed = generated.disallowed(web.port);
    expect(pages.filter((entry) => disallowed.has(`http://${entry.host}:${web.port}${entry.path}`))).toEqual([]);
  });

  it('holds every host’s delay, the killed worker’s requests and their retries included', () => {
    const report = politenessReport(web.log(), DELAY_MS);
    expect(report.violations).toEqual([]);
    expect(report.overlaps).toEqual([]);
  });

  it('answers the Temporal UI’s searches: the crawl by id and state, its hosts, the running host queues', async () => {
    expect(result.searchesWhileRunning[`CrawlId = '${crawlId}' AND CrawlState = 'running'`]).toEqual([crawlWorkflowId(crawlId)]);
    expect(result.searchesWhileRunning[`WorkflowType = 'hostWorkflow' AND ExecutionStatus = 'Running'`]?.length).toBeGreaterThan(0);
    // SQL visibility is written after the runs close, by the history service's queue.
    const search = (query: string, accept: (ids: string[]) => boolean) => waitFor(() => workflowIdsMatching(client, query), accept, { timeoutMs: 30_000, what: query });
    expect(await search(`CrawlId = '${crawlId}'`, (ids) => ids.length > 0)).toEqual([crawlWorkflowId(crawlId)]);
    expect(await search(`CrawlState = 'finished'`, (ids) => ids.length > 0)).toEqual([crawlWorkflowId(crawlId)]);
    const hosts = generated.hosts.map((host) => hostWorkflowId(host)).sort();
    expect(await search(`CrawlIds = '${crawlId}'`, (ids) => ids.length >= hosts.length)).toEqual(hosts);
    expect(await search(`CrawlHost = '${generated.hosts[0]}'`, (ids) => ids.length > 0)).toEqual([hosts.find((id) => id === hostWorkflowId(generated.hosts[0]!))]);
  });

  it('serves `crawler status` for the crawl and for a host', async () => {
    const crawlStatus = await runCrawlerCli(harnessLike(), ['status', '--crawl', crawlId, '--json']);
    expect(crawlStatus.code, crawlStatus.stderr).toBe(0);
    const figures = JSON.parse(crawlStatus.stdout) as { state: string; counts: { fetched: number } };
    expect(figures.state).toBe('finished');
    expect(figures.counts.fetched).toBe(result.summary.pagesFetched);
    const hostStatus = await runCrawlerCli(harnessLike(), ['status', '--host', generated.hosts[0]!, '--json']);
    expect(hostStatus.code, hostStatus.stderr).toBe(0);
    expect(JSON.parse(hostStatus.stdout)).toMatchObject({ host: generated.hosts[0] });
  });

  it('replays every host run of the crawl with `crawler replay --query`', async () => {
    const replay = await runCrawlerCli(harnessLike(), ['replay', '--query', `CrawlIds = '${crawlId}'`, '--limit', '1000', '--json']);
    expect(replay.code, replay.stderr).toBe(0);
    const reports = replay.stdout.trim().split('\n').map((line) => JSON.parse(line) as { workflowId: string; ok: boolean });
    expect(new Set(reports.map((report) => report.workflowId)).size).toBe(generated.hosts.length);
    expect(reports.filter((report) => !report.ok)).toEqual([]);
  });
});
