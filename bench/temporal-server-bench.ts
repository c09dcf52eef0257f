// What Temporal costs per page on a real server against the dev server, on the same web: the
// cluster test's crawl (test/support/cluster-crawl.ts: three `crawler worker` processes started as
// docker-compose.yml starts them, `crawler crawl --no-worker`), once against the project's dev
// server (SQLite, one process) and once against Temporal as a real server (test/support/
// temporal-cluster.ts: the compose file's release, Postgres persistence and SQL visibility, four
// service processes), both on the same Postgres and MinIO. Prints history events per page, the
// Temporal server's CPU per page, Postgres's CPU per page (which on the real server includes
// Temporal's persistence) and pages per second. Figures, never assertions.
//
//   npm run bench:temporal-server [-- --hosts 200 --pages-per-host 4 --workers 3 --delay-ms 250]
import { mkdirSync, rmSync } from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { ensureStack, projectRoot, stackStatus, stopStack, type StackEndpoints } from '../src/stack/index.js';
import { generateWeb, politenessReport, startTestWeb } from '../test/support/test-web/index.js';
import { clusterCrawlerEnv, composeCommand, readComposeFile, runToExit, startTemporalCluster, type TemporalCluster } from '../test/support/temporal-cluster.js';
import { connectClusterClient, historyEventsMatching, runClusterCrawl } from '../test/support/cluster-crawl.js';
import type { Client } from '@temporalio/client';
import { adminQuery } from './lib/bench-stack.js';
import { childrenOf, serviceCpuSeconds } from './lib/child-cpu.js';

const { values } = parseArgs({
  options: {
    hosts: { type: 'string', default: '200' },
    'pages-per-host': { type: 'string', default: '4' },
    workers: { type: 'string', default: '3' },
    'delay-ms': { type: 'string', default: '250' },
  },
});
const hosts = Number(values.hosts);
const pagesPerHost = Number(values['pages-per-host']);
const workers = Number(values.workers);
const delayMs = Number(values['delay-ms']);
const log = (line: string): void => console.log(`[temporal-server bench] ${line}`);

const dataDir = path.join(projectRoot(), '.test-data', 'bench-temporal-server');
await stopStack({ dataDir }).catch(() => undefined);
rmSync(dataDir, { recursive: true, force: true });
mkdirSync(dataDir, { recursive: true });
const stack = await ensureStack({ dataDir, log });
const status = await stackStatus({ dataDir });
const postgresPid = status.postgres.pid;
const postgresCpu = (): number => serviceCpuSeconds(postgresPid, childrenOf(postgresPid));
const generated = generateWeb({ hosts, pagesPerHost, linksPerPage: 3, crossHostLinkRatio: 0.2, seed: 52, base: '127.151.0.1', seedHosts: hosts });

interface Figures {
  server: string;
  pages: number;
  seconds: number;
  runs: number;
  eventsPerPage: number;
  temporalCpuMsPerPage: number;
  postgresCpuMsPerPage: number;
  politenessViolations: number;
  /** History events per page by kind ('workflowTaskCompleted', 'timerFired', ...), the most frequent first. */
  eventsPerPageByKind: Record<string, number>;
}

/** Events of every run `query` lists, counted by kind (the one attributes field an event carries). */
async function eventsByKind(client: Client, query: string): Promise<Record<string, number>> {
  const counts: Record<string, number> = {};
  for await (const execution of client.workflow.list({ query })) {
    const history = await client.workflow.getHandle(execution.workflowId, execution.runId).fetchHistory();
    for (const event of history.events ?? []) {
      const key = Object.keys(event).find((name) => name.endsWith('EventAttributes') && (event as Record<string, unknown>)[name] != null);
      const kind = key?.slice(0, -'EventAttributes'.length) ?? 'unknown';
      counts[kind] = (counts[kind] ?? 0) + 1;
    }
  }
  return counts;
}

async function freshServices(name: string): Promise<{ databaseUrl: string; s3: StackEndpoints['s3'] }> {
  await adminQuery(stack.postgres.url, `CREATE DATABASE "${name}"`);
  const url = new URL(stack.postgres.url);
  url.pathname = `/${name}`;
  const { Client } = await import('minio');
  const s3 = stack.s3;
  await new Client({ endPoint: s3.endPoint, port: s3.port, useSSL: s3.useSSL, accessKey: s3.accessKey, secretKey: s3.secretKey, region: s3.region, pathStyle: true }).makeBucket(
    name.replace(/_/g, '-'),
    s3.region,
  );
  return { databaseUrl: url.toString(), s3: { ...s3, bucket: name.replace(/_/g, '-') } };
}

async function measure(server: 'dev server' | 'real server', temporalAddress: string, temporalCpuSeconds: () => number): Promise<Figures> {
  const name = server === 'dev server' ? 'bench_dev' : 'bench_real';
  const { databaseUrl, s3 } = await freshServices(name);
  const compose = readComposeFile();
  const crawlerEnv = clusterCrawlerEnv(compose, {
    temporalAddress,
    databaseUrl,
    s3: { endpoint: `http://${s3.endPoint}:${s3.port}`, accessKey: s3.accessKey, secretKey: s3.secretKey, bucket: s3.bucket, region: s3.region },
  });
  const setup = await runToExit(composeCommand(compose, 'crawler-setup'), { ...process.env, ...compose.services['crawler-setup']!.environment, ...crawlerEnv });
  if (setup.code !== 0) throw new Error(`setup failed: ${setup.stderr}`);
  const web = await startTestWeb(generated.spec);
  const crawlId = `bench-${name}`;
  const postgresBefore = postgresCpu();
  const result = await runClusterCrawl({
    dir: path.join(dataDir, name),
    dataDir: path.join(dataDir, name, 'crawler'),
    crawlId,
    generated,
    web,
    crawlerEnv,
    workers,
    minHostDelayMs: delayMs,
    temporalCpuSeconds,
    log,
  });
  const postgresSeconds = postgresCpu() - postgresBefore;
  await result.stopWorkers();
  const violations = politenessReport(web.log(), delayMs).violations.length;
  await web.close();
  const { client, connection } = await connectClusterClient(temporalAddress);
  // Visibility catches up with the closed runs: read until two reads agree.
  let events = await historyEventsMatching(client, `CrawlIds = '${crawlId}' OR CrawlId = '${crawlId}'`);
  for (let again = 0; again < 10; again += 1) {
    await new Promise((resolve) => setTimeout(resolve, 2000));
    const next = await historyEventsMatching(client, `CrawlIds = '${crawlId}' OR CrawlId = '${crawlId}'`);
    if (next.events === events.events && next.runs === events.runs) break;
    events = next;
  }
  const kinds = await eventsByKind(client, `CrawlIds = '${crawlId}' OR CrawlId = '${crawlId}'`);
  await connection.close();
  const pages = result.summary.pagesFetched;
  const figures: Figures = {
    server,
    pages,
    seconds: result.seconds,
    runs: events.runs,
    eventsPerPage: events.events / pages,
    temporalCpuMsPerPage: (result.temporalCpuSeconds * 1000) / pages,
    postgresCpuMsPerPage: (postgresSeconds * 1000) / pages,
    politenessViolations: violations,
    eventsPerPageByKind: Object.fromEntries(
      Object.entries(kinds)
        .sort(([, a], [, b]) => b - a)
        .map(([kind, n]) => [kind, Number((n / pages).toFixed(2))]),
    ),
  };
  log(JSON.stringify(figures));
  return figures;
}

const figures: Figures[] = [];
let cluster: TemporalCluster | undefined;
try {
  const devPid = status.temporal.pid;
  figures.push(await measure('dev server', stack.temporal.address, () => serviceCpuSeconds(devPid)));
  const postgresUrl = new URL(stack.postgres.url);
  cluster = await startTemporalCluster({
    dir: path.join(dataDir, 'temporal-cluster'),
    postgres: { host: '127.0.0.1', port: Number(postgresUrl.port), user: decodeURIComponent(postgresUrl.username), password: decodeURIComponent(postgresUrl.password) },
    log,
  });
  const started = cluster;
  figures.push(await measure('real server', started.address, () => started.cpuSeconds()));
} finally {
  await cluster?.stop();
  await stopStack({ dataDir });
}

console.log(`\n${hosts} hosts x ${pagesPerHost} pages, ${workers} workers, ${delayMs} ms delay`);
console.log('server       pages  seconds  pages/s  runs  events/page  Temporal CPU ms/page  Postgres CPU ms/page  politeness violations');
for (const f of figures) {
  console.log(
    `${f.server.padEnd(12)} ${String(f.pages).padStart(5)}  ${f.seconds.toFixed(1).padStart(7)}  ${(f.pages / f.seconds).toFixed(1).padStart(7)}  ${String(f.runs).padStart(4)}  ${f.eventsPerPage.toFixed(2).padStart(11)}  ${f.temporalCpuMsPerPage.toFixed(1).padStart(20)}  ${f.postgresCpuMsPerPage.toFixed(1).padStart(20)}  ${String(f.politenessViolations).padStart(21)}`,
  );
}
for (const f of figures) console.log(`${f.server} events/page by kind: ${Object.entries(f.eventsPerPageByKind).map(([kind, n]) => `${kind} ${n}`).join(', ')}`);
