import { describe, expect, it } from 'vitest';
import { fetchResponseOutcomeOf, keepsBodyOf, redirectOutcomeOf, transportFailureOf } from '../../../../src/domain/fetching/index.js';
import { TRANSPORT_ERROR_CODES } from '../../../../src/domain/failures/index.js';
import { DEFAULT_ACCEPTED_CONTENT_TYPES } from '../../../../src/domain/url/index.js';

describe('fetchResponseOutcomeOf: each HTTP failure type of the failure table', () => {
  it.each([
    [404, 'NotFound'],
    [410, 'NotFound'],
    [400, 'ClientError'],
    [403, 'ClientError'],
    [300, 'ClientError'],
    [305, 'ClientError'],
    [408, 'RequestTimeout'],
    [429, 'TooManyRequests'],
    [500, 'ServerError'],
    [502, 'ServerError'],
    [504, 'ServerError'],
    [503, 'ServiceUnavailable'],
    [99, 'InvalidResponse'],
    [101, 'InvalidResponse'],
    [600, 'InvalidResponse'],
  ])('%i: %s, whether or not a body was kept', (status, type) => {
    expect(fetchResponseOutcomeOf(status, false)).toEqual({ kind: 'failure', type });
    expect(fetchResponseOutcomeOf(status, true)).toEqual({ kind: 'failure', type });
  });

  it('304: not modified', () => {
    expect(fetchResponseOutcomeOf(304, false)).toEqual({ kind: 'not-modified' });
  });

  it.each([301, 302, 303, 307, 308])('%i: a redirect', (status) => {
    expect(fetchResponseOutcomeOf(status, false)).toEqual({ kind: 'redirect' });
  });

  it.each([200, 203, 299])('%i with its body kept: fetched', (status) => {
    expect(fetchResponseOutcomeOf(status, true)).toEqual({ kind: 'fetched' });
  });

  it('a 2xx whose body was not kept (a type not crawled): UnsupportedContentType', () => {
    expect(fetchResponseOutcomeOf(200, false)).toEqual({ kind: 'failure', type: 'UnsupportedContentType' });
  });
});

describe('keepsBodyOf', () => {
  it('keeps a 2xx of an accepted type', () => {
    expect(keepsBodyOf(200, 'text/html; charset=utf-8', DEFAULT_ACCEPTED_CONTENT_TYPES)).toBe(true);
    expect(keepsBodyOf(206, 'application/xhtml+xml', DEFAULT_ACCEPTED_CONTENT_TYPES)).toBe(true);
  });

  it('drains a 2xx of a type not crawled or without a type, and every non-2xx body', () => {
    expect(keepsBodyOf(200, 'image/png', DEFAULT_ACCEPTED_CONTENT_TYPES)).toBe(false);
    expect(keepsBodyOf(200, undefined, DEFAULT_ACCEPTED_CONTENT_TYPES)).toBe(false);
    for (const status of [104, 301, 304, 404, 503]) expect(keepsBodyOf(status, 'text/html', DEFAULT_ACCEPTED_CONTENT_TYPES)).toBe(false);
  });
});

const TRANSPORT_FAILURES = [
  ['HTTP_DNS_NOT_FOUND', 'DnsNotFound', false],
  ['HTTP_DNS_TEMPORARY_FAILURE', 'DnsTemporaryFailure', false],
  ['HTTP_PRIVATE_NETWORK_REFUSED', 'PrivateNetworkRefused', false],
  ['HTTP_CONNECT_TIMEOUT', 'ConnectTimeout', true],
  ['HTTP_FIRST_BYTE_TIMEOUT', 'FirstByteTimeout', true],
  ['HTTP_BODY_TIMEOUT', 'BodyTimeout', true],
  ['HTTP_CONNECTION_REFUSED', 'ConnectionFailed', true],
  ['HTTP_CONNECTION_RESET', 'ConnectionFailed', true],
  ['HTTP_TLS_CERTIFICATE', 'TlsCertificateError', true],
  ['HTTP_TLS_HANDSHAKE', 'TlsHandshakeError', true],
  ['HTTP_BODY_TOO_LARGE', 'BodyTooLarge', true],
  ['HTTP_DECOMPRESSED_TOO_LARGE', 'DecompressedTooLarge', true],
  ['HTTP_BAD_CONTENT_ENCODING', 'BadContentEncoding', true],
  ['HTTP_INVALID_RESPONSE', 'InvalidResponse', true],
  ['HTTP_PROXY_FAILED', 'ProxyFailed', true],
] as const;

describe('transportFailureOf: each transport failure type', () => {
  it.each(TRANSPORT_FAILURES)('%s: %s, the host asked: %s', (code, type, requested) => {
    expect(transportFailureOf(code)).toEqual({ type, requested });
  });

  it('the table above covers every transport error code', () => {
    expect(new Set(TRANSPORT_FAILURES.map(([code]) => code))).toEqual(new Set(TRANSPORT_ERROR_CODES));
  });
});

describe('redirectOutcomeOf', () => {
  it('a followed target, registered: recorded as a redirect, followed', () => {
    expect(redirectOutcomeOf('follow', undefined)).toEqual({ recordOutcome: 'redirect', decision: 'follow' });
  });

  it.each([
    ['out-of-scope:host', 'out-of-scope'],
    ['out-of-scope', 'out-of-scope'],
    ['robots-disallowed', 'robots-disallowed'],
    ['trap:depth', 'rejected'],
  ])('a followed target its registration refused (%s): recorded as a redirect, %s', (code, decision) => {
    expect(redirectOutcomeOf('follow', { code })).toEqual({ recordOutcome: 'redirect', decision });
  });

  it('a loop: a terminal RedirectLoop', () => {
    expect(redirectOutcomeOf('loop', undefined)).toEqual({ recordOutcome: 'RedirectLoop', decision: 'loop', failureType: 'RedirectLoop' });
  });

  it('an endless chain: a terminal TooManyRedirects', () => {
    expect(redirectOutcomeOf('too-many-hops', undefined)).toEqual({ recordOutcome: 'TooManyRedirects', decision: 'too-many-hops', failureType: 'TooManyRedirects' });
  });

  it('a missing or unusable Location: recorded as redirect-invalid, no failure', () => {
    expect(redirectOutcomeOf('invalid', undefined)).toEqual({ recordOutcome: 'redirect-invalid', decision: 'invalid' });
  });
});
