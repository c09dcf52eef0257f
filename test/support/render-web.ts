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
