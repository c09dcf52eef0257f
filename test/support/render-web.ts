// A small web of pages built by JavaScript, for the rendering tests and the bench: hosts on
// loopback addresses sharing one port, told apart by the local address; every request logged with
// when it arrived and when its answer ended (the politeness checks read these).
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';

export interface RenderRoute {
  status?: number;
  headers?: Record<string, string>;
  body?: string | Buffer;
  /** Answer after this long, ms. */
  delayMs?: number;
  /** Never answer (a long poll that never returns). */
  hold?: boolean;
}

export interface RenderHost {
  /** 127.x.y.z */
  address: string;
  routes: Record<string, RenderRoute | ((path: string) => RenderRoute | undefined)>;
}

export interface RenderLogEntry {
  host: string;
  path: string;
  /** When the request arrived, ms since epoch (fractional). */
  atMs: number;
  /** When its answer ended; undefined while open. */
  endedAtMs?: number;
}

export interface RenderWeb {
  port: number;
  origin(address: string): string;
  log: RenderLogEntry[];
  /** The requests one host received, in arrival order. */
  requestsTo(address: string): RenderLogEntry[];
  close(): Promise<void>;
}

const require = createRequire(import.meta.url);
/** Vue's browser build from node_modules: a page of the test web is built by a real framework. */
export const VUE_GLOBAL_BUILD = readFileSync(require.resolve('vue/dist/vue.global.prod.js'));

export async function startRenderWeb(hosts: readonly RenderHost[]): Promise<RenderWeb> {
  const log: RenderLogEntry[] = [];
  const byAddress = new Map(hosts.map((host) => [host.address, host]));
  const held = new Set<ServerResponse>();
  const handle = (request: IncomingMessage, response: ServerResponse): void => {
    const address = request.socket.localAddress?.replace(/^::ffff:/, '') ?? '';
    const path = request.url ?? '/';
    const entry: RenderLogEntry = { host: address, path, atMs: performance.timeOrigin + performance.now() };
    log.push(entry);
    const host = byAddress.get(address);
    const routeOf = host?.routes[path.split('?')[0]!] ?? host?.routes['*'];
    const route = typeof routeOf === 'function' ? routeOf(path) : routeOf;
    if (!route) {
      response.statusCode = 404;
      response.end('not found');
      entry.endedAtMs = performance.timeOrigin + performance.now();
      return;
    }
    if (route.hold) {
      held.add(response);
      response.on('close', () => held.delete(response));
      return;
    }
    const answer = (): void => {
      response.statusCode = route.status ?? 200;
      for (const [name, value] of Object.entries(route.headers ?? {})) response.setHeader(name, value);
      response.end(route.body ?? '', () => (entry.endedAtMs = performance.timeOrigin + performance.now()));
    };
    if (route.delayMs) setTimeout(answer, route.delayMs);
    else answer();
  };
  const servers: Server[] = [];
  let port = 0;
  for (const host of hosts) {
    const server = createServer(handle);
    server.keepAliveTimeout = 1000;
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, host.address, () => resolve());
    });
    port = (server.address() as AddressInfo).port;
    servers.push(server);
  }
  return {
    port,
    origin: (address) => `http://${address}:${port}`,
    log,
    requestsTo: (address) => log.filter((entry) => entry.host === address),
    async close() {
      for (const response of held) response.destroy();
      await Promise.all(servers.map((server) => new Promise<void>((resolve) => (server.closeAllConnections(), server.close(() => resolve())))));
    },
  };
}

export const html = (body: string, headers: Record<string, string> = {}): RenderRoute => ({ headers: { 'content-type': 'text/html; charset=utf-8', ...headers }, body });
export const script = (body: string | Buffer, headers: Record<string, string> = {}): RenderRoute => ({ headers: { 'content-type': 'application/javascript', ...headers }, body });
export const json = (value: unknown): RenderRoute => ({ headers: { 'content-type': 'application/json' }, body: JSON.stringify(value) });
export const robots = (text: string): RenderRoute => ({ headers: { 'content-type': 'text/plain' }, body: text });

/** An application shell: nothing but a mount point and scripts, as a page built in the browser is served. */
export function appShell(scripts: readonly string[], title = 'App'): RenderRoute {
  return html(`<!doctype html><html><head><title>${title}</title></head><body><noscript>You need to enable JavaScript to run this app.</noscript><div id="app"></div>${scripts.map((src) => `<script src="${src}"></script>`).join('')}</body></html>`);
}

/** How a site of the mixed web is built, and whether its pages need a browser (the web's own label). */
export type MixedSiteKind = 'static' | 'static-analytics' | 'ssr-next' | 'ssr-nuxt' | 'spa-vue' | 'spa-bundle' | 'noscript-shell' | 'thin-angular';

export const MIXED_SITE_KINDS: readonly MixedSiteKind[] = ['static', 'static-analytics', 'ssr-next', 'ssr-nuxt', 'spa-vue', 'spa-bundle', 'noscript-shell', 'thin-angular'];

/** The kinds whose pages show their links and text only after their scripts run. */
export const NEEDS_RENDER: ReadonlySet<MixedSiteKind> = new Set(['spa-vue', 'spa-bundle', 'noscript-shell', 'thin-angular']);

export interface MixedSite {
  kind: MixedSiteKind;
  address: string;
  /** Its pages' paths, the home page first; the others are linked from it (behind JavaScript, for a site that needs a browser). */
  paths: string[];
}

const words = (seed: string, n: number): string => Array.from({ length: n }, (_, i) => `${seed}${(i * 7919) % 97}`).join(' ');

/**
 * A web of sites of every kind, `pagesPerSite` pages each, on loopback addresses from `base`: the
 * static ones served whole (some with analytics scripts or a framework's server-rendered markers),
 * the others built in the browser (Vue from node_modules, a plain bundle, a shell that asks for
 * JavaScript, a thin Angular page), every link of those behind JavaScript.
 */
export function mixedRenderWeb(addresses: readonly string[], pagesPerSite = 3): { hosts: RenderHost[]; sites: MixedSite[] } {
  const hosts: RenderHost[] = [];
  const sites: MixedSite[] = [];
  addresses.forEach((address, index) => {
    const kind = MIXED_SITE_KINDS[index % MIXED_SITE_KINDS.length]!;
    const paths = ['/', ...Array.from({ length: pagesPerSite - 1 }, (_, i) => `/page/${i + 1}`)];
    const children = paths.slice(1);
    const links = (path: string): string => (path === '/' ? children : ['/']).map((href) => `<a href="${href}">to ${href}</a>`).join(' ');
    const text = (path: string): string => `<p>${words(`${kind}${path}`, 120)}</p>`;
    const routes: RenderHost['routes'] = { '/robots.txt': robots('User-agent: *\nAllow: /\n') };
    const jsLinks = `const links = location.pathname === '/' ? ${JSON.stringify(children)} : ['/'];`;
    for (const path of paths) {
      switch (kind) {
        case 'static':
          routes[path] = html(`<html><head><title>${path}</title></head><body><h1>${kind}</h1>${text(path)}${links(path)}</body></html>`);
          break;
        case 'static-analytics':
          routes[path] = html(`<html><head><title>${path}</title><script src="/analytics.js" async></script></head><body>${text(path)}${links(path)}<script>window.dataLayer = [];</script></body></html>`);
          break;
        case 'ssr-next':
          routes[path] = html(`<html><body><div id="__next" data-reactroot=""><h1>${path}</h1>${text(path)}${links(path)}</div><script id="__NEXT_DATA__" type="application/json">{"page":"${path}"}</script><script src="/_next/main.js"></script></body></html>`);
          break;
        case 'ssr-nuxt':
          routes[path] = html(`<html><body><div id="__nuxt"><div id="__layout"><h1>${path}</h1>${text(path)}${links(path)}</div></div><script>window.__NUXT__={state:{}}</script><script src="/_nuxt/app.js"></script></body></html>`);
          break;
        case 'spa-vue':
          routes[path] = appShell(['/vue.js', '/app.js'], `Vue ${path}`);
          break;
        case 'spa-bundle':
          routes[path] = html(`<!doctype html><html><head><title>Bundle</title><script defer src="/bundle.js"></script></head><body><div id="root"></div></body></html>`);
          break;
        case 'noscript-shell':
          routes[path] = html(`<html><body><noscript>This site requires JavaScript. Please enable it.</noscript><main>Loading…</main><script src="/main.js"></script></body></html>`);
          break;
        case 'thin-angular':
          routes[path] = html(`<html><body><app-root ng-version="17.3.0"><p>Loading the catalogue</p></app-root><script src="/main.js"></script></body></html>`);
          break;
      }
    }
    const draw = `${jsLinks} const target = document.querySelector('#app, #root, main, app-root'); target.innerHTML = '<h1>' + location.pathname + '</h1><p>' + ${JSON.stringify(words(kind, 120))} + '</p>' + links.map((href) => '<a href="' + href + '">to ' + href + '</a>').join(' ');`;
    routes['/analytics.js'] = script('/* analytics */');
    routes['/_next/main.js'] = script('/* hydration */');
    routes['/_nuxt/app.js'] = script('/* hydration */');
    routes['/bundle.js'] = script(draw, { 'cache-control': 'max-age=600' });
    routes['/main.js'] = script(draw, { 'cache-control': 'max-age=600' });
    routes['/vue.js'] = script(VUE_GLOBAL_BUILD, { 'cache-control': 'max-age=600' });
    routes['/app.js'] = script(
      `${jsLinks} Vue.createApp({ render: () => Vue.h('main', [Vue.h('h1', location.pathname), Vue.h('p', ${JSON.stringify(words(kind, 120))}), ...links.map((href) => Vue.h('a', { href }, 'to ' + href))]) }).mount('#app');`,
      { 'cache-control': 'max-age=600' },
    );
    hosts.push({ address, routes });
    sites.push({ kind, address, paths });
  });
  return { hosts, sites };
}
