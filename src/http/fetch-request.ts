import { ACCEPT_ENCODING } from './content-decoders.js';
import { InvalidFetchRequestError } from './errors.js';

const MIB = 1024 * 1024;

/** One GET. Every limit has a default; time limits are distinct (docs/design.md, "Failure types and retries"). */
export interface FetchRequest {
  /** Absolute http(s) URL, already canonicalized; the fragment is not sent. */
  url: string;
  /** Extra request headers, e.g. If-None-Match, If-Modified-Since, Accept. Hop-by-hop, Host, User-Agent and Accept-Encoding are ours. */
  headers?: Record<string, string>;
  /** From starting the request to a connected socket (DNS, TCP, TLS; and any wait for a free connection), ms. Default 10_000. */
  connectTimeoutMs?: number;
  /** From the request written to the final (non-1xx) response head received, ms, a total however many 1xx responses come. Default 30_000. */
  firstByteTimeoutMs?: number;
  /** Whole-body deadline, ms: from the response head until the sink has taken the last byte (its end() included). Default 60_000. */
  bodyTimeoutMs?: number;
  /** Longest silence between two body chunks, ms; a paused (backpressured) body never counts. Default min(30_000, bodyTimeoutMs). */
  bodyStallTimeoutMs?: number;
  /** Wire (still encoded) body bytes allowed. Default 10 MiB. */
  maxBodyBytes?: number;
  /** Decoded body bytes allowed (gzip/br/deflate bombs). Default min(4 x maxBodyBytes, 64 MiB); an explicit value is used as given. */
  maxDecompressedBytes?: number;
  /** Cancellation (the activity's signal): the fetch stops and rejects with the signal's reason. */
  signal?: AbortSignal;
}

/** A FetchRequest with its URL taken apart and every default filled in. */
export interface ResolvedFetchRequest {
  /** The URL exactly as the caller gave it: errors and the response head name it so. */
  url: string;
  origin: string;
  /** Path and query as sent on the request line. */
  path: string;
  /** Host name or IP literal without brackets. */
  hostname: string;
  headers: Record<string, string>;
  connectTimeoutMs: number;
  firstByteTimeoutMs: number;
  bodyTimeoutMs: number;
  bodyStallTimeoutMs: number;
  maxBodyBytes: number;
  maxDecompressedBytes: number;
}

export const DEFAULT_ACCEPT = 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8';

/** Headers the caller may not set: the connection, the identity and the decoding are this layer's. */
const RESERVED_HEADERS = new Set([
  'host',
  'connection',
  'keep-alive',
  'proxy-connection',
  'transfer-encoding',
  'te',
  'trailer',
  'upgrade',
  'content-length',
  'expect',
  'accept-encoding',
  'user-agent',
]);

/** Validates `request` and fills in defaults; throws InvalidFetchRequestError naming the bad field. */
export function resolveFetchRequest(request: FetchRequest, userAgent: string): ResolvedFetchRequest {
  let parsed: URL;
  try {
    parsed = new URL(request.url);
  } catch {
    throw new InvalidFetchRequestError('HTTP_INVALID_URL', request.url, `not an absolute URL: ${JSON.stringify(request.url)}`);
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') {
    throw new InvalidFetchRequestError('HTTP_UNSUPPORTED_SCHEME', request.url, `only http and https can be fetched, not ${parsed.protocol} (${request.url})`);
  }
  if (parsed.username !== '' || parsed.password !== '') {
    throw new InvalidFetchRequestError('HTTP_INVALID_URL', request.url, `URL carries credentials; canonicalization should have rejected it (${parsed.host})`);
  }

  const headers: Record<string, string> = { 'user-agent': userAgent, accept: DEFAULT_ACCEPT, 'accept-encoding': ACCEPT_ENCODING };
  for (const [name, value] of Object.entries(request.headers ?? {})) {
    const lower = name.toLowerCase();
    if (RESERVED_HEADERS.has(lower)) {
      throw new InvalidFetchRequestError('HTTP_FORBIDDEN_HEADER', name, `header ${name} is set by the HTTP layer; remove it from FetchRequest.headers`);
    }
    if (/[\r\n\0]/.test(value)) {
      throw new InvalidFetchRequestError('HTTP_FORBIDDEN_HEADER', name, `header ${name} has a CR, LF or NUL in its value`);
    }
    headers[lower] = value;
  }

  const bodyTimeoutMs = positive('bodyTimeoutMs', request.bodyTimeoutMs ?? 60_000);
  const maxBodyBytes = positive('maxBodyBytes', request.maxBodyBytes ?? 10 * MIB);
  return {
    url: request.url,
    origin: parsed.origin,
    path: `${parsed.pathname}${parsed.search}`,
    hostname: parsed.hostname.startsWith('[') ? parsed.hostname.slice(1, -1) : parsed.hostname,
    headers,
    connectTimeoutMs: positive('connectTimeoutMs', request.connectTimeoutMs ?? 10_000),
    firstByteTimeoutMs: positive('firstByteTimeoutMs', request.firstByteTimeoutMs ?? 30_000),
    bodyTimeoutMs,
    bodyStallTimeoutMs: positive('bodyStallTimeoutMs', request.bodyStallTimeoutMs ?? Math.min(30_000, bodyTimeoutMs)),
    maxBodyBytes,
    maxDecompressedBytes: positive('maxDecompressedBytes', request.maxDecompressedBytes ?? Math.min(4 * maxBodyBytes, 64 * MIB)),
  };
}

function positive(name: string, value: number): number {
  if (typeof value !== 'number' || !Number.isFinite(value) || value <= 0) {
    throw new InvalidFetchRequestError('HTTP_INVALID_OPTION', name, `FetchRequest.${name} must be a finite number > 0, got ${String(value)}`);
  }
  return value;
}
