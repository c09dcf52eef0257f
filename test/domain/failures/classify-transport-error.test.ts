import { describe, expect, it } from 'vitest';
import { FETCH_FAILURE_TYPES, TRANSPORT_ERROR_CODES, classifyTransportError, type FetchFailureType, type TransportErrorCode } from '../../../src/domain/failures/index.js';

const EXPECTED: Record<TransportErrorCode, FetchFailureType> = {
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
    const timeouts = new Set(['connect-timeout', 'first-byte-timeout', 'body-timeout'].map((code) => classifyTransportError(code as TransportErrorCode)));
    expect(timeouts.size).toBe(3);
  });
});
