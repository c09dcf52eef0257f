import type { FetchFailureType } from './fetch-failure-type.js';
import type { TransportErrorCode } from './transport-error-code.js';

const TRANSPORT_FAILURE_TYPES: Readonly<Record<TransportErrorCode, FetchFailureType>> = Object.freeze({
  'HTTP_DNS_NOT_FOUND': 'DnsNotFound',
  'HTTP_DNS_TEMPORARY_FAILURE': 'DnsTemporaryFailure',
  'HTTP_CONNECT_TIMEOUT': 'ConnectTimeout',
  'HTTP_FIRST_BYTE_TIMEOUT': 'FirstByteTimeout',
  'HTTP_BODY_TIMEOUT': 'BodyTimeout',
  'HTTP_CONNECTION_REFUSED': 'ConnectionFailed',
  'HTTP_CONNECTION_RESET': 'ConnectionFailed',
  'HTTP_TLS_CERTIFICATE': 'TlsCertificateError',
  'HTTP_TLS_HANDSHAKE': 'TlsHandshakeError',
  'HTTP_PRIVATE_NETWORK_REFUSED': 'PrivateNetworkRefused',
  'HTTP_BODY_TOO_LARGE': 'BodyTooLarge',
  'HTTP_DECOMPRESSED_TOO_LARGE': 'DecompressedTooLarge',
  'HTTP_BAD_CONTENT_ENCODING': 'BadContentEncoding',
  'HTTP_INVALID_RESPONSE': 'InvalidResponse',
  'HTTP_PROXY_FAILED': 'ProxyFailed',
});

/**
 * The failure type of a transport problem reported by the HTTP layer. Refused and reset share
 * ConnectionFailed: both get the same retries, and a host that keeps dropping connections is the
 * circuit breaker's job.
 */
export function classifyTransportError(code: TransportErrorCode): FetchFailureType {
  return TRANSPORT_FAILURE_TYPES[code];
}
