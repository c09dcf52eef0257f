import { subscribe } from 'node:diagnostics_channel';
import type { Socket } from 'node:net';

// undici does not tell a request handler which socket carries it. It does publish
// 'undici:client:sendHeaders' (a documented diagnostics channel) with the socket, synchronously
// in the same call that invoked the handler's onRequestStart. So a handler announces itself in
// onRequestStart and the next sendHeaders message for the same origin and path is its socket.

/** What this process knows about one socket it opened. */
interface SocketRecord {
  /** Time from starting the connect (DNS included) to a usable socket (TLS done). */
  connectMs: number;
  /** Requests that have been sent on it so far. */
  requests: number;
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
  records.set(socket, { connectMs, requests: 0 });
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

  const record = records.get(socket);
  const facts: SocketFacts = { socket };
  if (socket.remoteAddress !== undefined) facts.remoteAddress = socket.remoteAddress;
  if (record !== undefined) {
    record.requests += 1;
    if (record.requests === 1) facts.connectMs = record.connectMs;
  }
  claim.take(facts);
}
