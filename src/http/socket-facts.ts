import { subscribe } from 'node:diagnostics_channel';
import type { Socket } from 'node:net';

// undici does not tell a request handler which socket carries it. It does publish
// 'undici:client:sendHeaders' (a documented diagnostics channel) with the socket, synchronously
// in the same call that invoked the handler's onRequestStart. So a handler announces itself in
// onRequestStart and the next sendHeaders message for the same origin and path is its socket.

/** What this process knows about one socket it opened. */
interface SocketRecord {
  /** Time from starting the connect (DNS included) to a usable socket (TLS done); absent for a socket a proxy agent opened. */
  connectMs?: number;
  /** Requests that have been sent on it so far. */
  requests: number;
  /** Wire bytes read and written that earlier requests on it were charged with. */
  countedReadBytes: number;
  countedWrittenBytes: number;
}

/** Bytes one request put on the wire and took off it, headers, TLS and a proxy's CONNECT included. */
export interface TransferBytes {
  sentBytes: number;
  receivedBytes: number;
}

/** What a request learns about the socket it went out on. */
export interface SocketFacts {
  socket: Socket;
  remoteAddress?: string;
  /** Present only for the first request on a new connection; reused connections cost nothing. */
  connectMs?: number;
}

const records = new WeakMap<Socket, SocketRecord>();

interface Claim {
  origin: string;
  path: string;
  take: (facts: SocketFacts) => void;
}

let pendingClaim: Claim | undefined;
let subscribed = false;

/** Called by our connector for every socket it hands to undici. */
export function recordNewSocket(socket: Socket, connectMs: number): void {
  records.set(socket, { connectMs, requests: 0, countedReadBytes: 0, countedWrittenBytes: 0 });
}

/**
 * What a request on `socket` cost on the wire: the bytes read and written since the previous
 * request on it was charged, which it is now charged with. The first request on a connection thus
 * pays its TLS handshake and its proxy's CONNECT. A TLS socket counts decrypted bytes, so its
 * transport's are read (the TCP or tunnel socket beneath it).
 */
export function chargeTransfer(socket: Socket): TransferBytes {
  const record = recordOf(socket);
  const wire = wireSocketOf(socket);
  const read = wire.bytesRead;
  const written = wire.bytesWritten;
  const charged = { sentBytes: Math.max(0, written - record.countedWrittenBytes), receivedBytes: Math.max(0, read - record.countedReadBytes) };
  record.countedReadBytes = read;
  record.countedWrittenBytes = written;
  return charged;
}

function recordOf(socket: Socket): SocketRecord {
  let record = records.get(socket);
  if (record === undefined) {
    // A socket a proxy agent opened (a tunnel): no connect time of ours, its bytes counted from 0.
    record = { requests: 0, countedReadBytes: 0, countedWrittenBytes: 0 };
    records.set(socket, record);
  }
  return record;
}

/** The socket whose counters are wire bytes: a TLS socket's transport (`_parent`, set when TLS runs over a socket), else itself. */
export function wireSocketOf(socket: Socket): Socket {
  const parent = (socket as Socket & { _parent?: unknown })._parent;
  return parent !== null && typeof parent === 'object' && typeof (parent as Socket).bytesRead === 'number' ? (parent as Socket) : socket;
}

/**
 * Call from onRequestStart: `take` receives the facts of the socket the request is about to be
 * written on. The claim lapses at the end of the current synchronous run if nothing matched.
 */
export function claimSocketOfRequest(origin: string, path: string, take: (facts: SocketFacts) => void): void {
  if (!subscribed) {
    subscribe('undici:client:sendHeaders', onSendHeaders);
    subscribed = true;
  }
  const claim: Claim = { origin, path, take };
  pendingClaim = claim;
  queueMicrotask(() => {
    if (pendingClaim === claim) pendingClaim = undefined;
  });
}

function onSendHeaders(message: unknown): void {
  const claim = pendingClaim;
  if (claim === undefined) return;
  const { request, socket } = message as { request?: { origin?: unknown; path?: unknown }; socket?: Socket };
  if (request === undefined || socket === undefined) return;
  if (String(request.origin) !== claim.origin || request.path !== claim.path) return;
  pendingClaim = undefined;

  const record = recordOf(socket);
  const facts: SocketFacts = { socket };
  if (socket.remoteAddress !== undefined) facts.remoteAddress = socket.remoteAddress;
  record.requests += 1;
  if (record.requests === 1 && record.connectMs !== undefined) facts.connectMs = record.connectMs;
  claim.take(facts);
}
