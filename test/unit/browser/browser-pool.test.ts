// The browser layer on Debian's Chromium: rendering through the route handler only, bounded
// settling, crashes and hangs, and no process of a browser left once it is closed.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BrowserError, BrowserPool, BrowserProcess, findChromium, livePidsMentioning, measuredRender, processGroupFigures, renderPage, type BrowserAnswer, type BrowserRequest } from '../../../src/browser/index.js';

const chromium = findChromium();
if (!chromium.found) throw new Error(`these tests need the browser: ${chromium.reason} (.ci/run installs it)`);
const executablePath = chromium.executablePath;

/** A server the browser must never reach by itself: every request it gets is logged. */
let server: Server;
let origin: string;
const serverLog: string[] = [];

beforeAll(async () => {
  server = createServer((request, response) => {
    serverLog.push(request.url ?? '');
    response.end('reached');
  });
  server.on('upgrade', (request, socket) => {
    serverLog.push(`upgrade ${request.url}`);
    socket.destroy();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

const html = (body: string): BrowserAnswer => ({ kind: 'fulfil', status: 200, headers: { 'content-type': 'text/html; charset=utf-8' }, body: Buffer.from(body) });
const script = (body: string): BrowserAnswer => ({ kind: 'fulfil', status: 200, headers: { 'content-type': 'application/javascript' }, body: Buffer.from(body) });

describe('renderPage through the route handler', () => {
  it('builds the page from the handler alone: the main document, its script and data; the browser sends nothing itself', async () => {
    const pool = new BrowserPool({ executablePath, slots: 1 });
    const seen: BrowserRequest[] = [];
    const page = `<html><head><link rel="preconnect" href="${origin}"><link rel="dns-prefetch" href="${origin}"><link rel="prefetch" href="${origin}/prefetched"></head>
      <body><div id="root"></div><img src="${origin}/image.png"><script src="/app.js"></script></body></html>`;
    const app = `fetch('/api/items').then((r) => r.json()).then((items) => {
        document.getElementById('root').innerHTML = items.map((i) => '<a href="/item/' + i + '">item ' + i + '</a>').join('');
        new WebSocket('${origin.replace('http', 'ws')}/socket');
        navigator.sendBeacon('${origin}/beacon', 'x');
      });`;
    const lease = await pool.acquire();
    try {
      const rendered = await renderPage(
        lease.process.browser,
        `${origin}/page`,
        async (request) => {
          seen.push(request);
          if (request.isMainDocument) return html(page);
          if (request.url === `${origin}/app.js`) return script(app);
          if (request.url === `${origin}/api/items`) return { kind: 'fulfil', status: 200, headers: { 'content-type': 'application/json' }, body: Buffer.from('[1,2,3]') };
          return { kind: 'abort', errorCode: 'blockedbyclient' };
        },
        { userAgent: 'TestBot/1.0', settleMs: 2000, quietMs: 300 },
      );
      expect(rendered.html).toContain('<a href="/item/3">item 3</a>');
      expect(rendered.ended).toBe('quiet');
      expect(seen.filter((request) => request.isMainDocument).map((request) => request.url)).toEqual([`${origin}/page`]);
      expect(seen.map((request) => request.resourceType)).toEqual(expect.arrayContaining(['document', 'script', 'fetch', 'image']));
    } finally {
      await lease.release({ replace: false });
      await pool.close();
    }
    // Nothing reached the server but what the handler fetched (and it fetched nothing): no preconnect,
    // prefetch, image, websocket or beacon slipped past the routing.
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(serverLog).toEqual([]);
  });

  it('leaves the browser no way to the network of its own: an unrouted navigation fails and reaches nothing', async () => {
    const browser = await BrowserProcess.launch({ executablePath });
    try {
      const context = await browser.browser.newContext();
      const page = await context.newPage();
      await expect(page.goto(`${origin}/unrouted`, { timeout: 10_000 })).rejects.toThrow(/ERR_PROXY_CONNECTION_FAILED|ERR_CONNECTION_REFUSED|ERR_TUNNEL/);
      await context.close();
    } finally {
      await browser.close();
    }
    expect(serverLog).toEqual([]);
  });

  it('ends a page that never goes idle at the settle cap, with what loaded', async () => {
    const pool = new BrowserPool({ executablePath, slots: 1 });
    const lease = await pool.acquire();
    try {
      const page = `<html><body><p id="p">waiting</p><script>
          document.getElementById('p').textContent = 'polling';
          (function poll() { fetch('/poll').then(() => poll(), () => setTimeout(poll, 10)); })();
        </script></body></html>`;
      const rendered = await renderPage(
        lease.process.browser,
        `${origin}/long-poll`,
        async (request, signal) => {
          if (request.isMainDocument) return html(page);
          // A long poll: answered never (until the render ends).
          await new Promise((resolve) => signal.addEventListener('abort', resolve, { once: true }));
          return { kind: 'abort', errorCode: 'failed' };
        },
        { userAgent: 'TestBot/1.0', settleMs: 1000, quietMs: 200 },
      );
      expect(rendered.ended).toBe('settle-cap');
      expect(rendered.html).toContain('polling');
    } finally {
      await lease.release({ replace: false });
      await pool.close();
    }
  });

  it('reports a crashed renderer as browser-crashed; the replaced browser leaves no process behind', async () => {
    const pool = new BrowserPool({ executablePath, slots: 1, pageHeapMiB: 64 });
    const lease = await pool.acquire();
    const first = lease.process;
    const bomb = `<html><body><script>const hoard = []; for (;;) hoard.push(new Array(1e6).fill(Math.random()));</script></body></html>`;
    const { outcome, cost } = await measuredRender(first, () => renderPage(first.browser, `${origin}/bomb`, async (request) => (request.isMainDocument ? html(bomb) : { kind: 'abort', errorCode: 'failed' }), { userAgent: 'TestBot/1.0', navigationTimeoutMs: 20_000 }));
    expect(outcome.status).toBe('rejected');
    expect(((outcome as PromiseRejectedResult).reason as BrowserError).code).toBe('BROWSER_CRASHED');
    expect(cost.cpuMs).toBeGreaterThan(0);
    expect(cost.peakPssBytes).toBeGreaterThan(0);
    await lease.release({ replace: true });
    expect(await livePidsMentioning(first.profileDir)).toEqual([]);
    expect((await processGroupFigures(first.pid, false)).processes).toBe(0);
    // The next render gets a new browser.
    const next = await pool.acquire();
    expect(next.process.pid).not.toBe(first.pid);
    await next.release({ replace: false });
    await pool.close();
    expect(await livePidsMentioning(next.process.profileDir)).toEqual([]);
  });

  it('replaces a browser after its page budget', async () => {
    const pool = new BrowserPool({ executablePath, slots: 1, maxPagesPerBrowser: 1 });
    const first = await pool.acquire();
    const pid = first.process.pid;
    await first.release({ replace: false });
    const second = await pool.acquire();
    expect(second.process.pid).not.toBe(pid);
    expect(pool.launches).toBe(2);
    await second.release({ replace: false });
    await pool.close();
    expect((await processGroupFigures(pid, false)).processes).toBe(0);
  });

  it('says the browser is unavailable when its executable does not start', async () => {
    await expect(BrowserProcess.launch({ executablePath: '/bin/false', launchTimeoutMs: 5000 })).rejects.toMatchObject({ code: 'BROWSER_UNAVAILABLE' });
    const pool = new BrowserPool({ executablePath: '/nonexistent/chromium', slots: 1 });
    await expect(pool.acquire()).rejects.toBeInstanceOf(BrowserError);
    await pool.close();
  });
});
