import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { brotliCompressSync, constants, deflateSync, gzipSync } from 'node:zlib';
import { HttpClient, HttpFetchError } from '../../../src/http/index.js';
import { CountingSink, startHttpServer, streamBytes, type LocalServer } from './support/local-servers.js';

const MIB = 1024 * 1024;
const CHUNK = 64 * 1024;

/** ~1 MiB of gzip that decodes to 1 GiB: 1024 gzip members of 1 MiB of zeros each. */
function gzipBomb(): Buffer {
  const member = gzipSync(Buffer.alloc(MIB));
  return Buffer.concat(new Array<Buffer>(1024).fill(member));
}

async function failureOf(promise: Promise<unknown>): Promise<HttpFetchError> {
  const error = await promise.then(
    () => undefined,
    (reason: unknown) => reason,
  );
  expect(error).toBeInstanceOf(HttpFetchError);
  return error as HttpFetchError;
}

describe('HttpClient body limits', () => {
  let server: LocalServer;
  let client: HttpClient;
  const sent = new Map<string, () => number>();
  const bomb = gzipBomb();
  // Each decodes to 64 MiB; the tests allow 5.
  const brotliBomb = brotliCompressSync(Buffer.alloc(64 * MIB), { params: { [constants.BROTLI_PARAM_QUALITY]: 4 } });
  const deflateBomb = deflateSync(Buffer.alloc(64 * MIB));

  beforeAll(async () => {
    server = await startHttpServer((request, response) => {
      const url = new URL(request.url ?? '/', 'http://x');
      const size = Number(url.searchParams.get('bytes') ?? '0');
      if (url.pathname === '/stream') {
        // Chunked, no Content-Length: the limit must bite while bytes flow.
        sent.set(url.search, streamBytes(response, size, CHUNK).written);
      } else if (url.pathname === '/declared') {
        response.setHeader('content-length', size);
        sent.set(url.search, streamBytes(response, size, CHUNK).written);
      } else if (url.pathname === '/gzip-bomb') {
        response.writeHead(200, { 'content-encoding': 'gzip', 'content-length': bomb.length });
        response.end(bomb);
      } else if (url.pathname === '/br-bomb') {
        response.writeHead(200, { 'content-encoding': 'br' });
        response.end(brotliBomb);
      } else if (url.pathname === '/deflate-bomb') {
        response.writeHead(200, { 'content-encoding': 'deflate' });
        response.end(deflateBomb);
      } else if (url.pathname === '/corrupt-gzip') {
        response.writeHead(200, { 'content-encoding': 'gzip' });
        response.end(Buffer.from('this is not gzip at all, not even close'));
      } else if (url.pathname === '/truncated-gzip') {
        const whole = gzipSync(Buffer.alloc(100_000, 0x62));
        response.writeHead(200, { 'content-encoding': 'gzip' });
        response.end(whole.subarray(0, Math.floor(whole.length / 2)));
      } else if (url.pathname === '/zstd') {
        response.writeHead(200, { 'content-encoding': 'zstd' });
        response.end(Buffer.from([0x28, 0xb5, 0x2f, 0xfd, 1, 2, 3]));
      } else {
        response.writeHead(404);
        response.end();
      }
    });
    client = new HttpClient({ userAgent: 'LimitTest/1.0', allowPrivateNetworks: true });
  });

  afterAll(async () => {
    await client.close();
    await server.close();
  });

  it('cuts off a streamed body over maxBodyBytes within one chunk and destroys the connection', async () => {
    const maxBodyBytes = 1 * MIB;
    const sink = new CountingSink();
    const connectionsBefore = server.connections();
    const error = await failureOf(client.fetch({ url: `${server.url}stream?bytes=${100 * MIB}`, maxBodyBytes }, () => sink));
    expect(error.code).toBe('HTTP_BODY_TOO_LARGE');
    expect(error.partial?.status).toBe(200);
    expect(sink.bytes).toBeLessThanOrEqual(maxBodyBytes);
    expect(sink.bytes).toBeGreaterThan(maxBodyBytes - CHUNK);
    expect(sink.aborted).toBe(error);
    expect(sink.ended).toBe(false);
    // The server stops well short of the 100 MiB because the socket is gone.
    await server.allSocketsClosed();
    expect(sent.get(`?bytes=${100 * MIB}`)?.()).toBeLessThan(20 * MIB);
    // The next fetch needs a new connection: the cut-off one was never returned to the pool.
    await client.fetch({ url: `${server.url}stream?bytes=10` }, () => undefined);
    expect(server.connections()).toBe(connectionsBefore + 2);
  });

  it('refuses a declared Content-Length over the limit before reading the body', async () => {
    const sink = new CountingSink();
    let sinkCreated = false;
    const error = await failureOf(
      client.fetch({ url: `${server.url}declared?bytes=${50 * MIB}`, maxBodyBytes: MIB }, () => {
        sinkCreated = true;
        return sink;
      }),
    );
    expect(error.code).toBe('HTTP_BODY_TOO_LARGE');
    expect(error.partial?.headers?.['content-length']).toBe(String(50 * MIB));
    expect(sinkCreated).toBe(false);
  });

  it('streams 200 MB with bounded memory: RSS grows by far less than the body', async () => {
    const total = 200 * 1000 * 1000;
    const sink = new CountingSink();
    const rssBefore = process.memoryUsage().rss;
    let rssPeak = rssBefore;
    const sampler = setInterval(() => {
      rssPeak = Math.max(rssPeak, process.memoryUsage().rss);
    }, 20);
    try {
      const { body } = await client.fetch({ url: `${server.url}stream?bytes=${total}`, maxBodyBytes: 300 * MIB }, () => sink);
      expect(body.bytes).toBe(total);
      expect(body.wireBytes).toBe(total);
      expect(sink.bytes).toBe(total);
    } finally {
      clearInterval(sampler);
    }
    rssPeak = Math.max(rssPeak, process.memoryUsage().rss);
    // Measured about 50-65 MiB here: chunk buffers V8 has not collected yet, not retained data.
    // Holding the body would add its 200 MB on top.
    expect(rssPeak - rssBefore).toBeLessThan(100 * MIB);
  });

  it('cuts off a gzip bomb (1 GiB from ~1 MiB) at maxDecompressedBytes without inflating it', async () => {
    const sink = new CountingSink();
    const rssBefore = process.memoryUsage().rss;
    const error = await failureOf(client.fetch({ url: `${server.url}gzip-bomb` }, () => sink));
    expect(error.code).toBe('HTTP_DECOMPRESSED_TOO_LARGE');
    // Defaults: 10 MiB wire, 40 MiB decoded.
    expect(sink.bytes).toBeLessThanOrEqual(40 * MIB);
    expect(sink.bytes).toBeGreaterThan(39 * MIB);
    expect(sink.aborted).toBe(error);
    expect(process.memoryUsage().rss - rssBefore).toBeLessThan(100 * MIB);
  });

  it.each(['br-bomb', 'deflate-bomb'])('cuts off a %s at maxDecompressedBytes', async (path) => {
    const sink = new CountingSink();
    const error = await failureOf(client.fetch({ url: `${server.url}${path}`, maxDecompressedBytes: 5 * MIB }, () => sink));
    expect(error.code).toBe('HTTP_DECOMPRESSED_TOO_LARGE');
    expect(sink.bytes).toBeLessThanOrEqual(5 * MIB);
  });

  it('also limits a discarded body', async () => {
    const error = await failureOf(client.fetch({ url: `${server.url}gzip-bomb`, maxDecompressedBytes: MIB }, () => undefined));
    expect(error.code).toBe('HTTP_DECOMPRESSED_TOO_LARGE');
  });

  it.each(['corrupt-gzip', 'truncated-gzip', 'zstd'])('names a %s body bad-content-encoding', async (path) => {
    const sink = new CountingSink();
    const error = await failureOf(client.fetch({ url: `${server.url}${path}` }, () => sink));
    expect(error.code).toBe('HTTP_BAD_CONTENT_ENCODING');
    expect(error.partial?.status).toBe(200);
    expect(sink.aborted).toBe(error);
  });
});
