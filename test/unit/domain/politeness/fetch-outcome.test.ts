import { describe, expect, it } from 'vitest';
import { FETCH_FAILURE_TYPES, failurePolicyFor } from '../../../../src/domain/failures/index.js';
import { applyHostOutcome, hostDownloadMs, hostOutcomeOfFailure, hostOutcomeOfResult, hostOutcomeOfRobotsRefresh, initialHostPolitenessState, resolveHostPolitenessPolicy } from '../../../../src/domain/politeness/index.js';

const T0 = 1_700_000_000_000;
const NOW = T0 + 500;

describe('hostOutcomeOfResult', () => {
  it.each(['fetched', 'not-modified', 'redirect'] as const)('a %s result is a response with its status and times', (kind) => {
    expect(hostOutcomeOfResult({ kind, status: 200, startedAtMs: T0, finishedAtMs: T0 + 30 })).toEqual({ kind: 'response', startedAtMs: T0, finishedAtMs: T0 + 30, status: 200 });
  });

  it.each(['robots-disallowed', 'robots-stale', 'skipped'] as const)('%s sent nothing: it frees the slot only', (kind) => {
    expect(hostOutcomeOfResult({ kind, atMs: T0 })).toEqual({ kind: 'not-sent', atMs: T0 });
  });
});

describe('hostOutcomeOfRobotsRefresh', () => {
  const sent = { requested: true, startedAtMs: T0, finishedAtMs: T0 + 40 };

  it('a fetched robots.txt is a response with its status and download time; a missing status counts as 200', () => {
    expect(hostOutcomeOfRobotsRefresh({ ...sent, status: 404, responseMs: 12 })).toEqual({ kind: 'response', startedAtMs: T0, finishedAtMs: T0 + 40, status: 404, responseMs: 12 });
    expect(hostOutcomeOfRobotsRefresh(sent)).toEqual({ kind: 'response', startedAtMs: T0, finishedAtMs: T0 + 40, status: 200 });
  });

  it('a failure below HTTP is a transport failure of its type, which holds the host', () => {
    expect(hostOutcomeOfRobotsRefresh({ ...sent, transportFailure: 'DnsNotFound' })).toEqual({ kind: 'transport-failure', startedAtMs: T0, finishedAtMs: T0 + 40, type: 'DnsNotFound' });
  });

  it('rules answered from the cache sent nothing: they free the slot only', () => {
    expect(hostOutcomeOfRobotsRefresh({ requested: false, startedAtMs: T0, finishedAtMs: T0 + 1 })).toEqual({ kind: 'not-sent', atMs: T0 + 1 });
  });
});

describe('hostOutcomeOfFailure', () => {
  const sent = { startedAtMs: T0, finishedAtMs: T0 + 80, requested: true };

  it('a failure with a status is a response, with its Retry-After', () => {
    expect(hostOutcomeOfFailure('TooManyRequests', { ...sent, status: 429, retryAfterAtMs: T0 + 5000 }, NOW)).toEqual({
      kind: 'response',
      startedAtMs: T0,
      finishedAtMs: T0 + 80,
      status: 429,
      retryAfterAtMs: T0 + 5000,
    });
    expect(hostOutcomeOfFailure('ServerError', { ...sent, status: 500 }, NOW)).toEqual({ kind: 'response', startedAtMs: T0, finishedAtMs: T0 + 80, status: 500 });
  });

  it('a failure after a request without a status is a transport failure of its type', () => {
    expect(hostOutcomeOfFailure('ConnectionFailed', sent, NOW)).toEqual({ kind: 'transport-failure', startedAtMs: T0, finishedAtMs: T0 + 80, type: 'ConnectionFailed' });
  });

  it('a failure that sent nothing frees the slot only', () => {
    expect(hostOutcomeOfFailure('RobotsUnreachable', { startedAtMs: T0, finishedAtMs: T0, requested: false }, NOW)).toEqual({ kind: 'not-sent', atMs: NOW });
    expect(hostOutcomeOfFailure('ConnectionFailed', undefined, NOW)).toEqual({ kind: 'not-sent', atMs: NOW });
  });

  it.each(FETCH_FAILURE_TYPES.filter((type) => ['quarantine-host', 'negative-cache-host'].includes(failurePolicyFor(type).hostEffect)))(
    '%s holds the host although no request reached it',
    (type) => {
      const notSent = { startedAtMs: T0, finishedAtMs: T0 + 5, requested: false };
      expect(hostOutcomeOfFailure(type, notSent, NOW)).toEqual({ kind: 'transport-failure', startedAtMs: T0, finishedAtMs: T0 + 5, type });
      expect(hostOutcomeOfFailure(type, undefined, NOW)).toEqual({ kind: 'transport-failure', startedAtMs: NOW, finishedAtMs: NOW, type });
    },
  );

  it("a proxy's failure holds the host's slot for its delay and says nothing else about the host", () => {
    // The proxy took 10 s to give up: none of it is the host's response time.
    const outcome = hostOutcomeOfFailure('ProxyFailed', { startedAtMs: T0, finishedAtMs: T0 + 10_000, requested: false }, NOW);
    expect(outcome).toEqual({ kind: 'transport-failure', startedAtMs: T0 + 10_000, finishedAtMs: T0 + 10_000, type: 'ProxyFailed' });
    const policy = resolveHostPolitenessPolicy({ minDelayMs: 250 });
    const before = { ...initialHostPolitenessState(T0), inFlight: 1, consecutiveFailures: 3 };
    const after = applyHostOutcome(before, outcome, policy, () => 0.5);
    expect(after.nextFetchAtMs).toBe(T0 + 10_000 + 250);
    expect(after.recentThrottles).toBe(0);
    expect(after.consecutiveFailures).toBe(3);
    expect(after.circuitOpenUntilMs).toBe(before.circuitOpenUntilMs);
    expect(after.lastResponseTimeMs ?? 0).toBe(before.lastResponseTimeMs ?? 0);
  });

  it('an unknown type (an unexpected error) has no host effect and never throws', () => {
    expect(hostOutcomeOfFailure('TypeError', undefined, NOW)).toEqual({ kind: 'not-sent', atMs: NOW });
  });
});

describe('hostDownloadMs', () => {
  it("takes our event loop's recent lag off the measured time to the last byte", () => {
    expect(hostDownloadMs({ lastByteMs: 134.4, loopLagMs: 100 })).toBe(34);
    expect(hostDownloadMs({ lastByteMs: 500, loopLagMs: 0 })).toBe(500);
  });

  it('never goes below 0, whatever the lag', () => {
    expect(hostDownloadMs({ lastByteMs: 20, loopLagMs: 6000 })).toBe(0);
  });

  it('passes a measured time through when there is no lag, so a slow host still shows slow', () => {
    expect(hostDownloadMs({ lastByteMs: 5000.6, loopLagMs: 0 })).toBe(5001);
  });
});
