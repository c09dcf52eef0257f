import { isIP } from 'node:net';
import { performance } from 'node:perf_hooks';
import { setImmediate } from 'node:timers/promises';
import { Agent, ProxyAgent, type Dispatcher } from 'undici';
import { processEventLoopLag } from './loop-lag.js';
import { callSink, readBody, SinkFailure, type BodySink } from './body-reader.js';
import { contentCodingsOf } from './content-decoders.js';
import { DnsCache } from './dns-cache.js';
import { HttpFetchError, InvalidFetchRequestError, PrivateNetworkRefusedError, type PartialResponse } from './errors.js';
import { Exchange } from './exchange.js';
import { resolveFetchRequest, type FetchRequest, type ResolvedFetchRequest } from './fetch-request.js';
import { createGuardedConnector } from './guarded-connector.js';
import { isPrivateAddress } from './private-address.js';
import type { ProxyCredentials } from './proxy-credentials.js';
import { ProxyRotation } from './proxy-rotation.js';
import { noteTunnelsEstablished, takeFailedConnects, tunnelEstablishedSince } from './proxy-tunnels.js';
import { proxyConnectFailureCode, type ProxyConnectAnswer, type ProxyConnectFailure } from '../domain/failures/index.js';
import { flattenResponseHeaders } from './response-headers.js';
import { chargeTransfer, claimSocketOfRequest, type SocketFacts, type TransferBytes } from './socket-facts.js';
import type { DnsResolver } from './system-dns-resolver.js';
import { transportErrorCodeOf } from './transport-error-code-of.js';

export interface HttpClientOptions {
  /** Sent on every request; robots.txt groups are matched against its product token. Required. */
  userAgent: string;
  /**
   * Allow loopback, RFC 1918, CGNAT 100.64/10, link-local (169.254/16, fe80::/10), unique-local
   * fc00::/7, ::1, 0.0.0.0/8, multicast and their IPv4-mapped IPv6 forms, Teredo 2001::/32 and
   * IPv4-translated ::ffff:0:0:0/96. Default false: refused
   * for literal IPs in URLs and for every DNS answer, checked at connect time (no DNS rebinding).
   */
  allowPrivateNetworks: boolean;
  /** How long an idle keep-alive connection is kept, ms; a server's shorter Keep-Alive hint wins. Default 30_000. */
  keepAliveTimeoutMs?: number;
  /** Connections per origin (scheme + host + port). A ceiling, never a license: politeness is enforced above. Default 2. */
  maxConnectionsPerOrigin?: number;
  /** Ceiling on one socket connect (DNS + TCP + TLS), ms, even when no request waits for it any more. Default 30_000. */
  maxConnectTimeoutMs?: number;
  /** DNS cache sizing and TTL bounds; `resolver` replaces the system resolver (tests). */
  dnsCache?: {
    /** Hostnames remembered. Default 10_000. */
    maxEntries?: number;
    /** Floor on answer reuse, ms. Default 1_000. */
    minTtlMs?: number;
    /** Ceiling on answer reuse, ms. Default 300_000. */
    maxTtlMs?: number;
    /** How long NXDOMAIN is remembered, ms. Default 3_600_000. */
    negativeTtlMs?: number;
    /** Where answers come from. Default DNS with TTLs, then the hosts file. */
    resolver?: DnsResolver;
  };
  /** Send every request through proxies (docs/proxies.md). Default none: direct. */
  proxy?: HttpProxyOptions;
}

/**
 * Proxies every request goes through, each as a CONNECT tunnel (http targets too): the target gets
 * our request byte for byte, and whatever goes wrong before the tunnel stands is the proxy's, told
 * apart from the target's failures (HttpFetchError 'HTTP_PROXY_FAILED').
 */
export interface HttpProxyOptions {
  /** Proxy URLs, http: or https:, without user:password (those come from `credentials`). At least one. */
  urls: readonly string[];
  /** Requests a host sends through one proxy before it moves to the next (ProxyRotation). Default 100. */
  sessionRequests?: number;
  /** Logins by proxy origin, sent as Proxy-Authorization on the CONNECT only. Default none. */
  credentials?: ProxyCredentials;
}

/** Requests a host sends through one proxy before it moves to the next, when the options do not say. */
export const DEFAULT_PROXY_SESSION_REQUESTS = 100;

export interface FetchResponseHead {
  /** The URL as requested (this layer never follows redirects: a 3xx carries its Location). */
  url: string;
  status: number;
  /** Lower-case names, repeated headers joined with ', ', Set-Cookie dropped. */
  headers: Record<string, string>;
  /** The peer the request went to. */
  remoteAddress?: string;
  /** Headers this request was sent with (lower-case names), besides the Host and Connection undici adds. */
  requestHeaders: Record<string, string>;
  timings: {
    /** Wall clock when fetch() was called, ms since the epoch. */
    startedAtMs: number;
    /** Time to open the connection, present only when this request opened a new one. */
    connectMs?: number;
    /** From fetch() to the response head, ms. */
    firstByteMs: number;
  };
}

export interface FetchedBody {
  /** Decoded bytes. */
  bytes: number;
  /** Bytes as transferred (still content-encoded). */
  wireBytes: number;
  /** SHA-256 of the decoded bytes, hex. */
  sha256: string;
  /** Content-Encoding that was decoded, if any. */
  contentEncoding?: string;
  /** Wall clock when the body was complete, ms since the epoch. */
  finishedAtMs: number;
  /** From fetch() to the end of the body, ms, including the sink's own end (compression, a file's close). */
  totalMs: number;
  /**
   * From fetch() to the body's last byte, ms, as the event loop first saw it: the host's download
   * time plus our loop's lag, without the sink's work after it. Less loopLagMs, what adaptive
   * politeness counts (hostDownloadMs).
   */
  lastByteMs: number;
  /** How late this process's event loop ran callbacks around then, ms (EventLoopLag): part of lastByteMs that is ours, not the host's. */
  loopLagMs: number;
}

export interface FetchResult {
  head: FetchResponseHead;
  body: FetchedBody;
  /**
   * Bytes this request put on the wire and took off it: request and response heads and body, and
   * for the first request on a connection its TLS handshake and its proxy's CONNECT. What a gateway
   * billing by the byte counts.
   */
  transfer: TransferBytes;
}

/** Given the head, where the decoded body goes; undefined to drain and count it only (304, 3xx, 4xx). */
export type SinkFactory = (head: FetchResponseHead) => BodySink | undefined;

/** Everything a fetch must stop when it settles. */
interface FetchTimers {
  connect?: NodeJS.Timeout;
  headDeadline?: NodeJS.Timeout;
  bodyDeadline?: NodeJS.Timeout;
}

/** One request while it runs: what its steps learn (the socket, the head, the open sink) and what its failure must clean up. */
interface InFlight {
  request: ResolvedFetchRequest;
  exchange: Exchange;
  timers: FetchTimers;
  /** Date.now() and performance.now() at the start. */
  startedAtMs: number;
  startedAt: number;
  socket: Partial<SocketFacts>;
  partial?: PartialResponse;
  sink?: BodySink;
  connected: boolean;
}

/** Marks a failure caused by the caller's own signal, so it is rethrown as the signal's reason. */
class CancelledByCaller extends Error {
  override readonly name = 'CancelledByCaller';
}

/**
 * The HTTP layer every fetch goes through: one undici Agent (keep-alive pools per origin), a
 * TTL-honouring DNS cache, the private-network guard, distinct connect / first-byte / body
 * timeouts, and body limits enforced as bytes flow. It never retries and never follows
 * redirects: the fetch activity and Temporal own that. Transport problems reject with
 * HttpFetchError; HTTP statuses are results.
 */
export class HttpClient {
  readonly dns: DnsCache;
  private readonly agent: Agent;
  /** One ProxyAgent per proxy (its own keep-alive pools per target origin), when requests go through proxies. */
  private readonly proxies: { origin: string; agent: ProxyAgent }[] = [];
  private readonly rotation: ProxyRotation | undefined;
  private readonly userAgent: string;
  private readonly allowPrivateNetworks: boolean;
  private readonly active = new Set<Promise<unknown>>();
  private closed = false;

  constructor(options: HttpClientOptions) {
    if (typeof options.userAgent !== 'string' || options.userAgent.trim() === '' || /[\r\n\0]/.test(options.userAgent)) {
      throw new InvalidFetchRequestError('HTTP_INVALID_OPTION', 'userAgent', 'HttpClientOptions.userAgent must be a non-empty single-line string');
    }
    const maxConnections = options.maxConnectionsPerOrigin ?? 2;
    if (!Number.isSafeInteger(maxConnections) || maxConnections < 1) {
      throw new InvalidFetchRequestError('HTTP_INVALID_OPTION', 'maxConnectionsPerOrigin', `maxConnectionsPerOrigin must be an integer >= 1, got ${String(maxConnections)}`);
    }
    this.userAgent = options.userAgent;
    this.allowPrivateNetworks = options.allowPrivateNetworks === true;
    this.dns = new DnsCache({ ...options.dnsCache, allowPrivateNetworks: this.allowPrivateNetworks });
    const keepAliveTimeoutMs = options.keepAliveTimeoutMs ?? 30_000;
    this.agent = new Agent({
      connect: createGuardedConnector({
        allowPrivateNetworks: this.allowPrivateNetworks,
        lookup: this.dns.lookup,
        connectTimeoutMs: options.maxConnectTimeoutMs ?? 30_000,
      }),
      connections: maxConnections,
      pipelining: 1,
      keepAliveTimeout: keepAliveTimeoutMs,
      keepAliveMaxTimeout: keepAliveTimeoutMs,
      allowH2: false,
    });
    if (options.proxy !== undefined) {
      const { urls, credentials } = options.proxy;
      if (urls.length === 0) throw new InvalidFetchRequestError('HTTP_INVALID_OPTION', 'proxy.urls', 'HttpClientOptions.proxy.urls needs at least one proxy URL');
      for (const raw of urls) {
        const url = proxyUrlOf(raw);
        const login = credentials?.loginFor(url.origin);
        this.proxies.push({
          origin: url.origin,
          agent: new ProxyAgent({
            uri: url.origin,
            ...(login === undefined ? {} : { token: `Basic ${Buffer.from(`${login.username}:${login.password}`).toString('base64')}` }),
            connections: maxConnections,
            pipelining: 1,
            keepAliveTimeout: keepAliveTimeoutMs,
            keepAliveMaxTimeout: keepAliveTimeoutMs,
            allowH2: false,
            // To the proxy, and to the target inside the tunnel: certificates always verified.
            proxyTls: { timeout: options.maxConnectTimeoutMs ?? 30_000, rejectUnauthorized: true },
            requestTls: { rejectUnauthorized: true },
          }),
        });
      }
      this.rotation = new ProxyRotation({ proxyCount: this.proxies.length, sessionRequests: options.proxy.sessionRequests ?? DEFAULT_PROXY_SESSION_REQUESTS });
    }
  }

  /**
   * GETs `request.url` (our User-Agent, Accept, Accept-Encoding: gzip, deflate, br) and streams the
   * decoded body into the sink `sinkFor(head)` returns, with the wire and decoded limits enforced
   * as bytes flow: memory stays bounded for a 1 GB body or a gzip bomb. On a limit the socket is
   * destroyed and it rejects with HttpFetchError('HTTP_BODY_TOO_LARGE' | 'HTTP_DECOMPRESSED_TOO_LARGE').
   * Rejects with HttpFetchError for every transport problem, with InvalidFetchRequestError for a
   * request it will not send, with the signal's reason when cancelled, and with the sink's own
   * error when the sink fails; the sink's abort() is called on any failure after it was created.
   */
  async fetch(request: FetchRequest, sinkFor: SinkFactory): Promise<FetchResult> {
    if (this.closed) throw new InvalidFetchRequestError('HTTP_CLIENT_CLOSED', request.url, 'HttpClient.fetch called after close()');
    const resolved = resolveFetchRequest(request, this.userAgent);
    request.signal?.throwIfAborted();
    if (!this.allowPrivateNetworks && isIP(resolved.hostname) !== 0 && isPrivateAddress(resolved.hostname)) {
      // Refused before any socket exists, so nothing reaches the address at all.
      throw new HttpFetchError('HTTP_PRIVATE_NETWORK_REFUSED', resolved.url, { cause: new PrivateNetworkRefusedError(resolved.hostname, [resolved.hostname]) });
    }
    let route: Route = { dispatcher: this.agent };
    if (this.rotation !== undefined) {
      // The proxy resolves the name, out of our connector's reach: the guard resolves it here first.
      if (!this.allowPrivateNetworks && isIP(resolved.hostname) === 0) await this.refusePrivateTarget(resolved);
      const proxy = this.proxies[this.rotation.next(resolved.hostname)]!;
      route = { dispatcher: proxy.agent, proxyOrigin: proxy.origin };
    }
    const running = this.run(resolved, request.signal, sinkFor, route);
    this.active.add(running);
    try {
      return await running;
    } finally {
      this.active.delete(running);
    }
  }

  /** Waits for running fetches (each bounded by its timeouts), then closes every connection. */
  async close(): Promise<void> {
    this.closed = true;
    await Promise.allSettled([...this.active]);
    // destroy, not close: a connect abandoned by its request may still be pending until maxConnectTimeoutMs.
    await Promise.allSettled([this.agent.destroy(), ...this.proxies.map((proxy) => proxy.agent.destroy())]);
  }

  /**
   * Resolves the target's name and refuses it when any of its addresses is not public: which one
   * the proxy connects to is its choice, so one private answer is enough to refuse.
   */
  private async refusePrivateTarget(request: ResolvedFetchRequest): Promise<void> {
    let addresses;
    try {
      addresses = await this.dns.resolve(request.hostname);
    } catch (error) {
      throw new HttpFetchError(transportErrorCodeOf(error) ?? 'HTTP_DNS_TEMPORARY_FAILURE', request.url, { cause: error });
    }
    const refused = addresses.filter((answer) => isPrivateAddress(answer.address)).map((answer) => answer.address);
    if (refused.length > 0) {
      throw new HttpFetchError('HTTP_PRIVATE_NETWORK_REFUSED', request.url, { cause: new PrivateNetworkRefusedError(request.hostname, refused) });
    }
  }

  private async run(request: ResolvedFetchRequest, signal: AbortSignal | undefined, sinkFor: SinkFactory, route: Route): Promise<FetchResult> {
    const timers: FetchTimers = {};
    const failWith = (code: 'HTTP_CONNECT_TIMEOUT' | 'HTTP_FIRST_BYTE_TIMEOUT' | 'HTTP_BODY_TIMEOUT', detail: string): void =>
      exchange.fail(new HttpFetchError(code, request.url, { detail }));
    const exchange = new Exchange({
      onConnected: () => {
        flight.connected = true;
        clearTimeout(timers.connect);
        // undici's headersTimeout restarts on every 1xx, so a server trickling 102 Processing would
        // hold the request forever; this deadline counts from the request written, whatever comes.
        timers.headDeadline ??= setTimeout(
          () => failWith('HTTP_FIRST_BYTE_TIMEOUT', `no final response head within ${request.firstByteTimeoutMs} ms`),
          request.firstByteTimeoutMs,
        );
        claimSocketOfRequest(request.origin, request.path, (facts) => {
          flight.socket = facts;
          exchange.attachSocket(facts.socket);
        });
      },
    });
    const flight: InFlight = { request, exchange, timers, startedAtMs: Date.now(), startedAt: performance.now(), socket: {}, connected: false };
    const onAbort = (): void => exchange.fail(new CancelledByCaller('fetch cancelled by its signal'));

    timers.connect = setTimeout(() => failWith('HTTP_CONNECT_TIMEOUT', `no connection within ${request.connectTimeoutMs} ms`), request.connectTimeoutMs);
    signal?.addEventListener('abort', onAbort, { once: true });
    try {
      if (route.proxyOrigin !== undefined) noteTunnelsEstablished();
      route.dispatcher.dispatch(
        {
          origin: request.origin,
          path: request.path,
          method: 'GET',
          // A copy: a ProxyAgent adds its Host header to the object it is given.
          headers: { ...request.headers },
          headersTimeout: request.firstByteTimeoutMs,
          bodyTimeout: request.bodyStallTimeoutMs,
        },
        exchange,
      );
      const head = await this.receiveHead(flight);
      timers.bodyDeadline = setTimeout(() => failWith('HTTP_BODY_TIMEOUT', `body not complete within ${request.bodyTimeoutMs} ms`), request.bodyTimeoutMs);
      return await this.receiveBody(flight, head, sinkFor);
    } catch (error) {
      throw await this.failed(error, flight, signal, route);
    } finally {
      clearTimeout(timers.connect);
      clearTimeout(timers.headDeadline);
      clearTimeout(timers.bodyDeadline);
      signal?.removeEventListener('abort', onAbort);
    }
  }

  /** The final response head, refused at once when its Content-Length is over the limit. */
  private async receiveHead(flight: InFlight): Promise<FetchResponseHead> {
    const { request } = flight;
    const response = await flight.exchange.head;
    clearTimeout(flight.timers.headDeadline);
    const firstByteMs = performance.now() - flight.startedAt;
    const head: FetchResponseHead = {
      url: request.url,
      status: response.status,
      headers: flattenResponseHeaders(response.headers),
      requestHeaders: { ...request.headers },
      timings: { startedAtMs: flight.startedAtMs, firstByteMs },
    };
    if (flight.socket.remoteAddress !== undefined) head.remoteAddress = flight.socket.remoteAddress;
    if (flight.socket.connectMs !== undefined) head.timings.connectMs = flight.socket.connectMs;
    flight.partial = { status: head.status, headers: head.headers };
    const declaredLength = Number(head.headers['content-length']);
    if (Number.isFinite(declaredLength) && declaredLength > request.maxBodyBytes) {
      throw new HttpFetchError('HTTP_BODY_TOO_LARGE', request.url, { detail: `Content-Length ${declaredLength} is over ${request.maxBodyBytes} bytes` });
    }
    return head;
  }

  /** The body into the caller's sink, decoded and bounded; what the transfer cost charged before the connection is reused. */
  private async receiveBody(flight: InFlight, head: FetchResponseHead, sinkFor: SinkFactory): Promise<FetchResult> {
    const { request, exchange, startedAt } = flight;
    let sink: BodySink | undefined;
    try {
      sink = sinkFor(head);
    } catch (error) {
      throw new SinkFailure(error);
    }
    flight.sink = sink;
    const contentEncoding = head.headers['content-encoding'];
    const codings = contentCodingsOf(contentEncoding);
    let lastByteMs: number | undefined;
    exchange.body.once('end', () => (lastByteMs = performance.now() - startedAt));
    const reading = readBody(exchange.body, {
      url: request.url,
      codings,
      maxBodyBytes: request.maxBodyBytes,
      maxDecompressedBytes: request.maxDecompressedBytes,
      sink,
    });
    // A sink that never settles must not hold the fetch past its deadline or a cancellation; the
    // loser of each race is still observed so its late rejection is not unhandled.
    reading.catch(() => undefined);
    const read = await Promise.race([reading, exchange.failed]);
    const opened = sink;
    if (opened !== undefined) {
      const ending = callSink(() => opened.end());
      ending.catch(() => undefined);
      await Promise.race([ending, exchange.failed]);
    }
    clearTimeout(flight.timers.bodyDeadline);
    flight.sink = undefined; // ended: nothing left to abort
    const totalMs = performance.now() - startedAt;
    const body: FetchedBody = { ...read, finishedAtMs: Date.now(), totalMs, lastByteMs: lastByteMs ?? totalMs, loopLagMs: processEventLoopLag().currentMs() };
    if (codings.length > 0) body.contentEncoding = contentEncoding;
    // Charged now, before the connection can carry another request.
    const transfer = flight.socket.socket === undefined ? { sentBytes: 0, receivedBytes: 0 } : chargeTransfer(flight.socket.socket);
    // undici hands a finished HTTP/1.1 connection back to its pool in a setImmediate; waiting one
    // turn here means the caller's next request to this origin reuses it instead of opening another.
    await setImmediate();
    return { head, body, transfer };
  }

  /** What a failed request rejects with: named (a proxy's failure apart from the target's), its transfer charged, its sink aborted. */
  private async failed(error: unknown, flight: InFlight, signal: AbortSignal | undefined, route: Route): Promise<unknown> {
    const { request } = flight;
    flight.exchange.fail(error instanceof Error ? error : new Error(String(error)));
    let failure = this.nameFailure(error, request, signal, flight.partial);
    if (route.proxyOrigin !== undefined && !flight.connected && failure instanceof HttpFetchError && isProxyStage(failure, request, flight.startedAtMs)) {
      // Nothing reached the target yet: the proxy refused, failed or could not open the tunnel, or
      // it answered that the target could not be reached. Its CONNECTs cost what crossed.
      const connects = takeFailedConnects(route.proxyOrigin, request.origin);
      const connectFailure = connectFailureOf(failure, connects?.answer);
      const code = proxyConnectFailureCode(connectFailure);
      if (code === 'HTTP_PROXY_FAILED') {
        failure = new HttpFetchError('HTTP_PROXY_FAILED', request.url, { cause: failure, detail: `through proxy ${route.proxyOrigin}: ${proxyFailureDetail(failure)}` });
        this.rotation?.endSession(request.hostname);
      } else if (connectFailure.kind === 'answered') {
        const { status, reason } = connectFailure.answer;
        failure = new HttpFetchError(code, request.url, { cause: failure, detail: `proxy ${route.proxyOrigin} could not reach the target: its CONNECT was answered ${status} ${JSON.stringify(reason.slice(0, 100))}` });
      }
      if (connects !== undefined && failure instanceof HttpFetchError) failure = failure.withTransfer(connects.transfer);
    }
    // What it cost before it failed: a reset after 30 KB cost 30 KB.
    if (failure instanceof HttpFetchError && flight.socket.socket !== undefined) failure = failure.withTransfer(chargeTransfer(flight.socket.socket));
    if (flight.sink !== undefined) await abortQuietly(flight.sink, failure);
    return failure;
  }

  /** What fetch() rejects with for `error`: see fetch()'s contract. */
  private nameFailure(error: unknown, request: ResolvedFetchRequest, signal: AbortSignal | undefined, partial: PartialResponse | undefined): unknown {
    if (signal?.aborted === true) return signal.reason ?? error;
    if (error instanceof SinkFailure) return error.error;
    if (error instanceof HttpFetchError) return partial === undefined || error.partial !== undefined ? error : error.withPartial(partial);
    if (error instanceof InvalidFetchRequestError) return error;
    const code = transportErrorCodeOf(error);
    if (code !== undefined) return new HttpFetchError(code, request.url, { cause: error, ...(partial ? { partial } : {}) });
    if ((error as { code?: unknown } | null)?.code === 'UND_ERR_INVALID_ARG') {
      return new InvalidFetchRequestError('HTTP_INVALID_OPTION', request.url, `undici refused the request: ${(error as Error).message}`);
    }
    return error;
  }
}

async function abortQuietly(sink: BodySink, reason: unknown): Promise<void> {
  try {
    await sink.abort(reason);
  } catch {
    // The fetch already failed for `reason`; a sink that cannot clean up must not hide that.
  }
}

/** Where one request goes: the direct agent, or a proxy's agent. */
interface Route {
  dispatcher: Dispatcher;
  /** The proxy's origin, when through one. */
  proxyOrigin?: string;
}

/**
 * Whether a failure before the request reached the target belongs to the proxy: every transport
 * failure does (connecting to the proxy, its CONNECT answered with anything but 2xx, its name, its
 * TLS), except a TLS failure once the tunnel to the target stood, which is the target's certificate
 * or handshake, and the guard's own refusal.
 */
function isProxyStage(failure: HttpFetchError, request: ResolvedFetchRequest, startedAtMs: number): boolean {
  if (failure.code === 'HTTP_PRIVATE_NETWORK_REFUSED' || failure.code === 'HTTP_PROXY_FAILED') return false;
  if (failure.code === 'HTTP_TLS_CERTIFICATE' || failure.code === 'HTTP_TLS_HANDSHAKE') {
    const viaProxyTls = (failure.cause as { code?: unknown } | undefined)?.code === 'UND_ERR_PRX_TLS';
    return viaProxyTls || !tunnelEstablishedSince(request.origin, startedAtMs);
  }
  return true;
}

/**
 * The CONNECT failure behind `failure`: the proxy's answer when undici failed the tunnel for that
 * very status ("Proxy response (500) !== 200"), else no answer (refused, reset, timed out).
 */
function connectFailureOf(failure: HttpFetchError, answer: ProxyConnectAnswer | undefined): ProxyConnectFailure {
  const status = /Proxy response \((\d{3})\)/.exec(String((failure.cause as Error | undefined)?.message ?? ''))?.[1];
  if (status === undefined || answer === undefined || String(answer.status) !== status) return { kind: 'no-answer' };
  return { kind: 'answered', answer };
}

/**
 * What went wrong, from undici's words: "Proxy response (407) !== 200 when HTTP Tunneling" says the
 * status. 407 asks for credentials; some proxies (tinyproxy) answer wrong ones with 401.
 */
function proxyFailureDetail(failure: HttpFetchError): string {
  const status = /Proxy response \((\d{3})\)/.exec(String((failure.cause as Error | undefined)?.message ?? failure.message))?.[1];
  if (status === '407' || status === '401') return `it refused our credentials (${status}): check the worker's proxy credentials`;
  if (status !== undefined) return `its CONNECT was answered ${status}`;
  return failure.code;
}

/** A proxy URL as configured: http(s), no credentials, no path. */
function proxyUrlOf(raw: string): URL {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    // Not echoed: a mistyped proxy URL may hold a password.
    throw new InvalidFetchRequestError('HTTP_INVALID_OPTION', 'proxy.urls', 'a proxy URL is not a URL; write it like http://gateway.example:8000');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new InvalidFetchRequestError('HTTP_INVALID_OPTION', 'proxy.urls', `a proxy URL is http: or https:, not ${url.protocol}`);
  }
  if (url.username !== '' || url.password !== '') {
    throw new InvalidFetchRequestError('HTTP_INVALID_OPTION', 'proxy.urls', `proxy ${url.host}: credentials go in HttpProxyOptions.credentials, never in the URL`);
  }
  return url;
}
