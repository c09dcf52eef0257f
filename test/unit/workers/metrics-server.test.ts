// The metrics server as others may reach it: a few connections at a time, none held for long, one
// gathering of the metrics however many scrapes ask at once, a bearer token when one is given, a
// warning when it listens beyond loopback.
import { connect, createServer, type Socket } from 'node:net';
import { Gauge } from 'prom-client';
import { request } from 'undici';
import { afterEach, describe, expect, it } from 'vitest';
import { PrometheusCrawlMetrics, isLoopbackHost, startMetricsServer, type MetricsServer, type MetricsServerOptions } from '../../../src/workers/prometheus-metrics.js';
import { waitFor } from '../../support/wait-for.js';

const servers: MetricsServer[] = [];
const sockets: Socket[] = [];
afterEach(async () => {
  for (const socket of sockets.splice(0)) socket.destroy();
  await Promise.all(servers.splice(0).map((server) => server.close()));
});

async function serve(options: Partial<MetricsServerOptions> = {}): Promise<{ server: MetricsServer; port: number; metrics: PrometheusCrawlMetrics }> {
  const metrics = options.metrics ?? new PrometheusCrawlMetrics();
  const server = await startMetricsServer({ port: 0, metrics, warn: () => undefined, ...options });
  servers.push(server);
  return { server, port: Number(new URL(server.url).port), metrics };
}

/** A connection that sends the first line of a request and never finishes it; resolves when connected, `closed` when the server closes it. */
async function halfOpen(port: number): Promise<{ closed: () => boolean }> {
  const socket = connect(port, '127.0.0.1');
  sockets.push(socket);
  let closed = false;
  socket.on('close', () => (closed = true));
  socket.on('error', () => undefined);
  await new Promise<void>((resolve) => socket.once('connect', () => resolve()));
  socket.write('GET /metrics HTTP/1.1\r\nHost: 127.0.0.1\r\n');
  return { closed: () => closed };
}

describe('the metrics server', () => {
  it('serves this many connections at once and closes the next as it arrives', async () => {
    const { port } = await serve({ maxConnections: 3 });
    const held = await Promise.all([halfOpen(port), halfOpen(port), halfOpen(port)]);
    const extra = await halfOpen(port);
    await waitFor(() => extra.closed(), (closed) => closed, { timeoutMs: 5_000, what: 'the fourth connection closed' });
    expect(held.map((connection) => connection.closed())).toEqual([false, false, false]);
  });

  it('closes a connection that does not finish its request headers in time', async () => {
    const { port } = await serve({ headersTimeoutMs: 300 });
    const connection = await halfOpen(port);
    // Node's default would hold it for a minute.
    await waitFor(() => connection.closed(), (closed) => closed, { timeoutMs: 10_000, what: 'the half-open connection closed' });
  });

  it('gathers the metrics once for scrapes that ask together, and serves that text for a second', async () => {
    const metrics = new PrometheusCrawlMetrics();
    let collected = 0;
    new Gauge({
      name: 'test_collections',
      help: 'collections',
      registers: [metrics.registry],
      async collect() {
        collected += 1;
        await new Promise((resolve) => setTimeout(resolve, 50));
        this.set(collected);
      },
    });
    const { server } = await serve({ metrics, scrapeCacheMs: 60_000 });
    const bodies = await Promise.all(Array.from({ length: 8 }, () => request(server.url).then((response) => response.body.text())));
    expect(collected).toBe(1);
    expect(new Set(bodies).size).toBe(1);
    await request(server.url).then((response) => response.body.text());
    expect(collected).toBe(1);
  });

  it('asks for the bearer token when it has one: 401 without it or with another, 200 with it', async () => {
    const token = 'a-token-of-some-length-0123456789';
    const { server } = await serve({ bearerToken: token });
    const status = async (authorization?: string): Promise<number> => {
      const response = await request(server.url, authorization === undefined ? {} : { headers: { authorization } });
      await response.body.dump();
      return response.statusCode;
    };
    expect(await status()).toBe(401);
    expect(await status(`Bearer ${token}x`)).toBe(401);
    expect(await status(`Basic ${token}`)).toBe(401);
    expect(await status(`Bearer ${token}`)).toBe(200);
    expect(await status(`bearer ${token}`)).toBe(200);
  });

  it('warns when it listens beyond loopback, naming the token file when there is no token', async () => {
    const warnings: string[] = [];
    await serve({ host: '0.0.0.0', warn: (line) => warnings.push(line) });
    await serve({ host: '127.0.0.1', warn: (line) => warnings.push(line) });
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toContain('beyond loopback');
    expect(warnings[0]).toContain('--metrics-token-file');
    await serve({ host: '0.0.0.0', bearerToken: 'a-token-of-some-length-0123456789', warn: (line) => warnings.push(line) });
    expect(warnings[1]).not.toContain('--metrics-token-file');
  });

  it('fails to start on a port another process holds', async () => {
    const holder = createServer();
    await new Promise<void>((resolve) => holder.listen(0, '127.0.0.1', () => resolve()));
    const port = (holder.address() as { port: number }).port;
    try {
      await expect(startMetricsServer({ port, metrics: new PrometheusCrawlMetrics() })).rejects.toMatchObject({ code: 'EADDRINUSE' });
    } finally {
      holder.close();
    }
  });
});

describe('isLoopbackHost', () => {
  it.each([
    ['127.0.0.1', true],
    ['127.5.6.7', true],
    ['localhost', true],
    ['::1', true],
    ['[::1]', true],
    ['::ffff:127.0.0.1', true],
    ['0.0.0.0', false],
    ['::', false],
    ['10.0.0.5', false],
    ['worker', false],
    ['128.0.0.1', false],
  ])('%s: %s', (host, loopback) => {
    expect(isLoopbackHost(host)).toBe(loopback);
  });
});
