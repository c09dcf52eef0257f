import { describe, expect, it } from 'vitest';
import { errors as undiciErrors } from 'undici';
import { TRANSPORT_ERROR_CODES } from '../../src/domain/failures/index.js';
import { DnsLookupError, HttpFetchError, PrivateNetworkRefusedError, transportErrorCodeOf } from '../../src/http/index.js';

function systemError(code: string, syscall?: string): Error {
  return Object.assign(new Error(`${syscall ?? 'op'} ${code}`), { code, ...(syscall ? { syscall } : {}) });
}

describe('transportErrorCodeOf', () => {
  it.each([
    // DNS
    ['ENOTFOUND', 'dns-not-found'],
    ['ENODATA', 'dns-not-found'],
    ['EAI_NONAME', 'dns-not-found'],
    ['EAI_AGAIN', 'dns-temporary-failure'],
    ['EAI_FAIL', 'dns-temporary-failure'],
    ['ESERVFAIL', 'dns-temporary-failure'],
    ['ETIMEOUT', 'dns-temporary-failure'],
    // Connecting
    ['UND_ERR_CONNECT_TIMEOUT', 'connect-timeout'],
    ['ERR_SOCKET_CONNECTION_TIMEOUT', 'connect-timeout'],
    ['ECONNREFUSED', 'connection-refused'],
    ['EHOSTUNREACH', 'connection-refused'],
    ['ENETUNREACH', 'connection-refused'],
    // Waiting
    ['UND_ERR_HEADERS_TIMEOUT', 'first-byte-timeout'],
    ['UND_ERR_BODY_TIMEOUT', 'body-timeout'],
    // Connection lost
    ['ECONNRESET', 'connection-reset'],
    ['EPIPE', 'connection-reset'],
    ['ECONNABORTED', 'connection-reset'],
    ['UND_ERR_SOCKET', 'connection-reset'],
    ['UND_ERR_CLOSED', 'connection-reset'],
    ['UND_ERR_DESTROYED', 'connection-reset'],
    ['UND_ERR_ABORTED', 'connection-reset'],
    ['UND_ERR_INFO', 'connection-reset'],
    ['ERR_STREAM_PREMATURE_CLOSE', 'connection-reset'],
    // TLS certificates: never bypassed
    ['CERT_HAS_EXPIRED', 'tls-certificate'],
    ['CERT_NOT_YET_VALID', 'tls-certificate'],
    ['CERT_REVOKED', 'tls-certificate'],
    ['CERT_UNTRUSTED', 'tls-certificate'],
    ['CERT_SIGNATURE_FAILURE', 'tls-certificate'],
    ['UNABLE_TO_VERIFY_LEAF_SIGNATURE', 'tls-certificate'],
    ['UNABLE_TO_GET_ISSUER_CERT', 'tls-certificate'],
    ['UNABLE_TO_GET_ISSUER_CERT_LOCALLY', 'tls-certificate'],
    ['DEPTH_ZERO_SELF_SIGNED_CERT', 'tls-certificate'],
    ['SELF_SIGNED_CERT_IN_CHAIN', 'tls-certificate'],
    ['ERR_TLS_CERT_ALTNAME_INVALID', 'tls-certificate'],
    ['HOSTNAME_MISMATCH', 'tls-certificate'],
    ['ERROR_IN_CERT_NOT_AFTER_FIELD', 'tls-certificate'],
    // Other TLS
    ['ERR_SSL_WRONG_VERSION_NUMBER', 'tls-handshake'],
    ['ERR_SSL_TLSV1_ALERT_PROTOCOL_VERSION', 'tls-handshake'],
    ['ERR_SSL_SSLV3_ALERT_HANDSHAKE_FAILURE', 'tls-handshake'],
    ['ERR_TLS_HANDSHAKE_TIMEOUT', 'tls-handshake'],
    ['EPROTO', 'tls-handshake'],
    // Limits and content
    ['UND_ERR_RES_EXCEEDED_MAX_SIZE', 'body-too-large'],
    ['Z_DATA_ERROR', 'bad-content-encoding'],
    ['Z_BUF_ERROR', 'bad-content-encoding'],
    ['ERR__ERROR_FORMAT_PADDING_1', 'bad-content-encoding'],
    // Malformed HTTP
    ['HPE_INVALID_CONSTANT', 'invalid-response'],
    ['HPE_INVALID_HEADER_TOKEN', 'invalid-response'],
    ['HPE_INVALID_STATUS', 'invalid-response'],
    ['UND_ERR_HEADERS_OVERFLOW', 'invalid-response'],
    ['UND_ERR_RES_CONTENT_LENGTH_MISMATCH', 'invalid-response'],
    ['UND_ERR_RESPONSE_STATUS_CODE', 'invalid-response'],
    ['UND_ERR_RESPONSE', 'invalid-response'],
  ])('%s → %s', (code, expected) => {
    expect(transportErrorCodeOf(systemError(code))).toBe(expected);
  });

  it('maps real undici error classes by their codes', () => {
    expect(transportErrorCodeOf(new undiciErrors.ConnectTimeoutError())).toBe('connect-timeout');
    expect(transportErrorCodeOf(new undiciErrors.HeadersTimeoutError())).toBe('first-byte-timeout');
    expect(transportErrorCodeOf(new undiciErrors.BodyTimeoutError())).toBe('body-timeout');
    expect(transportErrorCodeOf(new undiciErrors.SocketError('other side closed'))).toBe('connection-reset');
    expect(transportErrorCodeOf(new undiciErrors.HeadersOverflowError())).toBe('invalid-response');
    expect(transportErrorCodeOf(new undiciErrors.ResponseExceededMaxSizeError())).toBe('body-too-large');
    // The typings omit the constructor's (message, code) form that the parser uses.
    const ParserError = undiciErrors.HTTPParserError as unknown as new (message: string, code?: string) => Error;
    expect(transportErrorCodeOf(new ParserError('bad', 'INVALID_STATUS'))).toBe('invalid-response');
    // An HTTPParserError without a code is still malformed HTTP.
    expect(transportErrorCodeOf(new ParserError('bad'))).toBe('invalid-response');
  });

  it('tells an OS connect timeout from a connection that timed out later', () => {
    expect(transportErrorCodeOf(systemError('ETIMEDOUT', 'connect'))).toBe('connect-timeout');
    expect(transportErrorCodeOf(systemError('ETIMEDOUT', 'read'))).toBe('connection-reset');
  });

  it('passes our own codes through', () => {
    for (const code of TRANSPORT_ERROR_CODES) {
      expect(transportErrorCodeOf(new HttpFetchError(code, 'http://example.test/'))).toBe(code);
    }
    expect(transportErrorCodeOf(new DnsLookupError('dns-not-found', 'x.test'))).toBe('dns-not-found');
    expect(transportErrorCodeOf(new PrivateNetworkRefusedError('x.test', ['10.0.0.1']))).toBe('private-network-refused');
  });

  it('looks through cause chains and AggregateError (happy eyeballs)', () => {
    expect(transportErrorCodeOf(new Error('wrapped', { cause: systemError('ECONNREFUSED') }))).toBe('connection-refused');
    expect(transportErrorCodeOf(new Error('a', { cause: new Error('b', { cause: systemError('CERT_HAS_EXPIRED') }) }))).toBe('tls-certificate');
    expect(transportErrorCodeOf(new AggregateError([new Error('no code'), systemError('ENETUNREACH')]))).toBe('connection-refused');
  });

  it('names an unknown socket-level system error a reset, and anything else undefined', () => {
    expect(transportErrorCodeOf(systemError('ENOBUFS', 'write'))).toBe('connection-reset');
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
