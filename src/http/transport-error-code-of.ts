import { TRANSPORT_ERROR_CODES, type TransportErrorCode } from '../domain/failures/index.js';

const OWN_CODES: ReadonlySet<string> = new Set(TRANSPORT_ERROR_CODES);

/** Exact error codes from undici, Node's net/tls/dns/zlib and OpenSSL, each with its one meaning. */
const EXACT: ReadonlyMap<string, TransportErrorCode> = new Map<string, TransportErrorCode>([
  // DNS (getaddrinfo and c-ares names; DnsCache already turns its own failures into our codes).
  ['ENOTFOUND', 'dns-not-found'],
  ['ENODATA', 'dns-not-found'],
  ['EAI_NONAME', 'dns-not-found'],
  ['EAI_NODATA', 'dns-not-found'],
  ['EAI_AGAIN', 'dns-temporary-failure'],
  ['EAI_FAIL', 'dns-temporary-failure'],
  ['ESERVFAIL', 'dns-temporary-failure'],
  ['ETIMEOUT', 'dns-temporary-failure'],
  ['EREFUSED', 'dns-temporary-failure'],
  // Connecting.
  ['UND_ERR_CONNECT_TIMEOUT', 'connect-timeout'],
  ['ERR_SOCKET_CONNECTION_TIMEOUT', 'connect-timeout'],
  ['ECONNREFUSED', 'connection-refused'],
  // Nothing answers at that address: as final as a refusal for this attempt.
  ['EHOSTUNREACH', 'connection-refused'],
  ['ENETUNREACH', 'connection-refused'],
  ['EHOSTDOWN', 'connection-refused'],
  ['ENETDOWN', 'connection-refused'],
  // Waiting.
  ['UND_ERR_HEADERS_TIMEOUT', 'first-byte-timeout'],
  ['UND_ERR_BODY_TIMEOUT', 'body-timeout'],
  // The connection went away.
  ['ECONNRESET', 'connection-reset'],
  ['EPIPE', 'connection-reset'],
  ['ECONNABORTED', 'connection-reset'],
  ['UND_ERR_SOCKET', 'connection-reset'],
  ['UND_ERR_CLOSED', 'connection-reset'],
  ['UND_ERR_DESTROYED', 'connection-reset'],
  ['UND_ERR_ABORTED', 'connection-reset'],
  ['UND_ERR_ABORT', 'connection-reset'],
  ['UND_ERR_INFO', 'connection-reset'], // undici closed the socket under the request (idle timeout, abort)
  ['ERR_STREAM_PREMATURE_CLOSE', 'connection-reset'],
  // TLS: certificate problems are never bypassed, so they get their own code.
  ['DEPTH_ZERO_SELF_SIGNED_CERT', 'tls-certificate'],
  ['SELF_SIGNED_CERT_IN_CHAIN', 'tls-certificate'],
  ['HOSTNAME_MISMATCH', 'tls-certificate'],
  ['INVALID_CA', 'tls-certificate'],
  ['PATH_LENGTH_EXCEEDED', 'tls-certificate'],
  ['INVALID_PURPOSE', 'tls-certificate'],
  ['ERR_TLS_CERT_ALTNAME_INVALID', 'tls-certificate'],
  ['ERR_TLS_CERT_ALTNAME_FORMAT', 'tls-certificate'],
  ['EPROTO', 'tls-handshake'],
  ['UND_ERR_PRX_TLS', 'tls-handshake'],
  // Limits.
  ['UND_ERR_RES_EXCEEDED_MAX_SIZE', 'body-too-large'],
  // Malformed HTTP. A status-code error only comes from undici's responseError interceptor, which
  // we never install; if it ever shows up it means a response we could not take as given.
  ['UND_ERR_HEADERS_OVERFLOW', 'invalid-response'],
  ['UND_ERR_RES_CONTENT_LENGTH_MISMATCH', 'invalid-response'],
  ['UND_ERR_RESPONSE_STATUS_CODE', 'invalid-response'],
  ['UND_ERR_RESPONSE', 'invalid-response'],
  ['ERR_INVALID_HTTP_RESPONSE', 'invalid-response'],
]);

/** Families of codes recognised by prefix, checked in order after the exact table. */
const PREFIXES: ReadonlyArray<readonly [RegExp, TransportErrorCode]> = [
  [/^(CERT_|CRL_|ERROR_IN_CERT_|ERROR_IN_CRL_|UNABLE_TO_)/, 'tls-certificate'], // OpenSSL X509 verify results
  [/^(ERR_SSL_|ERR_TLS_)/, 'tls-handshake'],
  [/^Z_/, 'bad-content-encoding'], // zlib: Z_DATA_ERROR, Z_BUF_ERROR (truncated), Z_NEED_DICT
  [/^ERR__ERROR_FORMAT_|^ERR_BROTLI_/, 'bad-content-encoding'], // brotli decoder
  [/^HPE_/, 'invalid-response'], // llhttp parser errors
];

const MAX_CAUSE_DEPTH = 5;

/**
 * The one place that names a transport failure: maps an error from undici, Node's net, tls, dns or
 * zlib (or one of ours carrying a TransportErrorCode) to its TransportErrorCode. Looks through
 * `cause` chains and AggregateError (happy-eyeballs tried several addresses). Returns undefined
 * for anything that is not a transport failure (a bug, a sink error, a cancellation).
 */
export function transportErrorCodeOf(error: unknown): TransportErrorCode | undefined {
  return codeOf(error, 0);
}

function codeOf(error: unknown, depth: number): TransportErrorCode | undefined {
  if (typeof error !== 'object' || error === null || depth > MAX_CAUSE_DEPTH) return undefined;
  const { code, syscall, name } = error as { code?: unknown; syscall?: unknown; name?: unknown };

  if (typeof code === 'string') {
    const mapped = mapCode(code, syscall);
    if (mapped !== undefined) return mapped;
  }
  if (name === 'HTTPParserError') return 'invalid-response';

  if (error instanceof AggregateError) {
    for (const inner of error.errors) {
      const mapped = codeOf(inner, depth + 1);
      if (mapped !== undefined) return mapped;
    }
  }
  const viaCause = codeOf((error as { cause?: unknown }).cause, depth + 1);
  if (viaCause !== undefined) return viaCause;

  // A system error from a socket call that has no name above is still the connection failing.
  if (typeof syscall === 'string' && typeof code === 'string') return 'connection-reset';
  return undefined;
}

function mapCode(code: string, syscall: unknown): TransportErrorCode | undefined {
  if (OWN_CODES.has(code)) return code as TransportErrorCode;
  // The OS gave up on the handshake (connect) or on an established connection (read/write).
  if (code === 'ETIMEDOUT') return syscall === 'connect' ? 'connect-timeout' : 'connection-reset';
  const exact = EXACT.get(code);
  if (exact !== undefined) return exact;
  for (const [pattern, mapped] of PREFIXES) if (pattern.test(code)) return mapped;
  return undefined;
}
