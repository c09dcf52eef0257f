import { createServer, get as httpGet, type Server } from 'node:http';
import { createHash } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connect } from 'node:net';
import { gunzipSync } from 'node:zlib';
import * as cheerio from 'cheerio';
import fc from 'fast-check';
import { request } from 'undici';
import { afterEach, describe, expect, it } from 'vitest';
import {
  ChangeTimeline,
  docTreesWeb,
  generateWeb,
  hostileWeb,
  loopbackHosts,
  politenessReport,
  relativeHref,
  requestsByHost,
  startTestWeb,
  trapWeb,
  PAGE_TEXT_SHAPES,
  type PageTextShape,
  type HostSpec,
  type RequestLogEntry,
  type TestWeb,
  type WebSpec,
} from '../../support/test-web/index.js';
import { stampWrites } from '../../support/test-web/respond.js';
import { hammingDistance64, normalizeTextForHash, simhash64, tokenize } from '../../../src/domain/content/index.js';

const MIB = 1024 * 1024;
const webs: TestWeb[] = [];

async function start(spec: WebSpec): Promise<TestWeb> {
  const web = await startTestWeb(spec);
  webs.push(web);
  return web;
}

afterEach(async () => {
  await Promise.all(webs.splice(0).map((web) => web.close()));
});

async function get(url: string, headers: Record<string, string> = {}, method: 'GET' | 'HEAD' = 'GET') {
  const response = await request(url, { method, headers });
  const body = Buffer.from(await response.body.arrayBuffer());
  return { status: response.statusCode, headers: response.headers, body, text: body.toString('utf8') };
}

/** node:http sends the target byte for byte (undici drops a bare trailing '?'). */
function rawGet(host: string, port: number, path: string): Promise<string> {
  return new Promise((resolve, reject) => {
    httpGet({ host, port, path }, (response) => {
      let text = '';
      response.setEncoding('utf8');
      response.on('data', (chunk: string) => (text += chunk));
      response.on('end', () => resolve(text));
    }).once('error', reject);
  });
}

function header(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** Log entries are appended when the response closes, which can trail the client's read slightly. */
async function waitForLog(web: TestWeb, count: number): Promise<readonly RequestLogEntry[]> {
  for (let i = 0; i < 100 && web.log().length < count; i++) await sleep(10);
  return web.log();
}

function connectionRefused(host: string, port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ host, port });
    socket.once('connect', () => {
      socket.destroy();
      resolve(false);
    });
    socket.once('error', (error: NodeJS.ErrnoException) => resolve(error.code === 'ECONNREFUSED'));
  });
}

function codeOf(fn: () => unknown): string | undefined {
  try {
    fn();
  } catch (error) {
    return (error as { code?: string }).code;
  }
  return undefined;
}

async function rejectionCode(promise: Promise<unknown>): Promise<string | undefined> {
  try {
    await promise;
  } catch (error) {
    return (error as { code?: string }).code;
  }
  return undefined;
}

describe('loopbackHosts', () => {
  it('enumerates consecutive addresses, skipping .0 and .255 last octets', () => {
    const hosts = loopbackHosts(300, { base: '127.20.0.0' });
    expect(hosts[0]).toBe('127.20.0.1');
    expect(hosts[253]).toBe('127.20.0.254');
    expect(hosts[254]).toBe('127.20.1.1');
    expect(new Set(hosts).size).toBe(300);
    expect(hosts.some((host) => host.endsWith('.0') || host.endsWith('.255'))).toBe(false);
  });

  it('starts at the base itself when it is usable, and defaults to 127.20.0.0', () => {
    expect(loopbackHosts(2, { base: '127.20.0.7' })).toEqual(['127.20.0.7', '127.20.0.8']);
    expect(loopbackHosts(1)).toEqual(['127.20.0.1']);
  });

  it('refuses bases outside 127/8 and counts past the end of it', () => {
    expect(codeOf(() => loopbackHosts(1, { base: '10.0.0.1' }))).toBe('TEST_WEB_INVALID_HOST');
    expect(codeOf(() => loopbackHosts(1, { base: '127.0.0' }))).toBe('TEST_WEB_INVALID_HOST');
    expect(codeOf(() => loopbackHosts(10, { base: '127.255.255.250' }))).toBe('TEST_WEB_ADDRESS_SPACE_EXHAUSTED');
    expect(codeOf(() => loopbackHosts(-1))).toBe('TEST_WEB_INVALID_OPTION');
  });
});

describe('startTestWeb: hosts and routing', () => {
  const [a, b] = loopbackHosts(2, { base: '127.21.0.0' }) as [string, string];

  it('serves each loopback address as a distinct host on one port', async () => {
    const web = await start({
      hosts: [
        { host: a, pages: [{ path: '/', body: 'host a' }], robotsTxt: 'User-agent: *\nDisallow: /x\n' },
        { host: b, pages: [{ path: '/', body: 'host b' }], notFoundBody: 'nothing here' },
      ],
    });
    expect(web.url(a)).toBe(`http://${a}:${web.port}/`);
    expect(web.url(b, '/x?y')).toBe(`http://${b}:${web.port}/x?y`);
    expect((await get(web.url(a))).text).toBe('host a');
    expect((await get(web.url(b))).text).toBe('host b');
    const robots = await get(web.url(a, '/robots.txt'));
    expect(robots.status).toBe(200);
    expect(robots.headers['content-type']).toBe('text/plain; charset=utf-8');
    expect(robots.text).toContain('Disallow: /x');
    expect((await get(web.url(b, '/robots.txt'))).status).toBe(404);
    const missing = await get(web.url(b, '/missing'));
    expect(missing.status).toBe(404);
    expect(missing.text).toBe('nothing here');
    const log = await waitForLog(web, 6);
    expect(log.map((entry) => `${entry.host} ${entry.path} ${entry.status}`)).toEqual([
      `${a} / 200`,
      `${b} / 200`,
      `${a} /robots.txt 200`,
      `${b} /robots.txt 404`,
      `${b} /missing 404`,
    ]);
  });

  it('with one wildcard listener, still tells hosts apart by the address a connection came to', async () => {
    const [c, d, stranger] = loopbackHosts(3, { base: '127.22.0.0' }) as [string, string, string];
    const web = await startTestWeb({ hosts: [{ host: c, pages: [{ path: '/', body: 'host c' }] }, { host: d, pages: [{ path: '/', body: 'host d' }] }] }, { listen: 'wildcard' });
    webs.push(web);
    expect((await get(web.url(c))).text).toBe('host c');
    expect((await get(web.url(d))).text).toBe('host d');
    expect((await get(`http://${stranger}:${web.port}/`)).status).toBe(421);
    expect((await waitForLog(web, 3)).map((entry) => entry.host)).toEqual([c, d, stranger]);
  });

  it('matches the raw target exactly, query included', async () => {
    const web = await start({
      hosts: [
        {
          host: a,
          pages: [
            { path: '/a', body: 'bare' },
            { path: '/a?', body: 'empty query' },
            { path: '/a?flag', body: 'flag' },
            { path: '/a?flag=', body: 'flag empty value' },
            { path: '/A', body: 'upper' },
          ],
        },
      ],
    });
    const cases: [string, string][] = [['/a', 'bare'], ['/a?', 'empty query'], ['/a?flag', 'flag'], ['/a?flag=', 'flag empty value'], ['/A', 'upper']];
    for (const [path, body] of cases) {
      expect(await rawGet(a, web.port, path)).toBe(body);
    }
    expect((await get(web.url(a, '/a?flag=1'))).status).toBe(404);
  });

  it('fills the port into string bodies and headers, and gives body functions the request context', async () => {
    const web = await start({
      hosts: [
        {
          host: a,
          pages: [
            { path: '/', body: '<a href="http://{port}/">x</a>', headers: { Link: '<http://x:{port}/>' } },
            { path: '/ctx', body: (ctx) => `${ctx.host} ${ctx.port} ${ctx.hostRequestIndex} ${ctx.targetRequestIndex}`, contentType: 'text/plain' },
          ],
        },
      ],
    });
    const root = await get(web.url(a));
    expect(root.text).toBe(`<a href="http://${web.port}/">x</a>`);
    expect(root.headers.link).toBe(`<http://x:${web.port}/>`);
    expect((await get(web.url(a, '/ctx'))).text).toBe(`${a} ${web.port} 1 0`);
    expect((await get(web.url(a, '/ctx'))).text).toBe(`${a} ${web.port} 2 1`);
  });

  it('rejects invalid specs with typed errors', async () => {
    expect(await rejectionCode(startTestWeb({ hosts: [] }))).toBe('TEST_WEB_NO_HOSTS');
    expect(await rejectionCode(startTestWeb({ hosts: [{ host: '10.0.0.1', pages: [] }] }))).toBe('TEST_WEB_INVALID_HOST');
    expect(await rejectionCode(startTestWeb({ hosts: [{ host: a, pages: [] }, { host: a, pages: [] }] }))).toBe('TEST_WEB_DUPLICATE_HOST');
    expect(await rejectionCode(startTestWeb({ hosts: [{ host: a, pages: [{ path: 'x' }] }] }))).toBe('TEST_WEB_INVALID_OPTION');
  });

  it('update replaces pages without restarting, resets counters, and refuses new hosts', async () => {
    const web = await start({ hosts: [{ host: a, pages: [{ path: '/', body: 'v1' }] }, { host: b, pages: [{ path: '/', body: 'b' }] }] });
    const port = web.port;
    expect((await get(web.url(a))).text).toBe('v1');
    web.update({ hosts: [{ host: a, pages: [{ path: '/', body: 'v2', behavior: { kind: 'fail-times', status: 500, times: 1 } }] }] });
    expect(web.port).toBe(port);
    expect((await get(web.url(a))).status).toBe(500);
    expect((await get(web.url(a))).text).toBe('v2');
    expect((await get(web.url(b))).status).toBe(404);
    expect(codeOf(() => web.update({ hosts: [{ host: '127.21.9.9', pages: [] }] }))).toBe('TEST_WEB_UNKNOWN_HOST');
  });

  it('close cuts in-flight responses, frees the port on every host, and is idempotent', async () => {
    const web = await startTestWeb({ hosts: [{ host: a, pages: [{ path: '/', delayMs: 10_000 }] }, { host: b, pages: [] }] });
    const pending = request(web.url(a)).then(
      () => 'answered',
      () => 'cut',
    );
    await sleep(50);
    const startedAt = Date.now();
    await Promise.all([web.close(), web.close()]);
    expect(Date.now() - startedAt).toBeLessThan(2_000);
    expect(await pending).toBe('cut');
    expect(await connectionRefused(a, web.port)).toBe(true);
    expect(await connectionRefused(b, web.port)).toBe(true);
  });
});

describe('startTestWeb: the request log', () => {
  const [host] = loopbackHosts(1, { base: '127.22.0.0' }) as [string];

  it('records start and finish, status, request headers and body bytes', async () => {
    const body = 'x'.repeat(1000);
    const web = await start({ hosts: [{ host, pages: [{ path: '/slow?q=1', delayMs: 150, body }] }] });
    const before = performance.timeOrigin + performance.now();
    await get(web.url(host, '/slow?q=1'), { 'user-agent': 'DurableCrawler/0.1', 'if-none-match': '"abc"', 'if-modified-since': 'Tue, 01 Jan 2030 00:00:00 GMT', 'accept-encoding': 'gzip' });
    await get(web.url(host, '/slow?q=1'), {}, 'HEAD');
    const [entry, head] = await waitForLog(web, 2);
    expect(entry).toMatchObject({
      host,
      method: 'GET',
      path: '/slow?q=1',
      status: 200,
      userAgent: 'DurableCrawler/0.1',
      ifNoneMatch: '"abc"',
      ifModifiedSince: 'Tue, 01 Jan 2030 00:00:00 GMT',
      acceptEncoding: 'gzip',
      bytesSent: 1000,
      aborted: false,
    });
    expect(entry?.startedAtMs).toBeGreaterThanOrEqual(before - 1);
    // Timers run on a millisecond loop clock, so allow one millisecond of rounding.
    expect((entry?.finishedAtMs ?? 0) - (entry?.startedAtMs ?? 0)).toBeGreaterThanOrEqual(149);
    // The clock read before the last write brackets the end with the one read after it.
    expect(entry?.lastWriteAtMs).toBeGreaterThanOrEqual((entry?.startedAtMs ?? 0) + 149);
    expect(entry?.lastWriteAtMs).toBeLessThanOrEqual(entry?.finishedAtMs ?? 0);
    expect(head).toMatchObject({ method: 'HEAD', status: 200, bytesSent: 0 });
    expect(head?.lastWriteAtMs).toBeLessThanOrEqual(head?.finishedAtMs ?? 0);
  });

  it("stamps the last call that sends bytes: an end() after a declared-length body's last write sends none", async () => {
    const stamps = new Map<string, { lastWriteAtMs?: number; bodyWrittenAtMs?: number }>();
    const server: Server = createServer((req, res) => {
      const entry: { lastWriteAtMs?: number; bodyWrittenAtMs?: number } = {};
      stamps.set(req.url ?? '', entry);
      stampWrites(res, entry);
      if (req.url === '/empty') {
        // Nothing written: end() sends the headers.
        res.writeHead(204);
        setTimeout(() => res.end(), 30);
        return;
      }
      res.writeHead(200, req.url === '/declared' ? { 'content-length': 5 } : {});
      res.write('hello');
      entry.bodyWrittenAtMs = entry.lastWriteAtMs;
      // A busy server ends the response later; only the chunked one still has bytes to send then.
      setTimeout(() => res.end(), 30);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const { port } = server.address() as { port: number };
      for (const path of ['/declared', '/chunked', '/empty']) {
        await new Promise<void>((resolve, reject) => httpGet(`http://127.0.0.1:${port}${path}`, (res) => res.resume().on('end', resolve).on('error', reject)).on('error', reject));
      }
      const declared = stamps.get('/declared')!;
      expect(declared.lastWriteAtMs).toBe(declared.bodyWrittenAtMs);
      const chunked = stamps.get('/chunked')!;
      expect(chunked.lastWriteAtMs).toBeGreaterThanOrEqual(chunked.bodyWrittenAtMs! + 25);
      expect(stamps.get('/empty')!.lastWriteAtMs).toBeDefined();
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  });

  it('clearLog empties it; requestsByHost groups and orders by arrival', async () => {
    const [x, y] = loopbackHosts(2, { base: '127.22.1.0' }) as [string, string];
    const web = await start({ hosts: [{ host: x, pages: [] }, { host: y, pages: [] }] });
    await get(web.url(x, '/1'));
    await get(web.url(y, '/2'));
    await get(web.url(x, '/3'));
    const grouped = requestsByHost(await waitForLog(web, 3));
    expect(grouped.get(x)?.map((entry) => entry.path)).toEqual(['/1', '/3']);
    expect(grouped.get(y)?.map((entry) => entry.path)).toEqual(['/2']);
    web.clearLog();
    expect(web.log()).toHaveLength(0);
  });
});

describe('startTestWeb: behaviours', () => {
  const [host, slowHost] = loopbackHosts(2, { base: '127.23.0.0' }) as [string, string];

  it('redirect answers the status and a Location with the port filled in', async () => {
    const web = await start({ hosts: [{ host, pages: [{ path: '/from', behavior: { kind: 'redirect', status: 308, location: `http://${host}:{port}/to` } }] }] });
    const response = await get(web.url(host, '/from'));
    expect(response.status).toBe(308);
    expect(response.headers.location).toBe(web.url(host, '/to'));
  });

  it('retry-after answers with Retry-After the given number of times, then serves normally', async () => {
    const web = await start({
      hosts: [
        {
          host,
          pages: [
            { path: '/', body: 'ok', behavior: { kind: 'retry-after', status: 429, retryAfter: '3', times: 2 } },
            { path: '/date', body: 'ok', behavior: { kind: 'retry-after', status: 503, retryAfter: (nowMs) => new Date(nowMs + 5000).toUTCString(), times: 1 } },
          ],
        },
      ],
    });
    for (let i = 0; i < 2; i++) {
      const limited = await get(web.url(host));
      expect(limited.status).toBe(429);
      expect(limited.headers['retry-after']).toBe('3');
    }
    expect((await get(web.url(host))).text).toBe('ok');
    const dated = await get(web.url(host, '/date'));
    expect(dated.status).toBe(503);
    const retryAt = Date.parse(header(dated.headers['retry-after']) ?? '');
    expect(retryAt - Date.now()).toBeGreaterThan(3000);
    expect((await get(web.url(host, '/date'))).status).toBe(200);
  });

  it('fail-times fails the given number of times, then serves normally', async () => {
    const web = await start({ hosts: [{ host, pages: [{ path: '/', body: 'fine', behavior: { kind: 'fail-times', status: 503, times: 3 } }] }] });
    const statuses = [];
    for (let i = 0; i < 4; i++) statuses.push((await get(web.url(host))).status);
    expect(statuses).toEqual([503, 503, 503, 200]);
  });

  it('oversized streams exactly its bytes, with or without Content-Length', async () => {
    const bytes = 3 * MIB + 17;
    const web = await start({
      hosts: [
        {
          host,
          pages: [
            { path: '/big', behavior: { kind: 'oversized', bytes } },
            { path: '/chunked', behavior: { kind: 'oversized', bytes, declareLength: false } },
          ],
        },
      ],
    });
    const declared = await get(web.url(host, '/big'));
    expect(declared.headers['content-length']).toBe(String(bytes));
    expect(declared.body.length).toBe(bytes);
    const chunked = await get(web.url(host, '/chunked'));
    expect(chunked.headers['content-length']).toBeUndefined();
    expect(chunked.body.length).toBe(bytes);
  });

  it('oversized stops streaming when the client cuts it off, and logs it as aborted', async () => {
    const bytes = 512 * MIB;
    const web = await start({ hosts: [{ host, pages: [{ path: '/huge', behavior: { kind: 'oversized', bytes } }] }] });
    const rssBefore = process.memoryUsage().rss;
    const response = await request(web.url(host, '/huge'));
    let received = 0;
    for await (const chunk of response.body) {
      received += (chunk as Buffer).length;
      if (received > MIB) break;
    }
    const [entry] = await waitForLog(web, 1);
    expect(entry?.aborted).toBe(true);
    expect(entry?.bytesSent).toBeLessThan(64 * MIB);
    expect(process.memoryUsage().rss - rssBefore).toBeLessThan(128 * MIB);
  });

  it('gzip-bomb is small on the wire and inflates to the declared size', async () => {
    const decompressedBytes = 32 * MIB;
    const web = await start({ hosts: [{ host, pages: [{ path: '/bomb', behavior: { kind: 'gzip-bomb', decompressedBytes } }] }] });
    const response = await get(web.url(host, '/bomb'), { 'accept-encoding': 'gzip' });
    expect(response.headers['content-encoding']).toBe('gzip');
    expect(response.body.length).toBeLessThan(64 * 1024);
    expect(Number(response.headers['content-length'])).toBe(response.body.length);
    expect(gunzipSync(response.body).length).toBe(decompressedBytes);
  });

  it('slow host delays every response, robots.txt included; pages add their own delay', async () => {
    const web = await start({
      hosts: [{ host: slowHost, robotsTxt: 'User-agent: *\n', defaultBehavior: { kind: 'slow', delayMs: 120 }, pages: [{ path: '/', body: 'slow', delayMs: 50 }] }],
    });
    await get(web.url(slowHost, '/robots.txt'));
    await get(web.url(slowHost));
    const [robots, root] = await waitForLog(web, 2);
    expect((robots?.finishedAtMs ?? 0) - (robots?.startedAtMs ?? 0)).toBeGreaterThanOrEqual(119);
    expect((root?.finishedAtMs ?? 0) - (root?.startedAtMs ?? 0)).toBeGreaterThanOrEqual(169);
  });

  it('bodyDelayMs sends headers and half the body, then stalls', async () => {
    const web = await start({ hosts: [{ host, pages: [{ path: '/', body: 'a'.repeat(10_000), bodyDelayMs: 300 }] }] });
    const startedAt = performance.now();
    const response = await request(web.url(host));
    const headersAfter = performance.now() - startedAt;
    const body = await response.body.text();
    const totalAfter = performance.now() - startedAt;
    expect(headersAfter).toBeLessThan(200);
    expect(totalAfter).toBeGreaterThanOrEqual(295);
    expect(body).toHaveLength(10_000);
  });

  it('changing pages answer ETag and Last-Modified, and 304 to matching conditional requests', async () => {
    const web = await start({
      hosts: [{ host, pages: [{ path: '/still', body: '<html><body><p>x</p></body></html>', behavior: { kind: 'changing', ratePerDay: 0, seed: 1 } }] }],
    });
    const first = await get(web.url(host, '/still'));
    const etag = header(first.headers.etag) ?? '';
    const lastModified = header(first.headers['last-modified']) ?? '';
    expect(etag).toMatch(/^"c1-v0"$/);
    expect(Date.parse(lastModified)).toBeLessThanOrEqual(Date.now());
    expect(first.text).toContain('Revision 0');
    expect((await get(web.url(host, '/still'), { 'if-none-match': etag })).status).toBe(304);
    expect((await get(web.url(host, '/still'), { 'if-none-match': `"other", W/${etag}` })).status).toBe(304);
    expect((await get(web.url(host, '/still'), { 'if-none-match': '"other"' })).status).toBe(200);
    expect((await get(web.url(host, '/still'), { 'if-modified-since': lastModified })).status).toBe(304);
    expect((await get(web.url(host, '/still'), { 'if-modified-since': new Date(Date.parse(lastModified) - 1000).toUTCString() })).status).toBe(200);
  });

  it('changing pages change content and validators as time passes (scaled)', async () => {
    // About one change per simulated 10 ms: 100 ms apart, P(no change) = e^-10.
    const web = await start({
      hosts: [{ host, pages: [{ path: '/', body: (ctx) => `version ${ctx.version}`, behavior: { kind: 'changing', ratePerDay: 8_640_000, seed: 42, timeScale: 1 } }] }],
    });
    const first = await get(web.url(host));
    await sleep(100);
    const second = await get(web.url(host), { 'if-none-match': header(first.headers.etag) ?? '' });
    expect(second.status).toBe(200);
    expect(second.headers.etag).not.toBe(first.headers.etag);
    expect(Number(second.text.split(' ')[1])).toBeGreaterThan(Number(first.text.split(' ')[1]));
  });
});

describe('ChangeTimeline', () => {
  it('is deterministic per seed and its rate matches ratePerDay', () => {
    const day = 86_400_000;
    const a = new ChangeTimeline({ ratePerDay: 2, seed: 7 });
    const b = new ChangeTimeline({ ratePerDay: 2, seed: 7 });
    expect(a.changesUntil(400 * day)).toEqual(b.changesUntil(400 * day));
    const count = a.versionAt(400 * day);
    // Poisson(800): standard deviation about 28; five of them either side.
    expect(count).toBeGreaterThan(660);
    expect(count).toBeLessThan(940);
    expect(a.changedAtMs(count)).toBeLessThanOrEqual(400 * day);
    expect(new ChangeTimeline({ ratePerDay: 0, seed: 7 }).versionAt(1e15)).toBe(0);
  });
});

describe('politenessReport', () => {
  const entry = (host: string, startedAtMs: number, finishedAtMs: number, path = '/'): RequestLogEntry => ({
    host,
    method: 'GET',
    path,
    startedAtMs,
    finishedAtMs,
    status: 200,
    bytesSent: 0,
    aborted: false,
  });

  it('finds a planted violation and a planted overlap, per host', () => {
    const log = [
      entry('h1', 0, 10, '/robots.txt'),
      entry('h1', 1010, 1020),
      entry('h1', 1500, 1510, '/too-soon'),
      entry('h2', 0, 500),
      entry('h2', 200, 300, '/overlapping'),
      entry('h3', 0, 1),
    ];
    const report = politenessReport(log, 1000);
    // The overlapping pair is also a violation: its end-to-start gap is negative.
    expect(report.violations.map((v) => [v.host, v.b.path, v.gapMs])).toEqual([
      ['h1', '/too-soon', 480],
      ['h2', '/overlapping', -300],
    ]);
    expect(report.overlaps).toHaveLength(1);
    expect(report.overlaps[0]).toMatchObject({ host: 'h2', overlapMs: 100 });
    expect(report.overlaps[0]?.b.path).toBe('/overlapping');
    expect(report.minGapMsByHost.get('h1')).toBe(480);
    expect(report.minGapMsByHost.get('h2')).toBe(-300);
    expect(report.minGapMsByHost.has('h3')).toBe(false);
  });

  it('ends a response at its last write by default, and at its finish stamp when asked, with both gaps', () => {
    const log = [{ ...entry('h', 0, 112), lastWriteAtMs: 100 }, entry('h', 1105, 1200), entry('h', 1210, 1300, '/unstamped')];
    // From the last write the first gap is 1005 ms: not a violation; the second has no last-write stamp.
    expect(politenessReport(log, 1000).violations.map((v) => v.b.path)).toEqual(['/unstamped']);
    const [late, unstamped] = politenessReport(log, 1000, { endStamp: 'finish' }).violations;
    expect(late).toMatchObject({ gapMs: 993, gapFromLastWriteMs: 1005 });
    expect(unstamped?.gapFromLastWriteMs).toBeUndefined();
    expect(politenessReport(log, 1000, { measure: 'start-to-start' }).violations.every((v) => v.gapFromLastWriteMs === undefined)).toBe(true);
  });

  it('measures start-to-start when asked, and honours a tolerance', () => {
    const log = [entry('h', 0, 100), entry('h', 1000, 1100)];
    expect(politenessReport(log, 1000).violations).toHaveLength(1);
    expect(politenessReport(log, 1000, { measure: 'start-to-start' }).violations).toHaveLength(0);
    expect(politenessReport(log, 1000, { toleranceMs: 100 }).violations).toHaveLength(0);
  });

  it('reports an overlap exactly when two requests to one host intersect (property)', () => {
    const interval = fc.record({ host: fc.constantFrom('a', 'b'), start: fc.integer({ min: 0, max: 1000 }), length: fc.integer({ min: 1, max: 100 }) });
    fc.assert(
      fc.property(fc.array(interval, { maxLength: 12 }), (items) => {
        const log = items.map((item) => entry(item.host, item.start, item.start + item.length));
        const intersecting = log.some((x, i) => log.some((y, j) => i < j && x.host === y.host && x.startedAtMs < y.finishedAtMs && y.startedAtMs < x.finishedAtMs));
        expect(politenessReport(log, 0).overlaps.length > 0).toBe(intersecting);
      }),
    );
  });

  it('sees a real overlap and real gaps in the server log', async () => {
    const [host] = loopbackHosts(1, { base: '127.24.0.0' }) as [string];
    const web = await start({ hosts: [{ host, pages: [{ path: '/', delayMs: 100 }] }] });
    await Promise.all([get(web.url(host)), get(web.url(host))]);
    const concurrent = politenessReport(await waitForLog(web, 2), 0);
    expect(concurrent.overlaps).toHaveLength(1);
    web.clearLog();
    await get(web.url(host));
    await sleep(200);
    await get(web.url(host));
    const spaced = politenessReport(await waitForLog(web, 2), 150);
    expect(spaced.overlaps).toHaveLength(0);
    expect(spaced.violations).toHaveLength(0);
    expect(politenessReport(web.log(), 400).violations).toHaveLength(1);
  });
});

describe('many hosts', () => {
  it('starts 1,000 hosts on one port, serves each as itself, and closes cleanly', async () => {
    const hosts = loopbackHosts(1000, { base: '127.25.0.0' });
    const spec: WebSpec = { hosts: hosts.map((host): HostSpec => ({ host, pages: [{ path: '/', body: (ctx) => ctx.host }] })) };
    const web = await startTestWeb(spec);
    try {
      expect(web.hosts).toEqual(hosts);
      for (let at = 0; at < hosts.length; at += 100) {
        const bodies = await Promise.all(hosts.slice(at, at + 100).map(async (host) => (await get(web.url(host))).text));
        expect(bodies).toEqual(hosts.slice(at, at + 100));
      }
      const log = await waitForLog(web, 1000);
      expect(new Set(log.map((entry) => entry.host)).size).toBe(1000);
    } finally {
      await web.close();
    }
    for (const host of [hosts[0], hosts[499], hosts[999]] as string[]) expect(await connectionRefused(host, web.port)).toBe(true);
  });
});

/** A tiny crawler over the served web: follows what a polite crawler follows, records what it saw. */
async function miniCrawl(web: TestWeb, seeds: string[], disallowed: Set<string>) {
  const fetched = new Set<string>();
  const linkedDisallowed = new Set<string>();
  const allTargets = new Set<string>();
  const queue = [...seeds];
  const queued = new Set(seeds);
  while (queue.length > 0) {
    const batch = queue.splice(0, 20);
    await Promise.all(
      batch.map(async (url) => {
        fetched.add(url);
        const response = await get(url);
        expect(response.status, url).toBe(200);
        const $ = cheerio.load(response.text);
        const base = new URL($('base').attr('href') ?? url, url);
        const followLinks = !($('meta[name="robots"]').attr('content') ?? '').includes('nofollow');
        $('a[href]').each((_, element) => {
          const resolved = new URL($(element).attr('href') ?? '', base);
          if (resolved.protocol !== 'http:') return;
          resolved.hash = '';
          const target = resolved.href;
          allTargets.add(target);
          if (disallowed.has(target)) {
            linkedDisallowed.add(target);
            return;
          }
          if (!followLinks || ($(element).attr('rel') ?? '').includes('nofollow') || queued.has(target)) return;
          queued.add(target);
          queue.push(target);
        });
      }),
    );
  }
  return { fetched, linkedDisallowed, allTargets };
}

describe('generateWeb', () => {
  const options = { hosts: 12, pagesPerHost: 10, linksPerPage: 4, crossHostLinkRatio: 0.3, seed: 11, base: '127.26.0.0', duplicatePages: 3 };

  it('is deterministic for a seed and differs across seeds', () => {
    const bodies = (seed: number): unknown => generateWeb({ ...options, seed }).spec.hosts.map((host) => [host.robotsTxt, host.pages]);
    expect(JSON.stringify(bodies(11))).toBe(JSON.stringify(bodies(11)));
    expect(JSON.stringify(bodies(11))).not.toBe(JSON.stringify(bodies(12)));
  });

  it('makes every allowed page reachable from the seed and links every disallowed page (served, crawled)', async () => {
    const generated = generateWeb(options);
    const web = await start(generated.spec);
    const expected = generated.expectedReachable(web.port);
    const disallowed = generated.disallowed(web.port);
    expect(expected.size).toBe(generated.pages.filter((page) => page.allowed).length);
    expect(disallowed.size).toBeGreaterThan(0);
    const crawl = await miniCrawl(web, generated.seeds(web.port), disallowed);
    expect([...crawl.fetched].sort()).toEqual([...expected].sort());
    expect([...crawl.linkedDisallowed].sort()).toEqual([...disallowed].sort());
    // Every link, followed or not, points at a page that exists.
    const served = new Set(generated.pages.map((page) => `http://${page.host}:${web.port}${page.path}`));
    expect([...crawl.allTargets].filter((target) => !served.has(target))).toEqual([]);
    // The server saw each page once: the log agrees with the crawl.
    const paths = (await waitForLog(web, expected.size)).map((entry) => `http://${entry.host}:${web.port}${entry.path}`);
    expect(paths.sort()).toEqual([...expected].sort());
  });

  it('answers every request, robots.txt included, after latencyMs when asked to', async () => {
    const generated = generateWeb({ ...options, hosts: 1, latencyMs: 120 });
    expect(generated.spec.hosts[0]!.defaultBehavior).toEqual({ kind: 'slow', delayMs: 120 });
    expect(generateWeb(options).spec.hosts[0]!.defaultBehavior).toBeUndefined();
    const web = await start(generated.spec);
    const [host] = generated.spec.hosts;
    for (const path of ['/robots.txt', '/']) {
      const startedAtMs = Date.now();
      const response = await fetch(`http://${host!.host}:${web.port}${path}`);
      await response.arrayBuffer();
      expect(Date.now() - startedAtMs).toBeGreaterThanOrEqual(115);
    }
    expect(() => generateWeb({ ...options, latencyMs: -1 })).toThrow(/latencyMs/);
  });

  it('writes links every way a crawler must understand', () => {
    const html = generateWeb({ ...options, hosts: 20 }).spec.hosts.flatMap((host) => host.pages.map((page) => page.body as string)).join('\n');
    const hrefs = [...html.matchAll(/<a href="([^"]*)"/g)].map((match) => match[1] ?? '');
    const has = (test: (href: string) => boolean): boolean => hrefs.some(test);
    expect(has((href) => href.startsWith('../'))).toBe(true);
    expect(has((href) => href.startsWith('./'))).toBe(true);
    expect(has((href) => /^[a-zA-Z][^:]*\?/.test(href))).toBe(true); // 'item?id=3'
    expect(has((href) => href.startsWith('/') && !href.startsWith('//'))).toBe(true);
    expect(has((href) => href.startsWith('http://'))).toBe(true);
    expect(has((href) => href.startsWith('HTTP://'))).toBe(true);
    expect(has((href) => href.startsWith('//'))).toBe(true);
    expect(has((href) => /[^#]#section-\d$/.test(href))).toBe(true);
    for (const scheme of ['mailto:', 'javascript:', 'tel:', '#top']) expect(has((href) => href.startsWith(scheme))).toBe(true);
    for (const marker of ['rel="nofollow"', '<base href="', '<meta name="robots" content="nofollow">', '<meta name="robots" content="noindex">', '<link rel="canonical"']) {
      expect(html).toContain(marker);
    }
  });

  it('mixes robots files and marks exactly the pages they disallow for our token', () => {
    const generated = generateWeb({ ...options, hosts: 10 });
    expect(new Set(generated.robotsByHost.values())).toEqual(new Set(['missing', 'empty', 'star-disallow', 'token-disallow', 'other-bot']));
    for (const page of generated.pages) {
      const kind = generated.robotsByHost.get(page.host);
      const disallowing = kind === 'star-disallow' || kind === 'token-disallow' || kind === 'other-bot';
      expect(page.allowed).toBe(!(disallowing && page.path.startsWith('/private/')));
    }
    const tokenHost = generated.spec.hosts.find((host) => generated.robotsByHost.get(host.host) === 'token-disallow');
    expect(tokenHost?.robotsTxt).toContain('User-agent: DurableCrawler\nDisallow: /private/');
    expect(generateWeb({ ...options, robots: 'none' }).pages.every((page) => page.allowed)).toBe(true);
  });

  it('serves byte-identical copies and pads pages to pageBytes', () => {
    const generated = generateWeb({ ...options, pageBytes: 4096 });
    const pairs = generated.duplicates(80);
    expect(pairs).toHaveLength(3);
    const bodyOf = (url: string): unknown => {
      const parsed = new URL(url);
      return generated.spec.hosts.find((host) => host.host === parsed.hostname)?.pages.find((page) => page.path === parsed.pathname + parsed.search)?.body;
    };
    for (const [copy, original] of pairs) {
      expect(bodyOf(copy)).toBeDefined();
      expect(bodyOf(copy)).toBe(bodyOf(original));
    }
    for (const host of generated.spec.hosts) for (const page of host.pages) expect(Buffer.byteLength(page.body as string)).toBeGreaterThanOrEqual(4096);
  });

  it('gives pages the text shape asked for, on the same links; the default is the web it always was', () => {
    const shaped = (text?: PageTextShape) => generateWeb({ ...options, duplicatePages: 0, pageBytes: 6000, ...(text ? { text } : {}) });
    // The benches compare runs across releases: the default web is the same, byte for byte.
    const digest = createHash('sha256');
    for (const host of generateWeb({ hosts: 12, pagesPerHost: 9, linksPerPage: 6, crossHostLinkRatio: 0.3, pageBytes: 3000, seed: 7 }).spec.hosts) {
      for (const page of host.pages) digest.update(`${page.path}\n${page.body as string}`);
    }
    expect(digest.digest('hex')).toBe('0a11af892b0c8f8fa209f4d883580101d279495be8eb6919cae3cf7c3e35dd8f');
    const hrefsOf = (web: ReturnType<typeof shaped>): string[] => web.spec.hosts.flatMap((host) => host.pages.flatMap((page) => [...(page.body as string).matchAll(/<a href="([^"]*)"/g)].map((match) => match[1]!)));
    const simhashes = (web: ReturnType<typeof shaped>): bigint[] =>
      web.spec.hosts.flatMap((host) => host.pages.map((page) => simhash64(tokenize(normalizeTextForHash(cheerio.load(page.body as string)('body').text())))));
    const meanDistance = (hashes: bigint[]): number => {
      let sum = 0;
      let pairs = 0;
      for (let i = 0; i < hashes.length; i++) for (let j = i + 1; j < hashes.length; j++, pairs++) sum += hammingDistance64(hashes[i]!, hashes[j]!);
      return sum / pairs;
    };
    const byShape = new Map(PAGE_TEXT_SHAPES.map((shape) => [shape, shaped(shape)]));
    expect(JSON.stringify(byShape.get('small-vocabulary')!.spec)).toBe(JSON.stringify(shaped().spec));
    for (const web of byShape.values()) expect(hrefsOf(web)).toEqual(hrefsOf(shaped()));
    // Distinct pages are about as far apart as unrelated texts; templated ones a few bits, as near-duplicates are.
    expect(meanDistance(simhashes(byShape.get('distinct')!))).toBeGreaterThan(20);
    expect(meanDistance(simhashes(byShape.get('templated')!))).toBeLessThan(12);
    expect(codeOf(() => generateWeb({ ...options, text: 'lorem' as PageTextShape }))).toBe('TEST_WEB_INVALID_OPTION');
  });

  it('refuses nonsense options with a typed error', () => {
    expect(codeOf(() => generateWeb({ ...options, hosts: 0 }))).toBe('TEST_WEB_INVALID_OPTION');
    expect(codeOf(() => generateWeb({ ...options, crossHostLinkRatio: 2 }))).toBe('TEST_WEB_INVALID_OPTION');
  });
});

describe('docTreesWeb', () => {
  it('serves a folder as a host, its index at /, and knows which files links reach', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'doc-tree-'));
    try {
      mkdirSync(join(dir, 'guide'));
      writeFileSync(join(dir, 'index.html'), '<a href="guide/">Guide</a> <a href="a.html#x">A</a> <a href="https://elsewhere.example/">out</a> <a href="missing.html">gone</a>');
      writeFileSync(join(dir, 'guide', 'index.html'), '<base href="../"><a href="b.html">B</a> <a href="logo.png">logo</a>');
      writeFileSync(join(dir, 'a.html'), '<a rel="nofollow" href="hidden.html">hidden</a>');
      writeFileSync(join(dir, 'b.html'), 'no links');
      writeFileSync(join(dir, 'hidden.html'), 'nofollow only');
      writeFileSync(join(dir, 'logo.png'), Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x7b, 0x70, 0x6f, 0x72, 0x74, 0x7d]));
      const generated = docTreesWeb({ trees: [{ name: 'tiny manual', dir }], base: '127.27.0.0' });
      expect(generated.files).toBe(6);
      const web = await start(generated.spec);
      const host = generated.hosts[0]!;
      const url = (path: string): string => `http://${host}:${web.port}${path}`;
      expect(generated.seeds(web.port)).toEqual([url('/')]);
      expect([...generated.expectedReachable(web.port)].sort()).toEqual(['/', '/a.html', '/b.html', '/guide/', '/logo.png'].map(url).sort());
      const root = await fetch(url('/'));
      expect(await root.text()).toContain('Guide');
      const logo = await fetch(url('/logo.png'));
      expect(logo.headers.get('content-type')).toBe('image/png');
      // Served as read: no port placeholder filled into a file that happens to hold one.
      expect(Buffer.from(await logo.arrayBuffer()).subarray(4).toString()).toBe('{port}');
      expect(() => docTreesWeb({ trees: [{ name: 'empty', dir: join(dir, 'guide', 'nothing') }] })).toThrow(/install its package/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('relativeHref', () => {
  it('resolves back to its target from any directory (property)', () => {
    const segment = fc.constantFrom('a', 'b', 'Docs', 'p1.html', 'x');
    const path = fc.array(segment, { maxLength: 4 }).map((segments) => '/' + segments.join('/'));
    const directory = fc.array(segment, { maxLength: 4 }).map((segments) => '/' + segments.map((s) => s + '/').join(''));
    const query = fc.constantFrom('', '?b=1', '?flag', '?id=3&x=');
    fc.assert(
      fc.property(directory, path, query, fc.boolean(), (from, target, q, dot) => {
        const href = relativeHref(from, target + q, dot);
        expect(new URL(href, `http://h${from}doc`).href).toBe(`http://h${target}${q}`);
      }),
    );
  });
});

describe('trapWeb', () => {
  it('serves an infinite calendar, fresh session ids, tracking variants and the redirect scenarios', async () => {
    const trap = trapWeb();
    const web = await start(trap.spec);
    const { calendar, session, tracking, redirects, main } = trap.hosts;

    let month = web.url(calendar, '/calendar/2026/11');
    const months = [];
    for (let i = 0; i < 4; i++) {
      const $ = cheerio.load((await get(month)).text);
      month = new URL($('a:contains("Next month")').attr('href') ?? '', month).href;
      months.push(new URL(month).pathname);
    }
    expect(months).toEqual(['/calendar/2026/12', '/calendar/2027/1', '/calendar/2027/2', '/calendar/2027/3']);
    expect((await get(web.url(calendar, '/calendar/9999/12'))).status).toBe(200);
    expect((await get(web.url(calendar, '/calendar/2026/13'))).status).toBe(404);
    expect(trap.classify(web.url(calendar, '/calendar/3000/5'))).toBe('calendar');

    const item = async (): Promise<string[]> => cheerio.load((await get(web.url(session, '/shop/item/1'))).text)('a').map((_, a) => a.attribs.href ?? '').get();
    const first = await item();
    const second = await item();
    expect(first.some((href) => href.includes(';jsessionid='))).toBe(true);
    expect(first.some((href) => href.includes('?sid='))).toBe(true);
    expect(first.filter((href) => second.includes(href))).toEqual([]);
    expect((await get(web.url(session, first[0] ?? ''))).status).toBe(200);
    expect(trap.classify(web.url(session, first[0] ?? ''))).toBe('session');

    const variants = trap.trackingVariants(web.port);
    expect(variants.size).toBe(5 * 3 * 2);
    const article = (await get(web.url(tracking, '/article/2'))).text;
    for (const variant of [...variants].filter((url) => url.includes('/article/2?'))) expect((await get(variant)).text).toBe(article);
    expect(trap.classify([...variants][0] ?? '')).toBe('tracking');

    const hops = async (path: string, limit: number): Promise<string[]> => {
      const seen: string[] = [];
      let url = web.url(redirects, path);
      for (let i = 0; i < limit; i++) {
        const response = await get(url);
        seen.push(`${response.status} ${new URL(url).pathname}`);
        if (!response.headers.location) break;
        url = new URL(header(response.headers.location) ?? '', url).href;
      }
      return seen;
    };
    expect(await hops('/chain/a', 10)).toEqual(['301 /chain/a', '302 /chain/b', '307 /chain/c', '308 /chain/d', '200 /chain/page']);
    expect(await hops('/loop/x', 4)).toEqual(['302 /loop/x', '302 /loop/y', '302 /loop/x', '302 /loop/y']);
    expect(await hops('/go/private', 2)).toEqual(['301 /go/private', '200 /private/secret']);
    expect((await get(web.url(redirects, '/robots.txt'))).text).toContain('Disallow: /private/');
    expect(header((await get(web.url(redirects, '/go/main'))).headers.location)).toBe(web.url(main, '/about.html'));

    expect(trap.disallowed(web.port)).toEqual(new Set([web.url(redirects, '/private/secret')]));
    expect(trap.classify(web.url(redirects, '/private/secret'))).toBe('disallowed');
    const real = trap.realPages(web.port);
    expect(real.size).toBe(3 + 6 + 6 + 2 + 10);
    for (const url of real) expect(trap.classify(url)).toBe('real');
    expect(trap.seeds(web.port)).toEqual([web.url(main)]);
  });
});

describe('hostileWeb', () => {
  it('serves each hostile host as described', async () => {
    const hostile = hostileWeb({ bombDecompressedBytes: 16 * MIB, slowDelayMs: 150, unavailableTimes: 2 });
    const web = await start(hostile.spec);
    const h = hostile.hosts;
    expect((await get(web.url(h.robotsUnreachable, '/robots.txt'))).status).toBe(503);
    expect((await get(web.url(h.robotsMissing, '/robots.txt'))).status).toBe(404);
    const tokenRobots = (await get(web.url(h.productTokenRules, '/robots.txt'))).text;
    expect(tokenRobots).toContain('User-agent: DurableCrawler\nDisallow: /private/\nAllow: /private/open.html');
    expect(tokenRobots).toContain('User-agent: OtherBot\nDisallow: /');

    const limited = await get(web.url(h.tooManyRequests));
    expect([limited.status, limited.headers['retry-after']]).toEqual([429, '2']);
    expect(hostile.retryAfterMs).toBe(2000);
    expect((await get(web.url(h.tooManyRequests))).status).toBe(200);

    const statuses = [];
    for (let i = 0; i < 3; i++) statuses.push((await get(web.url(h.unavailableForAWhile))).status);
    expect(statuses).toEqual([503, 503, 200]);

    const startedAt = performance.now();
    await get(web.url(h.slow, '/robots.txt'));
    expect(performance.now() - startedAt).toBeGreaterThanOrEqual(149);

    const big = await get(web.url(h.oversized, '/big.html'), {}, 'HEAD');
    expect(Number(big.headers['content-length'])).toBe(12 * MIB);
    const bomb = await get(web.url(h.gzipBomb, '/bomb.html'));
    expect(bomb.body.length).toBeLessThan(32 * 1024);
    expect(gunzipSync(bomb.body).length).toBe(16 * MIB);

    const seeds = hostile.seeds(web.port);
    expect(seeds).toHaveLength(8);
    const disallowed = hostile.disallowed(web.port);
    expect(disallowed).toContain(web.url(h.robotsUnreachable));
    expect(disallowed).toContain(web.url(h.productTokenRules, '/private/secret.html'));
    const reachable = hostile.expectedReachable(web.port);
    expect([...reachable].filter((url) => disallowed.has(url))).toEqual([]);
    expect(reachable).toContain(web.url(h.productTokenRules, '/private/open.html'));
    expect(reachable).toContain(web.url(h.gzipBomb, '/bomb.html'));
  });
});
