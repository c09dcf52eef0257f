import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HttpClient, HttpFetchError, PrivateNetworkRefusedError, type DnsResolver } from '../../../src/http/index.js';
import { startHttpServer, type LocalServer } from './support/local-servers.js';

describe('HttpClient refuses private networks unless allowed', () => {
  let server: LocalServer;
  let refusing: HttpClient;
  const answers = new Map<string, string[]>();
  const resolver: DnsResolver = async (hostname) => {
    const addresses = answers.get(hostname);
    if (addresses === undefined) throw new Error(`unexpected lookup of ${hostname}`);
    return { addresses: addresses.map((address) => ({ address, family: address.includes(':') ? 6 : 4 })), ttlMs: 60_000 };
  };

  beforeAll(async () => {
    server = await startHttpServer((_request, response) => response.end('internal'));
    refusing = new HttpClient({ userAgent: 'PrivateTest/1.0', allowPrivateNetworks: false, dnsCache: { resolver } });
  });

  afterAll(async () => {
    await refusing.close();
    await server.close();
  });

  async function refusal(url: string): Promise<HttpFetchError> {
    const outcome = await refusing.fetch({ url, connectTimeoutMs: 2_000 }, () => undefined).then(
      () => undefined,
      (reason: unknown) => reason,
    );
    expect(outcome).toBeInstanceOf(HttpFetchError);
    const error = outcome as HttpFetchError;
    expect(error.code).toBe('HTTP_PRIVATE_NETWORK_REFUSED');
    return error;
  }

  it.each([
    ['loopback', (port: number) => `http://127.0.0.1:${port}/`],
    ['RFC 1918', () => 'http://10.1.2.3/'],
    ['link-local metadata', () => 'http://169.254.169.254/latest/meta-data/'],
    ['IPv6 loopback', (port: number) => `http://[::1]:${port}/`],
    ['IPv4-mapped IPv6 loopback', (port: number) => `http://[::ffff:127.0.0.1]:${port}/`],
    ['decimal-encoded loopback', (port: number) => `http://2130706433:${port}/`],
  ])('refuses a literal %s address without connecting', async (_name, urlFor) => {
    const before = server.connections();
    const error = await refusal(urlFor(server.port));
    expect(error.cause).toBeInstanceOf(PrivateNetworkRefusedError);
    expect(server.connections()).toBe(before);
  });

  it('refuses a hostname whose DNS answer is private (localhost from /etc/hosts)', async () => {
    const system = new HttpClient({ userAgent: 'PrivateTest/1.0', allowPrivateNetworks: false });
    try {
      const before = server.connections();
      const outcome = await system.fetch({ url: `http://localhost:${server.port}/` }, () => undefined).then(
        () => undefined,
        (reason: unknown) => reason,
      );
      expect(outcome).toBeInstanceOf(HttpFetchError);
      expect((outcome as HttpFetchError).code).toBe('HTTP_PRIVATE_NETWORK_REFUSED');
      expect(server.connections()).toBe(before);
    } finally {
      await system.close();
    }
  });

  it('judges the very answer the socket connects to, so a name (re)bound to 127.0.0.1 is refused', async () => {
    answers.set('rebind.example.test', ['127.0.0.1']);
    const before = server.connections();
    await refusal(`http://rebind.example.test:${server.port}/`);
    expect(server.connections()).toBe(before);
  });

  it('refuses when every answer is private, even mixed families', async () => {
    answers.set('internal.example.test', ['10.0.0.7', 'fd00::7', '::ffff:192.168.1.1']);
    const error = await refusal(`http://internal.example.test:${server.port}/`);
    expect((error.cause as PrivateNetworkRefusedError).addresses).toEqual(['10.0.0.7', 'fd00::7', '::ffff:192.168.1.1']);
  });

  it('connects through the injected lookup when private networks are allowed', async () => {
    const allowing = new HttpClient({ userAgent: 'PrivateTest/1.0', allowPrivateNetworks: true, dnsCache: { resolver } });
    try {
      answers.set('intranet.example.test', ['127.0.0.1']);
      const { head } = await allowing.fetch({ url: `http://intranet.example.test:${server.port}/` }, () => undefined);
      expect(head.status).toBe(200);
      expect(head.remoteAddress).toBe('127.0.0.1');
      expect(server.requests.at(-1)?.headers.host).toBe(`intranet.example.test:${server.port}`);
    } finally {
      await allowing.close();
    }
  });
});
