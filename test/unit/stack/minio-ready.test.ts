// A starting MinIO answers 503 until it is ready; the stack asks its readiness endpoint before the
// bucket, so the object store client never retries (and prints) a 503 of a start-up.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { minioReady } from '../../../src/stack/minio-server.js';

describe('minioReady', () => {
  let server: Server;
  let port: number;
  let ready = false;
  const paths: string[] = [];

  beforeAll(async () => {
    server = createServer((req, res) => {
      paths.push(req.url ?? '');
      res.writeHead(ready ? 200 : 503).end();
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as AddressInfo).port;
  });

  afterAll(async () => {
    await new Promise((resolve) => server.close(resolve));
  });

  it('is false while the server answers 503, true once it answers 200, on /minio/health/ready', async () => {
    expect(await minioReady('127.0.0.1', port)).toBe(false);
    ready = true;
    expect(await minioReady('127.0.0.1', port)).toBe(true);
    expect(paths).toEqual(['/minio/health/ready', '/minio/health/ready']);
  });

  it('throws when nothing listens, which the stack counts as not answering yet', async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const closedPort = (closed.address() as AddressInfo).port;
    await new Promise((resolve) => closed.close(resolve));
    await expect(minioReady('127.0.0.1', closedPort)).rejects.toThrow();
  });
});
