// Real local servers for the HTTP layer's tests: node:http, node:https and raw TCP on 127.0.0.1,
// each counting the connections it accepted and logging the requests it saw.
import { createServer as createHttpServer, type IncomingHttpHeaders, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import { createServer as createTcpServer, type AddressInfo, type Server as TcpServer, type Socket } from 'node:net';
import type { BodySink } from '../../../../src/http/index.js';

export interface LoggedRequest {
  method: string;
  url: string;
  headers: IncomingHttpHeaders;
}

export interface LocalServer {
  /** Origin with a trailing slash, e.g. http://127.0.0.1:40123/ */
  url: string;
  port: number;
  /** TCP connections accepted so far. */
  connections: () => number;
  requests: LoggedRequest[];
  /** Resolves when every socket the server accepted has closed. */
  allSocketsClosed: () => Promise<void>;
  close: () => Promise<void>;
}

type Handler = (request: IncomingMessage, response: ServerResponse) => void;

/** An HTTP server on 127.0.0.1 and a free port; pass `tls` for HTTPS. */
export async function startHttpServer(handler: Handler, tls?: { key: string; cert: string }): Promise<LocalServer> {
  const requests: LoggedRequest[] = [];
  const logged: Handler = (request, response) => {
    requests.push({ method: request.method ?? '', url: request.url ?? '', headers: request.headers });
    handler(request, response);
  };
  const server: Server = tls === undefined ? createHttpServer(logged) : createHttpsServer(tls, logged);
  return listen(server, tls === undefined ? 'http' : 'https', requests);
}

/** A raw TCP server on 127.0.0.1: the test writes whatever bytes it wants (or none). */
export async function startTcpServer(onSocket: (socket: Socket) => void, scheme: 'http' | 'https' = 'http'): Promise<LocalServer> {
  return listen(createTcpServer(onSocket), scheme, []);
}

async function listen(server: TcpServer, scheme: string, requests: LoggedRequest[]): Promise<LocalServer> {
  const sockets = new Set<Socket>();
  let connections = 0;
  server.on('connection', (socket: Socket) => {
    connections += 1;
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => undefined);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `${scheme}://127.0.0.1:${port}/`,
    port,
    connections: () => connections,
    requests,
    allSocketsClosed: async () => {
      await Promise.all([...sockets].map((socket) => (socket.destroyed ? undefined : new Promise((resolve) => socket.once('close', resolve)))));
    },
    close: async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** A port nothing listens on (bound, then released). */
export async function closedPort(): Promise<number> {
  const server = createTcpServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/** A sink that keeps every chunk and records what happened to it. */
export class CollectingSink implements BodySink {
  readonly chunks: Buffer[] = [];
  ended = false;
  aborted: unknown = undefined;

  write(chunk: Uint8Array): void {
    this.chunks.push(Buffer.from(chunk));
  }

  end(): void {
    this.ended = true;
  }

  abort(reason: unknown): void {
    this.aborted = reason ?? 'aborted';
  }

  get bytes(): number {
    return this.chunks.reduce((sum, chunk) => sum + chunk.length, 0);
  }

  text(): string {
    return Buffer.concat(this.chunks).toString('utf8');
  }
}

/** A sink that only counts, keeping nothing (for large bodies). */
export class CountingSink implements BodySink {
  bytes = 0;
  ended = false;
  aborted: unknown = undefined;

  write(chunk: Uint8Array): void {
    this.bytes += chunk.length;
  }

  end(): void {
    this.ended = true;
  }

  abort(reason: unknown): void {
    this.aborted = reason ?? 'aborted';
  }
}

/** Writes `total` bytes of `fill` in `chunkBytes` pieces, honouring backpressure; stops when the peer goes away. */
export function streamBytes(response: ServerResponse, total: number, chunkBytes = 64 * 1024, fill = 0x61): { written: () => number } {
  const chunk = Buffer.alloc(chunkBytes, fill);
  let written = 0;
  const pump = (): void => {
    while (written < total && !response.destroyed) {
      const piece = total - written >= chunk.length ? chunk : chunk.subarray(0, total - written);
      written += piece.length;
      if (!response.write(piece)) {
        response.once('drain', pump);
        return;
      }
    }
    if (written >= total && !response.destroyed) response.end();
  };
  pump();
  return { written: () => written };
}
