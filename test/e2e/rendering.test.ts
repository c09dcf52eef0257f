// Pages built by JavaScript, crawled on the real stack with a render worker (Debian's Chromium):
// links that exist only after a Vue application runs are found; a server-rendered page with its
// framework's markers and full text is not rendered; the browser's requests meet robots.txt
// (also behind a redirect) and the host's delay, counted with the page fetches, by the server's
// own log; images, fonts and media are never asked for; a second render reuses the cached scripts;
// the rendered DOM is stored beside the HTTP body; no browser process outlives the worker.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { urlFingerprint } from '../../src/domain/url/index.js';
import { livePidsMentioning } from '../../src/browser/index.js';
import { DEFAULT_RENDER_CONFIG } from '../../src/config/render-config.js';
import { exportWarc } from '../../src/export/warc-export.js';
import { crawlCostReport } from '../../src/services/costs/crawl-cost-report.js';
import { describeCostReport } from '../../src/cli/cost-lines.js';
import { readWarcRecords, warcField } from '../../src/export/warc-reader.js';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { createHarness, type Harness } from '../support/crawler-harness.js';
import { VUE_GLOBAL_BUILD, appShell, html, json, robots, script, startRenderWeb, type RenderWeb } from '../support/render-web.js';

const SPA = '127.71.0.1';
const SSR = '127.71.0.2';
const SLOW = '127.71.0.3';
/** A CDN the crawl allows its renders to reach, and a tracker it does not. */
const CDN = '127.71.0.4';
const TRACKER = '127.71.0.5';

/** The Vue application of SPA: its product links come from an API, its pages draw their text. */
/** The web's port, known once it listens: the CDN's and the tracker's URLs carry it. */
let webPort = 0;
const cdnLib = (): string => `http://${CDN}:${webPort}/lib.js`;
const trackerScript = (): string => `http://${TRACKER}:${webPort}/track.js`;

const SPA_APP = `
const { createApp, h, ref, onMounted } = Vue;
createApp({
  setup() {
    const products = ref([]);
    onMounted(async () => {
      products.value = await (await fetch('/api/products')).json();
      // Disallowed by robots.txt, directly and behind a redirect: the gate asks for neither.
      fetch('/private/secret.json').catch(() => {});
      fetch('/api/moved').catch(() => {});
    });
    return () => h('main', [
      h('h1', 'Shop of ' + location.pathname + (window.cdnLoaded ? ' (with the CDN library)' : '')),
      h('p', 'Every product here is drawn by Vue in the browser; the server sends an empty shell. '.repeat(4)),
      h('img', { src: '/logo.png' }),
      h('ul', products.value.map((id) => h('li', [h('a', { href: '/products/' + id }, 'Product ' + id)]))),
    ]);
  },
}).mount('#app');
`;

/** A page of SLOW that loads six same-host subresources (three scripts, three fetches) and asks for an image, a font and a video. */
const SLOW_APP = `
<!doctype html><html><head><title>Slow app</title>
<style>@font-face { font-family: X; src: url(/font.woff2); } body { font-family: X; }</style>
<script src="/s1.js"></script><script src="/s2.js"></script><script src="/s3.js"></script></head>
<body><div id="app"></div><img src="/photo.jpg"><video src="/clip.mp4" autoplay></video>
<script>
Promise.all(['/d1.json', '/d2.json', '/d3.json'].map((u) => fetch(u).then((r) => r.json()))).then((parts) => {
  document.getElementById('app').innerHTML = parts.map((p) => '<a href="/item/' + p.id + '">item ' + p.id + '</a>').join(' ') + '<p>' + 'Loaded slowly and politely. '.repeat(20) + '</p>';
});
</script></body></html>`;

describe('rendering pages built by JavaScript', () => {
  const crawlId = 'rendering';
  let harness: Harness;
  let web: RenderWeb;
  let browserProfiles: string;

  beforeAll(async () => {
    const noStore = { 'cache-control': 'no-store' };
    web = await startRenderWeb([
      {
        address: SPA,
        routes: {
          '/robots.txt': robots('User-agent: *\nDisallow: /private/\n'),
          // Served once the web listens: the CDN's and the tracker's URLs carry its port.
          '/': () => appShell(['/vue.js', cdnLib(), trackerScript(), '/app.js'], 'Shop'),
          '/products/1': () => appShell(['/vue.js', cdnLib(), trackerScript(), '/app.js'], 'Product 1'),
          '/products/2': () => appShell(['/vue.js', cdnLib(), trackerScript(), '/app.js'], 'Product 2'),
          '/vue.js': script(VUE_GLOBAL_BUILD, { 'cache-control': 'public, max-age=3600' }),
          '/app.js': script(SPA_APP, { 'cache-control': 'public, max-age=3600' }),
          '/api/products': json([1, 2]),
          '/api/moved': { status: 302, headers: { location: '/private/moved.json' } },
          '/private/secret.json': json({ secret: true }),
          '/private/moved.json': json({ secret: true }),
        },
      },
      {
        address: CDN,
        routes: {
          '/robots.txt': robots('User-agent: *\nAllow: /\n'),
          '/lib.js': script('window.cdnLoaded = true;', { 'cache-control': 'public, max-age=3600', 'access-control-allow-origin': '*' }),
        },
      },
      {
        address: TRACKER,
        routes: { '/robots.txt': robots('User-agent: *\nAllow: /\n'), '/track.js': script('window.tracked = true;') },
      },
      {
        address: SSR,
        routes: {
          '/robots.txt': robots('User-agent: *\nAllow: /\n'),
          '/': html(
            `<!doctype html><html><head><title>SSR shop</title></head><body><div id="__next" data-reactroot=""><h1>Server-rendered shop</h1><p>${'This page arrives whole from the server, with its text and its links. '.repeat(10)}</p><a href="/a">A</a> <a href="/b">B</a> <a href="/c">C</a></div><script id="__NEXT_DATA__" type="application/json">{"props":{}}</script><script src="/_next/main.js"></script></body></html>`,
          ),
          '/a': html(`<html><body><p>${'A page with text enough. '.repeat(20)}</p><a href="/">home</a></body></html>`),
          '/b': html(`<html><body><p>${'B page with text enough. '.repeat(20)}</p><a href="/">home</a></body></html>`),
          '/c': html(`<html><body><p>${'C page with text enough. '.repeat(20)}</p><a href="/">home</a></body></html>`),
          '/_next/main.js': script('/* hydration */'),
        },
      },
      {
        address: SLOW,
        routes: {
          '/robots.txt': robots('User-agent: *\nCrawl-delay: 1\n'),
          '/': html('<html><body><p>A plain page that links to the application.</p><a href="/app">the app</a></body></html>'),
          '/app': html(SLOW_APP, noStore),
          '/s1.js': script('window.s1 = 1;', noStore),
          '/s2.js': script('window.s2 = 2;', noStore),
          '/s3.js': script('window.s3 = 3;', noStore),
          '/d1.json': { ...json({ id: 1 }), headers: { 'content-type': 'application/json', ...noStore } },
          '/d2.json': { ...json({ id: 2 }), headers: { 'content-type': 'application/json', ...noStore } },
          '/d3.json': { ...json({ id: 3 }), headers: { 'content-type': 'application/json', ...noStore } },
          '/photo.jpg': { headers: { 'content-type': 'image/jpeg' }, body: 'x' },
          '/font.woff2': { headers: { 'content-type': 'font/woff2' }, body: 'x' },
          '/clip.mp4': { headers: { 'content-type': 'video/mp4' }, body: 'x' },
        },
      },
    ]);
    webPort = web.port;
    harness = await createHarness('rendering');
    const worker = await harness.startWorker({ renderSlots: 1 });
    browserProfiles = worker.browsers!.profileRoot!;
    const summary = await harness.runCrawl({
      crawlId,
      seeds: [web.origin(SPA) + '/', web.origin(SSR) + '/', web.origin(SLOW) + '/'],
      config: { minHostDelayMs: 100, maxPages: 50, render: { ...DEFAULT_RENDER_CONFIG, mode: 'auto', allowOrigins: [`http://${CDN}:${web.port}`] } },
    });
    expect(summary.state).toBe('finished');
    await harness.stopWorker();
  }, 240_000);

  afterAll(async () => {
    await harness?.close();
    await web?.close();
  });

  const rendersOf = async (address: string) =>
    (
      await harness.pool.query<{ url: string; state: string; reason: string; links_found: number; dom_body_key: string | null }>(
        'SELECT url, state, reason, links_found, dom_body_key FROM renders WHERE crawl_id = $1 AND host = $2 ORDER BY url',
        [crawlId, address],
      )
    ).rows;

  it('finds the links that exist only after the application ran, and renders those pages too', async () => {
    const frontier = await harness.pool.query<{ url: string; state: string }>(`SELECT url, state FROM frontier WHERE crawl_id = $1 AND host = $2 ORDER BY url`, [crawlId, SPA]);
    expect(frontier.rows.map((row) => row.url)).toEqual([`${web.origin(SPA)}/`, `${web.origin(SPA)}/products/1`, `${web.origin(SPA)}/products/2`]);
    expect(frontier.rows.every((row) => row.state === 'done')).toBe(true);
    const renders = await rendersOf(SPA);
    expect(renders.map((render) => [render.url, render.state])).toEqual(frontier.rows.map((row) => [row.url, 'rendered']));
    expect(renders.every((render) => render.reason === 'empty-app-root' && render.links_found >= 2)).toBe(true);
  });

  it('stores the rendered DOM as its own object beside the HTTP body', async () => {
    const [render] = await rendersOf(SPA);
    const dom = (await harness.bodies.getBody(render!.dom_body_key!)).toString('utf8');
    expect(dom).toContain('href="/products/2"');
    const fetched = await harness.pool.query<{ body_key: string }>('SELECT body_key FROM fetches WHERE fingerprint = $1', [Buffer.from(urlFingerprint(`${web.origin(SPA)}/`), 'hex')]);
    const httpBody = (await harness.bodies.getBody(fetched.rows[0]!.body_key)).toString('utf8');
    expect(httpBody).toContain('<div id="app"></div>');
    expect(httpBody).not.toContain('/products/2');
  });

  it('does not render a server-rendered page with its framework markers and full text', async () => {
    expect(await rendersOf(SSR)).toEqual([]);
    const pages = await harness.pool.query(`SELECT 1 FROM frontier WHERE crawl_id = $1 AND host = $2 AND state = 'done'`, [crawlId, SSR]);
    expect(pages.rowCount).toBe(4);
  });

  it('asks for nothing robots.txt disallows, directly or behind a redirect, and for no image', () => {
    const paths = web.requestsTo(SPA).map((entry) => entry.path);
    expect(paths.filter((path) => path.startsWith('/private/'))).toEqual([]);
    expect(paths.filter((path) => path === '/logo.png')).toEqual([]);
    // The redirect itself was asked for (it is allowed); its hop was not followed.
    expect(paths).toContain('/api/moved');
  });

  it('reaches an allowed origin in its own politeness, once for every render, and never one not allowed', async () => {
    expect(web.requestsTo(CDN).map((entry) => entry.path)).toEqual(['/robots.txt', '/lib.js']);
    expect(web.requestsTo(TRACKER)).toEqual([]);
    const [render] = await rendersOf(SPA);
    expect((await harness.bodies.getBody(render!.dom_body_key!)).toString('utf8')).toContain('(with the CDN library)');
    const outcomes = await harness.pool.query<{ outcome: string; n: number }>(
      `SELECT outcome, count(*)::int AS n FROM render_subresources WHERE crawl_id = $1 AND url LIKE $2 GROUP BY outcome`,
      [crawlId, `http://${TRACKER}:%`],
    );
    expect(outcomes.rows).toEqual([{ outcome: 'blocked-origin', n: 3 }]);
  });

  it('fetches the application scripts once, and serves every later render from the cache', () => {
    const paths = web.requestsTo(SPA).map((entry) => entry.path);
    expect(paths.filter((path) => path === '/vue.js')).toHaveLength(1);
    expect(paths.filter((path) => path === '/app.js')).toHaveLength(1);
    // Each page itself was fetched once: the render answered it from the stored body.
    for (const page of ['/', '/products/1', '/products/2']) expect(paths.filter((path) => path === page)).toHaveLength(1);
  });

  it('keeps a host delay of 1 s between every two requests, page fetches and subresources together, and asks for no image, font or media', () => {
    const requests = web.requestsTo(SLOW);
    const paths = requests.map((entry) => entry.path);
    expect(paths).toEqual(expect.arrayContaining(['/robots.txt', '/', '/app', '/s1.js', '/s2.js', '/s3.js', '/d1.json', '/d2.json', '/d3.json']));
    expect(paths.filter((path) => ['/photo.jpg', '/font.woff2', '/clip.mp4'].includes(path))).toEqual([]);
    for (let i = 1; i < requests.length; i++) {
      expect(requests[i]!.atMs - requests[i - 1]!.endedAtMs!, `${requests[i - 1]!.path} then ${requests[i]!.path}`).toBeGreaterThanOrEqual(1000);
    }
  });

  it('exports the rendered DOM as a conversion record of the page, and its subresources as request and response records', async () => {
    const file = path.join(harness.dataDir, 'rendering.warc.gz');
    const summary = await exportWarc({ pool: harness.pool, bodies: harness.bodies, now: Date.now }, { crawlId, file });
    expect(summary.records.conversion).toBe(4);
    const records = (await Promise.all(summary.files.map((name) => readFile(name)))).flatMap((bytes) => readWarcRecords(bytes));
    const conversion = records.find((record) => warcField(record, 'WARC-Type') === 'conversion' && warcField(record, 'WARC-Target-URI') === `${web.origin(SPA)}/`)!;
    expect(conversion.block.toString('utf8')).toContain('href="/products/1"');
    expect(warcField(conversion, 'WARC-Refers-To')).toBeDefined();
    const vue = records.find((record) => warcField(record, 'WARC-Type') === 'response' && warcField(record, 'WARC-Target-URI') === `${web.origin(SPA)}/vue.js`)!;
    expect(vue.block.subarray(vue.block.length - VUE_GLOBAL_BUILD.length).equals(VUE_GLOBAL_BUILD)).toBe(true);
    expect(records.some((record) => warcField(record, 'WARC-Type') === 'request' && warcField(record, 'WARC-Target-URI') === `${web.origin(SLOW)}/d1.json`)).toBe(true);
  });

  it("prices rendering apart from the page requests: renders, browser CPU, the subresources' requests and what the cache saved", async () => {
    const report = await crawlCostReport(harness.pool, crawlId, { costModel: { kind: 'direct-bytes', price: 2 }, listingPages: [] });
    const rendering = report.rendering!;
    const ran = await harness.pool.query<{ n: number }>(`SELECT count(*)::int AS n FROM renders WHERE crawl_id = $1 AND state IN ('rendered', 'partial', 'failed', 'dead')`, [crawlId]);
    expect(rendering.renders).toBe(ran.rows[0]!.n);
    expect(rendering.browserCpuSeconds).toBeGreaterThan(0);
    // Every subresource the web served to us was a request of a render; the page fetches are the report's totals.
    const pages = await harness.pool.query<{ url: string }>('SELECT url FROM frontier WHERE crawl_id = $1', [crawlId]);
    const pageKeys = new Set(pages.rows.map((row) => `${new URL(row.url).hostname} ${new URL(row.url).pathname}`));
    const served = [SPA, SLOW, CDN].flatMap((host) => web.requestsTo(host)).filter((entry) => entry.path !== '/robots.txt' && !pageKeys.has(`${entry.host} ${entry.path}`));
    const sent = await harness.pool.query<{ url: string }>(
      `SELECT url FROM render_subresources WHERE crawl_id = $1 AND outcome IN ('fetched', 'revalidated', 'redirect', 'failed') ORDER BY url`,
      [crawlId],
    );
    expect(sent.rows.map((row) => new URL(row.url).pathname).sort()).toEqual(served.map((entry) => entry.path).sort());
    expect(rendering.subresourceRequests).toBe(served.length);
    expect(rendering.subresourceBytes).toBeGreaterThanOrEqual(VUE_GLOBAL_BUILD.length);
    // vue.js and app.js were fetched by the first render of the application and served from the cache to the two after it.
    expect(rendering.cachedSubresources).toBeGreaterThanOrEqual(4);
    expect(rendering.amount).toBeCloseTo((2 * rendering.subresourceBytes) / 1e9, 12);
    expect(describeCostReport(report).some((line) => /rendering: \d+ renders, [\d.]+ s of browser CPU; subresources .+ in \d+ requests, amount .+, \d+ served from the cache/.test(line))).toBe(true);
  });

  it('leaves no browser process behind once the worker stopped', async () => {
    expect(await livePidsMentioning(browserProfiles)).toEqual([]);
  });
});
