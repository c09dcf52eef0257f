import { createServer, Socket, type Server } from 'node:net';

export interface FreePortOptions {
  /** Interface the ports must be free on. Default: '127.0.0.1'. */
  host?: string;
  /** Ports to keep if they are still free (a restarted service keeps its URL). Default: none. */
  preferredPorts?: readonly (number | undefined)[];
  /** Ports never to return: handed to a service that has not bound them yet. Default: none. */
  excludePorts?: ReadonlySet<number>;
}

function listenOn(host: string, port: number): Promise<Server | undefined> {
  return new Promise((resolve) => {
    const server = createServer();
    server.unref();
    server.once('error', () => resolve(undefined));
    server.listen({ host, port, exclusive: true }, () => resolve(server));
  });
}

function close(server: Server): Promise<void> {
  return new Promise((resolve) => server.close(() => resolve()));
}

/**
 * `count` distinct free TCP ports. All are held open until every one is chosen, so the same
 * port is never handed out twice; slot i keeps preferredPorts[i] when that port is free.
 * A port can still be taken between this call and the service binding it: callers start the
 * service right away and report a bind failure with the service's log.
 */
export async function findFreePorts(count: number, options: FreePortOptions = {}): Promise<number[]> {
  const host = options.host ?? '127.0.0.1';
  const held: Server[] = [];
  const ports: number[] = [];
  try {
    const excluded = options.excludePorts ?? new Set<number>();
    for (let i = 0; i < count; i++) {
      const preferred = options.preferredPorts?.[i];
      const usable = preferred !== undefined && preferred > 0 && !ports.includes(preferred) && !excluded.has(preferred);
      let server = usable ? await listenOn(host, preferred) : undefined;
      // An excluded port is free now but promised elsewhere: hold it and ask again.
      for (let attempt = 0; server === undefined && attempt < 20; attempt++) {
        const candidate = await listenOn(host, 0);
        if (candidate === undefined) break;
        held.push(candidate);
        if (!excluded.has(portOf(candidate, host))) server = candidate;
      }
      if (server === undefined) throw new Error(`no free TCP port on ${host}`);
      if (!held.includes(server)) held.push(server);
      ports.push(portOf(server, host));
    }
    return ports;
  } finally {
    await Promise.all(held.map(close));
  }
}

function portOf(server: Server, host: string): number {
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error(`unexpected listen address on ${host}`);
  return address.port;
}

/** True when something accepts TCP connections on host:port within timeoutMs. */
export function isPortOpen(host: string, port: number, timeoutMs = 1000): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = new Socket();
    const done = (open: boolean) => {
      socket.destroy();
      resolve(open);
    };
    socket.setTimeout(timeoutMs, () => done(false));
    socket.once('error', () => done(false));
    socket.connect(port, host, () => done(true));
  });
}
