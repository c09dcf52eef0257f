import type { IncomingMessage, OutgoingHttpHeaders, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { changeValidators, isNotModified, type ChangeTimeline } from './changing.js';
import type { HostState } from './host-table.js';
import { escapeHtml } from './html.js';
import { PORT_PLACEHOLDER, type Behavior, type PageSpec, type RequestContext, type RequestLogEntry } from './types.js';

/** What the request handler needs from the running web. */
export interface ServeRuntime {
  readonly port: number;
  readonly startedAtMs: number;
  host(address: string): HostState | undefined;
  record(entry: RequestLogEntry): void;
  gzipBomb(decompressedBytes: number): Promise<Buffer>;
  timeline(seed: number, ratePerDay: number): ChangeTimeline;
}

const HTML = 'text/html; charset=utf-8';
const TEXT = 'text/plain; charset=utf-8';
const CHUNK_BYTES = 64 * 1024;
const FILLER = Buffer.alloc(CHUNK_BYTES, '<p>oversized body filler, streamed chunk by chunk.</p>\n');

/** Epoch ms with sub-ms precision, so that gaps between requests measure below a millisecond. */
export function clockMs(): number {
  return performance.timeOrigin + performance.now();
}

export function fillPort(text: string, port: number): string {
  return text.replaceAll(PORT_PLACEHOLDER, String(port));
}

function header(req: IncomingMessage, name: string): string | undefined {
  const value = req.headers[name];
  return Array.isArray(value) ? value.join(', ') : value;
}

/**
 * Reads the clock just before every call that can put bytes on the wire, whatever path writes the
 * response: each write, and end() unless it has nothing left to send. A body of declared length
 * is complete, for the client, with its last write; an end() after it sends nothing, and when a
 * busy test web called it a few ms later its stamp made the client's next request look early
 * (a certain violation of 249.8 ms for 250, the client having read the whole body before the end
 * was stamped). end() sends bytes with a last chunk, the headers when nothing was written yet,
 * and the last chunk of a chunked body.
 */
export function stampWrites(res: ServerResponse, entry: Pick<RequestLogEntry, 'lastWriteAtMs'>): void {
  const write = res.write.bind(res) as (...args: unknown[]) => boolean;
  const end = res.end.bind(res) as (...args: unknown[]) => ServerResponse;
  let wrote = false;
  res.write = ((...args: unknown[]) => {
    entry.lastWriteAtMs = clockMs();
    wrote = true;
    return write(...args);
  }) as ServerResponse['write'];
  res.end = ((...args: unknown[]) => {
    const chunk = typeof args[0] === 'function' ? undefined : (args[0] as { length?: number } | null | undefined);
    const withChunk = chunk !== undefined && chunk !== null && chunk.length !== 0;
    if (withChunk || !wrote || res.chunkedEncoding) entry.lastWriteAtMs = clockMs();
    return end(...args);
  }) as ServerResponse['end'];
}

/** The socket's byte counters where its previous request's count ended. */
const counted = new WeakMap<Socket, { read: number; written: number }>();

/** Serves one request and logs it when the response ends, however it ends. */
export function handleRequest(runtime: ServeRuntime, req: IncomingMessage, res: ServerResponse): void {
  const startedAtMs = clockMs();
  const socket = req.socket;
  const host = (req.socket.localAddress ?? '').replace(/^::ffff:/, '');
  const entry: RequestLogEntry = {
    host,
    method: req.method ?? 'GET',
    path: req.url ?? '/',
    startedAtMs,
    finishedAtMs: startedAtMs,
    status: 0,
    userAgent: header(req, 'user-agent'),
    ifNoneMatch: header(req, 'if-none-match'),
    ifModifiedSince: header(req, 'if-modified-since'),
    acceptEncoding: header(req, 'accept-encoding'),
    bytesSent: 0,
    aborted: false,
    remoteAddress: (req.socket.remoteAddress ?? '').replace(/^::ffff:/, ''),
  };
  // The end is when the last byte went to the socket ('finish'): 'close' can come turns of a busy
  // event loop later, and a late end would shorten the politeness gap measured to the next request.
  stampWrites(res, entry);
  let finishedAtMs: number | undefined;
  res.once('finish', () => {
    finishedAtMs = clockMs();
  });
  res.once('close', () => {
    entry.finishedAtMs = finishedAtMs ?? clockMs();
    entry.status = res.statusCode;
    entry.aborted = !res.writableFinished;
    const before = counted.get(socket) ?? { read: 0, written: 0 };
    const now = { read: socket.bytesRead, written: socket.bytesWritten };
    entry.wireBytesReceived = now.read - before.read;
    entry.wireBytesSent = now.written - before.written;
    counted.set(socket, now);
    runtime.record(entry);
  });
  serve(runtime, req, res, entry).catch((error: unknown) => {
    if (res.headersSent) {
      res.destroy(error instanceof Error ? error : new Error(String(error)));
      return;
    }
    res.writeHead(500, { 'content-type': TEXT });
    res.end(`test web failed to serve ${entry.path}: ${String(error)}`);
  });
}

function resolvePage(state: HostState, target: string): PageSpec {
  const robots = state.spec.robotsTxt;
  if (target === '/robots.txt' && robots !== undefined) {
    return typeof robots === 'string'
      ? { path: target, body: robots, contentType: TEXT }
      : { path: target, status: robots.status, body: robots.body ?? '', contentType: TEXT, behavior: robots.behavior };
  }
  return (
    state.pages.get(target) ??
    state.spec.resolve?.(target) ?? {
      path: target,
      status: 404,
      body: state.spec.notFoundBody ?? '<!doctype html><html><head><title>Not found</title></head><body><h1>Not found</h1></body></html>',
    }
  );
}

async function serve(runtime: ServeRuntime, req: IncomingMessage, res: ServerResponse, entry: RequestLogEntry): Promise<void> {
  const state = runtime.host(entry.host);
  if (!state) {
    await sendBody(res, entry, 421, { 'content-type': TEXT }, Buffer.from(`no host ${entry.host} in this test web`));
    return;
  }
  const page = resolvePage(state, entry.path);
  const targetRequestIndex = state.targetHits.get(entry.path) ?? 0;
  state.targetHits.set(entry.path, targetRequestIndex + 1);
  const ctx: RequestContext = {
    host: entry.host,
    port: runtime.port,
    method: entry.method,
    target: entry.path,
    headers: req.headers,
    nowMs: entry.startedAtMs,
    elapsedMs: entry.startedAtMs - runtime.startedAtMs,
    hostRequestIndex: state.requests++,
    targetRequestIndex,
    version: 0,
  };

  const hostBehavior = state.spec.defaultBehavior;
  // 'slow' composes with everything (a slow host is slow on every page); other kinds: the page wins.
  const slowMs = [hostBehavior, page.behavior].reduce((sum, b) => sum + (b?.kind === 'slow' ? b.delayMs : 0), 0);
  const delayMs = (page.delayMs ?? 0) + slowMs;
  if (delayMs > 0 && !(await sleepUnlessClosed(res, delayMs))) return;
  const behavior = [page.behavior, hostBehavior].find((b): b is Behavior => b !== undefined && b.kind !== 'slow');

  switch (behavior?.kind) {
    case 'redirect': {
      const location = fillPort(behavior.location, runtime.port);
      const body = `<!doctype html><html><head><title>Moved</title></head><body><a href="${escapeHtml(location)}">moved</a></body></html>`;
      await sendBody(res, entry, behavior.status, { 'content-type': HTML, location }, Buffer.from(body));
      return;
    }
    case 'retry-after':
      if (targetRequestIndex < behavior.times) {
        const retryAfter = typeof behavior.retryAfter === 'function' ? behavior.retryAfter(ctx.nowMs) : behavior.retryAfter;
        await sendBody(res, entry, behavior.status, { 'content-type': HTML, 'retry-after': retryAfter }, Buffer.from(statusPage(behavior.status)));
        return;
      }
      break;
    case 'fail-times':
      if (targetRequestIndex < behavior.times) {
        await sendBody(res, entry, behavior.status, { 'content-type': HTML }, Buffer.from(statusPage(behavior.status)));
        return;
      }
      break;
    case 'oversized':
      await sendOversized(res, entry, page, behavior.bytes, behavior.declareLength ?? true);
      return;
    case 'gzip-bomb': {
      const bomb = await runtime.gzipBomb(behavior.decompressedBytes);
      await sendBody(res, entry, 200, { 'content-type': page.contentType ?? HTML, 'content-encoding': 'gzip' }, bomb);
      return;
    }
    case 'changing':
      await sendChanging(runtime, res, entry, page, ctx, behavior);
      return;
    case 'reset':
      await sendThenReset(res, entry, page, behavior.bytes, behavior.afterBytes);
      return;
    case undefined:
      break;
  }
  await sendPage(runtime, res, entry, page, ctx, {});
}

async function sendChanging(
  runtime: ServeRuntime,
  res: ServerResponse,
  entry: RequestLogEntry,
  page: PageSpec,
  ctx: RequestContext,
  behavior: Extract<Behavior, { kind: 'changing' }>,
): Promise<void> {
  const timeScale = behavior.timeScale ?? 1;
  const timeline = runtime.timeline(behavior.seed, behavior.ratePerDay);
  const version = timeline.versionAt(ctx.elapsedMs * timeScale);
  const validators = changeValidators(behavior.seed, version, timeline.changedAtMs(version), runtime.startedAtMs, timeScale);
  const headers = { etag: validators.etag, 'last-modified': new Date(validators.lastModifiedMs).toUTCString() };
  if (isNotModified(validators, entry.ifNoneMatch, entry.ifModifiedSince)) {
    await sendBody(res, entry, 304, headers, Buffer.alloc(0));
    return;
  }
  ctx.version = version;
  await sendPage(runtime, res, entry, page, ctx, headers, (body) => withRevision(body, version));
}

/** Makes a string body's visible text differ per version, as a content change would. */
function withRevision(body: string, version: number): string {
  const paragraph = `<p class="revision">Revision ${version}</p>`;
  const at = body.lastIndexOf('</body>');
  return at < 0 ? body + paragraph : body.slice(0, at) + paragraph + body.slice(at);
}

async function sendPage(
  runtime: ServeRuntime,
  res: ServerResponse,
  entry: RequestLogEntry,
  page: PageSpec,
  ctx: RequestContext,
  extraHeaders: Record<string, string>,
  transform: (body: string) => string = (body) => body,
): Promise<void> {
  const headers: OutgoingHttpHeaders = { 'content-type': page.contentType ?? HTML, ...extraHeaders };
  for (const [name, value] of Object.entries(page.headers ?? {})) headers[name.toLowerCase()] = fillPort(value, runtime.port);
  const raw = typeof page.body === 'function' ? page.body(ctx) : transform(fillPort(page.body ?? '', runtime.port));
  const body = typeof raw === 'string' ? Buffer.from(raw) : raw;
  await sendBody(res, entry, page.status ?? 200, headers, body, page.bodyDelayMs ?? 0);
}

function mayHaveBody(method: string, status: number): boolean {
  return method !== 'HEAD' && status !== 204 && status !== 304 && !(status >= 100 && status < 200);
}

async function sendBody(res: ServerResponse, entry: RequestLogEntry, status: number, headers: OutgoingHttpHeaders, body: Buffer, bodyDelayMs = 0): Promise<void> {
  if (res.destroyed) return;
  const withBody = mayHaveBody(entry.method, status);
  res.writeHead(status, withBody || entry.method === 'HEAD' ? { ...headers, 'content-length': body.length } : headers);
  if (!withBody) {
    res.end();
    return;
  }
  if (bodyDelayMs > 0) {
    const half = Math.floor(body.length / 2);
    // Flush headers and the first half so the client is mid-body when the stall begins.
    if (!(await writeChunk(res, entry, body.subarray(0, half)))) return;
    if (!(await sleepUnlessClosed(res, bodyDelayMs))) return;
    body = body.subarray(half);
  }
  for (let at = 0; at < body.length; at += CHUNK_BYTES) {
    if (!(await writeChunk(res, entry, body.subarray(at, at + CHUNK_BYTES)))) return;
  }
  res.end();
}

async function sendOversized(res: ServerResponse, entry: RequestLogEntry, page: PageSpec, bytes: number, declareLength: boolean): Promise<void> {
  const headers: OutgoingHttpHeaders = { 'content-type': page.contentType ?? HTML };
  if (declareLength) headers['content-length'] = bytes;
  res.writeHead(200, headers);
  if (entry.method === 'HEAD') {
    res.end();
    return;
  }
  for (let left = bytes; left > 0; left -= CHUNK_BYTES) {
    if (!(await writeChunk(res, entry, left >= CHUNK_BYTES ? FILLER : FILLER.subarray(0, left)))) return;
  }
  res.end();
}

/**
 * The head and `afterBytes` of a `bytes` body, then a reset. The reset waits for the client to
 * have read what was sent (an RST discards what the peer has not read yet), so both ends count the
 * same bytes.
 */
async function sendThenReset(res: ServerResponse, entry: RequestLogEntry, page: PageSpec, bytes: number, afterBytes: number): Promise<void> {
  res.writeHead(200, { 'content-type': page.contentType ?? HTML, 'content-length': bytes });
  for (let left = afterBytes; left > 0; left -= CHUNK_BYTES) {
    if (!(await writeChunk(res, entry, left >= CHUNK_BYTES ? FILLER : FILLER.subarray(0, left)))) return;
  }
  await new Promise<void>((resolve) => (res.socket?.writableLength ?? 0) === 0 ? resolve() : res.socket!.once('drain', () => resolve()));
  await sleepUnlessClosed(res, 200);
  res.socket?.resetAndDestroy();
}

/** Writes with backpressure; false once the connection is gone. */
async function writeChunk(res: ServerResponse, entry: RequestLogEntry, chunk: Buffer): Promise<boolean> {
  if (res.destroyed) return false;
  entry.bytesSent += chunk.length;
  if (!res.write(chunk)) await untilEither(res, 'drain', 'close');
  return !res.destroyed;
}

function untilEither(res: ServerResponse, a: string, b: string): Promise<void> {
  return new Promise((resolve) => {
    const done = (): void => {
      res.off(a, done);
      res.off(b, done);
      resolve();
    };
    res.on(a, done);
    res.on(b, done);
  });
}

/** Waits `ms`, or less if the connection closes; true when the response can still be sent. */
function sleepUnlessClosed(res: ServerResponse, ms: number): Promise<boolean> {
  if (res.destroyed) return Promise.resolve(false);
  return new Promise((resolve) => {
    const done = (): void => {
      clearTimeout(timer);
      res.off('close', done);
      resolve(!res.destroyed);
    };
    const timer = setTimeout(done, ms);
    res.once('close', done);
  });
}

function statusPage(status: number): string {
  return `<!doctype html><html><head><title>${status}</title></head><body><h1>Status ${status}</h1></body></html>`;
}
