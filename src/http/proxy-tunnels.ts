import { subscribe } from 'node:diagnostics_channel';

// undici's ProxyAgent opens a tunnel (CONNECT) and then, for an https target, shakes hands with the
// target inside it, both before the request's handler hears anything. It publishes
// 'undici:proxy:connected' (a documented diagnostics channel) once the proxy answered the CONNECT
// with 200, naming the target as host:port: a failure after that moment is the target's.

/** Last time a tunnel to each target authority (host:port) stood, ms since the epoch. */
const established = new Map<string, number>();
/** Authorities remembered: a tunnel is only asked about while its request fails, moments later. */
const MAX_AUTHORITIES = 10_000;
let subscribed = false;

/** Starts listening for established tunnels; call before dispatching through a ProxyAgent. */
export function noteTunnelsEstablished(): void {
  if (subscribed) return;
  subscribed = true;
  subscribe('undici:proxy:connected', (message) => {
    const path = (message as { connectParams?: { path?: unknown } }).connectParams?.path;
    if (typeof path !== 'string') return;
    established.delete(path);
    established.set(path, Date.now());
    if (established.size > MAX_AUTHORITIES) established.delete(established.keys().next().value as string);
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
