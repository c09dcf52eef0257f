import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import * as Minio from 'minio';
import { request } from 'undici';
import { PRIVATE_UMASK } from './private-files.js';
import { spawnDetached, type DetachedProcess } from './process-supervisor.js';

export interface MinioServerOptions {
  /** Path of the `minio` binary. */
  binary: string;
  /** `<dataDir>/minio`: objects under data/, plus log and pid file. */
  dir: string;
  /** S3 API port on 127.0.0.1. */
  port: number;
  /** Console (web UI) port on 127.0.0.1. */
  consolePort: number;
  /** Root user and password (MINIO_ROOT_USER / MINIO_ROOT_PASSWORD). */
  accessKey: string;
  secretKey: string;
}

export function minioPaths(dir: string): { objectsDir: string; logFile: string; pidFile: string } {
  return { objectsDir: join(dir, 'data'), logFile: join(dir, 'minio.log'), pidFile: join(dir, 'minio.pid') };
}

export function minioArgs(options: MinioServerOptions): string[] {
  return [
    'server',
    minioPaths(options.dir).objectsDir,
    '--address',
    `127.0.0.1:${options.port}`,
    '--console-address',
    `127.0.0.1:${options.consolePort}`,
    '--quiet',
  ];
}

/** Root credentials for a new data folder: MinIO wants a user of 3+ and a password of 8+ characters. */
export function generateMinioCredentials(): { accessKey: string; secretKey: string } {
  return { accessKey: `crawler-${randomBytes(4).toString('hex')}`, secretKey: randomBytes(24).toString('base64url') };
}

export function startMinioServer(options: MinioServerOptions): DetachedProcess {
  const paths = minioPaths(options.dir);
  return spawnDetached({
    command: options.binary,
    args: minioArgs(options),
    cwd: options.dir,
    env: {
      ...process.env,
      MINIO_ROOT_USER: options.accessKey,
      MINIO_ROOT_PASSWORD: options.secretKey,
      // No phoning home for updates: there is no internet beyond package registries here.
      MINIO_UPDATE: 'off',
    },
    logFile: paths.logFile,
    pidFile: paths.pidFile,
    // The stored bodies.
    umask: PRIVATE_UMASK,
  });
}

export interface S3Connection {
  endPoint: string;
  port: number;
  useSSL: boolean;
  accessKey: string;
  secretKey: string;
  region: string;
}

export function s3Client(connection: S3Connection): Minio.Client {
  return new Minio.Client({
    endPoint: connection.endPoint,
    port: connection.port,
    useSSL: connection.useSSL,
    accessKey: connection.accessKey,
    secretKey: connection.secretKey,
    region: connection.region,
    // Path-style: a loopback MinIO has no per-bucket DNS names.
    pathStyle: true,
  });
}

/**
 * Whether MinIO says it is ready to serve (GET /minio/health/ready, 200). A starting MinIO answers
 * requests with 503 until then; asked for a bucket, the object store client retries it and prints
 * a warning of its own, so the stack asks this first.
 */
export async function minioReady(endPoint: string, port: number): Promise<boolean> {
  const response = await request(`http://${endPoint}:${port}/minio/health/ready`, { method: 'GET', headersTimeout: 2_000, bodyTimeout: 2_000 });
  await response.body.dump();
  return response.statusCode === 200;
}

/** Creates the bucket when missing; returns true when it was created. A racing creator is fine. */
export async function ensureBucket(client: Minio.Client, bucket: string, region: string): Promise<boolean> {
  if (await client.bucketExists(bucket)) return false;
  try {
    await client.makeBucket(bucket, region);
    return true;
  } catch (error) {
    const code = (error as { code?: string }).code;
    if (code === 'BucketAlreadyOwnedByYou' || code === 'BucketAlreadyExists') return false;
    throw error;
  }
}
