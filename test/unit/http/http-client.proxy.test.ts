// The HTTP layer through a real proxy nobody here wrote (tinyproxy, test/support/tinyproxy.ts):
// requests tunnel through it, its failures are told apart from the target's, the private-network
// guard judges the target before any CONNECT, and hosts rotate over proxies by sessions.
import { createServer, type Server } from 'node:http';
import { connect as connectTcp, createServer as createTcpServer, type AddressInfo, type Server as TcpServer } from 'node:net';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HttpClient, HttpFetchError, ProxyCredentials, type DnsResolver } from '../../../src/http/index.js';
import { startTinyproxy, type Tinyproxy } from '../../support/tinyproxy.js';

const PASSWORD = 'pr0xy-s3cret-Zq';

interface Seen {
  host: string;
  path: string;
  from: string;
}

/** A server on 127.0.0.5 logging which address each request came from (the proxy's Bind address). */
async function startTarget(): Promise<{ server: Server; port: number; seen: Seen[] }> {
  const seen: Seen[] = [];
  const server = createServer((request, response) => {
    seen.push({ host: request.socket.localAddress ?? '', path: request.url ?? '', from: request.socket.remoteAddress ?? '' });
    response.writeHead(200, { 'content-type': 'text/plain' });
    response.end(`hello ${request.url}`);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.5', resolve));
  return { server, port: (server.address() as AddressInfo).port, seen };
}

/** A TCP relay in front of a proxy counting the bytes each way on every connection: what the proxy's sockets carried. */
async function startRelay(toPort: number): Promise<{ server: TcpServer; url: string; up: () => number; down: () => number; connections: () => number }> {
  let up = 0;
  let down = 0;
  let connections = 0;
  const server = createTcpServer((client) => {
    connections += 1;
    const proxy = connectTcp(toPort, '127.0.0.1');
    client.on('data', (chunk: Buffer) => (up += chunk.length));
    proxy.on('data', (chunk: Buffer) => (down += chunk.length));
    client.pipe(proxy);
    proxy.pipe(client);
    client.on('error', () => proxy.destroy());
    proxy.on('error', () => client.destroy());
    client.on('close', () => proxy.destroy());
    proxy.on('close', () => client.end());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, up: () => up, down: () => down, connections: () => connections };
}

async function failureOf(promise: Promise<unknown>): Promise<HttpFetchError> {
  const outcome = await promise.then(
    () => undefined,
    (reason: unknown) => reason,
  );
  expect(outcome).toBeInstanceOf(HttpFetchError);
  return outcome as HttpFetchError;
}

describe('HttpClient through a proxy (tinyproxy)', () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'proxy-test-'));
  let open: Tinyproxy;
  let authenticated: Tinyproxy;
  let target: Awaited<ReturnType<typeof startTarget>>;
  const clients: HttpClient[] = [];
  const client = (options: ConstructorParameters<typeof HttpClient>[0]): HttpClient => {
    const made = new HttpClient(options);
    clients.push(made);
    return made;
  };
  const url = (p: string): string => `http://127.0.0.5:${target.port}${p}`;

  beforeAll(async () => {
    target = await startTarget();
    open = await startTinyproxy({ dir: path.join(dir, 'open'), bindAddress: '127.0.0.9' });
    authenticated = await startTinyproxy({ dir: path.join(dir, 'auth'), bindAddress: '127.0.0.10', basicAuth: { user: 'crawler', password: PASSWORD } });
  });

  afterAll(async () => {
    await Promise.allSettled(clients.map((made) => made.close()));
    await open?.stop();
    await authenticated?.stop();
    await new Promise((resolve) => target?.server.close(resolve));
  });

  it('tunnels each request through the proxy: the target sees the proxy, the proxy logs the CONNECT', async () => {
    const http = client({ userAgent: 'ProxyTest/1.0', allowPrivateNetworks: true, proxy: { urls: [open.url] } });
    const before = target.seen.length;
    const { head, body } = await http.fetch({ url: url('/a?x=1') }, () => undefined);
    expect(head.status).toBe(200);
    expect(body.bytes).toBe('hello /a?x=1'.length);
    expect(target.seen.slice(before)).toEqual([{ host: '127.0.0.5', path: '/a?x=1', from: '127.0.0.9' }]);
    expect(open.connects()).toContain(`127.0.0.5:${target.port}`);
  });

  it('sends the worker’s credentials on the CONNECT only, and a proxy that refuses them is a proxy failure', async () => {
    const login = ProxyCredentials.parse(`${authenticated.url.replace('//', `//crawler:${encodeURIComponent(PASSWORD)}@`)}\n`, 'test');
    const withLogin = client({ userAgent: 'ProxyTest/1.0', allowPrivateNetworks: true, proxy: { urls: [authenticated.url], credentials: login } });
    const before = target.seen.length;
    const { head } = await withLogin.fetch({ url: url('/with-login') }, () => undefined);
    expect(head.status).toBe(200);
    // The target never sees a Proxy-Authorization: it went to the proxy on the CONNECT.
    expect(head.requestHeaders).not.toHaveProperty('proxy-authorization');
    expect(target.seen.slice(before).map((seen) => seen.from)).toEqual(['127.0.0.10']);

    const wrong = ProxyCredentials.parse('crawler:not-the-password\n', 'test');
    for (const credentials of [undefined, wrong]) {
      const refused = client({ userAgent: 'ProxyTest/1.0', allowPrivateNetworks: true, proxy: { urls: [authenticated.url], ...(credentials ? { credentials } : {}) } });
      const seenBefore = target.seen.length;
      const failure = await failureOf(refused.fetch({ url: url('/refused') }, () => undefined));
      expect(failure.code).toBe('HTTP_PROXY_FAILED');
      // tinyproxy asks with 407 when none came, and answers 401 to wrong ones.
      expect(failure.message).toMatch(/credentials \(40[17]/);
      expect(failure.message).not.toContain('not-the-password');
      expect(target.seen.length).toBe(seenBefore);
    }
  });

  it('a proxy that does not answer is a proxy failure, never the target’s connection failure', async () => {
    const dead = client({ userAgent: 'ProxyTest/1.0', allowPrivateNetworks: true, proxy: { urls: ['http://127.0.0.1:9'] } });
    const failure = await failureOf(dead.fetch({ url: url('/dead-proxy'), connectTimeoutMs: 3_000 }, () => undefined));
    expect(failure.code).toBe('HTTP_PROXY_FAILED');
    expect(failure.message).toContain('http://127.0.0.1:9');
  });

  it('a CONNECT the live proxy answers "500 Unable to connect" is the target’s connection failure, not the proxy’s', async () => {
    const http = client({ userAgent: 'ProxyTest/1.0', allowPrivateNetworks: true, proxy: { urls: [open.url] } });
    // Nothing listens on 127.0.0.6:1: tinyproxy answers the CONNECT with 500 Unable to connect.
    const failure = await failureOf(http.fetch({ url: 'http://127.0.0.6:1/' }, () => undefined));
    expect(failure.code).toBe('HTTP_CONNECTION_REFUSED');
    expect(failure.message).toContain(`proxy ${open.url} could not reach the target: its CONNECT was answered 500 "Unable to connect"`);
    expect(failure.transfer?.receivedBytes).toBeGreaterThan(0);
  });

  it('charges a CONNECT refused with 407 what the proxy’s socket carried, and a tunnel’s CONNECT once, with its request', async () => {
    const relay = await startRelay(authenticated.port);
    try {
      const refused = client({ userAgent: 'ProxyTest/1.0', allowPrivateNetworks: true, proxy: { urls: [relay.url] } });
      const failure = await failureOf(refused.fetch({ url: url('/refused-bytes') }, () => undefined));
      expect(failure.code).toBe('HTTP_PROXY_FAILED');
      expect(relay.connections()).toBe(1);
      console.info(`proxy CONNECT bytes: a 407 recorded ${failure.transfer?.sentBytes} sent and ${failure.transfer?.receivedBytes} received; the relay carried ${relay.up()} up and ${relay.down()} down`);
      // tinyproxy writes its 407 whole, in one piece, and closes: all of it arrived before the socket was closed.
      expect(failure.transfer).toEqual({ sentBytes: relay.up(), receivedBytes: relay.down() });
      expect(failure.transfer!.receivedBytes).toBeGreaterThan('HTTP/1.1 407 \r\n\r\n'.length);

      const login = ProxyCredentials.parse(`${relay.url.replace('//', `//crawler:${encodeURIComponent(PASSWORD)}@`)}\n`, 'test');
      const tunnelled = client({ userAgent: 'ProxyTest/1.0', allowPrivateNetworks: true, proxy: { urls: [relay.url], credentials: login } });
      const [upBefore, downBefore] = [relay.up(), relay.down()];
      const { transfer } = await tunnelled.fetch({ url: url('/tunnel-bytes') }, () => undefined);
      console.info(`proxy CONNECT bytes: a tunnelled request recorded ${transfer.sentBytes} sent and ${transfer.receivedBytes} received; the relay carried ${relay.up() - upBefore} up and ${relay.down() - downBefore} down`);
      expect(transfer).toEqual({ sentBytes: relay.up() - upBefore, receivedBytes: relay.down() - downBefore });
      await Promise.all([refused.close(), tunnelled.close()]);
    } finally {
      await new Promise((resolve) => relay.server.close(resolve));
    }
  });

  it('charges a CONNECT the proxy reset before answering what it sent, as a proxy failure', async () => {
    let read = 0;
    const resetting = createTcpServer((socket) => {
      socket.on('data', (chunk: Buffer) => {
        read += chunk.length;
        if (chunk.includes('\r\n\r\n')) socket.resetAndDestroy();
      });
      socket.on('error', () => undefined);
    });
    await new Promise<void>((resolve) => resetting.listen(0, '127.0.0.1', resolve));
    try {
      const http = client({ userAgent: 'ProxyTest/1.0', allowPrivateNetworks: true, proxy: { urls: [`http://127.0.0.1:${(resetting.address() as AddressInfo).port}`] } });
      const failure = await failureOf(http.fetch({ url: url('/reset-connect') }, () => undefined));
      expect(failure.code).toBe('HTTP_PROXY_FAILED');
      expect(failure.transfer).toEqual({ sentBytes: read, receivedBytes: 0 });
      expect(read).toBeGreaterThan(0);
    } finally {
      await new Promise((resolve) => resetting.close(resolve));
    }
  });

  describe('the private-network guard judges the target before any CONNECT', () => {
    const answers = new Map<string, string[]>([
      ['mixed.example.test', ['93.184.216.34', '10.0.0.8']],
      ['public.example.test', ['93.184.216.34']],
    ]);
    const resolver: DnsResolver = async (hostname) => {
      const addresses = answers.get(hostname);
      if (addresses === undefined) throw new Error(`unexpected lookup of ${hostname}`);
      return { addresses: addresses.map((address) => ({ address, family: 4 as const })), ttlMs: 60_000 };
    };

    it.each([
      ['a loopback literal', () => url('/private')],
      ['a name whose answers include a private address', () => `http://mixed.example.test:${target.port}/`],
    ])('refuses %s without asking the proxy', async (_name, urlOf) => {
      const guarded = client({ userAgent: 'ProxyTest/1.0', allowPrivateNetworks: false, dnsCache: { resolver }, proxy: { urls: [open.url] } });
      const connectsBefore = open.connects().length;
      const seenBefore = target.seen.length;
      const failure = await failureOf(guarded.fetch({ url: urlOf() }, () => undefined));
      expect(failure.code).toBe('HTTP_PRIVATE_NETWORK_REFUSED');
      expect(open.connects().length).toBe(connectsBefore);
      expect(target.seen.length).toBe(seenBefore);
    });

    it('refuses localhost, resolved by the system, without asking the proxy', async () => {
      const guarded = client({ userAgent: 'ProxyTest/1.0', allowPrivateNetworks: false, proxy: { urls: [open.url] } });
      const connectsBefore = open.connects().length;
      const failure = await failureOf(guarded.fetch({ url: `http://localhost:${target.port}/` }, () => undefined));
      expect(failure.code).toBe('HTTP_PRIVATE_NETWORK_REFUSED');
      expect(open.connects().length).toBe(connectsBefore);
    });

    it('lets a public name through to the proxy', async () => {
      const guarded = client({ userAgent: 'ProxyTest/1.0', allowPrivateNetworks: false, dnsCache: { resolver }, proxy: { urls: [open.url] } });
      // No route to the internet here: the proxy fails to reach it and says so (tinyproxy's 500 Unable
      // to connect, the target's failure), or does not answer in time (the proxy's).
      const outcome = await guarded.fetch({ url: 'http://public.example.test:81/', connectTimeoutMs: 5_000 }, () => undefined).then(
        () => undefined,
        (reason: unknown) => reason,
      );
      expect([undefined, 'HTTP_CONNECTION_REFUSED', 'HTTP_PROXY_FAILED']).toContain((outcome as HttpFetchError | undefined)?.code);
      expect(open.connects()).toContain('public.example.test:81');
    });
  });

  it('keeps a host on one proxy for a session of requests, then moves it on; a failed proxy ends the session', async () => {
    const second = await startTinyproxy({ dir: path.join(dir, 'second'), bindAddress: '127.0.0.11' });
    try {
      const http = client({ userAgent: 'ProxyTest/1.0', allowPrivateNetworks: true, proxy: { urls: [open.url, second.url], sessionRequests: 2 } });
      const before = target.seen.length;
      for (let i = 0; i < 6; i += 1) await http.fetch({ url: url(`/session-${i}`) }, () => undefined);
      const exits = target.seen.slice(before).map((seen) => seen.from);
      // Two requests each, alternating, whichever proxy the host started on.
      expect(exits[0]).toBe(exits[1]);
      expect(exits[2]).toBe(exits[3]);
      expect(exits[4]).toBe(exits[5]);
      expect(exits[2]).not.toBe(exits[0]);
      expect(exits[4]).toBe(exits[0]);
      expect(new Set(exits)).toEqual(new Set(['127.0.0.9', '127.0.0.11']));

      // Three sessions are spent: the host's next one goes where exits[2] went. Kill that proxy.
      const current = exits[2] === '127.0.0.9' ? open : second;
      await current.kill();
      try {
        const failure = await failureOf(http.fetch({ url: url('/after-kill'), connectTimeoutMs: 3_000 }, () => undefined));
        expect(failure.code).toBe('HTTP_PROXY_FAILED');
        const seenBefore = target.seen.length;
        await http.fetch({ url: url('/moved-on') }, () => undefined);
        expect(target.seen.slice(seenBefore).map((seen) => seen.from)).toEqual([exits[0]]);
      } finally {
        await current.restart();
      }
    } finally {
      await second.stop();
    }
  });
});
