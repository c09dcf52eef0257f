import { FailuresInputError } from './errors.js';
import { FETCH_FAILURE_TYPES, isFetchFailureType, type FetchFailureType } from './fetch-failure-type.js';

/**
 * Who retries a failure:
 * - 'activity': Temporal retries the fetch activity (URL-level transient). The host workflow is
 *   awaiting that activity, so no other request reaches the host meanwhile.
 * - 'host': the activity gives up at once; the host workflow records the outcome (which delays
 *   the whole host) and requeues the URL.
 * - 'none': terminal for this URL at this stage.
 */
export type RetryLayer = 'none' | 'activity' | 'host';

/**
 * What a failure does to the host's politeness state (see applyHostOutcome):
 * - 'slow-down': an overload signal; the adaptive delay grows.
 * - 'cooldown': the host may be failing; the adaptive delay grows and the failure counts toward
 *   the host's circuit breaker.
 * - 'quarantine-host': no request to the host until recheckAfterMs has passed (TLS, private network).
 * - 'negative-cache-host': the name does not exist; no request until recheckAfterMs has passed.
 * - 'none': says nothing about the host.
 */
export type HostEffect = 'none' | 'slow-down' | 'cooldown' | 'quarantine-host' | 'negative-cache-host';

/** A multiplier range for jitter: the delay is multiplied by a uniform draw in [min, max). */
export interface JitterRange {
  min: number;
  max: number;
}

/** Retry jitter (docs/design.md, "Failure types and retries"): 0.5 to 1.5 times the backoff, so retries do not arrive together. */
export const DEFAULT_JITTER: Readonly<JitterRange> = Object.freeze({ min: 0.5, max: 1.5 });

/** What the crawler does after one FetchFailureType. Plain data, so it can be tabulated and tested. */
export interface FailurePolicy {
  type: FetchFailureType;
  /** One line for the README and for operators. */
  summary: string;
  retryLayer: RetryLayer;
  /** Total attempts at this stage including the first; 1 means never retried. */
  maxAttempts: number;
  /** Backoff before attempt n+1 is baseDelayMs * 2^(n-1), capped at maxDelayMs, then jittered. */
  baseDelayMs: number;
  /** Cap on the backoff before jitter, so the jittered delay is at most jitter.max * maxDelayMs. */
  maxDelayMs: number;
  jitter: Readonly<JitterRange>;
  hostEffect: HostEffect;
  /** For 429 and 503: a Retry-After header, or without one our throttle backoff, delays the whole host. */
  throttlesHost: boolean;
  /** NotFound: tombstone recheck; host holds: how long until the host is tried again. */
  recheckAfterMs?: number;
  /**
   * Counted per URL fingerprint and stage toward POISON_ATTEMPT_LIMIT. True only for failures this
   * URL plausibly causes itself; host-wide failures (DNS, connect, 429, 503) are the circuit
   * breaker's business, or a host outage would dead-letter every URL of the host.
   */
  countsTowardPoison: boolean;
}

/** Failures at one stage of one URL before it moves to the dead-letter table (docs/design.md, "Poison URLs"). */
export const POISON_ATTEMPT_LIMIT = 5;

const SECOND_MS = 1000;
const MINUTE_MS = 60 * SECOND_MS;
const HOUR_MS = 60 * MINUTE_MS;
const DAY_MS = 24 * HOUR_MS;

/** Tombstone recheck for a 404/410: a long interval, never an immediate retry (docs/design.md, "Failure types and retries"). */
export const NOT_FOUND_RECHECK_MS = 30 * DAY_MS;
/** How long a host stays held after NXDOMAIN, a bad certificate or a private address. */
export const HOST_HOLD_RECHECK_MS = 24 * HOUR_MS;

type PolicyFields = Omit<FailurePolicy, 'type' | 'jitter' | 'throttlesHost'> & { throttlesHost?: boolean };

function terminal(summary: string, fields: Partial<PolicyFields> = {}): PolicyFields {
  return { summary, retryLayer: 'none', maxAttempts: 1, baseDelayMs: 0, maxDelayMs: 0, hostEffect: 'none', countsTowardPoison: false, ...fields };
}

/** Timeouts and other URL-level transients: 2-3 attempts with jittered backoff (docs/design.md, "Failure types and retries"). */
function transient(summary: string, fields: Partial<PolicyFields> = {}): PolicyFields {
  return { summary, retryLayer: 'activity', maxAttempts: 3, baseDelayMs: 2 * SECOND_MS, maxDelayMs: 30 * SECOND_MS, hostEffect: 'cooldown', countsTowardPoison: true, ...fields };
}

const POLICY_FIELDS: Record<FetchFailureType, PolicyFields> = {
  NotFound: terminal('404 or 410: gone. Never retried; a known document becomes a tombstone, rechecked after 30 days.', {
    recheckAfterMs: NOT_FOUND_RECHECK_MS,
  }),
  ClientError: terminal('Other 4xx, or a 3xx we do not follow (300, 305, 306, unassigned): the request as made cannot succeed. Not retried.'),
  RequestTimeout: transient('408: the server gave up waiting for our request. Retried twice with jittered backoff; counts toward the circuit breaker.'),
  ConnectTimeout: transient('TCP/TLS connect did not finish in time. Retried twice; a host-wide symptom, so it feeds the circuit breaker, not the poison budget.', {
    countsTowardPoison: false,
  }),
  FirstByteTimeout: transient('Connected, but no final response head in time: a total from the request written, however many 1xx (`102 Processing`) come. Retried twice with jittered backoff; counts toward the circuit breaker.'),
  BodyTimeout: transient('Headers arrived, the body stalled or took too long. Retried twice with jittered backoff; counts toward the circuit breaker.'),
  TooManyRequests: {
    summary:
      "429: the host's budget is spent. Retry-After (else the throttle, min(10 s * 2^(n-1), 1 h) * jitter) holds the whole host; the URL is requeued after its backoff, never before Retry-After.",
    retryLayer: 'host',
    maxAttempts: 6,
    baseDelayMs: 10 * SECOND_MS,
    maxDelayMs: HOUR_MS,
    hostEffect: 'slow-down',
    throttlesHost: true,
    countsTowardPoison: false,
  },
  ServerError: {
    summary: '500, 502, 504 and other 5xx: the URL is requeued after its backoff, 3 attempts in all; 5 cooldown failures in a row open the host circuit breaker.',
    retryLayer: 'host',
    maxAttempts: 3,
    baseDelayMs: 10 * SECOND_MS,
    maxDelayMs: 5 * MINUTE_MS,
    hostEffect: 'cooldown',
    countsTowardPoison: true,
  },
  ServiceUnavailable: {
    summary: '503: the host is overloaded or down. Retry-After (else the throttle) holds the whole host and it feeds the circuit breaker; the URL is requeued after its longer backoff.',
    retryLayer: 'host',
    maxAttempts: 4,
    baseDelayMs: 30 * SECOND_MS,
    maxDelayMs: HOUR_MS,
    hostEffect: 'cooldown',
    throttlesHost: true,
    countsTowardPoison: false,
  },
  DnsNotFound: terminal('NXDOMAIN or no addresses: the name does not exist. Not retried; the host is negatively cached for 24 h.', {
    hostEffect: 'negative-cache-host',
    recheckAfterMs: HOST_HOLD_RECHECK_MS,
  }),
  DnsTemporaryFailure: transient('SERVFAIL or resolver timeout: short backoff (1 s, 2 s), then give up; feeds the circuit breaker.', {
    baseDelayMs: SECOND_MS,
    maxDelayMs: 10 * SECOND_MS,
    countsTowardPoison: false,
  }),
  ConnectionFailed: transient(
    'Connection refused or reset, directly or as a live proxy reports it (tinyproxy\'s 500 Unable to connect, squid\'s ERR_CONNECT_FAIL). Retried twice; a host-wide symptom, so it feeds the circuit breaker, not the poison budget.',
    {
      countsTowardPoison: false,
    },
  ),
  TlsCertificateError: terminal('Invalid, expired, self-signed or mismatched certificate. Never bypassed, never retried; the host is quarantined for 24 h.', {
    hostEffect: 'quarantine-host',
    recheckAfterMs: HOST_HOLD_RECHECK_MS,
  }),
  TlsHandshakeError: terminal('TLS protocol or cipher failure. Not retried; the host is quarantined for 24 h.', {
    hostEffect: 'quarantine-host',
    recheckAfterMs: HOST_HOLD_RECHECK_MS,
  }),
  PrivateNetworkRefused: terminal('The host resolved to a loopback, private or link-local address, or to one that is not globally reachable or hides where it leads (documentation, benchmarking, Teredo 2001::/32, IPv4-translated ::ffff:0:0:0/96; IPv4-mapped, NAT64 and 6to4 forms judged by their IPv4 address). Not retried; the host is quarantined for 24 h.', {
    hostEffect: 'quarantine-host',
    recheckAfterMs: HOST_HOLD_RECHECK_MS,
  }),
  BodyTooLarge: terminal('The body on the wire exceeded the size limit and was cut off. Not retried; counts toward the poison budget.', {
    countsTowardPoison: true,
  }),
  DecompressedTooLarge: terminal('The decoded body exceeded its limit (a compression bomb) and was cut off. Not retried; counts toward the poison budget.', {
    countsTowardPoison: true,
  }),
  BadContentEncoding: terminal('Corrupt gzip, br or deflate stream. Not retried; counts toward the poison budget.', { countsTowardPoison: true }),
  InvalidResponse: terminal('Malformed HTTP (bad status line or headers, a 1xx or out-of-range final status). Not retried; counts toward the poison budget.', {
    countsTowardPoison: true,
  }),
  UnsupportedContentType: terminal('A content type the crawler does not accept. Not retried.'),
  RobotsDisallowed: terminal('robots.txt disallows the path. No request is sent; recorded as frontier outcome robots-disallowed (state dropped); not retried until the rules change.'),
  RobotsUnreachable: {
    summary:
      'robots.txt answered 5xx or 429 or failed, so everything is disallowed for now (RFC 9309). No request is sent; the URL waits its backoff, never less than the next robots.txt refresh (10 min).',
    retryLayer: 'host',
    maxAttempts: 4,
    baseDelayMs: 5 * MINUTE_MS,
    maxDelayMs: HOUR_MS,
    hostEffect: 'none',
    countsTowardPoison: false,
  },
  RedirectLoop: terminal('A redirect chain revisits a URL it already passed. Not retried.'),
  TooManyRedirects: terminal('A redirect chain exceeded the hop limit. Not retried.'),
  InvalidUrl: terminal('Not a fetchable http(s) URL. Not retried.'),
  HostCircuitOpen: {
    summary: "The host's circuit breaker is open. The host workflow sends nothing until it half-opens and its URLs wait in its queue, so no URL records this type.",
    retryLayer: 'host',
    maxAttempts: 3,
    baseDelayMs: 5 * MINUTE_MS,
    maxDelayMs: HOUR_MS,
    hostEffect: 'none',
    countsTowardPoison: false,
  },
  ParseBudgetExceeded: terminal(
    'The fetched page nests deeper than 1,000 elements or holds more than 250,000, or its parse in a worker thread ran past 15 s: a hostile or broken page that would pin the worker. Recorded once at the parse stage, never retried, not counted toward the poison budget (the same bytes fail the same way).',
  ),
  ProxyFailed: {
    summary:
      'The proxy refused or failed the request before the target answered: 407 Proxy Authentication Required, the proxy not answering, refusing or dropping the connection or timing out, a CONNECT answered with a status that says nothing about the target (a bare 500, 502 or 503 from the gateway). The request may never have reached the host, so neither the host (no delay growth, no circuit breaker) nor the URL (no poison count) is charged; the host moves to the next proxy of the list and the URL is requeued after its backoff, 6 attempts in all. A live proxy that answers that the target cannot be reached (tinyproxy\'s 500 Unable to connect, squid\'s ERR_CONNECT_FAIL or ERR_DNS_FAIL, a 504) gives the target\'s failure instead: ConnectionFailed, ConnectTimeout or DnsTemporaryFailure, charged to the host.',
    retryLayer: 'host',
    maxAttempts: 6,
    baseDelayMs: 10 * SECOND_MS,
    maxDelayMs: 10 * MINUTE_MS,
    hostEffect: 'none',
    countsTowardPoison: false,
  },
  RenderTimeout: terminal(
    'A render did not settle within its time (DOMContentLoaded, then a short settle cap; a page that never goes idle ends there). The DOM as it stood is kept as a partial render beside the HTTP result; not retried.',
  ),
  RenderCrashed: transient('The browser or its page crashed while rendering. The browser is replaced; the render is retried twice with jittered backoff, then dead-lettered at the render stage. The HTTP result is kept.', {
    hostEffect: 'none',
  }),
  BrowserUnavailable: transient(
    'No browser executable, or one that does not start. Tried twice, then the render fails and the page keeps its HTTP result; the crawl says rendering is unavailable and why.',
    { maxAttempts: 2, hostEffect: 'none', countsTowardPoison: false },
  ),
  PoisonUrl: terminal(
    '5 counted failures at one stage since its last success, across crawls: dead-lettered with its history (state dead, outcome its last failure). Back only by crawler dead-letters requeue.',
  ),
};

function buildPolicies(): Readonly<Record<FetchFailureType, FailurePolicy>> {
  const entries = FETCH_FAILURE_TYPES.map((type) => {
    const fields = POLICY_FIELDS[type];
    const policy: FailurePolicy = { type, jitter: DEFAULT_JITTER, throttlesHost: false, ...fields };
    return [type, Object.freeze(policy)] as const;
  });
  return Object.freeze(Object.fromEntries(entries) as Record<FetchFailureType, FailurePolicy>);
}

/** The policy of every failure type: the one place that decides retries and host effects. */
export const FAILURE_POLICIES: Readonly<Record<FetchFailureType, FailurePolicy>> = buildPolicies();

/** The policy for an ApplicationFailure `type` read back by a workflow; undefined if it is not ours. */
export function lookupFailurePolicy(type: string): FailurePolicy | undefined {
  return isFetchFailureType(type) ? FAILURE_POLICIES[type] : undefined;
}

/** The policy for `type`; throws FAILURES_UNKNOWN_TYPE when the name is not a FetchFailureType. */
export function failurePolicyFor(type: string): FailurePolicy {
  const policy = lookupFailurePolicy(type);
  if (policy === undefined) {
    throw new FailuresInputError('FAILURES_UNKNOWN_TYPE', 'type', type, `use one of FETCH_FAILURE_TYPES (${FETCH_FAILURE_TYPES.length} names)`);
  }
  return policy;
}

/** True when nothing retries this failure: the URL's stage ends here (it may be rechecked much later). */
export function isTerminal(type: FetchFailureType): boolean {
  return failurePolicyFor(type).retryLayer === 'none';
}
