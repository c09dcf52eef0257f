import { afterEach, describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import type { Socket } from 'node:net';
import { HttpClient, HttpFetchError, DnsLookupError, type BodySink, type FetchRequest } from '../../../src/http/index.js';
import { CollectingSink, closedPort, startHttpServer, startTcpServer, type LocalServer } from './support/local-servers.js';

const TLS = {
  key: readFileSync(new URL('./fixtures/self-signed.key', import.meta.url), 'utf8'),
  cert: readFileSync(new URL('./fixtures/self-signed.crt', import.meta.url), 'utf8'),
};

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

function clientFor(options: Partial<ConstructorParameters<typeof HttpClient>[0]> = {}): HttpClient {
  const client = new HttpClient({ userAgent: 'FailureTest/1.0', allowPrivateNetworks: true, ...options });
  cleanups.push(() => client.close());
  return client;
}

async function serve(server: Promise<LocalServer>): Promise<LocalServer> {
  const started = await server;
  cleanups.push(() => started.close());
  return started;
}

/** Fetches and returns the HttpFetchError with how long it took. */
async function failure(client: HttpClient, request: FetchRequest): Promise<{ error: HttpFetchError; elapsedMs: number; sink: CollectingSink }> {
  const sink = new CollectingSink();
  const started = performance.now();
  const outcome = await client.fetch(request, () => sink).then(
    () => undefined,
    (reason: unknown) => reason,
  );
  expect(outcome).toBeInstanceOf(HttpFetchError);
  return { error: outcome as HttpFetchError, elapsedMs: performance.now() - started, sink };
}

describe('HttpClient timeouts are distinct', () => {
  // Offline-safe connect timeout: a TCP server that accepts but never answers the TLS ClientHello.
  // undici counts the TLS handshake as part of connecting, so the connect never completes. (A
  // non-routable address such as 10.255.255.1 is not reliable: sandboxes may accept or reject it.)
  const silentTlsPeer = (): Promise<LocalServer> => startTcpServer(() => undefined, 'https');

  it('connect-timeout: the per-request connectTimeoutMs', async () => {
    const server = await serve(silentTlsPeer());
    const { error, elapsedMs } = await failure(clientFor(), { url: server.url, connectTimeoutMs: 300 });
    expect(error.code).toBe('HTTP_CONNECT_TIMEOUT');
    expect(error.partial).toBeUndefined();
    expect(elapsedMs).toBeGreaterThanOrEqual(250);
    expect(elapsedMs).toBeLessThan(3_000);
  });

  it('connect-timeout: the client-wide ceiling (undici UND_ERR_CONNECT_TIMEOUT)', async () => {
    const server = await serve(silentTlsPeer());
    const { error, elapsedMs } = await failure(clientFor({ maxConnectTimeoutMs: 300 }), { url: server.url, connectTimeoutMs: 20_000 });
    expect(error.code).toBe('HTTP_CONNECT_TIMEOUT');
    expect((error.cause as { code?: string }).code).toBe('UND_ERR_CONNECT_TIMEOUT');
    expect(elapsedMs).toBeLessThan(3_000);
  });

  it('first-byte-timeout: connected and request sent, no response head', async () => {
    const server = await serve(startTcpServer((socket) => socket.on('data', () => undefined)));
    const { error, elapsedMs } = await failure(clientFor(), { url: server.url, firstByteTimeoutMs: 300, connectTimeoutMs: 5_000 });
    expect(error.code).toBe('HTTP_FIRST_BYTE_TIMEOUT');
    expect(elapsedMs).toBeGreaterThanOrEqual(250);
    expect(elapsedMs).toBeLessThan(3_000);
  });

  it('body-timeout: the body stalls after the head', async () => {
    const server = await serve(
      startHttpServer((_request, response) => {
        response.writeHead(200, { 'content-length': '1000' });
        response.write('only the beginning');
      }),
    );
    const { error, elapsedMs, sink } = await failure(clientFor(), { url: server.url, bodyStallTimeoutMs: 300 });
    expect(error.code).toBe('HTTP_BODY_TIMEOUT');
    expect(error.partial?.status).toBe(200);
    expect(sink.text()).toBe('only the beginning');
    expect(sink.aborted).toBe(error);
    expect(elapsedMs).toBeLessThan(3_000);
  });

  it('body-timeout: the whole-body deadline holds against a trickle that never stalls', async () => {
    const server = await serve(
      startHttpServer((_request, response) => {
        response.writeHead(200, { 'content-type': 'text/plain' });
        const timer = setInterval(() => response.write('x'), 20);
        response.on('close', () => clearInterval(timer));
      }),
    );
    const { error, elapsedMs, sink } = await failure(clientFor(), { url: server.url, bodyTimeoutMs: 500, bodyStallTimeoutMs: 5_000 });
    expect(error.code).toBe('HTTP_BODY_TIMEOUT');
    expect(sink.bytes).toBeGreaterThan(5);
    expect(elapsedMs).toBeGreaterThanOrEqual(450);
    expect(elapsedMs).toBeLessThan(3_000);
    await server.allSocketsClosed();
  });

  it('first-byte-timeout: a total deadline for the head, however many 1xx responses arrive', async () => {
    // undici restarts its headers timer on every 1xx: a 102 every 400 ms would hold it forever.
    const server = await serve(
      startTcpServer((socket) => {
        socket.once('data', () => {
          const timer = setInterval(() => socket.write('HTTP/1.1 102 Processing\r\n\r\n'), 400);
          socket.on('close', () => clearInterval(timer));
          // A final answer well after the deadline: a fetch still waiting then would succeed.
          setTimeout(() => {
            clearInterval(timer);
            if (!socket.destroyed) socket.end('HTTP/1.1 200 OK\r\ncontent-length: 2\r\n\r\nok');
          }, 4_000);
        });
      }),
    );
    const { error, elapsedMs } = await failure(clientFor(), { url: server.url, firstByteTimeoutMs: 1_000, connectTimeoutMs: 5_000 });
    expect(error.code).toBe('HTTP_FIRST_BYTE_TIMEOUT');
    expect(error.partial).toBeUndefined();
    expect(elapsedMs).toBeGreaterThanOrEqual(950);
    expect(elapsedMs).toBeLessThan(2_500);
    await server.allSocketsClosed();
  });
});

describe('HttpClient connection failures', () => {
  it('HTTP_CONNECTION_REFUSED', async () => {
    const port = await closedPort();
    const { error } = await failure(clientFor(), { url: `http://127.0.0.1:${port}/` });
    expect(error.code).toBe('HTTP_CONNECTION_REFUSED');
    expect(error.url).toBe(`http://127.0.0.1:${port}/`);
  });

  it('connection-reset: RST in the middle of the body', async () => {
    const server = await serve(
      startTcpServer((socket: Socket) => {
        socket.once('data', () => {
          socket.write('HTTP/1.1 200 OK\r\nContent-Length: 100000\r\n\r\n' + 'y'.repeat(1000), () => setTimeout(() => socket.resetAndDestroy(), 20));
        });
      }),
    );
    const { error, sink } = await failure(clientFor(), { url: server.url });
    expect(error.code).toBe('HTTP_CONNECTION_RESET');
    expect(error.partial?.status).toBe(200);
    expect(sink.bytes).toBe(1000);
    expect(sink.aborted).toBe(error);
  });

  it('connection-reset: the server closes before Content-Length is reached', async () => {
    const server = await serve(
      startTcpServer((socket: Socket) => {
        socket.once('data', () => socket.end('HTTP/1.1 200 OK\r\nContent-Length: 5000\r\n\r\nshort'));
      }),
    );
    const { error } = await failure(clientFor(), { url: server.url });
    expect(error.code).toBe('HTTP_CONNECTION_RESET');
  });

  it.each([
    ['a bad status line', 'HTTP/1.1 abc OK\r\n\r\n'],
    ['a header without a colon', 'HTTP/1.1 200 OK\r\nBroken Header\r\nContent-Length: 0\r\n\r\n'],
    ['not HTTP at all', 'SSH-2.0-OpenSSH_9.6\r\n'],
  ])('invalid-response: %s', async (_name, reply) => {
    const server = await serve(startTcpServer((socket: Socket) => socket.once('data', () => socket.end(reply))));
    const { error } = await failure(clientFor(), { url: server.url });
    expect(error.code).toBe('HTTP_INVALID_RESPONSE');
  });
});

describe('HttpClient TLS', () => {
  it.each(['127.0.0.1', 'localhost'])('tls-certificate for a self-signed certificate on %s, never bypassed', async (host) => {
    const server = await serve(startHttpServer((_request, response) => response.end('secret'), TLS));
    const { error, sink } = await failure(clientFor(), { url: `https://${host}:${server.port}/` });
    expect(error.code).toBe('HTTP_TLS_CERTIFICATE');
    expect(['DEPTH_ZERO_SELF_SIGNED_CERT', 'SELF_SIGNED_CERT_IN_CHAIN']).toContain((error.cause as { code?: string }).code);
    expect(server.requests).toHaveLength(0);
    expect(sink.bytes).toBe(0);
  });

  it('tls-handshake when the peer does not speak TLS', async () => {
    const server = await serve(startTcpServer((socket: Socket) => socket.once('data', () => socket.end('HTTP/1.1 400 Bad Request\r\n\r\n'))));
    const { error } = await failure(clientFor(), { url: `https://127.0.0.1:${server.port}/` });
    expect(error.code).toBe('HTTP_TLS_HANDSHAKE');
  });
});

describe('HttpClient DNS failures', () => {
  it('dns-not-found and dns-temporary-failure from the resolver', async () => {
    const client = clientFor({
      dnsCache: {
        resolver: async (hostname) => {
          throw new DnsLookupError(hostname.startsWith('gone') ? 'HTTP_DNS_NOT_FOUND' : 'HTTP_DNS_TEMPORARY_FAILURE', hostname);
        },
      },
    });
    expect((await failure(client, { url: 'http://gone.example.test/' })).error.code).toBe('HTTP_DNS_NOT_FOUND');
    expect((await failure(client, { url: 'http://flaky.example.test/' })).error.code).toBe('HTTP_DNS_TEMPORARY_FAILURE');
  });

  it('dns-not-found for a reserved .invalid name through the system resolver', async () => {
    const { error } = await failure(clientFor(), { url: 'http://no-such-host.invalid/' });
    expect(error.code).toBe('HTTP_DNS_NOT_FOUND');
  });
});

describe('a server that closes the connection after a body the reader has not caught up with', () => {
  // Python's http.server and other HTTP/1.0-style servers send the body and then FIN. With the
  // reader behind, undici's parser is paused by backpressure when the FIN comes, and undici 7
  // asserted it was not (nodejs/undici#5360): an uncatchable crash of the whole process.
  it('reads the whole body and ends the request normally', async () => {
    const body = Buffer.alloc(512 * 1024, 0x62);
    const server = await serve(
      startTcpServer((socket) => {
        socket.once('data', () => {
          socket.write(`HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nContent-Length: ${body.length}\r\nConnection: close\r\n\r\n`);
          socket.end(body);
        });
      }),
    );
    const sink = new CollectingSink();
    // A reader slower than loopback: undici is paused by a full buffer when the FIN arrives.
    const slowSink: BodySink = {
      write: async (chunk) => {
        await new Promise((resolve) => setTimeout(resolve, 20));
        sink.write(chunk);
      },
      end: () => sink.end(),
      abort: (reason) => sink.abort(reason),
    };
    const result = await clientFor().fetch({ url: server.url }, () => slowSink);
    expect(result.head.status).toBe(200);
    expect(sink.bytes).toBe(body.length);
    expect(sink.ended).toBe(true);
  });
});
