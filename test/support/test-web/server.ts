import { createServer, type Server } from 'node:http';
import { ChangeTimeline } from './changing.js';
import { TestWebError } from './errors.js';
import { buildGzipBomb } from './gzip-bomb.js';
import { buildHostTable, replaceHostTable } from './host-table.js';
import { clockMs, handleRequest, type ServeRuntime } from './respond.js';
import type { RequestLogEntry, TestWeb, WebSpec } from './types.js';

/** Options for {@link startTestWeb}. */
export interface StartTestWebOptions {
  /**
   * The port every host listens on. Default 0: the OS picks a free port on the first host and every
   * other host listens on that same port.
   */
  port?: number;
  /** Listeners being opened at once during start-up. Default 256. */
  listenConcurrency?: number;
  /**
   * With port 0, how many ports to try when the chosen one is already taken on some other address
   * (another process listening there). Default 5.
   */
  portAttempts?: number;
  /**
   * 'each-address' (default): a listener on each host's loopback address. 'wildcard': one listener
   * on every address of the machine (0.0.0.0), the host still told apart by the address a
   * connection came to: for webs of more hosts than the process may hold descriptors. Requests to
   * an address that is no host of the web get 421.
   */
  listen?: 'each-address' | 'wildcard';
}

/**
 * Serves `spec` on one port across many loopback addresses: one node:http server per address, the
 * host told apart by the socket's local address, every request logged.
 */
export async function startTestWeb(spec: WebSpec, options: StartTestWebOptions = {}): Promise<TestWeb> {
  let table = buildHostTable(spec);
  const hosts = [...table.keys()];
  if (hosts.length === 0) throw new TestWebError('TEST_WEB_NO_HOSTS', 'startTestWeb: the spec has no hosts; add at least one HostSpec');
  const concurrency = options.listenConcurrency ?? 256;
  if (!Number.isInteger(concurrency) || concurrency < 1) {
    throw new TestWebError('TEST_WEB_INVALID_OPTION', `startTestWeb: listenConcurrency must be a positive integer, got ${concurrency}`);
  }

  let log: RequestLogEntry[] = [];
  const bombs = new Map<number, Promise<Buffer>>();
  const timelines = new Map<string, ChangeTimeline>();
  const runtime: ServeRuntime & { port: number; startedAtMs: number } = {
    port: 0,
    startedAtMs: clockMs(),
    host: (address) => table.get(address),
    record: (entry) => log.push(entry),
    gzipBomb: (bytes) => {
      let bomb = bombs.get(bytes);
      if (!bomb) bombs.set(bytes, (bomb = buildGzipBomb(bytes)));
      return bomb;
    },
    timeline: (seed, ratePerDay) => {
      const key = `${seed}:${ratePerDay}`;
      let timeline = timelines.get(key);
      if (!timeline) timelines.set(key, (timeline = new ChangeTimeline({ seed, ratePerDay })));
      return timeline;
    },
  };
  // Bombs are built before the first request so that request timings measure the server, not zlib.
  await Promise.all(collectBombSizes(spec).map((bytes) => runtime.gzipBomb(bytes)));

  const listenHosts = options.listen === 'wildcard' ? ['0.0.0.0'] : hosts;
  const { port, servers } = await listenOnAll(listenHosts, options.port ?? 0, options.portAttempts ?? 5, concurrency, (server) =>
    server.on('request', (req, res) => handleRequest(runtime, req, res)),
  );
  runtime.port = port;
  runtime.startedAtMs = clockMs();

  let closing: Promise<void> | undefined;
  return {
    port,
    hosts,
    startedAtMs: runtime.startedAtMs,
    url: (host, path = '/') => `http://${host}:${port}${path}`,
    log: () => log,
    clearLog: () => {
      log = [];
    },
    update: (next) => {
      table = replaceHostTable(table, next);
      for (const bytes of collectBombSizes(next)) void runtime.gzipBomb(bytes);
    },
    close: () => (closing ??= closeAll(servers)),
  };
}

function collectBombSizes(spec: WebSpec): number[] {
  const sizes = new Set<number>();
  for (const host of spec.hosts) {
    for (const behavior of [host.defaultBehavior, ...host.pages.map((page) => page.behavior)]) {
      if (behavior?.kind === 'gzip-bomb') sizes.add(behavior.decompressedBytes);
    }
  }
  return [...sizes];
}

function listen(server: Server, port: number, host: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const onError = (error: Error): void => reject(error);
    server.once('error', onError);
    server.listen({ port, host, exclusive: true }, () => {
      server.off('error', onError);
      resolve();
    });
  });
}

async function listenOnAll(
  hosts: string[],
  requestedPort: number,
  attempts: number,
  concurrency: number,
  setup: (server: Server) => void,
): Promise<{ port: number; servers: Server[] }> {
  for (let attempt = 1; ; attempt++) {
    const servers: Server[] = [];
    const open = async (host: string, port: number): Promise<void> => {
      const server = createServer();
      setup(server);
      servers.push(server);
      await listen(server, port, host);
    };
    try {
      await open(hosts[0] ?? '', requestedPort);
      const address = servers[0]?.address();
      const port = typeof address === 'object' && address ? address.port : requestedPort;
      for (let at = 1; at < hosts.length; at += concurrency) {
        await Promise.all(hosts.slice(at, at + concurrency).map((host) => open(host, port)));
      }
      return { port, servers };
    } catch (error) {
      await closeAll(servers);
      const inUse = (error as NodeJS.ErrnoException).code === 'EADDRINUSE';
      if (inUse && requestedPort === 0 && attempt < attempts) continue;
      throw new TestWebError(
        'TEST_WEB_LISTEN_FAILED',
        `startTestWeb: could not listen on ${hosts.length} loopback addresses (${String(error)})` +
          (inUse ? '; the port is taken on some address: pass port 0 or a different base address' : ''),
        { cause: error },
      );
    }
  }
}

async function closeAll(servers: Server[]): Promise<void> {
  await Promise.all(
    servers.map(
      (server) =>
        new Promise<void>((resolve) => {
          if (!server.listening) {
            resolve();
            return;
          }
          server.close(() => resolve());
          // close() waits for idle keep-alive sockets and in-flight responses; cut them instead.
          server.closeAllConnections();
        }),
    ),
  );
}

