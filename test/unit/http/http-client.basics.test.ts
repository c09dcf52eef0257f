import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHash } from 'node:crypto';
import { brotliCompressSync, deflateRawSync, deflateSync, gzipSync } from 'node:zlib';
import { HttpClient, HttpFetchError, InvalidFetchRequestError, type BodySink } from '../../../src/http/index.js';
import { CollectingSink, startHttpServer, type LocalServer } from './support/local-servers.js';

const USER_AGENT = 'TestCrawler/1.0 (+https://example.invalid/contact)';
const PAGE = '<html><head><title>Hello</title></head><body>' + 'crawl me '.repeat(500) + '</body></html>';
const sha256 = (text: string | Buffer): string => createHash('sha256').update(text).digest('hex');

describe('HttpClient against a local server', () => {
  let server: LocalServer;
  let client: HttpClient;

  beforeAll(async () => {
    server = await startHttpServer((request, response) => {
      const path = request.url ?? '/';
      if (path === '/page') {
        response.setHeader('content-type', 'text/html; charset=utf-8');
        response.setHeader('x-multi', ['one', 'two']);
        response.setHeader('set-cookie', ['a=1', 'b=2']);
        response.end(PAGE);
      } else if (path.startsWith('/coded/')) {
        const coding = path.slice('/coded/'.length);
        const encoders: Record<string, (input: Buffer) => Buffer> = {
          gzip: gzipSync,
          deflate: deflateSync,
          'deflate-raw': deflateRawSync,
          br: brotliCompressSync,
        };
        const encode = encoders[coding];
        if (encode === undefined) throw new Error(`no encoder ${coding}`);
        const encoded = encode(Buffer.from(PAGE));
        response.setHeader('content-encoding', coding === 'deflate-raw' ? 'deflate' : coding);
        response.setHeader('content-length', encoded.length);
        response.end(encoded);
      } else if (path === '/redirect') {
        response.writeHead(302, { location: '/page' });
        response.end('moved');
      } else if (path === '/conditional') {
        if (request.headers['if-none-match'] === '"v1"') {
          response.writeHead(304, { etag: '"v1"', 'content-encoding': 'gzip' });
          response.end();
        } else {
          response.writeHead(200, { etag: '"v1"' });
          response.end('fresh');
        }
      } else if (path === '/missing') {
        response.writeHead(404, { 'content-type': 'text/plain' });
        response.end('not here');
      } else {
        response.writeHead(500);
        response.end();
      }
    });
    client = new HttpClient({ userAgent: USER_AGENT, allowPrivateNetworks: true });
  });

  afterAll(async () => {
    await client.close();
    await server.close();
  });

  it('returns status, flattened headers, timings and the decoded body into the sink', async () => {
    const sink = new CollectingSink();
    const before = Date.now();
    const { head, body } = await client.fetch({ url: `${server.url}page` }, () => sink);
    expect(head.status).toBe(200);
    expect(head.url).toBe(`${server.url}page`);
    expect(head.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(head.headers['x-multi']).toBe('one, two');
    expect(head.headers['set-cookie']).toBeUndefined();
    expect(head.remoteAddress).toBe('127.0.0.1');
    expect(head.timings.startedAtMs).toBeGreaterThanOrEqual(before);
    expect(head.timings.firstByteMs).toBeGreaterThanOrEqual(0);
    expect(body.totalMs).toBeGreaterThanOrEqual(head.timings.firstByteMs);
    expect(body.lastByteMs).toBeGreaterThanOrEqual(head.timings.firstByteMs);
    expect(body.lastByteMs).toBeLessThanOrEqual(body.totalMs);
    expect(body.loopLagMs).toBeGreaterThanOrEqual(0);
    expect(body.finishedAtMs).toBeGreaterThanOrEqual(head.timings.startedAtMs);
    expect(sink.text()).toBe(PAGE);
    expect(sink.ended).toBe(true);
    expect(body.bytes).toBe(Buffer.byteLength(PAGE));
    expect(body.wireBytes).toBe(Buffer.byteLength(PAGE));
    expect(body.sha256).toBe(sha256(PAGE));
    expect(body.contentEncoding).toBeUndefined();
  });

  it("times the host's download to the last byte, without the sink's own end (what adaptive politeness counts)", async () => {
    const SINK_END_MS = 150;
    const slowEnd: BodySink = { write() {}, end: () => new Promise((resolve) => setTimeout(resolve, SINK_END_MS)), abort() {} };
    const { body } = await client.fetch({ url: `${server.url}page` }, () => slowEnd);
    expect(body.totalMs).toBeGreaterThanOrEqual(SINK_END_MS);
    expect(body.totalMs - body.lastByteMs).toBeGreaterThanOrEqual(SINK_END_MS - 5);
  });

  it('identifies itself and asks for compressed HTML', async () => {
    await client.fetch({ url: `${server.url}page?ua` }, () => undefined);
    const logged = server.requests.find((request) => request.url === '/page?ua');
    expect(logged?.method).toBe('GET');
    expect(logged?.headers['user-agent']).toBe(USER_AGENT);
    expect(logged?.headers['accept-encoding']).toBe('gzip, deflate, br');
    expect(logged?.headers.accept).toContain('text/html');
  });

  it.each(['gzip', 'deflate', 'deflate-raw', 'br'])('decodes %s', async (coding) => {
    const sink = new CollectingSink();
    const { body } = await client.fetch({ url: `${server.url}coded/${coding}` }, () => sink);
    expect(sink.text()).toBe(PAGE);
    expect(body.bytes).toBe(Buffer.byteLength(PAGE));
    expect(body.wireBytes).toBeLessThan(body.bytes);
    expect(body.sha256).toBe(sha256(PAGE));
    expect(body.contentEncoding).toBe(coding === 'deflate-raw' ? 'deflate' : coding);
  });

  it('never follows a redirect: the 3xx comes back with its Location', async () => {
    const before = server.requests.length;
    const { head, body } = await client.fetch({ url: `${server.url}redirect` }, () => undefined);
    expect(head.status).toBe(302);
    expect(head.headers.location).toBe('/page');
    expect(body.bytes).toBe(5);
    expect(server.requests.slice(before).map((request) => request.url)).toEqual(['/redirect']);
  });

  it('sends conditional headers and takes a 304 with an empty (even "gzip") body', async () => {
    const { head, body } = await client.fetch({ url: `${server.url}conditional`, headers: { 'If-None-Match': '"v1"' } }, () => undefined);
    expect(head.status).toBe(304);
    expect(body.bytes).toBe(0);
    expect(body.sha256).toBe(sha256(''));
  });

  it('treats 4xx as a result, not an error, and drains a discarded body', async () => {
    const { head, body } = await client.fetch({ url: `${server.url}missing` }, () => undefined);
    expect(head.status).toBe(404);
    expect(body.bytes).toBe('not here'.length);
  });

  it('honours an async sink: chunks in order, backpressure respected', async () => {
    const seen: Buffer[] = [];
    let inFlight = 0;
    let maxInFlight = 0;
    const sink: BodySink = {
      async write(chunk) {
        inFlight += 1;
        maxInFlight = Math.max(maxInFlight, inFlight);
        await new Promise((resolve) => setTimeout(resolve, 1));
        seen.push(Buffer.from(chunk));
        inFlight -= 1;
      },
      end: () => undefined,
      abort: () => undefined,
    };
    await client.fetch({ url: `${server.url}coded/gzip` }, () => sink);
    expect(Buffer.concat(seen).toString()).toBe(PAGE);
    expect(maxInFlight).toBe(1);
  });

  it('rethrows a sink error as is and aborts the sink', async () => {
    const failure = new Error('disk full');
    let aborted: unknown;
    const sink: BodySink = {
      write: () => {
        throw Object.assign(failure, { code: 'ECONNRESET' });
      },
      end: () => undefined,
      abort: (reason) => {
        aborted = reason;
      },
    };
    await expect(client.fetch({ url: `${server.url}page` }, () => sink)).rejects.toBe(failure);
    expect(aborted).toBe(failure);
  });

  it('rejects with the signal reason when cancelled', async () => {
    const controller = new AbortController();
    const reason = new Error('activity cancelled');
    let aborted: unknown;
    const sink: BodySink = {
      write: () => controller.abort(reason),
      end: () => undefined,
      abort: (why) => {
        aborted = why;
      },
    };
    await expect(client.fetch({ url: `${server.url}page`, signal: controller.signal }, () => sink)).rejects.toBe(reason);
    expect(aborted).toBe(reason);
    const already = new AbortController();
    already.abort(reason);
    await expect(client.fetch({ url: `${server.url}page`, signal: already.signal }, () => undefined)).rejects.toBe(reason);
  });

  it('settles on cancellation or the body deadline even while the sink is stuck', async () => {
    const stuck = (): BodySink => ({ write: () => new Promise<void>(() => undefined), end: () => undefined, abort: () => undefined });
    const controller = new AbortController();
    const reason = new Error('cancelled while the sink hangs');
    setTimeout(() => controller.abort(reason), 100);
    await expect(client.fetch({ url: `${server.url}page`, signal: controller.signal }, stuck)).rejects.toBe(reason);
    await expect(client.fetch({ url: `${server.url}page`, bodyTimeoutMs: 200 }, stuck)).rejects.toMatchObject({ code: 'HTTP_BODY_TIMEOUT' });
  });

  it('refuses requests it will not send with InvalidFetchRequestError', async () => {
    const cases: Array<[string, Record<string, string> | undefined, string]> = [
      ['ftp://example.com/', undefined, 'HTTP_UNSUPPORTED_SCHEME'],
      ['not a url', undefined, 'HTTP_INVALID_URL'],
      ['http://user:pw@example.com/', undefined, 'HTTP_INVALID_URL'],
      [`${server.url}page`, { Host: 'evil' }, 'HTTP_FORBIDDEN_HEADER'],
      [`${server.url}page`, { 'Accept-Encoding': 'zstd' }, 'HTTP_FORBIDDEN_HEADER'],
      [`${server.url}page`, { 'X-Test': 'a\r\nInjected: yes' }, 'HTTP_FORBIDDEN_HEADER'],
    ];
    for (const [url, headers, code] of cases) {
      const attempt = client.fetch({ url, ...(headers ? { headers } : {}) }, () => undefined);
      await expect(attempt).rejects.toBeInstanceOf(InvalidFetchRequestError);
      await expect(attempt).rejects.toMatchObject({ code });
    }
    await expect(client.fetch({ url: `${server.url}page`, maxBodyBytes: 0 }, () => undefined)).rejects.toMatchObject({ code: 'HTTP_INVALID_OPTION' });
  });

  it('reuses one keep-alive connection for sequential requests to one origin', async () => {
    const reuse = await startHttpServer((_request, response) => response.end('ok'));
    const local = new HttpClient({ userAgent: USER_AGENT, allowPrivateNetworks: true });
    try {
      const heads = [];
      for (let index = 0; index < 20; index += 1) {
        heads.push((await local.fetch({ url: `${reuse.url}n${index}` }, () => undefined)).head);
      }
      expect(reuse.requests).toHaveLength(20);
      expect(reuse.connections()).toBe(1);
      expect(heads[0]?.timings.connectMs).toBeGreaterThanOrEqual(0);
      expect(heads.slice(1).every((head) => head.timings.connectMs === undefined)).toBe(true);
    } finally {
      await local.close();
      await reuse.close();
    }
  });

  it('does not fetch after close()', async () => {
    const local = new HttpClient({ userAgent: USER_AGENT, allowPrivateNetworks: true });
    await local.close();
    await expect(local.fetch({ url: `${server.url}page` }, () => undefined)).rejects.toMatchObject({ code: 'HTTP_CLIENT_CLOSED' });
  });

  it('rejects only with HttpFetchError for transport failures (sanity)', () => {
    expect(new HttpFetchError('HTTP_CONNECTION_RESET', 'http://x/')).toBeInstanceOf(Error);
  });
});
