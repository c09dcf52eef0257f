// What a request costs on the wire, as the HTTP layer counts it, against the test web's own count
// of the bytes it took and sent per request (heads included): responses of every kind on one
// kept-alive connection, a connection reset 30 KB into a body, and the same through a proxy,
// whose CONNECT the first request of its tunnel pays.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HttpClient, HttpFetchError, type FetchResult, type TransferBytes } from '../../../src/http/index.js';
import { startTestWeb, type RequestLogEntry, type TestWeb } from '../../support/test-web/index.js';
import { startTinyproxy, type Tinyproxy } from '../../support/tinyproxy.js';
import { waitFor } from '../../support/wait-for.js';

const HOST = '127.87.0.1';
const RESET_AFTER_BYTES = 30_000;

describe('HttpClient counts the bytes each request costs on the wire', () => {
  let web: TestWeb;
  let proxy: Tinyproxy;
  const clients: HttpClient[] = [];
  const client = (options: Partial<ConstructorParameters<typeof HttpClient>[0]> = {}): HttpClient => {
    const made = new HttpClient({ userAgent: 'TransferTest/1.0 (+https://example.invalid/contact)', allowPrivateNetworks: true, ...options });
    clients.push(made);
    return made;
  };

  beforeAll(async () => {
    web = await startTestWeb({
      hosts: [
        {
          host: HOST,
          pages: [
            { path: '/small', body: '<!doctype html><title>small</title><p>hi</p>' },
            { path: '/large', body: `<!doctype html><title>large</title>${'<p>lorem ipsum dolor sit amet</p>'.repeat(4_000)}` },
            { path: '/unchanged', headers: { etag: '"v1"' }, body: 'never read' },
            { path: '/moved', behavior: { kind: 'redirect', status: 301, location: '/small' } },
            { path: '/reset', behavior: { kind: 'reset', bytes: 200_000, afterBytes: RESET_AFTER_BYTES } },
            { path: '/changing', behavior: { kind: 'changing', ratePerDay: 0, seed: 7 }, body: '<p>a page with validators</p>' },
          ],
        },
      ],
    });
    proxy = await startTinyproxy({ dir: mkdtempSync(path.join(tmpdir(), 'transfer-proxy-')) });
  });

  afterAll(async () => {
    await Promise.allSettled(clients.map((made) => made.close()));
    await proxy?.stop();
    await web?.close();
  });

  /** The web's log entry of the request just made to `target`. */
  const served = (target: string): RequestLogEntry => {
    const entry = web.log().filter((logged) => logged.path === target).at(-1);
    expect(entry, `the web served ${target}`).toBeDefined();
    return entry!;
  };
  const asServed = (entry: RequestLogEntry): TransferBytes => ({ sentBytes: entry.wireBytesReceived!, receivedBytes: entry.wireBytesSent! });
  const fetch = (http: HttpClient, target: string, headers: Record<string, string> = {}): Promise<FetchResult> => http.fetch({ url: web.url(HOST, target), headers }, () => undefined);

  it('charges each request on a kept-alive connection exactly what the web counted, heads included', async () => {
    const http = client();
    const targets = ['/small', '/large', '/moved', '/missing', '/small'];
    const results: FetchResult[] = [];
    for (const target of targets) results.push(await fetch(http, target));
    const first = await fetch(http, '/changing');
    const notModified = await fetch(http, '/changing', { 'if-none-match': first.head.headers['etag']! });
    expect(notModified.head.status).toBe(304);

    for (const [i, target] of targets.entries()) expect(results[i]!.transfer, target).toEqual(asServed(web.log().filter((e) => e.path === target)[target === '/small' && i === 4 ? 1 : 0]!));
    expect(notModified.transfer).toEqual(asServed(served('/changing')));
    // Heads count: a 304 moves no body, yet costs its request and response heads.
    expect(notModified.transfer.sentBytes).toBeGreaterThan(100);
    expect(notModified.transfer.receivedBytes).toBeGreaterThan(100);
    // The large page cost its body and more.
    expect(results[1]!.transfer.receivedBytes).toBeGreaterThan(results[1]!.body.wireBytes);
  });

  it('charges a request the connection reset mid-body for the bytes that came before the reset', async () => {
    const http = client();
    const failure = await fetch(http, '/reset').then(
      () => undefined,
      (reason: unknown) => reason,
    );
    expect(failure).toBeInstanceOf(HttpFetchError);
    const error = failure as HttpFetchError;
    expect(error.code).toBe('HTTP_CONNECTION_RESET');
    // The web logs a response when its connection has closed, which the client may see first.
    const entry = await waitFor(() => web.log().find((logged) => logged.path === '/reset'), (logged) => logged !== undefined, { timeoutMs: 10_000, what: 'the web to log the reset' });
    if (entry === undefined) throw new Error('unreachable');
    expect(entry.bytesSent).toBe(RESET_AFTER_BYTES);
    expect(error.transfer).toEqual(asServed(entry));
    expect(error.transfer!.receivedBytes).toBeGreaterThan(RESET_AFTER_BYTES);
    console.info(`transfer: reset after ${RESET_AFTER_BYTES} body bytes charged ${error.transfer!.receivedBytes} received, the web sent ${entry.wireBytesSent}`);
  });

  it('through a proxy, charges the first request of a tunnel its CONNECT too, and the next ones exactly', async () => {
    const http = client({ proxy: { urls: [proxy.url] } });
    const first = await fetch(http, '/small');
    const firstServed = asServed(served('/small'));
    const second = await fetch(http, '/large');
    expect(second.transfer).toEqual(asServed(served('/large')));
    const connectSent = first.transfer.sentBytes - firstServed.sentBytes;
    const connectReceived = first.transfer.receivedBytes - firstServed.receivedBytes;
    // "CONNECT 127.87.0.1:PORT HTTP/1.1" and its headers; "HTTP/1.0 200 Connection established" and tinyproxy's.
    expect(connectSent).toBeGreaterThan(30);
    expect(connectSent).toBeLessThan(300);
    expect(connectReceived).toBeGreaterThan(30);
    expect(connectReceived).toBeLessThan(300);
  });
});
