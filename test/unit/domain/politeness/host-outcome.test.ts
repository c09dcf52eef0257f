import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  DEFAULT_HOST_POLITENESS_POLICY,
  MAX_RECENT_THROTTLES,
  RESPONSE_TIME_WINDOW,
  adaptiveDelayMs,
  applyHostOutcome,
  canStartFetch,
  circuitStateAt,
  hostHoldAt,
  hostResponseTimeMs,
  initialHostPolitenessState,
  nextFetchAtMs,
  onFetchStarted,
  resolveHostPolitenessPolicy,
  type HostOutcome,
  type HostPolitenessPolicy,
  type HostPolitenessState,
} from '../../../../src/domain/politeness/index.js';

const T0 = 1_700_000_000_000;
const neutral = () => 0.5; // jitter multiplier 1.0
const policy = DEFAULT_HOST_POLITENESS_POLICY;

/** Starts a fetch at startMs and applies its outcome, as the host workflow would. */
function fetchOnce(state: HostPolitenessState, outcome: HostOutcome, using: HostPolitenessPolicy = policy, random = neutral): HostPolitenessState {
  const startMs = outcome.kind === 'not-sent' ? outcome.atMs : outcome.startedAtMs;
  return applyHostOutcome(onFetchStarted(state, startMs), outcome, using, random);
}

const response = (startMs: number, durationMs: number, status = 200, retryAfterAtMs?: number): HostOutcome => ({
  kind: 'response',
  startedAtMs: startMs,
  finishedAtMs: startMs + durationMs,
  status,
  ...(retryAfterAtMs === undefined ? {} : { retryAfterAtMs }),
});

describe('Mercator adaptive delay (docs/design.md, "Politeness")', () => {
  it('200 ms response -> next fetch at least 2 s later', () => {
    const state = fetchOnce(initialHostPolitenessState(T0), response(T0, 200));
    expect(state.nextFetchAtMs).toBe(T0 + 200 + 2000);
    expect(state.lastResponseTimeMs).toBe(200);
  });

  it('5 s response -> next fetch at least 50 s later', () => {
    const state = fetchOnce(initialHostPolitenessState(T0), response(T0, 5000));
    expect(state.nextFetchAtMs).toBe(T0 + 5000 + 50_000);
  });

  it('is capped at maxAdaptiveDelayMs', () => {
    const state = fetchOnce(initialHostPolitenessState(T0), response(T0, 30_000));
    expect(state.nextFetchAtMs).toBe(T0 + 30_000 + 60_000);
  });

  it('a fast response leaves the policy delay in charge', () => {
    const state = fetchOnce(initialHostPolitenessState(T0), response(T0, 20));
    expect(state.nextFetchAtMs).toBe(T0 + 20 + 1000);
  });

  it('Crawl-delay above minDelayMs is honoured as the policy delay', () => {
    const withCrawlDelay = resolveHostPolitenessPolicy({ crawlDelayMs: 7000 });
    const state = fetchOnce(initialHostPolitenessState(T0), response(T0, 20), withCrawlDelay);
    expect(state.nextFetchAtMs).toBe(T0 + 20 + 7000);
  });

  it('a Crawl-delay below minDelayMs cannot make us faster', () => {
    const state = fetchOnce(initialHostPolitenessState(T0), response(T0, 20), resolveHostPolitenessPolicy({ crawlDelayMs: 100 }));
    expect(state.nextFetchAtMs).toBe(T0 + 20 + 1000);
  });
});

describe('next_fetch_at = max(now + policy, retry_after_at, now + adaptive), absolute (docs/design.md, "Politeness")', () => {
  it('takes the policy term when it is largest', () => {
    expect(fetchOnce(initialHostPolitenessState(T0), response(T0, 50)).nextFetchAtMs).toBe(T0 + 50 + 1000);
  });

  it('takes the adaptive term when it is largest', () => {
    expect(fetchOnce(initialHostPolitenessState(T0), response(T0, 300)).nextFetchAtMs).toBe(T0 + 300 + 3000);
  });

  it('takes retry_after_at when it is largest, as an absolute time not a duration', () => {
    const retryAfterAtMs = T0 + 90_000;
    const state = fetchOnce(initialHostPolitenessState(T0), response(T0, 300, 429, retryAfterAtMs));
    expect(state.retryAfterAtMs).toBe(retryAfterAtMs);
    expect(state.nextFetchAtMs).toBe(retryAfterAtMs);
  });

  it('a Retry-After already in the past adds nothing beyond the other terms', () => {
    const state = fetchOnce(initialHostPolitenessState(T0), response(T0, 300, 503, T0 + 300));
    // one overload signal: max(3000, 1000) * 2 = 6000 ms adaptive
    expect(state.nextFetchAtMs).toBe(T0 + 300 + 6000);
  });

  it('measures now from finishedAtMs, not startedAtMs', () => {
    const state = fetchOnce(initialHostPolitenessState(T0), response(T0 + 10_000, 100));
    expect(state.nextFetchAtMs).toBe(T0 + 10_100 + 1000);
  });

  it('never moves next_fetch_at earlier (property over random outcome sequences)', () => {
    const outcomeArb = fc.record({
      gapMs: fc.integer({ min: 0, max: 120_000 }),
      durationMs: fc.integer({ min: 0, max: 40_000 }),
      status: fc.constantFrom(200, 204, 301, 304, 404, 408, 429, 500, 503),
      retryAfterMs: fc.option(fc.integer({ min: 0, max: 3_600_000 }), { nil: undefined }),
    });
    fc.assert(
      fc.property(fc.array(outcomeArb, { minLength: 1, maxLength: 30 }), fc.double({ min: 0, max: 1, maxExcluded: true, noNaN: true }), (outcomes, draw) => {
        let state = initialHostPolitenessState(T0);
        for (const { gapMs, durationMs, status, retryAfterMs } of outcomes) {
          const startMs = nextFetchAtMs(state, T0) + gapMs;
          expect(canStartFetch(state, policy, startMs)).toBe(true);
          const before = nextFetchAtMs(state, startMs);
          state = fetchOnce(state, response(startMs, durationMs, status, retryAfterMs === undefined ? undefined : startMs + durationMs + retryAfterMs), policy, () => draw);
          const finishedMs = startMs + durationMs;
          expect(state.nextFetchAtMs).toBeGreaterThanOrEqual(before);
          // Politeness floor: never sooner than the policy delay after a finish.
          expect(nextFetchAtMs(state, finishedMs)).toBeGreaterThanOrEqual(finishedMs + policy.minDelayMs);
          expect(state.inFlight).toBe(0);
        }
      }),
    );
  });
});

describe('429 and 503', () => {
  it('429 with Retry-After delays the whole host until that time', () => {
    const state = fetchOnce(initialHostPolitenessState(T0), response(T0, 10, 429, T0 + 600_000));
    expect(canStartFetch(state, policy, T0 + 599_999)).toBe(false);
    expect(canStartFetch(state, policy, T0 + 600_000)).toBe(true);
  });

  it('429 without Retry-After: min(base * 2^(n-1), 1 h) with jitter, growing per throttle', () => {
    let state = initialHostPolitenessState(T0);
    const waits: number[] = [];
    let nowMs = T0;
    for (let index = 0; index < 12; index += 1) {
      state = fetchOnce(state, response(nowMs, 0, 429));
      waits.push(state.retryAfterAtMs - nowMs);
      nowMs = nextFetchAtMs(state, nowMs);
    }
    expect(waits.slice(0, 5)).toEqual([10_000, 20_000, 40_000, 80_000, 160_000]);
    expect(Math.max(...waits)).toBe(3_600_000);
    expect(state.recentThrottles).toBe(MAX_RECENT_THROTTLES);
  });

  it('429 backoff jitter stays in 0.5..1.5 of the backoff', () => {
    const low = fetchOnce(initialHostPolitenessState(T0), response(T0, 0, 429), policy, () => 0);
    const high = fetchOnce(initialHostPolitenessState(T0), response(T0, 0, 429), policy, () => 0.999_999);
    expect(low.retryAfterAtMs - T0).toBe(5000);
    expect(high.retryAfterAtMs - T0).toBe(15_000);
  });

  it('503 without Retry-After also throttles the host', () => {
    const state = fetchOnce(initialHostPolitenessState(T0), response(T0, 0, 503));
    expect(state.retryAfterAtMs).toBe(T0 + 10_000);
  });

  it('Retry-After on a healthy response is not honoured', () => {
    const state = fetchOnce(initialHostPolitenessState(T0), response(T0, 0, 200, T0 + 3_600_000));
    expect(state.retryAfterAtMs).toBe(0);
    expect(state.nextFetchAtMs).toBe(T0 + 1000);
  });

  it('overload signals grow the adaptive delay; healthy responses decay it step by step', () => {
    let state = initialHostPolitenessState(T0);
    state = fetchOnce(state, response(T0, 100, 429, T0 + 100));
    state = fetchOnce(state, response(T0 + 10_000, 100, 429, T0 + 10_100));
    expect(state.recentThrottles).toBe(2);
    expect(adaptiveDelayMs(state, policy)).toBe(4000); // max(100 ms * 10, 1000 ms policy) * 2^2
    state = fetchOnce(state, response(T0 + 20_000, 100));
    expect(state.recentThrottles).toBe(1);
    expect(adaptiveDelayMs(state, policy)).toBe(2000);
    state = fetchOnce(state, response(T0 + 30_000, 100));
    expect(state.recentThrottles).toBe(0);
    expect(adaptiveDelayMs(state, policy)).toBe(1000);
  });

  it('timeouts count as overload signals and raise the measured response time', () => {
    let state = fetchOnce(initialHostPolitenessState(T0), response(T0, 200));
    state = fetchOnce(state, { kind: 'transport-failure', startedAtMs: T0 + 5000, finishedAtMs: T0 + 35_000, type: 'FirstByteTimeout' });
    expect(state.recentThrottles).toBe(1);
    expect(state.lastResponseTimeMs).toBe(30_000);
    expect(state.nextFetchAtMs).toBe(T0 + 35_000 + 60_000);
  });

  it('a quick transport failure does not lower the measured response time', () => {
    let state = fetchOnce(initialHostPolitenessState(T0), response(T0, 4000));
    state = fetchOnce(state, { kind: 'transport-failure', startedAtMs: T0 + 50_000, finishedAtMs: T0 + 50_001, type: 'ConnectionFailed' });
    expect(state.lastResponseTimeMs).toBe(4000);
  });
});

describe("the host's response time: the least of its recent ones (our loop's lag only adds)", () => {
  /** A response whose measured download time (responseMs) differs from its elapsed time. */
  const measured = (startMs: number, responseMs: number): Extract<HostOutcome, { kind: 'response' }> => ({ kind: 'response', startedAtMs: startMs, finishedAtMs: startMs + responseMs + 40, status: 200, responseMs });

  it('counts the download time (request to last byte), not the time our sink took after it', () => {
    const state = fetchOnce(initialHostPolitenessState(T0), measured(T0, 200));
    expect(state.lastResponseTimeMs).toBe(200);
    expect(state.nextFetchAtMs).toBe(T0 + 240 + 2000);
  });

  it('without a measured download time, counts the last start to finish alone, as before (histories replay)', () => {
    let state = fetchOnce(initialHostPolitenessState(T0), response(T0, 150));
    expect(state.recentResponseTimesMs).toBeUndefined();
    expect(hostResponseTimeMs(state)).toBe(150);
    state = fetchOnce(state, response(T0 + 2000, 400));
    expect(hostResponseTimeMs(state)).toBe(400);
    // A failure then counts as it did: the larger of the last and its elapsed time.
    state = fetchOnce(state, { kind: 'transport-failure', startedAtMs: T0 + 9000, finishedAtMs: T0 + 9100, type: 'ConnectionFailed' });
    expect(state.recentResponseTimesMs).toBeUndefined();
    expect(hostResponseTimeMs(state)).toBe(400);
  });

  it('an outcome without a download time after measured ones counts alone again', () => {
    let state = fetchOnce(initialHostPolitenessState(T0), measured(T0, 20));
    state = fetchOnce(state, response(T0 + 2000, 300));
    expect(hostResponseTimeMs(state)).toBe(300);
  });

  it('one slow measurement among fast ones does not slow the host down', () => {
    let state = fetchOnce(initialHostPolitenessState(T0), measured(T0, 20));
    state = fetchOnce(state, measured(T0 + 2000, 150));
    expect(state.lastResponseTimeMs).toBe(150);
    expect(hostResponseTimeMs(state)).toBe(20);
    expect(adaptiveDelayMs(state, policy)).toBe(200);
    expect(state.nextFetchAtMs).toBe(T0 + 2000 + 190 + 1000);
  });

  it(`a host that stays slow for ${RESPONSE_TIME_WINDOW} responses gets the Mercator delay for its new time`, () => {
    let state = fetchOnce(initialHostPolitenessState(T0), measured(T0, 20));
    for (let i = 1; i <= RESPONSE_TIME_WINDOW; i++) {
      state = fetchOnce(state, measured(T0 + i * 10_000, 500));
      expect(hostResponseTimeMs(state)).toBe(i < RESPONSE_TIME_WINDOW ? 20 : 500);
    }
    expect(state.recentResponseTimesMs).toHaveLength(RESPONSE_TIME_WINDOW);
    expect(adaptiveDelayMs(state, policy)).toBe(5000);
  });

  it('a host that speeds up gets the shorter delay at once', () => {
    let state = fetchOnce(initialHostPolitenessState(T0), measured(T0, 500));
    expect(adaptiveDelayMs(state, policy)).toBe(5000);
    state = fetchOnce(state, measured(T0 + 10_000, 30));
    expect(adaptiveDelayMs(state, policy)).toBe(300);
  });

  it("a timeout's lower bound counts at once, above the recent fast responses", () => {
    let state = fetchOnce(initialHostPolitenessState(T0), measured(T0, 20));
    state = fetchOnce(state, measured(T0 + 1000, 25));
    state = fetchOnce(state, { kind: 'transport-failure', startedAtMs: T0 + 5000, finishedAtMs: T0 + 15_000, type: 'FirstByteTimeout' });
    expect(hostResponseTimeMs(state)).toBe(10_000);
    expect(state.recentResponseTimesMs).toEqual([10_000]);
  });

  it('a state saved before the window existed uses its last response time', () => {
    const { recentResponseTimesMs: _dropped, ...old } = fetchOnce(initialHostPolitenessState(T0), measured(T0, 300));
    expect(hostResponseTimeMs(old)).toBe(300);
    expect(adaptiveDelayMs(old, policy)).toBe(3000);
  });

  it('refuses a download time that is not a duration, naming it', () => {
    const start = onFetchStarted(initialHostPolitenessState(T0), T0);
    for (const bad of [-1, Number.NaN, Number.POSITIVE_INFINITY]) {
      expect(() => applyHostOutcome(start, { ...measured(T0, 10), responseMs: bad }, policy, neutral)).toThrow(/outcome\.responseMs/);
    }
  });
});

describe('circuit breaker', () => {
  const failAt = (state: HostPolitenessState, startMs: number, status = 500) => fetchOnce(state, response(startMs, 10, status));

  it('opens after circuitFailureThreshold consecutive cooldown failures, not before', () => {
    let state = initialHostPolitenessState(T0);
    for (let index = 0; index < 4; index += 1) {
      state = failAt(state, nextFetchAtMs(state, T0));
      expect(circuitStateAt(state, policy, state.nextFetchAtMs)).toBe('closed');
    }
    const fifthAt = nextFetchAtMs(state, T0);
    state = failAt(state, fifthAt);
    expect(state.circuitOpenUntilMs).toBe(fifthAt + 10 + 300_000);
    expect(circuitStateAt(state, policy, fifthAt + 10)).toBe('open');
    expect(canStartFetch(state, policy, fifthAt + 10 + 299_999)).toBe(false);
    expect(nextFetchAtMs(state, fifthAt)).toBe(state.circuitOpenUntilMs);
  });

  it('goes half-open after the cooldown, reopens for twice as long on a failed probe, closes on success', () => {
    const tight = resolveHostPolitenessPolicy({ circuitFailureThreshold: 2 });
    let state = initialHostPolitenessState(T0);
    state = fetchOnce(state, response(T0, 0, 502), tight);
    state = fetchOnce(state, response(nextFetchAtMs(state, T0), 0, 504), tight);
    const firstOpenUntil = state.circuitOpenUntilMs;
    expect(circuitStateAt(state, tight, firstOpenUntil)).toBe('half-open');
    expect(canStartFetch(state, tight, firstOpenUntil)).toBe(true);

    state = fetchOnce(state, { kind: 'transport-failure', startedAtMs: firstOpenUntil, finishedAtMs: firstOpenUntil, type: 'ConnectTimeout' }, tight);
    expect(state.circuitOpenings).toBe(2);
    expect(state.circuitOpenUntilMs).toBe(firstOpenUntil + 600_000);

    const probeAt = state.circuitOpenUntilMs;
    state = fetchOnce(state, response(probeAt, 50), tight);
    expect(circuitStateAt(state, tight, probeAt + 50)).toBe('closed');
    expect(state.consecutiveFailures).toBe(0);
    expect(state.circuitOpenings).toBe(0);
  });

  it('caps the doubled cooldown at maxCircuitCooldownMs', () => {
    const tight = resolveHostPolitenessPolicy({ circuitFailureThreshold: 1, circuitCooldownMs: 1000, maxCircuitCooldownMs: 5000 });
    let state = initialHostPolitenessState(T0);
    const openFor: number[] = [];
    for (let index = 0; index < 6; index += 1) {
      const atMs = nextFetchAtMs(state, T0);
      state = fetchOnce(state, response(atMs, 0, 500), tight);
      openFor.push(state.circuitOpenUntilMs - atMs);
    }
    expect(openFor).toEqual([1000, 2000, 4000, 5000, 5000, 5000]);
  });

  it('a healthy response (even 404) breaks the streak', () => {
    let state = initialHostPolitenessState(T0);
    for (let index = 0; index < 4; index += 1) state = failAt(state, nextFetchAtMs(state, T0));
    state = fetchOnce(state, response(nextFetchAtMs(state, T0), 10, 404));
    expect(state.consecutiveFailures).toBe(0);
    for (let index = 0; index < 4; index += 1) state = failAt(state, nextFetchAtMs(state, T0));
    expect(circuitStateAt(state, policy, nextFetchAtMs(state, T0))).toBe('closed');
  });

  it('429 slows the host but does not trip the breaker', () => {
    let state = initialHostPolitenessState(T0);
    for (let index = 0; index < 8; index += 1) state = fetchOnce(state, response(nextFetchAtMs(state, T0), 10, 429));
    expect(state.consecutiveFailures).toBe(0);
    expect(state.circuitOpenUntilMs).toBe(0);
  });

  it('neutral failures (body too large) neither break nor extend the streak', () => {
    let state = initialHostPolitenessState(T0);
    for (let index = 0; index < 3; index += 1) state = failAt(state, nextFetchAtMs(state, T0));
    const atMs = nextFetchAtMs(state, T0);
    state = fetchOnce(state, { kind: 'transport-failure', startedAtMs: atMs, finishedAtMs: atMs + 10, type: 'BodyTooLarge' });
    expect(state.consecutiveFailures).toBe(3);
    expect(state.recentThrottles).toBe(3);
  });
});

describe('host holds', () => {
  it('a TLS certificate error quarantines the host for 24 h, then one probe may go', () => {
    const state = fetchOnce(initialHostPolitenessState(T0), { kind: 'transport-failure', startedAtMs: T0, finishedAtMs: T0 + 30, type: 'TlsCertificateError' });
    expect(hostHoldAt(state, T0 + 30)).toEqual({ reason: 'TlsCertificateError', untilMs: T0 + 30 + 86_400_000 });
    expect(canStartFetch(state, policy, T0 + 86_400_000)).toBe(false);
    expect(canStartFetch(state, policy, T0 + 30 + 86_400_000)).toBe(true);
    const probed = fetchOnce(state, response(T0 + 30 + 86_400_000, 10));
    expect(probed.holdReason).toBeUndefined();
    expect(hostHoldAt(probed, T0 + 30 + 86_400_000)).toBeUndefined();
  });

  it('NXDOMAIN negatively caches the host', () => {
    const state = fetchOnce(initialHostPolitenessState(T0), { kind: 'transport-failure', startedAtMs: T0, finishedAtMs: T0, type: 'DnsNotFound' });
    expect(hostHoldAt(state, T0)?.reason).toBe('DnsNotFound');
    expect(nextFetchAtMs(state, T0)).toBe(T0 + 86_400_000);
  });

  it('a private-network refusal quarantines the host', () => {
    const state = fetchOnce(initialHostPolitenessState(T0), { kind: 'transport-failure', startedAtMs: T0, finishedAtMs: T0, type: 'PrivateNetworkRefused' });
    expect(hostHoldAt(state, T0)?.reason).toBe('PrivateNetworkRefused');
  });
});

describe('not-sent outcomes', () => {
  it('release the slot and add no delay', () => {
    const before = initialHostPolitenessState(T0);
    const started = onFetchStarted(before, T0);
    const after = applyHostOutcome(started, { kind: 'not-sent', atMs: T0 }, policy, neutral);
    expect(after).toEqual(before);
  });
});

describe('plain JSON state', () => {
  it('survives a JSON round trip at every step, and behaves the same afterwards', () => {
    let state = initialHostPolitenessState(T0);
    const outcomes: HostOutcome[] = [
      response(T0, 300),
      response(T0 + 10_000, 100, 429, T0 + 70_000),
      { kind: 'transport-failure', startedAtMs: T0 + 80_000, finishedAtMs: T0 + 90_000, type: 'BodyTimeout' },
      { kind: 'transport-failure', startedAtMs: T0 + 200_000, finishedAtMs: T0 + 200_000, type: 'TlsCertificateError' },
    ];
    for (const outcome of outcomes) {
      state = fetchOnce(state, outcome);
      const copy = JSON.parse(JSON.stringify(state)) as HostPolitenessState;
      expect(copy).toStrictEqual(state);
      const probe = response(T0 + 10_000_000, 10, 503);
      expect(fetchOnce(copy, probe)).toStrictEqual(fetchOnce(state, probe));
    }
  });

  it('does not mutate the state it was given', () => {
    const state = initialHostPolitenessState(T0);
    const frozen = Object.freeze({ ...state });
    expect(() => applyHostOutcome(frozen, response(T0, 10, 503), policy, neutral)).not.toThrow();
    expect(frozen).toEqual(state);
  });
});

describe('input errors', () => {
  it('reject NaN times with a typed error naming the field', () => {
    expect(() => applyHostOutcome(initialHostPolitenessState(T0), response(Number.NaN, 10), policy, neutral)).toThrow(
      expect.objectContaining({ code: 'POLITENESS_TIME_INVALID', field: 'outcome.startedAtMs' }),
    );
    expect(() => initialHostPolitenessState(Number.NaN)).toThrow(expect.objectContaining({ code: 'POLITENESS_TIME_INVALID' }));
  });
});
