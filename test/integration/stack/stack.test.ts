import { randomBytes } from 'node:crypto';
import { mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Client, Connection } from '@temporalio/client';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import {
  crawlerPgHba,
  initPostgresCluster,
  postgresPaths,
  postgresUrl,
  requirePostgresPassword,
  startPostgresCluster,
} from '../../../src/stack/postgres-cluster.js';
import { findFreePorts } from '../../../src/stack/free-port.js';
import { isProcessAlive, readPidFile, stopProcess } from '../../../src/stack/process-supervisor.js';
import { readStackState, stackStatePath } from '../../../src/stack/stack-state.js';
import { postgresRunAs } from '../../../src/stack/system-user.js';
import { requirePostgresBinDir } from '../../../src/stack/tool-paths.js';
import { ensureStack, stackStatus, StackError, stopStack, type StackEndpoints } from '../../../src/stack/index.js';
import { testDataRoot, withoutExternalServices } from '../../support/global-stack.js';
import { waitFor } from '../../support/wait-for.js';
import { freshBucket, freshDatabase, s3ClientFor, testStack, uniqueTaskQueue } from '../../support/stack-context.js';

const keywordType = 2; // temporal.api.enums.v1.IndexedValueType.INDEXED_VALUE_TYPE_KEYWORD
const keywordListType = 7; // INDEXED_VALUE_TYPE_KEYWORD_LIST

async function query<T extends pg.QueryResultRow>(url: string, sql: string, params: unknown[] = []): Promise<T[]> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query<T>(sql, params)).rows;
  } finally {
    await client.end();
  }
}

async function withTemporal<T>(temporal: StackEndpoints['temporal'], fn: (client: Client, connection: Connection) => Promise<T>): Promise<T> {
  const connection = await Connection.connect({ address: temporal.address });
  try {
    return await fn(new Client({ connection, namespace: temporal.namespace }), connection);
  } finally {
    await connection.close();
  }
}

async function readObject(s3: StackEndpoints['s3'], key: string): Promise<Buffer> {
  const stream = await s3ClientFor(s3).getObject(s3.bucket, key);
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

/** How connecting as `url` ends: 'connected', or the error's SQLSTATE (28P01: wrong password) or message. */
async function connectOutcome(url: string | pg.ClientConfig): Promise<string> {
  const client = new pg.Client(typeof url === 'string' ? { connectionString: url, connectionTimeoutMillis: 5_000 } : url);
  try {
    await client.connect();
    await client.query('SELECT 1');
    return 'connected';
  } catch (error) {
    return (error as { code?: string }).code ?? (error as Error).message;
  } finally {
    await client.end().catch(() => undefined);
  }
}

function withPassword(url: string, password: string): string {
  const parsed = new URL(url);
  parsed.password = password;
  return parsed.toString();
}

// A stopped child of this worker may linger as a zombie until reaped: that counts as gone.
const isAlive = (pid: number | undefined) => pid !== undefined && isProcessAlive(pid);

describe('the test stack', () => {
  const stack = testStack();

  it('serves Temporal with the crawler search attributes registered', async () => {
    expect(stack.temporal.managed).toBe(true);
    expect(stack.temporal.uiUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    const attributes = await withTemporal(stack.temporal, async (_client, connection) =>
      connection.operatorService.listSearchAttributes({ namespace: stack.temporal.namespace }),
    );
    for (const name of ['CrawlId', 'CrawlHost', 'CrawlState']) expect(attributes.customAttributes?.[name]).toBe(keywordType);
    expect(attributes.customAttributes?.['CrawlIds']).toBe(keywordListType);
  });

  it('serves the Temporal UI', async () => {
    const response = await fetch(stack.temporal.uiUrl!);
    expect(response.status).toBe(200);
  });

  it('serves Postgres with the crawler database, and fresh databases per file', async () => {
    const [row] = await query<{ db: string }>(stack.postgres.url, 'SELECT current_database() AS db');
    expect(row?.db).toBe('crawler');
    const url = await freshDatabase('stack test');
    const [fresh] = await query<{ db: string; tables: string }>(
      url,
      "SELECT current_database() AS db, (SELECT count(*) FROM pg_tables WHERE schemaname = 'public') AS tables",
    );
    expect(fresh?.db).toMatch(/^t_stack_test_[0-9a-f]{8}$/);
    expect(Number(fresh?.tables)).toBe(0);
  });

  it('asks Postgres clients for the password kept in stack.json (0600), over TCP and the socket', async () => {
    const dataDir = inject('stackDataDir');
    const password = readStackState(dataDir).postgresPassword;
    expect(password).toMatch(/^[A-Za-z0-9_-]{32}$/);
    expect(statSync(stackStatePath(dataDir)).mode & 0o777).toBe(0o600);
    expect(new URL(stack.postgres.url).password).toBe(password);
    expect(await connectOutcome(stack.postgres.url)).toBe('connected');
    // Without it the server refuses: pg does not even try SCRAM without a password, and a wrong one is 28P01.
    expect(await connectOutcome(withPassword(stack.postgres.url, ''))).not.toBe('connected');
    expect(await connectOutcome(withPassword(stack.postgres.url, 'not-the-password'))).toBe('28P01');
    const { port } = new URL(stack.postgres.url);
    const socket = { host: postgresPaths(join(dataDir, 'postgres')).socketDir, port: Number(port), user: 'crawler', database: 'crawler' };
    expect(await connectOutcome({ ...socket, password: 'not-the-password' })).toBe('28P01');
    expect(await connectOutcome({ ...socket, password })).toBe('connected');
    // Status output never shows it.
    const status = await stackStatus({ dataDir, env: {} });
    expect(status.postgres.endpoint).toBe(`postgres://crawler:***@127.0.0.1:${port}/crawler`);
  });

  it('serves MinIO with the bucket, which round-trips an object', async () => {
    const client = s3ClientFor(stack.s3);
    expect(await client.bucketExists(stack.s3.bucket)).toBe(true);
    const body = randomBytes(70_000);
    await client.putObject(stack.s3.bucket, 'stack-test/object.bin', body);
    expect((await readObject(stack.s3, 'stack-test/object.bin')).equals(body)).toBe(true);
    const fresh = await freshBucket('Stack_Test');
    expect(fresh.bucket).toMatch(/^t-stack-test-[0-9a-f]{8}$/);
    expect(await client.bucketExists(fresh.bucket)).toBe(true);
  });

  it('reuses the running processes when ensureStack is called again', async () => {
    const dataDir = inject('stackDataDir');
    const before = await stackStatus({ dataDir, env: {} });
    const again = await ensureStack({ dataDir, env: withoutExternalServices(process.env) });
    const after = await stackStatus({ dataDir, env: {} });
    expect(again).toEqual(stack);
    for (const service of ['temporal', 'postgres', 's3'] as const) {
      expect(before[service].state).toBe('running');
      expect(after[service].pid).toBe(before[service].pid);
    }
  });

  it('hands out distinct task queues', () => {
    expect(uniqueTaskQueue('crawl')).not.toBe(uniqueTaskQueue('crawl'));
  });
});

describe('a Postgres cluster made when the stack trusted loopback', () => {
  const dir = join(testDataRoot(), `postgres-trust-${process.pid}`, 'postgres');
  let port: number;

  afterAll(async () => {
    const pid = readPidFile(postgresPaths(dir).pidFile);
    if (pid !== undefined) await stopProcess(pid, { signal: 'SIGINT', processGroup: false, expectedProgram: 'postgres' });
    rmSync(join(dir, '..'), { recursive: true, force: true });
  });

  it('is given the password and stops trusting anyone', async () => {
    const binDir = requirePostgresBinDir();
    const runAs = postgresRunAs();
    mkdirSync(join(dir, '..')); // searchable by the postgres user, as a stack's data folder is
    [port = 0] = await findFreePorts(1);
    await initPostgresCluster({ binDir, dir, port, runAs, password: 'the-old-password' });
    // The pg_hba.conf every cluster had before passwords.
    const hbaFile = join(postgresPaths(dir).clusterDir, 'pg_hba.conf');
    writeFileSync(hbaFile, 'local all all trust\nhost all all 127.0.0.1/32 trust\nhost all all ::1/128 trust\n');
    await startPostgresCluster({ binDir, dir, port, runAs });
    expect(await connectOutcome(postgresUrl(port, 'postgres'))).toBe('connected');

    const password = 'the-new-password';
    expect(await requirePostgresPassword({ dir, adminUrl: postgresUrl(port, 'postgres', password), password, runAs })).toBe(true);
    expect(readFileSync(hbaFile, 'utf8')).toBe(crawlerPgHba);
    // pg_reload_conf() only signals the postmaster: the new rules hold a moment later.
    const refused = await waitFor(() => connectOutcome(postgresUrl(port, 'postgres', 'the-old-password')), (outcome) => outcome !== 'connected', { timeoutMs: 5_000 });
    expect(refused).toBe('28P01');
    expect(await connectOutcome(postgresUrl(port, 'postgres', password))).toBe('connected');
    // Once ours, it is left alone.
    expect(await requirePostgresPassword({ dir, adminUrl: postgresUrl(port, 'postgres', password), password, runAs })).toBe(false);
  });
});

describe('external services', () => {
  const stack = testStack();
  const dataDir = join(testDataRoot(), `stack-external-${process.pid}`);
  const externalEnv: NodeJS.ProcessEnv = {
    TEMPORAL_ADDRESS: stack.temporal.address,
    DATABASE_URL: stack.postgres.url,
    S3_ENDPOINT: `http://${stack.s3.endPoint}:${stack.s3.port}`,
    S3_ACCESS_KEY: stack.s3.accessKey,
    S3_SECRET_KEY: stack.s3.secretKey,
    S3_BUCKET: 'external-bucket',
  };

  afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

  it('uses the services the environment names and starts none', async () => {
    const endpoints = await ensureStack({ dataDir, env: externalEnv, searchAttributes: { CrawlExternalProbe: 'Int' } });
    expect(endpoints.temporal).toEqual({ address: stack.temporal.address, namespace: 'default', managed: false });
    expect(endpoints.postgres).toEqual({ url: stack.postgres.url, managed: false });
    expect(endpoints.s3).toMatchObject({ endPoint: stack.s3.endPoint, port: stack.s3.port, bucket: 'external-bucket', managed: false });
    // The bucket is created and the attribute registered through the operator service.
    expect(await s3ClientFor(endpoints.s3).bucketExists('external-bucket')).toBe(true);
    const attributes = await withTemporal(stack.temporal, (_client, connection) =>
      connection.operatorService.listSearchAttributes({ namespace: 'default' }),
    );
    expect(attributes.customAttributes?.CrawlExternalProbe).toBe(3);
    const status = await stackStatus({ dataDir, env: externalEnv });
    expect(status.temporal).toEqual({ state: 'external', endpoint: stack.temporal.address });
    expect(status.postgres.state).toBe('external');
    expect(status.s3.state).toBe('external');
  });

  it('names an unreachable external service and how to fix it', async () => {
    const env = { ...externalEnv, TEMPORAL_ADDRESS: '127.0.0.1:1' };
    const error: unknown = await ensureStack({ dataDir, env, connectTimeoutMs: 500 }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(StackError);
    expect(error).toMatchObject({ code: 'STACK_UNREACHABLE', service: 'temporal' });
    expect((error as StackError).message).toContain('TEMPORAL_ADDRESS');
  });

  it('rejects a malformed environment before starting anything', async () => {
    const error: unknown = await ensureStack({ dataDir, env: { S3_ENDPOINT: 'http://127.0.0.1:9000' } }).catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'STACK_BAD_CONFIG', service: 's3' });
  });
});

describe('a stack stopped and started again', () => {
  // Its own data folder: stopping the shared stack would break every other test file.
  const dataDir = join(testDataRoot(), `stack-restart-${process.pid}`);
  const env = withoutExternalServices(process.env);
  let first: StackEndpoints;

  beforeAll(async () => {
    first = await ensureStack({ dataDir, env });
  });

  afterAll(async () => {
    await stopStack({ dataDir });
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('keeps workflows, rows and objects, and leaves other stacks running', async () => {
    const workflowId = `restart-probe-${randomBytes(4).toString('hex')}`;
    // No worker serves this type: the execution just stays open, which is all we need to see persist.
    await withTemporal(first.temporal, (client) =>
      client.workflow.start('noWorkerServesThis', { workflowId, taskQueue: uniqueTaskQueue('restart'), args: [] }),
    );
    await query(first.postgres.url, 'CREATE TABLE probe (value text)');
    await query(first.postgres.url, "INSERT INTO probe VALUES ('kept')");
    await s3ClientFor(first.s3).putObject(first.s3.bucket, 'probe.txt', Buffer.from('kept'));
    const running = await stackStatus({ dataDir, env });

    await stopStack({ dataDir });
    const stopped = await stackStatus({ dataDir, env });
    for (const service of ['temporal', 'postgres', 's3'] as const) {
      expect(stopped[service].state).toBe('stopped');
      expect(isAlive(running[service].pid)).toBe(false);
    }
    // The shared stack is another data folder: untouched.
    const shared = await stackStatus({ dataDir: inject('stackDataDir'), env: {} });
    expect([shared.temporal.state, shared.postgres.state, shared.s3.state]).toEqual(['running', 'running', 'running']);

    const second = await ensureStack({ dataDir, env });
    const restarted = await stackStatus({ dataDir, env });
    for (const service of ['temporal', 'postgres', 's3'] as const) {
      expect(restarted[service].state).toBe('running');
      expect(restarted[service].pid).not.toBe(running[service].pid);
    }
    expect(second.s3.accessKey).toBe(first.s3.accessKey);

    const listed = await withTemporal(second.temporal, async (client) => {
      const ids: string[] = [];
      for await (const execution of client.workflow.list({ query: `WorkflowId = '${workflowId}'` })) ids.push(execution.workflowId);
      const description = await client.workflow.getHandle(workflowId).describe();
      return { ids, status: description.status.name };
    });
    expect(listed).toEqual({ ids: [workflowId], status: 'RUNNING' });
    expect(await query<{ value: string }>(second.postgres.url, 'SELECT value FROM probe')).toEqual([{ value: 'kept' }]);
    expect((await readObject(second.s3, 'probe.txt')).toString()).toBe('kept');
  });
});
