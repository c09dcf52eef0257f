/**
 * Every way a fetch (or a render of a fetched page) can end without a usable result, one name each. The fetch activity throws
 * a Temporal ApplicationFailure whose `type` is one of these names; FAILURE_POLICIES says what
 * happens next. Every fetch outcome maps to exactly one type (or to success, not-modified or
 * redirect): see classifyHttpStatus and classifyTransportError.
 */
export const FETCH_FAILURE_TYPES = [
  'NotFound', // 404, 410: gone; tombstone, long recheck
  'ClientError', // other 4xx, and the 3xx we do not follow (300, 305, 306, unassigned)
  'RequestTimeout', // 408
  'ConnectTimeout', // TCP/TLS connect did not finish in time
  'FirstByteTimeout', // connected, no response headers in time
  'BodyTimeout', // headers arrived, the body stalled or took too long
  'TooManyRequests', // 429
  'ServerError', // 500, 502, 504, other 5xx
  'ServiceUnavailable', // 503
  'DnsNotFound', // NXDOMAIN, no addresses
  'DnsTemporaryFailure', // SERVFAIL, resolver timeout
  'ConnectionFailed', // refused, reset
  'TlsCertificateError', // never bypassed
  'TlsHandshakeError', // protocol, cipher
  'PrivateNetworkRefused', // resolved to loopback/private/link-local
  'BodyTooLarge', // wire body over the limit
  'DecompressedTooLarge', // decoded body over the limit (zip bomb)
  'BadContentEncoding', // corrupt gzip/br/deflate
  'InvalidResponse', // malformed HTTP, a status outside 200..599 that is not a redirect
  'UnsupportedContentType', // a content type we do not accept
  'RobotsDisallowed', // robots.txt disallows the path: no request sent
  'RobotsUnreachable', // robots.txt answered 5xx or failed: complete disallow for now (RFC 9309 §2.3.1.4)
  'RedirectLoop', // a redirect target already seen in this chain
  'TooManyRedirects', // more hops than the redirect limit
  'InvalidUrl', // not a fetchable http(s) URL
  'HostCircuitOpen', // the host's circuit breaker is open: no request sent
  'ParseBudgetExceeded', // the fetched page nests deeper or holds more elements than the parser is given
  'PoisonUrl', // the URL failed POISON_ATTEMPT_LIMIT times at one stage: dead-lettered
  'ProxyFailed', // the proxy refused or failed the request (407, connection to it refused, its CONNECT answered 5xx): not the host's
  'RenderTimeout', // the page did not settle within the render's time: what loaded is kept
  'RenderCrashed', // the browser or its page crashed while rendering
  'BrowserUnavailable', // no browser executable, or one that does not start
] as const;

export type FetchFailureType = (typeof FETCH_FAILURE_TYPES)[number];

const FETCH_FAILURE_TYPE_SET: ReadonlySet<string> = new Set(FETCH_FAILURE_TYPES);

/** True when `value` names a FetchFailureType, e.g. an ApplicationFailure's `type` read back by a workflow. */
export function isFetchFailureType(value: unknown): value is FetchFailureType {
  return typeof value === 'string' && FETCH_FAILURE_TYPE_SET.has(value);
}
