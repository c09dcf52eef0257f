import { TRANSPORT_ERROR_CODES, type TransportErrorCode } from '../domain/failures/index.js';

const OWN_CODES: ReadonlySet<string> = new Set(TRANSPORT_ERROR_CODES);

/** Exact error codes from undici, Node's net/tls/dns/zlib and OpenSSL, each with its one meaning. */
const EXACT: ReadonlyMap<string, TransportErrorCode> = new Map<string, TransportErrorCode>([
  // DNS (getaddrinfo and c-ares names; DnsCache already turns its own failures into our codes).
  ['ENOTFOUND', 'HTTP_DNS_NOT_FOUND'],
  ['ENODATA', 'HTTP_DNS_NOT_FOUND'],
  ['EAI_NONAME', 'HTTP_DNS_NOT_FOUND'],
  ['EAI_NODATA', 'HTTP_DNS_NOT_FOUND'],
  ['EAI_AGAIN', 'HTTP_DNS_TEMPORARY_FAILURE'],
  ['EAI_FAIL', 'HTTP_DNS_TEMPORARY_FAILURE'],
  ['ESERVFAIL', 'HTTP_DNS_TEMPORARY_FAILURE'],
  ['ETIMEOUT', 'HTTP_DNS_TEMPORARY_FAILURE'],
  ['EREFUSED', 'HTTP_DNS_TEMPORARY_FAILURE'],
  // Connecting.
  ['UND_ERR_CONNECT_TIMEOUT', 'HTTP_CONNECT_TIMEOUT'],
  ['ERR_SOCKET_CONNECTION_TIMEOUT', 'HTTP_CONNECT_TIMEOUT'],
  ['ECONNREFUSED', 'HTTP_CONNECTION_REFUSED'],
  // Nothing answers at that address: as final as a refusal for this attempt.
  ['EHOSTUNREACH', 'HTTP_CONNECTION_REFUSED'],
  ['ENETUNREACH', 'HTTP_CONNECTION_REFUSED'],
  ['EHOSTDOWN', 'HTTP_CONNECTION_REFUSED'],
  ['ENETDOWN', 'HTTP_CONNECTION_REFUSED'],
  // Waiting.
  ['UND_ERR_HEADERS_TIMEOUT', 'HTTP_FIRST_BYTE_TIMEOUT'],
  ['UND_ERR_BODY_TIMEOUT', 'HTTP_BODY_TIMEOUT'],
  // The connection went away.
  ['ECONNRESET', 'HTTP_CONNECTION_RESET'],
  ['EPIPE', 'HTTP_CONNECTION_RESET'],
  ['ECONNABORTED', 'HTTP_CONNECTION_RESET'],
  ['UND_ERR_SOCKET', 'HTTP_CONNECTION_RESET'],
  ['UND_ERR_CLOSED', 'HTTP_CONNECTION_RESET'],
  ['UND_ERR_DESTROYED', 'HTTP_CONNECTION_RESET'],
  ['UND_ERR_ABORTED', 'HTTP_CONNECTION_RESET'],
  ['UND_ERR_ABORT', 'HTTP_CONNECTION_RESET'],
  ['UND_ERR_INFO', 'HTTP_CONNECTION_RESET'], // undici closed the socket under the request (idle timeout, abort)
  ['ERR_STREAM_PREMATURE_CLOSE', 'HTTP_CONNECTION_RESET'],
  // TLS: certificate problems are never bypassed, so they get their own code.
  ['DEPTH_ZERO_SELF_SIGNED_CERT', 'HTTP_TLS_CERTIFICATE'],
  ['SELF_SIGNED_CERT_IN_CHAIN', 'HTTP_TLS_CERTIFICATE'],
  ['HOSTNAME_MISMATCH', 'HTTP_TLS_CERTIFICATE'],
  ['INVALID_CA', 'HTTP_TLS_CERTIFICATE'],
  ['PATH_LENGTH_EXCEEDED', 'HTTP_TLS_CERTIFICATE'],
  ['INVALID_PURPOSE', 'HTTP_TLS_CERTIFICATE'],
  ['ERR_TLS_CERT_ALTNAME_INVALID', 'HTTP_TLS_CERTIFICATE'],
  ['ERR_TLS_CERT_ALTNAME_FORMAT', 'HTTP_TLS_CERTIFICATE'],
  ['EPROTO', 'HTTP_TLS_HANDSHAKE'],
  ['UND_ERR_PRX_TLS', 'HTTP_TLS_HANDSHAKE'],
  // Limits.
  ['UND_ERR_RES_EXCEEDED_MAX_SIZE', 'HTTP_BODY_TOO_LARGE'],
  // Malformed HTTP. A status-code error only comes from undici's responseError interceptor, which
  // we never install; if it ever shows up it means a response we could not take as given.
  ['UND_ERR_HEADERS_OVERFLOW', 'HTTP_INVALID_RESPONSE'],
  ['UND_ERR_RES_CONTENT_LENGTH_MISMATCH', 'HTTP_INVALID_RESPONSE'],
  ['UND_ERR_RESPONSE_STATUS_CODE', 'HTTP_INVALID_RESPONSE'],
  ['UND_ERR_RESPONSE', 'HTTP_INVALID_RESPONSE'],
  ['ERR_INVALID_HTTP_RESPONSE', 'HTTP_INVALID_RESPONSE'],
]);

/** Families of codes recognised by prefix, checked in order after the exact table. */
const PREFIXES: ReadonlyArray<readonly [RegExp, TransportErrorCode]> = [
  [/^(CERT_|CRL_|ERROR_IN_CERT_|ERROR_IN_CRL_|UNABLE_TO_)/, 'HTTP_TLS_CERTIFICATE'], // OpenSSL X509 verify results
  [/^(ERR_SSL_|ERR_TLS_)/, 'HTTP_TLS_HANDSHAKE'],
  [/^Z_/, 'HTTP_BAD_CONTENT_ENCODING'], // zlib: Z_DATA_ERROR, Z_BUF_ERROR (truncated), Z_NEED_DICT
  [/^ERR__ERROR_FORMAT_|^ERR_BROTLI_/, 'HTTP_BAD_CONTENT_ENCODING'], // brotli decoder
  [/^HPE_/, 'HTTP_INVALID_RESPONSE'], // llhttp parser errors
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
  if (name === 'HTTPParserError') return 'HTTP_INVALID_RESPONSE';

  if (error instanceof AggregateError) {
    for (const inner of error.errors) {
      const mapped = codeOf(inner, depth + 1);
      if (mapped !== undefined) return mapped;
    }
  }
  const viaCause = codeOf((error as { cause?: unknown }).cause, depth + 1);
  if (viaCause !== undefined) return viaCause;

  // A system error from a socket call that has no name above is still the connection failing.
  if (typeof syscall === 'string' && typeof code === 'string') return 'HTTP_CONNECTION_RESET';
  return undefined;
}

function mapCode(code: string, syscall: unknown): TransportErrorCode | undefined {
  if (OWN_CODES.has(code)) return code as TransportErrorCode;
  // The OS gave up on the handshake (connect) or on an established connection (read/write).
  if (code === 'ETIMEDOUT') return syscall === 'connect' ? 'HTTP_CONNECT_TIMEOUT' : 'HTTP_CONNECTION_RESET';
  const exact = EXACT.get(code);
  if (exact !== undefined) return exact;
  for (const [pattern, mapped] of PREFIXES) if (pattern.test(code)) return mapped;
  return undefined;
}
