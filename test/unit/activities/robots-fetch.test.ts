// The robots.txt fetch (services/fetching/robots-fetch.ts) against a real local server: a file
// over the size cap is obeyed for its first 512 KiB (RFC 9309 §2.5), cut at a line boundary,
// never turned into "unreachable, disallow everything"; a file held with good rules is asked for
// with its validators.
import { gzipSync } from 'node:zlib';
import { afterEach, describe, expect, it } from 'vitest';
import { fetchRobots } from '../../../src/services/fetching/robots-fetch.js';
import { DEFAULT_ROBOTS_MAX_BYTES, nextRobotsCacheEntry, robotsVerdictFor, type RobotsFetchOutcome } from '../../../src/domain/robots/index.js';
import { HttpClient } from '../../../src/http/index.js';
import { startHttpServer, type LocalServer } from '../http/support/local-servers.js';

const MIB = 1024 * 1024;
const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** A server whose /robots.txt is `body`, sent with Content-Length unless `chunked`, gzipped when `gzip`. */
async function robotsServer(body: Buffer, options: { chunked?: boolean; gzip?: boolean } = {}): Promise<{ server: LocalServer; origin: string; client: HttpClient }> {
  const wire = options.gzip ? gzipSync(body) : body;
  const server = await startHttpServer((request, response) => {
    if (request.url !== '/robots.txt') {
      response.writeHead(404).end();
      return;
    }
    const headers: Record<string, string> = { 'content-type': 'text/plain' };
    if (options.gzip) headers['content-encoding'] = 'gzip';
    if (!options.chunked) headers['content-length'] = String(wire.length);
    response.writeHead(200, headers);
    // In pieces, so a reader that stops early really stops mid-body.
    let offset = 0;
    const pump = (): void => {
      while (offset < wire.length && !response.destroyed) {
        const piece = wire.subarray(offset, offset + 64 * 1024);
        offset += piece.length;
        if (!response.write(piece)) {
          response.once('drain', pump);
          return;
        }
      }
      if (!response.destroyed) response.end();
    };
    pump();
  });
  cleanups.push(() => server.close());
  const client = new HttpClient({ userAgent: 'RobotsCapTest/1.0', allowPrivateNetworks: true });
  cleanups.push(() => client.close());
  return { server, origin: server.url.replace(/\/$/, ''), client };
}

/** `head` then comment lines up to `totalBytes`. */
function robotsFile(head: string, totalBytes: number): Buffer {
  const line = `# ${'filler '.repeat(12)}\n`;
  const text = head + line.repeat(Math.ceil((totalBytes - head.length) / line.length));
  return Buffer.from(text.slice(0, totalBytes - 1) + '\n');
}

function allowed(outcome: RobotsFetchOutcome, path: string): boolean {
  return robotsVerdictFor(nextRobotsCacheEntry(outcome, undefined, Date.now()), 'RobotsCapTest', path).allowed;
}

describe('a robots.txt over the size cap', () => {
  const head = 'User-agent: *\nDisallow: /private\n';

  it.each<[string, { chunked?: boolean; gzip?: boolean }]>([
    ['with a Content-Length of 3 MiB', {}],
    ['chunked, 3 MiB', { chunked: true }],
    ['gzipped, 20 MiB decoded', { gzip: true }],
  ])('%s: its first lines are obeyed, not the whole host disallowed', async (_name, options) => {
    const size = options.gzip ? 20 * MIB : 3 * MIB;
    const { origin, client } = await robotsServer(robotsFile(head, size), options);
    const { outcome, status } = await fetchRobots(client, origin, undefined);
    expect(outcome.kind).toBe('ok');
    expect(status).toBe(200);
    expect(allowed(outcome, '/private/x')).toBe(false);
    expect(allowed(outcome, '/public')).toBe(true);
    // No more than the parser reads is kept.
    expect((outcome as { body: Uint8Array }).body.length).toBeLessThanOrEqual(DEFAULT_ROBOTS_MAX_BYTES + 1);
  });

  it('is cut at a line boundary: a rule the cap cuts through is dropped, not half obeyed', async () => {
    // "Allow: /public-area" with the 512 KiB cap falling right after "Allow: /pub": obeyed half, it
    // would allow /pubx, which the Disallow: / above forbids.
    const start = 'User-agent: *\nDisallow: /\n';
    const partial = 'Allow: /pub';
    const fillerBytes = DEFAULT_ROBOTS_MAX_BYTES - start.length - partial.length;
    const body = Buffer.from(`${start}#${'x'.repeat(fillerBytes - 2)}\n${partial}lic-area\n${'# more\n'.repeat(100_000)}`);
    expect(body.subarray(0, DEFAULT_ROBOTS_MAX_BYTES).toString('latin1').endsWith(partial)).toBe(true);
    const { origin, client } = await robotsServer(body);
    const { outcome } = await fetchRobots(client, origin, undefined);
    expect(outcome.kind).toBe('ok');
    expect(allowed(outcome, '/pubx')).toBe(false);
    expect(allowed(outcome, '/public-area')).toBe(false);
  });

  it('a huge body on a redirect or a 404 does not make the host unreachable either', async () => {
    const filler = Buffer.alloc(3 * MIB, 0x61);
    const server = await startHttpServer((request, response) => {
      if (request.url === '/robots.txt') response.writeHead(301, { location: '/elsewhere/robots.txt', 'content-length': String(filler.length) }).end(filler);
      else response.writeHead(404, { 'content-length': String(filler.length) }).end(filler);
    });
    cleanups.push(() => server.close());
    const client = new HttpClient({ userAgent: 'RobotsCapTest/1.0', allowPrivateNetworks: true });
    cleanups.push(() => client.close());
    const { outcome, status } = await fetchRobots(client, server.url.replace(/\/$/, ''), undefined);
    expect(server.requests.map((request) => request.url)).toEqual(['/robots.txt', '/elsewhere/robots.txt']);
    expect(status).toBe(404);
    expect(outcome.kind).toBe('unavailable');
  });

  it('a small robots.txt is read whole, its last line included', async () => {
    const { origin, client } = await robotsServer(Buffer.from('User-agent: *\nDisallow: /a\nDisallow: /b'));
    const { outcome, responseMs } = await fetchRobots(client, origin, undefined);
    expect(outcome.kind).toBe('ok');
    expect(allowed(outcome, '/a')).toBe(false);
    expect(allowed(outcome, '/b')).toBe(false);
    expect(allowed(outcome, '/c')).toBe(true);
    expect(responseMs).toBeGreaterThanOrEqual(0);
  });
});

describe('a robots.txt already held', () => {
  /** A server that answers 304 to a request carrying the file's ETag, and records what each request asked with. */
  async function validatingServer(): Promise<{ origin: string; client: HttpClient; asked: Record<string, string | undefined>[] }> {
    const asked: Record<string, string | undefined>[] = [];
    const server = await startHttpServer((request, response) => {
      asked.push({ ifNoneMatch: request.headers['if-none-match'], ifModifiedSince: request.headers['if-modified-since'] });
      if (request.headers['if-none-match'] === '"v1"') response.writeHead(304).end();
      else response.writeHead(200, { 'content-type': 'text/plain', etag: '"v1"' }).end('User-agent: *\nDisallow: /private\n');
    });
    cleanups.push(() => server.close());
    const client = new HttpClient({ userAgent: 'RobotsCapTest/1.0', allowPrivateNetworks: true });
    cleanups.push(() => client.close());
    return { origin: server.url.replace(/\/$/, ''), client, asked };
  }

  it('is asked for with its validators and answered 304; one without good rules is asked for whole', async () => {
    const { origin, client, asked } = await validatingServer();
    const first = await fetchRobots(client, origin, undefined);
    const held = nextRobotsCacheEntry(first.outcome, undefined, Date.now(), { etag: '"v1"', lastModified: 'Mon, 07 Dec 2026 00:00:00 GMT' });
    const again = await fetchRobots(client, origin, held);
    expect(again.status).toBe(304);
    expect(asked).toEqual([
      { ifNoneMatch: undefined, ifModifiedSince: undefined },
      { ifNoneMatch: '"v1"', ifModifiedSince: 'Mon, 07 Dec 2026 00:00:00 GMT' },
    ]);
    await fetchRobots(client, origin, { ...held, lastGoodRules: undefined });
    expect(asked[2]).toEqual({ ifNoneMatch: undefined, ifModifiedSince: undefined });
  });
});
