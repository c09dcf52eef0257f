import { createServer, Socket, type Server } from 'node:net';

export interface FreePortOptions {
  /** Interface the ports must be free on. Default: '127.0.0.1'. */
  host?: string;
  /** Ports to keep if they are still free (a restarted service keeps its URL). Default: none. */
  preferredPorts?: readonly (number | undefined)[];
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
    for (let i = 0; i < count; i++) {
      const preferred = options.preferredPorts?.[i];
      let server = preferred !== undefined && preferred > 0 && !ports.includes(preferred) ? await listenOn(host, preferred) : undefined;
      server ??= await listenOn(host, 0);
      if (server === undefined) throw new Error(`no free TCP port on ${host}`);
      held.push(server);
      const address = server.address();
      if (address === null || typeof address === 'string') throw new Error(`unexpected listen address on ${host}`);
      ports.push(address.port);
    }
    return ports;
  } finally {
    await Promise.all(held.map(close));
  }
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
