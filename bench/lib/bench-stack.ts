// The benchmark's stack: the project's own (src/stack) under .test-data/bench, with
// pg_stat_statements loaded so the run can say where Postgres spends its time, and a fresh
// database and bucket per crawl so row counts and objects belong to that crawl alone.
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import * as Minio from 'minio';
import pg from 'pg';
import { ensureStack, projectRoot, stackStatus, stopStack, type StackEndpoints, type StackStatus } from '../../src/stack/index.js';

export interface BenchStack {
  endpoints: StackEndpoints;
  dataDir: string;
  status: StackStatus;
  /** Whether pg_stat_statements is loaded (a managed Postgres always; an external one maybe). */
  statementStats: boolean;
  /** True when this run started the services (and so should stop them unless asked to keep them). */
  startedHere: boolean;
}

export function defaultBenchDataDir(): string {
  return join(projectRoot(), '.test-data', 'bench');
}

/** One statement on a connection of its own, closed after. */
export async function adminQuery<T extends pg.QueryResultRow>(url: string, sql: string): Promise<T[]> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query<T>(sql)).rows;
  } finally {
    await client.end();
  }
}

async function preloadsStatements(url: string): Promise<boolean> {
  const rows = await adminQuery<{ shared_preload_libraries: string }>(url, 'SHOW shared_preload_libraries');
  return (rows[0]?.shared_preload_libraries ?? '').includes('pg_stat_statements');
}

export async function prepareBenchStack(options: { dataDir: string; fresh: boolean; log: (line: string) => void }): Promise<BenchStack> {
  if (options.fresh) {
    await stopStack({ dataDir: options.dataDir }).catch(() => undefined);
    rmSync(options.dataDir, { recursive: true, force: true });
  }
  const before = await stackStatus({ dataDir: options.dataDir });
  const startedHere = [before.temporal, before.postgres, before.s3].some((service) => service.state === 'stopped');
  let endpoints = await ensureStack({ dataDir: options.dataDir, log: options.log });
  let statementStats = await preloadsStatements(endpoints.postgres.url);
  if (!statementStats && endpoints.postgres.managed) {
    // A setting of this data folder's own cluster, kept in its postgresql.auto.conf: one restart, once.
    options.log('loading pg_stat_statements into the bench Postgres (one restart of the bench stack)');
    await adminQuery(endpoints.postgres.url, `ALTER SYSTEM SET shared_preload_libraries = 'pg_stat_statements'`);
    await stopStack({ dataDir: options.dataDir });
    endpoints = await ensureStack({ dataDir: options.dataDir, log: options.log });
    statementStats = await preloadsStatements(endpoints.postgres.url);
  }
  if (statementStats && endpoints.postgres.managed) {
    // Planning time is CPU the execution times leave out: near nothing once connections plan once.
    await adminQuery(endpoints.postgres.url, 'ALTER SYSTEM SET pg_stat_statements.track_planning = on');
    await adminQuery(endpoints.postgres.url, 'SELECT pg_reload_conf()');
  }
  return { endpoints, dataDir: options.dataDir, status: await stackStatus({ dataDir: options.dataDir }), statementStats, startedHere };
}

/** A new empty database on the stack's Postgres (with pg_stat_statements' view when loaded). */
export async function freshDatabase(stack: BenchStack, name: string): Promise<string> {
  const database = name.toLowerCase().replace(/[^a-z0-9_]/g, '_').slice(0, 63);
  await adminQuery(stack.endpoints.postgres.url, `CREATE DATABASE "${database}"`);
  const url = new URL(stack.endpoints.postgres.url);
  url.pathname = `/${database}`;
  if (stack.statementStats) await adminQuery(url.toString(), 'CREATE EXTENSION IF NOT EXISTS pg_stat_statements');
  return url.toString();
}

export async function freshBucket(stack: BenchStack, name: string): Promise<StackEndpoints['s3']> {
  const s3 = stack.endpoints.s3;
  const bucket = name.toLowerCase().replace(/[^a-z0-9-]/g, '-').slice(0, 63);
  const client = new Minio.Client({
    endPoint: s3.endPoint,
    port: s3.port,
    useSSL: s3.useSSL,
    accessKey: s3.accessKey,
    secretKey: s3.secretKey,
    region: s3.region,
    pathStyle: true,
  });
  await client.makeBucket(bucket, s3.region);
  return { ...s3, bucket };
}

/** The environment a `crawler` child process needs to use exactly these services. */
export function crawlerEnv(stack: BenchStack, databaseUrl: string, s3: StackEndpoints['s3']): NodeJS.ProcessEnv {
  return {
    ...process.env,
    TEMPORAL_ADDRESS: stack.endpoints.temporal.address,
    TEMPORAL_NAMESPACE: stack.endpoints.temporal.namespace,
    DATABASE_URL: databaseUrl,
    S3_ENDPOINT: `http://${s3.endPoint}:${s3.port}`,
    S3_ACCESS_KEY: s3.accessKey,
    S3_SECRET_KEY: s3.secretKey,
    S3_BUCKET: s3.bucket,
    S3_REGION: s3.region,
  };
}
