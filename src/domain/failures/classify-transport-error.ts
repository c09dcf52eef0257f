import type { FetchFailureType } from './fetch-failure-type.js';
import type { TransportErrorCode } from './transport-error-code.js';

const TRANSPORT_FAILURE_TYPES: Readonly<Record<TransportErrorCode, FetchFailureType>> = Object.freeze({
  'dns-not-found': 'DnsNotFound',
  'dns-temporary-failure': 'DnsTemporaryFailure',
  'connect-timeout': 'ConnectTimeout',
  'first-byte-timeout': 'FirstByteTimeout',
  'body-timeout': 'BodyTimeout',
  'connection-refused': 'ConnectionFailed',
  'connection-reset': 'ConnectionFailed',
  'tls-certificate': 'TlsCertificateError',
  'tls-handshake': 'TlsHandshakeError',
  'private-network-refused': 'PrivateNetworkRefused',
  'body-too-large': 'BodyTooLarge',
  'decompressed-too-large': 'DecompressedTooLarge',
  'bad-content-encoding': 'BadContentEncoding',
  'invalid-response': 'InvalidResponse',
  'proxy-failed': 'ProxyFailed',
});

/**
 * The failure type of a transport problem reported by the HTTP layer. Refused and reset share
 * ConnectionFailed: both get the same retries, and a host that keeps dropping connections is the
 * circuit breaker's job.
 */
export function classifyTransportError(code: TransportErrorCode): FetchFailureType {
  return TRANSPORT_FAILURE_TYPES[code];
}
