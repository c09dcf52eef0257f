import { describe, expect, it } from 'vitest';
import {
  FAILURE_POLICIES,
  FETCH_FAILURE_TYPES,
  FailuresInputError,
  POISON_ATTEMPT_LIMIT,
  classifyHttpStatus,
  classifyTransportError,
  failurePolicyFor,
  isFetchFailureType,
  isTerminal,
  lookupFailurePolicy,
  retryDelayMs,
  type FetchFailureType,
} from '../../../../src/domain/failures/index.js';
import { DEFAULT_HOST_POLITENESS_POLICY } from '../../../../src/domain/politeness/index.js';

const HOUR_MS = 3_600_000;
const DAY_MS = 24 * HOUR_MS;
const typeOf = (status: number): FetchFailureType => {
  const outcome = classifyHttpStatus(status);
  if (outcome.kind !== 'failure') throw new Error(`${status} is not a failure`);
  return outcome.type;
};

describe('FAILURE_POLICIES: the retry table (docs/design.md, "Failure types and retries"), row by row', () => {
  it('200 goes on to parse', () => {
    expect(classifyHttpStatus(200).kind).toBe('success');
  });

  it('301/302/307/308 go to redirect handling', () => {
    for (const status of [301, 302, 307, 308]) expect(classifyHttpStatus(status).kind).toBe('redirect');
  });

  it('404/410 are not retried; tombstone with a long recheck', () => {
    for (const status of [404, 410]) {
      const policy = FAILURE_POLICIES[typeOf(status)];
      expect(policy.retryLayer).toBe('none');
      expect(policy.maxAttempts).toBe(1);
      expect(policy.recheckAfterMs).toBe(30 * DAY_MS);
      expect(retryDelayMs(policy.type, 1, () => 0.5)).toBeUndefined();
    }
  });

  it('408 and temporary timeouts: 2-3 attempts with exponential backoff and jitter', () => {
    const types = [typeOf(408), ...(['HTTP_CONNECT_TIMEOUT', 'HTTP_FIRST_BYTE_TIMEOUT', 'HTTP_BODY_TIMEOUT'] as const).map(classifyTransportError)];
    for (const type of types) {
      const policy = FAILURE_POLICIES[type];
      expect(policy.retryLayer).toBe('activity');
      expect(policy.maxAttempts).toBeGreaterThanOrEqual(2);
      expect(policy.maxAttempts).toBeLessThanOrEqual(3);
      expect(policy.jitter).toEqual({ min: 0.5, max: 1.5 });
      expect(policy.hostEffect).toBe('cooldown');
    }
  });

  it('429 honours Retry-After and slows the whole host', () => {
    const policy = FAILURE_POLICIES[typeOf(429)];
    expect(policy.retryLayer).toBe('host');
    expect(policy.hostEffect).toBe('slow-down');
    expect(policy.throttlesHost).toBe(true);
    expect(policy.maxDelayMs).toBe(HOUR_MS);
    expect(policy.countsTowardPoison).toBe(false);
  });

  it('500/502/503/504: limited retries, then cooldown (circuit breaker)', () => {
    for (const status of [500, 502, 503, 504]) {
      const policy = FAILURE_POLICIES[typeOf(status)];
      expect(policy.retryLayer).toBe('host');
      expect(policy.maxAttempts).toBeGreaterThan(1);
      expect(policy.maxAttempts).toBeLessThanOrEqual(5);
      expect(policy.hostEffect).toBe('cooldown');
    }
    expect(FAILURE_POLICIES.ServiceUnavailable.throttlesHost).toBe(true);
  });

  it('DNS NXDOMAIN: long negative cache, no retry', () => {
    const policy = FAILURE_POLICIES[classifyTransportError('HTTP_DNS_NOT_FOUND')];
    expect(policy.retryLayer).toBe('none');
    expect(policy.hostEffect).toBe('negative-cache-host');
    expect(policy.recheckAfterMs).toBeGreaterThanOrEqual(HOUR_MS);
  });

  it('DNS SERVFAIL: short backoff, limited retries', () => {
    const policy = FAILURE_POLICIES[classifyTransportError('HTTP_DNS_TEMPORARY_FAILURE')];
    expect(policy.retryLayer).toBe('activity');
    expect(policy.maxAttempts).toBeLessThanOrEqual(3);
    expect(policy.baseDelayMs).toBeLessThanOrEqual(FAILURE_POLICIES.ConnectTimeout.baseDelayMs);
    expect(policy.maxDelayMs).toBeLessThanOrEqual(10_000);
  });

  it('TLS certificate errors: quarantined, never retried', () => {
    for (const type of [classifyTransportError('HTTP_TLS_CERTIFICATE'), classifyTransportError('HTTP_TLS_HANDSHAKE')]) {
      const policy = FAILURE_POLICIES[type];
      expect(policy.retryLayer).toBe('none');
      expect(policy.hostEffect).toBe('quarantine-host');
      for (let attempt = 1; attempt <= 10; attempt += 1) expect(retryDelayMs(type, attempt, () => 0)).toBeUndefined();
    }
  });

  it('a failing proxy charges neither the host nor the URL, and its URL is requeued for a while', () => {
    const policy = FAILURE_POLICIES.ProxyFailed;
    expect(classifyTransportError('HTTP_PROXY_FAILED')).toBe('ProxyFailed');
    expect(policy.hostEffect).toBe('none');
    expect(policy.throttlesHost).toBe(false);
    expect(policy.countsTowardPoison).toBe(false);
    expect(policy.retryLayer).toBe('host');
    // Six attempts over about five minutes at the base delays: a proxy restarted meanwhile finds its URLs waiting.
    expect(policy.maxAttempts).toBe(6);
    const waitedMs = [1, 2, 3, 4, 5].reduce((sum, attempt) => sum + (retryDelayMs('ProxyFailed', attempt, () => 0.5) ?? 0), 0);
    expect(waitedMs).toBe(10_000 + 20_000 + 40_000 + 80_000 + 160_000);
    expect(retryDelayMs('ProxyFailed', 6, () => 0.5)).toBeUndefined();
  });

  it('poison: 5 failures at one stage dead-letter a URL', () => {
    expect(POISON_ATTEMPT_LIMIT).toBe(5);
    expect(FAILURE_POLICIES.PoisonUrl.retryLayer).toBe('none');
  });
});

describe('FAILURE_POLICIES: invariants', () => {
  it('has exactly one policy per type, keyed by its own name', () => {
    expect(Object.keys(FAILURE_POLICIES).sort()).toEqual([...FETCH_FAILURE_TYPES].sort());
    for (const type of FETCH_FAILURE_TYPES) expect(FAILURE_POLICIES[type].type).toBe(type);
    expect(new Set(FETCH_FAILURE_TYPES).size).toBe(FETCH_FAILURE_TYPES.length);
  });

  it.each(FETCH_FAILURE_TYPES.map((type) => [type]))('%s has a coherent policy', (type) => {
    const policy = FAILURE_POLICIES[type];
    expect(policy.summary.length).toBeGreaterThan(20);
    expect(policy.summary).not.toContain('\n');
    expect(Number.isInteger(policy.maxAttempts)).toBe(true);
    expect(policy.jitter.min).toBeLessThanOrEqual(policy.jitter.max);
    if (policy.retryLayer === 'none') {
      expect(policy.maxAttempts).toBe(1);
    } else {
      expect(policy.maxAttempts).toBeGreaterThanOrEqual(2);
      expect(policy.baseDelayMs).toBeGreaterThan(0);
      expect(policy.maxDelayMs).toBeGreaterThanOrEqual(policy.baseDelayMs);
    }
    if (policy.hostEffect === 'quarantine-host' || policy.hostEffect === 'negative-cache-host') {
      expect(policy.recheckAfterMs).toBeGreaterThan(0);
      expect(policy.retryLayer).toBe('none');
    }
    if (policy.throttlesHost) expect(['slow-down', 'cooldown']).toContain(policy.hostEffect);
  });

  it('host-wide failures never count toward a URL poison budget', () => {
    for (const type of FETCH_FAILURE_TYPES) {
      const policy = FAILURE_POLICIES[type];
      if (policy.throttlesHost || policy.hostEffect === 'quarantine-host' || policy.hostEffect === 'negative-cache-host') {
        expect(policy.countsTowardPoison, type).toBe(false);
      }
    }
    for (const type of ['ConnectTimeout', 'DnsTemporaryFailure', 'ConnectionFailed', 'HostCircuitOpen', 'RobotsDisallowed'] as const) {
      expect(FAILURE_POLICIES[type].countsTowardPoison, type).toBe(false);
    }
  });

  it('the 429 backoff in the table agrees with the default host throttle', () => {
    expect(FAILURE_POLICIES.TooManyRequests.baseDelayMs).toBe(DEFAULT_HOST_POLITENESS_POLICY.throttleBaseDelayMs);
    expect(FAILURE_POLICIES.TooManyRequests.maxDelayMs).toBe(DEFAULT_HOST_POLITENESS_POLICY.maxThrottleDelayMs);
  });

  it('is frozen: no caller can change the policy at run time', () => {
    expect(Object.isFrozen(FAILURE_POLICIES)).toBe(true);
    expect(Object.isFrozen(FAILURE_POLICIES.NotFound)).toBe(true);
    expect(() => {
      (FAILURE_POLICIES.NotFound as { maxAttempts: number }).maxAttempts = 9;
    }).toThrow(TypeError);
  });
});

describe('lookups', () => {
  it('isTerminal is true exactly for retryLayer none', () => {
    const terminal = FETCH_FAILURE_TYPES.filter(isTerminal);
    expect(terminal).toContain('NotFound');
    expect(terminal).toContain('TlsCertificateError');
    expect(terminal).not.toContain('TooManyRequests');
    expect(terminal).not.toContain('BodyTimeout');
    expect(terminal.length).toBe(FETCH_FAILURE_TYPES.filter((type) => FAILURE_POLICIES[type].retryLayer === 'none').length);
  });

  it('lookupFailurePolicy reads an ApplicationFailure type back, and rejects strangers', () => {
    expect(lookupFailurePolicy('TooManyRequests')?.type).toBe('TooManyRequests');
    expect(lookupFailurePolicy('toString')).toBeUndefined();
    expect(lookupFailurePolicy('tooManyRequests')).toBeUndefined();
    expect(isFetchFailureType('__proto__')).toBe(false);
    expect(isFetchFailureType(42)).toBe(false);
  });

  it('failurePolicyFor throws a typed error naming the bad type', () => {
    expect(() => failurePolicyFor('Nope')).toThrow(FailuresInputError);
    try {
      failurePolicyFor('Nope');
    } catch (error) {
      expect((error as FailuresInputError).code).toBe('FAILURES_UNKNOWN_TYPE');
      expect((error as Error).message).toContain('"Nope"');
    }
  });
});
