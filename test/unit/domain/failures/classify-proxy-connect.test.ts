// Whose failure a failed CONNECT is: the proxy's (ProxyFailed, charged to no host) or the target's
// that a live proxy reported (charged to the host). Every case of proxyConnectFailureCode, with the
// answers tinyproxy and squid really send.
import { describe, expect, it } from 'vitest';
import { classifyTransportError, proxyConnectFailureCode, type ProxyConnectAnswer } from '../../../../src/domain/failures/index.js';

const answered = (status: number, reason = '', headers: Record<string, string> = {}): Parameters<typeof proxyConnectFailureCode>[0] => ({
  kind: 'answered',
  answer: { status, reason, headers } satisfies ProxyConnectAnswer,
});

describe('proxyConnectFailureCode', () => {
  it('blames the proxy when it gave no answer (refused, dropped, reset or timed out)', () => {
    expect(proxyConnectFailureCode({ kind: 'no-answer' })).toBe('HTTP_PROXY_FAILED');
  });

  it.each([
    [407, 'Proxy Authentication Required'],
    [401, 'Unauthorized'], // tinyproxy, wrong credentials
    [403, 'Forbidden'],
    [400, 'Bad Request'],
    [405, 'Method Not Allowed'],
  ])('blames the proxy for its refusal %i %s', (status, reason) => {
    expect(proxyConnectFailureCode(answered(status, reason))).toBe('HTTP_PROXY_FAILED');
  });

  it('blames the proxy for a squid refusal even when it names itself', () => {
    expect(proxyConnectFailureCode(answered(403, 'Forbidden', { 'x-squid-error': 'ERR_ACCESS_DENIED 0' }))).toBe('HTTP_PROXY_FAILED');
  });

  it('takes tinyproxy’s 500 Unable to connect for the target’s connection failure', () => {
    expect(proxyConnectFailureCode(answered(500, 'Unable to connect', { server: 'tinyproxy/1.11.1', 'content-type': 'text/html', connection: 'close' }))).toBe('HTTP_CONNECTION_REFUSED');
    expect(proxyConnectFailureCode(answered(500, ' unable to connect '))).toBe('HTTP_CONNECTION_REFUSED');
  });

  it.each([
    ['ERR_CONNECT_FAIL 111', 'HTTP_CONNECTION_REFUSED'],
    ['ERR_CONNECT_FAIL 113', 'HTTP_CONNECTION_REFUSED'],
    ['ERR_CONNECT_FAIL', 'HTTP_CONNECTION_REFUSED'],
    ['ERR_CONNECT_FAIL 110', 'HTTP_CONNECT_TIMEOUT'],
    ['ERR_DNS_FAIL 0', 'HTTP_DNS_TEMPORARY_FAILURE'],
    ['ERR_READ_ERROR 0', 'HTTP_PROXY_FAILED'],
    ['ERR_GATEWAY_FAILURE 0', 'HTTP_PROXY_FAILED'],
    ['not a squid error', 'HTTP_PROXY_FAILED'],
    ['', 'HTTP_PROXY_FAILED'],
  ])('reads squid’s 503 X-Squid-Error: %s', (header, code) => {
    expect(proxyConnectFailureCode(answered(503, 'Service Unavailable', { 'x-squid-error': header }))).toBe(code);
  });

  it('takes a 504 Gateway Timeout for the target not answering', () => {
    expect(proxyConnectFailureCode(answered(504, 'Gateway Timeout'))).toBe('HTTP_CONNECT_TIMEOUT');
  });

  it.each([
    [500, 'Internal Server Error'],
    [500, 'Unable to connect to upstream proxy'],
    [502, 'Bad Gateway'],
    [503, 'Service Unavailable'],
    [599, ''],
    [204, 'No Content'],
    [301, 'Moved Permanently'],
    [0, ''],
    [1_000, 'Unable to connect'],
    [Number.NaN, 'Unable to connect'],
  ])('blames the proxy for an answer that says nothing about the target: %s %s', (status, reason) => {
    expect(proxyConnectFailureCode(answered(status, reason))).toBe('HTTP_PROXY_FAILED');
  });

  it('maps every code it gives to a failure type: ProxyFailed, or one that counts against the host', () => {
    expect(classifyTransportError(proxyConnectFailureCode({ kind: 'no-answer' }))).toBe('ProxyFailed');
    expect(classifyTransportError(proxyConnectFailureCode(answered(500, 'Unable to connect')))).toBe('ConnectionFailed');
    expect(classifyTransportError(proxyConnectFailureCode(answered(504, 'Gateway Timeout')))).toBe('ConnectTimeout');
    expect(classifyTransportError(proxyConnectFailureCode(answered(503, '', { 'x-squid-error': 'ERR_DNS_FAIL 0' })))).toBe('DnsTemporaryFailure');
  });
});
