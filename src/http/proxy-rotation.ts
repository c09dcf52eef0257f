import { InvalidFetchRequestError } from './errors.js';

export interface ProxyRotationOptions {
  /** Proxies in rotation, at least 1. */
  proxyCount: number;
  /** Requests a host sends through one proxy before it moves to the next: its session. At least 1. */
  sessionRequests: number;
  /** Hosts whose session is remembered; the least recently used is forgotten first. Default 100_000. */
  maxHosts?: number;
}

interface Session {
  proxy: number;
  requestsLeft: number;
}

/**
 * Which proxy each host's next request goes through. A host keeps one proxy for a session of
 * `sessionRequests` requests, so what the host sees (the exit address, the cookies a gateway keeps
 * per session) stays consistent, then moves to the next proxy of the list; a failure of its proxy
 * ends its session at once. Hosts start spread over the list by a hash of their name, so that a
 * crawl of many hosts does not send them all through the first proxy. Politeness is not decided
 * here: a host's requests are spaced by the host workflow whatever proxy they take.
 */
export class ProxyRotation {
  private readonly sessions = new Map<string, Session>();
  private readonly proxyCount: number;
  private readonly sessionRequests: number;
  private readonly maxHosts: number;

  constructor(options: ProxyRotationOptions) {
    this.proxyCount = positiveInteger('proxyCount', options.proxyCount);
    this.sessionRequests = positiveInteger('sessionRequests', options.sessionRequests);
    this.maxHosts = positiveInteger('maxHosts', options.maxHosts ?? 100_000);
  }

  /** The index of the proxy `host`'s next request goes through, counted against its session. */
  next(host: string): number {
    const key = host.toLowerCase();
    const known = this.sessions.get(key);
    let session: Session;
    if (known === undefined) session = { proxy: hashOf(key) % this.proxyCount, requestsLeft: this.sessionRequests };
    else if (known.requestsLeft <= 0) session = { proxy: (known.proxy + 1) % this.proxyCount, requestsLeft: this.sessionRequests };
    else session = known;
    session.requestsLeft -= 1;
    // Re-inserted on every use: the Map's first key is then the least recently used host.
    this.sessions.delete(key);
    this.sessions.set(key, session);
    if (this.sessions.size > this.maxHosts) this.sessions.delete(this.sessions.keys().next().value as string);
    return session.proxy;
  }

  /** Ends `host`'s session: its next request goes through the next proxy of the list. */
  endSession(host: string): void {
    const session = this.sessions.get(host.toLowerCase());
    if (session !== undefined) session.requestsLeft = 0;
  }

  /** Hosts whose session is remembered. */
  get size(): number {
    return this.sessions.size;
  }
}

/** FNV-1a over the UTF-16 code units: stable across processes, which is all the spread needs. */
function hashOf(text: string): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i += 1) {
    hash ^= text.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  return hash;
}

function positiveInteger(name: string, value: number): number {
  if (!Number.isSafeInteger(value) || value < 1) {
    throw new InvalidFetchRequestError('HTTP_INVALID_OPTION', `proxy.${name}`, `proxy ${name} must be an integer >= 1, got ${String(value)}`);
  }
  return value;
}
