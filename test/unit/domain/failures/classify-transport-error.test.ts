import { describe, expect, it } from 'vitest';
import { FETCH_FAILURE_TYPES, TRANSPORT_ERROR_CODES, classifyTransportError, type FetchFailureType, type TransportErrorCode } from '../../../../src/domain/failures/index.js';

const EXPECTED: Record<TransportErrorCode, FetchFailureType> = {
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
};

describe('classifyTransportError', () => {
  it('has an expectation for every code (the shared vocabulary did not grow unnoticed)', () => {
    expect([...TRANSPORT_ERROR_CODES].sort()).toEqual(Object.keys(EXPECTED).sort());
  });

  it.each(TRANSPORT_ERROR_CODES.map((code) => [code, EXPECTED[code]] as const))('%s -> %s', (code, type) => {
    expect(classifyTransportError(code)).toBe(type);
    expect(FETCH_FAILURE_TYPES).toContain(type);
  });

  it('keeps the three timeouts distinct (docs/design.md, "Failure types and retries": one slow connection must not hide another)', () => {
    const timeouts = new Set(['HTTP_CONNECT_TIMEOUT', 'HTTP_FIRST_BYTE_TIMEOUT', 'HTTP_BODY_TIMEOUT'].map((code) => classifyTransportError(code as TransportErrorCode)));
    expect(timeouts.size).toBe(3);
  });
});
