import { subscribe } from 'node:diagnostics_channel';
import type { Socket } from 'node:net';
import type { ProxyConnectAnswer } from '../domain/failures/index.js';
import { wireSocketOf, type TransferBytes } from './socket-facts.js';

// undici's ProxyAgent opens a tunnel (CONNECT) and then, for an https target, shakes hands with the
// target inside it, both before the request's handler hears anything. Three documented diagnostics
// channels tell what happened on the way:
// - 'undici:client:sendHeaders' names the socket each CONNECT is written on (the request's origin
//   is the proxy, its path the target as host:port);
// - 'undici:request:headers' gives that request's answer (status, reason phrase, headers), which
//   the ProxyAgent reduces to "Proxy response (502) !== 200" before destroying the socket;
// - 'undici:proxy:connected' says the proxy answered 200, naming the target as host:port: a
//   failure after that moment is the target's, and the tunnel's socket carries the request, whose
//   charge (socket-facts.ts) then includes the CONNECT.
// So a CONNECT that failed is known by its socket, whose counters hold what it cost on the wire.

/** Last time a tunnel to each target authority (host:port) stood, ms since the epoch. */
const established = new Map<string, number>();
/** Authorities remembered: a tunnel is only asked about while its request fails, moments later. */
const MAX_AUTHORITIES = 10_000;

/** One CONNECT written to a proxy, until its tunnel stands or a failed request claims it. */
interface ConnectRecord {
  socket: Socket;
  /** The proxy's origin and the target's host:port, as `${proxy} ${authority}`. */
  key: string;
  writtenAtMs: number;
  answer?: ProxyConnectAnswer;
}

/** CONNECTs not (yet) tunnelled, by proxy and target; a failed request takes its target's. */
const unclaimed = new Map<string, ConnectRecord[]>();
const recordsBySocket = new WeakMap<Socket, ConnectRecord>();
const recordsByRequest = new WeakMap<object, ConnectRecord>();
/** CONNECTs kept unclaimed: a request that gave up before its CONNECT ended never claims it. */
const MAX_UNCLAIMED = 10_000;
/** An unclaimed CONNECT older than this belongs to no running request any more. */
const UNCLAIMED_TTL_MS = 10 * 60_000;
let unclaimedCount = 0;
let subscribed = false;

/** Starts listening for CONNECTs and the tunnels they open; call before dispatching through a ProxyAgent. */
export function noteTunnelsEstablished(): void {
  if (subscribed) return;
  subscribed = true;
  subscribe('undici:client:sendHeaders', onSendHeaders);
  subscribe('undici:request:headers', onResponseHeaders);
  subscribe('undici:proxy:connected', (message) => {
    const { connectParams, socket } = message as { connectParams?: { path?: unknown }; socket?: Socket };
    const path = connectParams?.path;
    if (typeof path !== 'string') return;
    established.delete(path);
    established.set(path, Date.now());
    if (established.size > MAX_AUTHORITIES) established.delete(established.keys().next().value as string);
    // Its bytes go with the first request through the tunnel: never counted here too.
    const record = socket === undefined ? undefined : recordsBySocket.get(socket);
    if (record !== undefined) forget(record);
  });
}

/** Whether a tunnel to `origin`'s host and port stood at or after `sinceMs`. */
export function tunnelEstablishedSince(origin: string, sinceMs: number): boolean {
  return (established.get(authorityOf(origin)) ?? -Infinity) >= sinceMs;
}

/** host:port as a CONNECT names it, the default port written out. */
export function authorityOf(origin: string): string {
  const url = new URL(origin);
  return url.port !== '' ? url.host : `${url.host}:${url.protocol === 'https:' ? '443' : '80'}`;
}

/** What the failed CONNECTs to one target through one proxy cost, and the last answer among them. */
export interface FailedConnects {
  /** Bytes written and read on their sockets: the CONNECT request, the proxy's answer, a TLS handshake with the proxy. */
  transfer: TransferBytes;
  /** The proxy's answer to the latest of them that got one. */
  answer?: ProxyConnectAnswer;
}

/**
 * Takes the CONNECTs through `proxyOrigin` to `origin`'s host and port that ended without a
 * tunnel (their sockets closed) and no request claimed yet: each is charged once, to the failed
 * request that claims it. Undefined when there are none (the proxy refused the connection: nothing
 * crossed).
 */
export function takeFailedConnects(proxyOrigin: string, origin: string): FailedConnects | undefined {
  const key = `${proxyOrigin} ${authorityOf(origin)}`;
  const records = unclaimed.get(key);
  if (records === undefined) return undefined;
  const ended = records.filter((record) => record.socket.destroyed);
  if (ended.length === 0) return undefined;
  const transfer: TransferBytes = { sentBytes: 0, receivedBytes: 0 };
  let answer: ProxyConnectAnswer | undefined;
  for (const record of ended) {
    forget(record);
    const wire = wireSocketOf(record.socket);
    transfer.sentBytes += wire.bytesWritten;
    transfer.receivedBytes += wire.bytesRead;
    if (record.answer !== undefined) answer = record.answer;
  }
  return { transfer, ...(answer === undefined ? {} : { answer }) };
}

function onSendHeaders(message: unknown): void {
  const { request, socket } = message as { request?: { method?: unknown; origin?: unknown; path?: unknown }; socket?: Socket };
  if (request === undefined || socket === undefined || request.method !== 'CONNECT' || typeof request.path !== 'string') return;
  const nowMs = Date.now();
  const record: ConnectRecord = { socket, key: `${originOf(request.origin)} ${request.path}`, writtenAtMs: nowMs };
  recordsBySocket.set(socket, record);
  recordsByRequest.set(request, record);
  const records = unclaimed.get(record.key) ?? [];
  records.push(record);
  unclaimed.set(record.key, records);
  unclaimedCount += 1;
  pruneUnclaimed(nowMs);
}

function onResponseHeaders(message: unknown): void {
  const { request, response } = message as { request?: object; response?: { statusCode?: unknown; statusText?: unknown; headers?: unknown } };
  const record = request === undefined ? undefined : recordsByRequest.get(request);
  if (record === undefined || response === undefined || typeof response.statusCode !== 'number') return;
  record.answer = {
    status: response.statusCode,
    reason: typeof response.statusText === 'string' ? response.statusText : '',
    headers: headersOf(response.headers),
  };
}

function forget(record: ConnectRecord): void {
  const records = unclaimed.get(record.key);
  const at = records?.indexOf(record) ?? -1;
  if (records === undefined || at < 0) return;
  records.splice(at, 1);
  if (records.length === 0) unclaimed.delete(record.key);
  unclaimedCount -= 1;
}

function pruneUnclaimed(nowMs: number): void {
  if (unclaimedCount <= MAX_UNCLAIMED && (unclaimed.values().next().value?.[0]?.writtenAtMs ?? nowMs) > nowMs - UNCLAIMED_TTL_MS) return;
  for (const records of [...unclaimed.values()]) {
    for (const record of [...records]) if (unclaimedCount > MAX_UNCLAIMED || record.writtenAtMs <= nowMs - UNCLAIMED_TTL_MS) forget(record);
  }
}

/** A proxy origin as undici holds it (a string or a URL), without a trailing slash. */
function originOf(origin: unknown): string {
  const text = String(origin);
  try {
    return new URL(text).origin;
  } catch {
    return text;
  }
}

/** undici's raw headers (name, value, name, value, as Buffers or strings), lower-case names, repeated ones joined with ', '. */
function headersOf(raw: unknown): Record<string, string> {
  const headers: Record<string, string> = {};
  if (!Array.isArray(raw)) return headers;
  for (let i = 0; i + 1 < raw.length; i += 2) {
    const name = String(raw[i]).toLowerCase();
    const value = Array.isArray(raw[i + 1]) ? (raw[i + 1] as unknown[]).map(String).join(', ') : String(raw[i + 1]);
    headers[name] = headers[name] === undefined ? value : `${headers[name]}, ${value}`;
  }
  return headers;
}
