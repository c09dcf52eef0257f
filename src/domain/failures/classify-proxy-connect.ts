import type { TransportErrorCode } from './transport-error-code.js';

/** What a proxy answered to our CONNECT, when it answered at all. */
export interface ProxyConnectAnswer {
  status: number;
  /** The status line's reason phrase as sent ('Unable to connect'); '' when none. */
  reason: string;
  /** Response headers, lower-case names. */
  headers: Readonly<Record<string, string>>;
}

/**
 * How a CONNECT through a proxy failed: the proxy gave no answer (it refused or dropped the
 * connection, reset it, or timed out), or it answered with something other than 200.
 */
export type ProxyConnectFailure = { kind: 'no-answer' } | { kind: 'answered'; answer: ProxyConnectAnswer };

/** squid's X-Squid-Error names (errorpage.cc) that say the target, not the proxy, could not be reached. */
const SQUID_TARGET_ERRORS: Readonly<Record<string, TransportErrorCode>> = Object.freeze({
  ERR_CONNECT_FAIL: 'HTTP_CONNECTION_REFUSED',
  ERR_DNS_FAIL: 'HTTP_DNS_TEMPORARY_FAILURE',
});

/** errno 110, ETIMEDOUT, as squid appends it to ERR_CONNECT_FAIL: the target did not answer the TCP connect. */
const SQUID_TIMED_OUT_ERRNO = '110';

/**
 * Whose failure a failed CONNECT is, as the transport error code the HTTP layer raises:
 * HTTP_PROXY_FAILED when the proxy is at fault (charged to no host, the host moves to the next
 * proxy), else the code of the target's failure that a live proxy reported (charged to the host as
 * if we had connected ourselves). The proxy's answer is untrusted input: only a known signal makes
 * it the target's.
 *
 * - No answer (the proxy refused or dropped the connection, reset it, or timed out): the proxy's.
 * - 407, or 401 (what tinyproxy answers wrong credentials with), and every other 4xx (squid's
 *   ERR_ACCESS_DENIED 403, a port the proxy does not tunnel to): the proxy's refusal.
 * - squid's `X-Squid-Error: ERR_CONNECT_FAIL <errno>` (503): the target refused or did not answer
 *   (errno 110 is a timeout); `ERR_DNS_FAIL` (503): its name did not resolve, which squid does not
 *   tell apart from a resolver failure, so it is retried as a temporary one. Any other squid error
 *   is the proxy's.
 * - tinyproxy's `500 Unable to connect` (its reason phrase; its other errors are 4xx and 503): the
 *   target refused, did not answer, or its name did not resolve.
 * - 504 Gateway Timeout: the proxy, as a gateway, got no timely answer from upstream, which for a
 *   CONNECT is the target (RFC 9110 §15.6.5).
 * - Any other status (a bare 500, 502 or 503, a 2xx or 3xx undici would not tunnel through): the
 *   proxy's, since a gateway's own trouble (no exit node, overload) looks the same and charging a
 *   healthy host for it would hold the host.
 */
export function proxyConnectFailureCode(failure: ProxyConnectFailure): TransportErrorCode {
  if (failure.kind === 'no-answer') return 'HTTP_PROXY_FAILED';
  const { status, reason, headers } = failure.answer;
  if (!Number.isInteger(status) || status < 500 || status > 599) return 'HTTP_PROXY_FAILED';
  const squid = /^\s*(ERR_[A-Z_]+)(?:\s+(\d+))?/.exec(headers['x-squid-error'] ?? '');
  if (squid !== null) {
    const code = SQUID_TARGET_ERRORS[squid[1]!];
    if (code === 'HTTP_CONNECTION_REFUSED' && squid[2] === SQUID_TIMED_OUT_ERRNO) return 'HTTP_CONNECT_TIMEOUT';
    return code ?? 'HTTP_PROXY_FAILED';
  }
  if (status === 500 && reason.trim().toLowerCase() === 'unable to connect') return 'HTTP_CONNECTION_REFUSED';
  if (status === 504) return 'HTTP_CONNECT_TIMEOUT';
  return 'HTTP_PROXY_FAILED';
}
