// Helpers for integration test files: the run's stack (see global-stack.ts) and per-file
// isolation inside it, so files never see each other's rows, objects or tasks.
import { randomBytes } from 'node:crypto';
import { Client, Connection } from '@temporalio/client';
import * as Minio from 'minio';
import pg from 'pg';
import { inject } from 'vitest';
import type { StackEndpoints } from '../../src/stack/index.js';

export function testStack(): StackEndpoints {
  return inject('stack');
}

function suffix(): string {
  return randomBytes(4).toString('hex');
}

/** `name` reduced to the characters allowed, with a random suffix, within maxLength. */
function uniqueName(name: string, allowed: RegExp, separator: string, maxLength: number): string {
  const tail = `${separator}${suffix()}`;
  const base = name.toLowerCase().replace(allowed, separator).replace(new RegExp(`\\${separator}+`, 'g'), separator);
  return `${base.slice(0, maxLength - tail.length)}${tail}`;
}

/** A new, empty database on the stack's Postgres; returns its URL. Call once per test file. */
export async function freshDatabase(name: string): Promise<string> {
  const { url } = testStack().postgres;
  // Postgres identifiers: at most 63 bytes; kept to [a-z0-9_] so no quoting surprises.
  const database = uniqueName(`t_${name}`, /[^a-z0-9_]/g, '_', 63);
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query(`CREATE DATABASE "${database}"`);
  } finally {
    await client.end();
  }
  const databaseUrl = new URL(url);
  databaseUrl.pathname = `/${database}`;
  return databaseUrl.toString();
}

/** A new, empty bucket on the stack's MinIO; returns the S3 settings with that bucket. */
export async function freshBucket(name: string): Promise<StackEndpoints['s3']> {
  const s3 = testStack().s3;
  // S3 bucket names: 3-63 characters of [a-z0-9-], starting with a letter or digit.
  const bucket = uniqueName(`t-${name}`, /[^a-z0-9-]/g, '-', 63);
  await s3ClientFor(s3).makeBucket(bucket, s3.region);
  return { ...s3, bucket };
}

/** A task queue no other test file uses, so workers of different files never steal tasks. */
export function uniqueTaskQueue(name: string): string {
  return `${name}-${process.pid}-${suffix()}`;
}

export function s3ClientFor(s3: StackEndpoints['s3']): Minio.Client {
  return new Minio.Client({
    endPoint: s3.endPoint,
    port: s3.port,
    useSSL: s3.useSSL,
    accessKey: s3.accessKey,
    secretKey: s3.secretKey,
    region: s3.region,
    pathStyle: true,
  });
}

/** A Temporal client on the stack's dev server; close the connection in afterAll. */
export async function temporalClient(): Promise<{ client: Client; connection: Connection }> {
  const { address, namespace } = testStack().temporal;
  const connection = await Connection.connect({ address });
  return { client: new Client({ connection, namespace }), connection };
}
