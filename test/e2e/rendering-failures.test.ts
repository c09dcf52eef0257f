// Renders that go wrong, on the real stack: a page that long-polls and never goes idle is kept as
// partial at the settle cap and not retried; a page that crashes its renderer is tried its
// attempts, then dead-lettered at the render stage, its HTTP result kept and no browser process
// left; and an allowlisted application's hash routes are rendered as tasks of their own, with a
// route key, never in the HTTP fingerprint.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { livePidsMentioning } from '../../src/browser/index.js';
import { DEFAULT_RENDER_CONFIG } from '../../src/config/render-config.js';
import { listDeadLetters } from '../../src/storage/postgres/attempt-repository.js';
import { urlFingerprint } from '../../src/domain/url/index.js';
import { createHarness, type Harness } from '../support/crawler-harness.js';
import { appShell, html, robots, script, startRenderWeb, type RenderWeb } from '../support/render-web.js';

const POLL = '127.73.0.1';
const CRASH = '127.73.0.2';
const ROUTES = '127.73.0.3';

const POLL_APP = `
document.getElementById('app').innerHTML = '<h1>Live scores</h1><p>' + 'Scores arrive as they happen. '.repeat(20) + '</p>';
(function poll() { fetch('/events').then(poll, () => setTimeout(poll, 100)); })();`;
/** Allocates until its renderer's heap limit: the renderer crashes. */
const BOMB_APP = `const hoard = []; for (;;) hoard.push(new Array(1e6).fill(Math.random()));`;
/** A hash router: each route draws its own screen, with links found nowhere else. */
const ROUTER_APP = `
function draw() {
  const route = location.hash || '#/';
  const screens = {
    '#/': '<h1>Home</h1><a href="#/alpha">Alpha</a> <a href="#/beta">Beta</a>',
    '#/alpha': '<h1>Alpha</h1><p>' + 'The alpha screen. '.repeat(30) + '</p><a href="/real-alpha">real alpha</a>',
    '#/beta': '<h1>Beta</h1><p>' + 'The beta screen. '.repeat(30) + '</p><a href="/real-beta">real beta</a>',
  };
  document.getElementById('app').innerHTML = screens[route] || '<h1>Unknown</h1>';
}
window.addEventListener('hashchange', draw);
draw();`;

describe('renders that go wrong, and hash routes', () => {
  const crawlId = 'rendering-failures';
  let harness: Harness;
  let web: RenderWeb;
  let browserProfiles: string;

  beforeAll(async () => {
    web = await startRenderWeb([
      {
        address: POLL,
        routes: {
          '/robots.txt': robots('User-agent: *\nAllow: /\n'),
          '/': appShell(['/poll.js'], 'Scores'),
          '/poll.js': script(POLL_APP),
          '/events': { hold: true },
        },
      },
      {
        address: CRASH,
        routes: {
          '/robots.txt': robots('User-agent: *\nAllow: /\n'),
          '/': appShell(['/bomb.js'], 'Bomb'),
          '/bomb.js': script(BOMB_APP, { 'cache-control': 'max-age=600' }),
        },
      },
      {
        address: ROUTES,
        routes: {
          '/robots.txt': robots('User-agent: *\nAllow: /\n'),
          '/': appShell(['/router.js'], 'Router'),
          '/router.js': script(ROUTER_APP, { 'cache-control': 'max-age=600' }),
          '/real-alpha': html(`<html><body><p>${'Alpha, served whole. '.repeat(20)}</p></body></html>`),
          '/real-beta': html(`<html><body><p>${'Beta, served whole. '.repeat(20)}</p></body></html>`),
        },
      },
    ]);
    harness = await createHarness('rendering-failures');
    const worker = await harness.startWorker({ renderSlots: 1, renderPageHeapMiB: 64 });
    browserProfiles = worker.browsers!.profileRoot!;
    const summary = await harness.runCrawl({
      crawlId,
      seeds: [web.origin(POLL) + '/', web.origin(CRASH) + '/', web.origin(ROUTES) + '/'],
      config: { minHostDelayMs: 50, maxPages: 20, render: { ...DEFAULT_RENDER_CONFIG, mode: 'auto', allow: [ROUTES], settleMs: 1500 } },
    });
    expect(summary.state).toBe('finished');
    await harness.stopWorker();
  }, 240_000);

  afterAll(async () => {
    await harness?.close();
    await web?.close();
  });

  const renderOf = async (address: string, routeKey = '') =>
    (
      await harness.pool.query<{ state: string; ended: string | null; attempts: number; failure_type: string | null; text_length: number | null; dom_body_key: string | null }>(
        'SELECT state, ended, attempts, failure_type, text_length, dom_body_key FROM renders WHERE crawl_id = $1 AND host = $2 AND route_key = $3',
        [crawlId, address, routeKey],
      )
    ).rows[0];

  it('keeps a page that never goes idle as partial at the settle cap, with what it drew, and does not try it again', async () => {
    const render = await renderOf(POLL);
    expect(render).toMatchObject({ state: 'partial', ended: 'settle-cap', failure_type: null });
    expect(render!.text_length).toBeGreaterThan(300);
    const dom = (await harness.bodies.getBody(render!.dom_body_key!)).toString('utf8');
    expect(dom).toContain('Live scores');
    // One render: the page itself once (from the stored body, never asked again), its script once.
    const paths = web.requestsTo(POLL).map((entry) => entry.path);
    expect(paths.filter((path) => path === '/')).toHaveLength(1);
    expect(paths.filter((path) => path === '/poll.js')).toHaveLength(1);
  });

  it('dead-letters a page that crashes its renderer after its attempts, keeping its HTTP result', async () => {
    const render = await renderOf(CRASH);
    expect(render).toMatchObject({ state: 'dead', failure_type: 'RenderCrashed', attempts: 3 });
    const letters = await listDeadLetters(harness.pool, { crawlId, limit: 10 });
    expect(letters).toEqual([expect.objectContaining({ stage: 'render', failureType: 'RenderCrashed', url: web.origin(CRASH) + '/' })]);
    const page = await harness.pool.query<{ state: string; outcome: string }>('SELECT state, outcome FROM frontier WHERE crawl_id = $1 AND fingerprint = $2', [crawlId, Buffer.from(urlFingerprint(web.origin(CRASH) + '/'), 'hex')]);
    expect(page.rows[0]).toEqual({ state: 'done', outcome: 'ok' });
    const documents = await harness.pool.query('SELECT 1 FROM documents WHERE fingerprint = $1', [Buffer.from(urlFingerprint(web.origin(CRASH) + '/'), 'hex')]);
    expect(documents.rowCount).toBe(1);
  });

  it('leaves no browser process behind, crashed browsers included', async () => {
    expect(await livePidsMentioning(browserProfiles)).toEqual([]);
  });

  it("renders an allowlisted application's hash routes as tasks of their own, and follows what they link to", async () => {
    const routes = await harness.pool.query<{ route_key: string; state: string }>('SELECT route_key, state FROM renders WHERE crawl_id = $1 AND url = $2 ORDER BY route_key', [crawlId, `${web.origin(ROUTES)}/`]);
    expect(routes.rows).toEqual([
      { route_key: '', state: 'rendered' },
      { route_key: '#/alpha', state: 'rendered' },
      { route_key: '#/beta', state: 'rendered' },
    ]);
    const frontier = await harness.pool.query<{ url: string }>('SELECT url FROM frontier WHERE crawl_id = $1 AND host = $2 ORDER BY url', [crawlId, ROUTES]);
    // The routes are no URLs of their own: the fingerprint never holds a fragment.
    expect(frontier.rows.map((row) => row.url)).toEqual([`${web.origin(ROUTES)}/`, `${web.origin(ROUTES)}/real-alpha`, `${web.origin(ROUTES)}/real-beta`]);
    // Every page of the allowlisted host is rendered, the pages its routes led to too.
    const pages = await harness.pool.query('SELECT 1 FROM renders WHERE crawl_id = $1 AND host = $2 AND route_key = $3', [crawlId, ROUTES, '']);
    expect(pages.rowCount).toBe(3);
    // The router's script was fetched once for all of them.
    expect(web.requestsTo(ROUTES).filter((entry) => entry.path === '/router.js')).toHaveLength(1);
  });
});
