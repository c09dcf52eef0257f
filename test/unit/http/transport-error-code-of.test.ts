import { describe, expect, it } from 'vitest';
import { errors as undiciErrors } from 'undici';
import { TRANSPORT_ERROR_CODES } from '../../../src/domain/failures/index.js';
import { DnsLookupError, HttpFetchError, PrivateNetworkRefusedError, transportErrorCodeOf } from '../../../src/http/index.js';

function systemError(code: string, syscall?: string): Error {
  return Object.assign(new Error(`${syscall ?? 'op'} ${code}`), { code, ...(syscall ? { syscall } : {}) });
}

describe('transportErrorCodeOf', () => {
  it.each([
    // DNS
    ['ENOTFOUND', 'HTTP_DNS_NOT_FOUND'],
    ['ENODATA', 'HTTP_DNS_NOT_FOUND'],
    ['EAI_NONAME', 'HTTP_DNS_NOT_FOUND'],
    ['EAI_AGAIN', 'HTTP_DNS_TEMPORARY_FAILURE'],
    ['EAI_FAIL', 'HTTP_DNS_TEMPORARY_FAILURE'],
    ['ESERVFAIL', 'HTTP_DNS_TEMPORARY_FAILURE'],
    ['ETIMEOUT', 'HTTP_DNS_TEMPORARY_FAILURE'],
    // Connecting
    ['UND_ERR_CONNECT_TIMEOUT', 'HTTP_CONNECT_TIMEOUT'],
    ['ERR_SOCKET_CONNECTION_TIMEOUT', 'HTTP_CONNECT_TIMEOUT'],
    ['ECONNREFUSED', 'HTTP_CONNECTION_REFUSED'],
    ['EHOSTUNREACH', 'HTTP_CONNECTION_REFUSED'],
    ['ENETUNREACH', 'HTTP_CONNECTION_REFUSED'],
    // Waiting
    ['UND_ERR_HEADERS_TIMEOUT', 'HTTP_FIRST_BYTE_TIMEOUT'],
    ['UND_ERR_BODY_TIMEOUT', 'HTTP_BODY_TIMEOUT'],
    // Connection lost
    ['ECONNRESET', 'HTTP_CONNECTION_RESET'],
    ['EPIPE', 'HTTP_CONNECTION_RESET'],
    ['ECONNABORTED', 'HTTP_CONNECTION_RESET'],
    ['UND_ERR_SOCKET', 'HTTP_CONNECTION_RESET'],
    ['UND_ERR_CLOSED', 'HTTP_CONNECTION_RESET'],
    ['UND_ERR_DESTROYED', 'HTTP_CONNECTION_RESET'],
    ['UND_ERR_ABORTED', 'HTTP_CONNECTION_RESET'],
    ['UND_ERR_INFO', 'HTTP_CONNECTION_RESET'],
    ['ERR_STREAM_PREMATURE_CLOSE', 'HTTP_CONNECTION_RESET'],
    // TLS certificates: never bypassed
    ['CERT_HAS_EXPIRED', 'HTTP_TLS_CERTIFICATE'],
    ['CERT_NOT_YET_VALID', 'HTTP_TLS_CERTIFICATE'],
    ['CERT_REVOKED', 'HTTP_TLS_CERTIFICATE'],
    ['CERT_UNTRUSTED', 'HTTP_TLS_CERTIFICATE'],
    ['CERT_SIGNATURE_FAILURE', 'HTTP_TLS_CERTIFICATE'],
    ['UNABLE_TO_VERIFY_LEAF_SIGNATURE', 'HTTP_TLS_CERTIFICATE'],
    ['UNABLE_TO_GET_ISSUER_CERT', 'HTTP_TLS_CERTIFICATE'],
    ['UNABLE_TO_GET_ISSUER_CERT_LOCALLY', 'HTTP_TLS_CERTIFICATE'],
    ['DEPTH_ZERO_SELF_SIGNED_CERT', 'HTTP_TLS_CERTIFICATE'],
    ['SELF_SIGNED_CERT_IN_CHAIN', 'HTTP_TLS_CERTIFICATE'],
    ['ERR_TLS_CERT_ALTNAME_INVALID', 'HTTP_TLS_CERTIFICATE'],
    ['HOSTNAME_MISMATCH', 'HTTP_TLS_CERTIFICATE'],
    ['ERROR_IN_CERT_NOT_AFTER_FIELD', 'HTTP_TLS_CERTIFICATE'],
    // Other TLS
    ['ERR_SSL_WRONG_VERSION_NUMBER', 'HTTP_TLS_HANDSHAKE'],
    ['ERR_SSL_TLSV1_ALERT_PROTOCOL_VERSION', 'HTTP_TLS_HANDSHAKE'],
    ['ERR_SSL_SSLV3_ALERT_HANDSHAKE_FAILURE', 'HTTP_TLS_HANDSHAKE'],
    ['ERR_TLS_HANDSHAKE_TIMEOUT', 'HTTP_TLS_HANDSHAKE'],
    ['EPROTO', 'HTTP_TLS_HANDSHAKE'],
    // Limits and content
    ['UND_ERR_RES_EXCEEDED_MAX_SIZE', 'HTTP_BODY_TOO_LARGE'],
    ['Z_DATA_ERROR', 'HTTP_BAD_CONTENT_ENCODING'],
    ['Z_BUF_ERROR', 'HTTP_BAD_CONTENT_ENCODING'],
    ['ERR__ERROR_FORMAT_PADDING_1', 'HTTP_BAD_CONTENT_ENCODING'],
    // Malformed HTTP
    ['HPE_INVALID_CONSTANT', 'HTTP_INVALID_RESPONSE'],
    ['HPE_INVALID_HEADER_TOKEN', 'HTTP_INVALID_RESPONSE'],
    ['HPE_INVALID_STATUS', 'HTTP_INVALID_RESPONSE'],
    ['UND_ERR_HEADERS_OVERFLOW', 'HTTP_INVALID_RESPONSE'],
    ['UND_ERR_RES_CONTENT_LENGTH_MISMATCH', 'HTTP_INVALID_RESPONSE'],
    ['UND_ERR_RESPONSE_STATUS_CODE', 'HTTP_INVALID_RESPONSE'],
    ['UND_ERR_RESPONSE', 'HTTP_INVALID_RESPONSE'],
  ])('%s → %s', (code, expected) => {
    expect(transportErrorCodeOf(systemError(code))).toBe(expected);
  });

  it('maps real undici error classes by their codes', () => {
    expect(transportErrorCodeOf(new undiciErrors.ConnectTimeoutError())).toBe('HTTP_CONNECT_TIMEOUT');
    expect(transportErrorCodeOf(new undiciErrors.HeadersTimeoutError())).toBe('HTTP_FIRST_BYTE_TIMEOUT');
    expect(transportErrorCodeOf(new undiciErrors.BodyTimeoutError())).toBe('HTTP_BODY_TIMEOUT');
    expect(transportErrorCodeOf(new undiciErrors.SocketError('other side closed'))).toBe('HTTP_CONNECTION_RESET');
    expect(transportErrorCodeOf(new undiciErrors.HeadersOverflowError())).toBe('HTTP_INVALID_RESPONSE');
    expect(transportErrorCodeOf(new undiciErrors.ResponseExceededMaxSizeError())).toBe('HTTP_BODY_TOO_LARGE');
    // The typings omit the constructor's (message, code) form that the parser uses.
    const ParserError = undiciErrors.HTTPParserError as unknown as new (message: string, code?: string) => Error;
    expect(transportErrorCodeOf(new ParserError('bad', 'INVALID_STATUS'))).toBe('HTTP_INVALID_RESPONSE');
    // An HTTPParserError without a code is still malformed HTTP.
    expect(transportErrorCodeOf(new ParserError('bad'))).toBe('HTTP_INVALID_RESPONSE');
  });

  it('tells an OS connect timeout from a connection that timed out later', () => {
    expect(transportErrorCodeOf(systemError('ETIMEDOUT', 'connect'))).toBe('HTTP_CONNECT_TIMEOUT');
    expect(transportErrorCodeOf(systemError('ETIMEDOUT', 'read'))).toBe('HTTP_CONNECTION_RESET');
  });

  it('passes our own codes through', () => {
    for (const code of TRANSPORT_ERROR_CODES) {
      expect(transportErrorCodeOf(new HttpFetchError(code, 'http://example.test/'))).toBe(code);
    }
    expect(transportErrorCodeOf(new DnsLookupError('HTTP_DNS_NOT_FOUND', 'x.test'))).toBe('HTTP_DNS_NOT_FOUND');
    expect(transportErrorCodeOf(new PrivateNetworkRefusedError('x.test', ['10.0.0.1']))).toBe('HTTP_PRIVATE_NETWORK_REFUSED');
  });

  it('looks through cause chains and AggregateError (happy eyeballs)', () => {
    expect(transportErrorCodeOf(new Error('wrapped', { cause: systemError('ECONNREFUSED') }))).toBe('HTTP_CONNECTION_REFUSED');
    expect(transportErrorCodeOf(new Error('a', { cause: new Error('b', { cause: systemError('CERT_HAS_EXPIRED') }) }))).toBe('HTTP_TLS_CERTIFICATE');
    expect(transportErrorCodeOf(new AggregateError([new Error('no code'), systemError('ENETUNREACH')]))).toBe('HTTP_CONNECTION_REFUSED');
  });

  it('names an unknown socket-level system error a reset, and anything else undefined', () => {
    expect(transportErrorCodeOf(systemError('ENOBUFS', 'write'))).toBe('HTTP_CONNECTION_RESET');
    expect(transportErrorCodeOf(new Error('a bug'))).toBeUndefined();
    expect(transportErrorCodeOf(systemError('UND_ERR_INVALID_ARG'))).toBeUndefined();
    expect(transportErrorCodeOf(new DOMException('aborted', 'AbortError'))).toBeUndefined();
    expect(transportErrorCodeOf('ECONNRESET')).toBeUndefined();
    expect(transportErrorCodeOf(undefined)).toBeUndefined();
    expect(transportErrorCodeOf(null)).toBeUndefined();
  });

  it('stops on a cyclic cause chain', () => {
    const a = new Error('a') as Error & { cause?: unknown };
    const b = new Error('b', { cause: a });
    a.cause = b;
    expect(transportErrorCodeOf(a)).toBeUndefined();
  });
});
