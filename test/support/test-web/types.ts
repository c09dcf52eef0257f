import type { IncomingHttpHeaders } from 'node:http';

/**
 * Written into string bodies, header values and redirect locations, and replaced by the web's
 * port when served: specs are built before the port is known (it is chosen at listen time).
 */
export const PORT_PLACEHOLDER = '{port}';

/** What a body function or a dynamic route sees about the request being served. */
export interface RequestContext {
  /** The host (local address of the socket), 127.x.y.z. */
  host: string;
  /** The port every host of this web listens on. */
  port: number;
  method: string;
  /** The raw request target (path + query) exactly as the client sent it. */
  target: string;
  headers: Readonly<IncomingHttpHeaders>;
  /** Wall-clock time the request arrived, epoch ms with sub-ms precision. */
  nowMs: number;
  /** Milliseconds since the web started; 'changing' pages measure their clock from here. */
  elapsedMs: number;
  /** Requests this host received before this one (0-based, counted since start). */
  hostRequestIndex: number;
  /** Requests for this exact target before this one (0-based, reset by `update`). */
  targetRequestIndex: number;
  /** Content version of a 'changing' page (number of changes so far); 0 for other pages. */
  version: number;
}

/**
 * A scripted server behaviour. A page's own behaviour wins over its host's `defaultBehavior`,
 * except 'slow', which always adds its delay.
 */
export type Behavior =
  | { kind: 'redirect'; status: 301 | 302 | 303 | 307 | 308; location: string }
  | {
      kind: 'retry-after';
      status: 429 | 503;
      /** Delta-seconds or an HTTP-date; a function gets the request time (for dates relative to now). */
      retryAfter: string | ((nowMs: number) => string);
      /** Requests answered this way before the page is served normally. */
      times: number;
    }
  | { kind: 'fail-times'; status: number; times: number }
  | {
      kind: 'oversized';
      /** Bytes streamed, generated chunk by chunk (never allocated at once). */
      bytes: number;
      /** Send Content-Length (default true); false streams chunked, so only a byte count can cut it off. */
      declareLength?: boolean;
    }
  | { kind: 'gzip-bomb'; decompressedBytes: number }
  | {
      /**
       * Declares `bytes` of body, sends the head and the first `afterBytes` of it, waits for the
       * client to have read them, then resets the connection (RST): a failure that still cost bytes.
       */
      kind: 'reset';
      bytes: number;
      afterBytes: number;
    }
  | { kind: 'slow'; delayMs: number }
  | {
      kind: 'changing';
      /** Mean changes per simulated day (Poisson process). */
      ratePerDay: number;
      /** Seeds this page's change times; the same seed gives the same timeline (see changeTimeline). */
      seed: number;
      /** Simulated ms per real ms (default 1); 86_400 makes one real second one simulated day. */
      timeScale?: number;
    };

export interface PageSpec {
  /** Path + optional query, matched exactly against the raw request target. */
  path: string;
  /** Default 200. */
  status?: number;
  /** Extra response headers; values may contain {@link PORT_PLACEHOLDER}. */
  headers?: Record<string, string>;
  /** String bodies may contain {@link PORT_PLACEHOLDER}; functions render per request. Default empty. */
  body?: string | ((ctx: RequestContext) => string | Buffer);
  /** Default `text/html; charset=utf-8`. */
  contentType?: string;
  /** Wait before sending headers. Default 0. */
  delayMs?: number;
  /** Stall after the first half of the body. Default 0. */
  bodyDelayMs?: number;
  behavior?: Behavior;
}

export interface RobotsSpec {
  status: number;
  body?: string;
  behavior?: Behavior;
}

export interface HostSpec {
  /** Dotted 127.x.y.z; each distinct address is a distinct host. */
  host: string;
  /** A string is served as 200 text/plain; absent means 404 (unless a page claims /robots.txt). */
  robotsTxt?: string | RobotsSpec;
  pages: PageSpec[];
  /** Body of the 404 answer for unknown targets. Default a small HTML page. */
  notFoundBody?: string;
  /** Applies to every request to this host (robots.txt included), e.g. a slow host. */
  defaultBehavior?: Behavior;
  /**
   * Dynamic pages for unbounded URL spaces (calendars, session ids): consulted when no page's path
   * equals the target; return undefined for 404. Must be deterministic in its input.
   */
  resolve?: (target: string) => PageSpec | undefined;
}

export interface WebSpec {
  hosts: HostSpec[];
}

export interface RequestLogEntry {
  host: string;
  method: string;
  /** Raw request target. */
  path: string;
  /** Epoch ms (sub-ms precision) when the request arrived. */
  startedAtMs: number;
  /** Epoch ms when the response's last byte went to the socket, or when the connection closed before that. */
  finishedAtMs: number;
  /**
   * Epoch ms read just before the response's last write call: the earliest its last bytes can
   * have left. `finishedAtMs` is read in a callback after the write, which a descheduled server
   * process runs late (10-20 ms on a busy machine): the true end lies between the two.
   * Absent when nothing was written.
   */
  lastWriteAtMs?: number;
  status: number;
  userAgent?: string;
  ifNoneMatch?: string;
  ifModifiedSince?: string;
  acceptEncoding?: string;
  /** Body bytes handed to the socket (after encoding); headers not counted. */
  bytesSent: number;
  /** True when the connection closed before the response was complete (client cut it off). */
  aborted: boolean;
  /** The address the request came from: a proxy's, when one carried it. */
  remoteAddress?: string;
  /**
   * Bytes this request took off the wire (its head) and put on it (the response's head and body as
   * sent, chunk framing included): what a client pays for it. On a kept-alive connection each
   * request counts from the end of the previous one.
   */
  wireBytesReceived?: number;
  wireBytesSent?: number;
}

export interface TestWeb {
  /** The one port every host listens on. */
  readonly port: number;
  /** The hosts listening, in spec order. */
  readonly hosts: readonly string[];
  /** Epoch ms when the web started; the clock origin of 'changing' pages. */
  readonly startedAtMs: number;
  /** `http://host:port/path`; path defaults to '/'. */
  url(host: string, path?: string): string;
  /** Entries appear when their response ends, in that order. */
  log(): readonly RequestLogEntry[];
  clearLog(): void;
  /** Replaces hosts' pages and resets per-target counters; hosts missing from the spec answer 404. */
  update(spec: WebSpec): void;
  /** Closes every listener and cuts open connections; idempotent. */
  close(): Promise<void>;
}
