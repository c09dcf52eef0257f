import { describe, expect, it } from 'vitest';
import {
  DEFAULT_FETCH_BURST_LIMITS,
  DEFAULT_HOST_POLITENESS_POLICY,
  burstMayExtend,
  burstRetriesAfterRobots,
  withCrawlDelay,
  PolitenessInputError,
  applyHostOutcome,
  burstWaitMs,
  fetchBurstSize,
  initialHostPolitenessState,
  onFetchStarted,
  resolveHostPolitenessPolicy,
  type FetchBurstLimits,
  type HostPolitenessState,
} from '../../../../src/domain/politeness/index.js';

const T0 = 1_700_000_000_000;
const neutral = () => 0.5;
const LIMITS: FetchBurstLimits = { maxHostDelayMs: 1000, maxPaceWaitMs: 3000, maxUrls: 10, maxSpanMs: 5000 };

describe('fetchBurstSize', () => {
  it.each([
    // [minDelayMs, crawlDelayMs, slots, readyUrls, expected, why]
    [250, undefined, 1, 25, 10, 'a short delay: as many as maxUrls'],
    [250, undefined, 1, 3, 3, 'never more than are ready'],
    [250, undefined, 1, 1, 1, 'one ready URL is no burst'],
    [250, undefined, 1, 0, 1, 'nothing ready: still 1, the caller fetches nothing'],
    [1000, undefined, 1, 25, 6, 'the span bounds it: 1 + floor(5000 / 1000)'],
    [1001, undefined, 1, 25, 1, 'a delay above maxHostDelayMs: one URL per activity'],
    [250, 2000, 1, 25, 1, "robots' Crawl-delay counts as the delay"],
    [250, 500, 1, 25, 10, 'a Crawl-delay within the limit'],
    [0, undefined, 1, 25, 10, 'no delay at all: maxUrls'],
    [250, undefined, 2, 25, 1, 'several slots per host overlap requests instead'],
    [250, undefined, 1, 7.9, 7, 'a fractional count is floored'],
  ] as const)('delay %i ms, Crawl-delay %s, %i slot(s), %d ready: %i (%s)', (minDelayMs, crawlDelayMs, slots, ready, expected, _why) => {
    const policy = resolveHostPolitenessPolicy({ minDelayMs, maxConcurrentFetches: slots, ...(crawlDelayMs === undefined ? {} : { crawlDelayMs }) });
    expect(fetchBurstSize(policy, ready, LIMITS)).toBe(expected);
  });

  it('uses the documented defaults when no limits are given', () => {
    expect(DEFAULT_FETCH_BURST_LIMITS).toEqual({ maxHostDelayMs: 1000, maxPaceWaitMs: 4000, maxUrls: 20, maxSpanMs: 10_000 });
    // Below the burst activity's first retry interval (5 s, host-workflow.ts): a retried burst comes later than any wait it skipped.
    expect(DEFAULT_FETCH_BURST_LIMITS.maxPaceWaitMs).toBeLessThan(5000);
    expect(fetchBurstSize(resolveHostPolitenessPolicy({ minDelayMs: 250 }), 100)).toBe(20);
    // 41 starts fit 10 s at 250 ms, but maxUrls says 20; at 600 ms the span says 1 + 16.
    expect(fetchBurstSize(resolveHostPolitenessPolicy({ minDelayMs: 600 }), 100)).toBe(17);
  });

  it('maxUrls 1 turns bursts off', () => {
    expect(fetchBurstSize(resolveHostPolitenessPolicy({ minDelayMs: 10 }), 100, { ...LIMITS, maxUrls: 1 })).toBe(1);
  });
});

describe('burstWaitMs: the same arithmetic as the workflow, and a burst never waits long', () => {
  const policy = resolveHostPolitenessPolicy({ minDelayMs: 250, adaptiveFactor: 0 });
  const afterResponse = (status: number, finishedAtMs: number, extra: { retryAfterAtMs?: number } = {}): HostPolitenessState => {
    const started = onFetchStarted(initialHostPolitenessState(T0), T0);
    return applyHostOutcome(started, { kind: 'response', startedAtMs: T0, finishedAtMs, status, ...extra }, policy, neutral);
  };

  it('waits the delay from the end of the last response, counted from now', () => {
    const state = afterResponse(200, T0 + 40);
    expect(burstWaitMs(state, policy, T0 + 40, LIMITS)).toBe(250);
    expect(burstWaitMs(state, policy, T0 + 100, LIMITS)).toBe(190);
    expect(burstWaitMs(state, policy, T0 + 290, LIMITS)).toBe(0);
    expect(burstWaitMs(state, policy, T0 + 5000, LIMITS)).toBe(0);
  });

  it('ends the burst when the host asks for more than a short wait: a Retry-After', () => {
    const state = afterResponse(429, T0 + 40, { retryAfterAtMs: T0 + 40 + 2000 });
    expect(burstWaitMs(state, policy, T0 + 40, LIMITS)).toBeUndefined();
    // Once most of it has passed, what is left is short again.
    expect(burstWaitMs(state, policy, T0 + 1100, LIMITS)).toBe(940);
  });

  it('ends the burst on a 503 throttle backoff without Retry-After', () => {
    const state = afterResponse(503, T0 + 40);
    expect(state.retryAfterAtMs).toBeGreaterThan(T0 + 40 + LIMITS.maxHostDelayMs);
    expect(burstWaitMs(state, policy, T0 + 40, LIMITS)).toBeUndefined();
  });

  it("waits out the host's pace (its delay grown by its response times) up to maxPaceWaitMs, then ends (a slow host)", () => {
    const adaptive = resolveHostPolitenessPolicy({ minDelayMs: 250, adaptiveFactor: 10 });
    const started = onFetchStarted(initialHostPolitenessState(T0), T0);
    const quick = applyHostOutcome(started, { kind: 'response', startedAtMs: T0, finishedAtMs: T0 + 50, status: 200 }, adaptive, neutral);
    expect(burstWaitMs(quick, adaptive, T0 + 50, LIMITS)).toBe(500);
    // 150 ms a response: 1.5 s, past maxHostDelayMs but the host's ordinary pace.
    const slower = applyHostOutcome(started, { kind: 'response', startedAtMs: T0, finishedAtMs: T0 + 150, status: 200 }, adaptive, neutral);
    expect(burstWaitMs(slower, adaptive, T0 + 150, LIMITS)).toBe(1500);
    const slow = applyHostOutcome(started, { kind: 'response', startedAtMs: T0, finishedAtMs: T0 + 301, status: 200 }, adaptive, neutral);
    expect(burstWaitMs(slow, adaptive, T0 + 301, LIMITS)).toBeUndefined();
  });

  it('waits no longer than maxHostDelayMs for limits without maxPaceWaitMs (a burst an older release scheduled)', () => {
    const adaptive = resolveHostPolitenessPolicy({ minDelayMs: 250, adaptiveFactor: 10 });
    const started = onFetchStarted(initialHostPolitenessState(T0), T0);
    const slower = applyHostOutcome(started, { kind: 'response', startedAtMs: T0, finishedAtMs: T0 + 150, status: 200 }, adaptive, neutral);
    const older = { maxHostDelayMs: 1000, maxUrls: 10, maxSpanMs: 5000 } as FetchBurstLimits;
    expect(burstWaitMs(slower, adaptive, T0 + 150, older)).toBeUndefined();
    expect(burstWaitMs(slower, adaptive, T0 + 700, older)).toBe(950);
  });

  it('waits no longer than maxHostDelayMs once the host signalled overload, whatever its pace', () => {
    const adaptive = resolveHostPolitenessPolicy({ minDelayMs: 250, adaptiveFactor: 10 });
    const started = onFetchStarted(initialHostPolitenessState(T0), T0);
    const slower = applyHostOutcome(started, { kind: 'response', startedAtMs: T0, finishedAtMs: T0 + 150, status: 200 }, adaptive, neutral);
    expect(burstWaitMs({ ...slower, recentThrottles: 1 }, adaptive, T0 + 150, LIMITS)).toBeUndefined();
    expect(burstWaitMs({ ...slower, recentThrottles: 1 }, adaptive, T0 + 700, LIMITS)).toBe(950);
  });

  it('never starts a request beside one in flight', () => {
    const state = onFetchStarted(initialHostPolitenessState(T0), T0);
    expect(burstWaitMs(state, policy, T0 + 10_000, LIMITS)).toBeUndefined();
  });

  it('never probes a half-open circuit or a held host', () => {
    const circuit = resolveHostPolitenessPolicy({ minDelayMs: 250, adaptiveFactor: 0, circuitFailureThreshold: 1, circuitCooldownMs: 500 });
    const started = onFetchStarted(initialHostPolitenessState(T0), T0);
    const open = applyHostOutcome(started, { kind: 'transport-failure', startedAtMs: T0, finishedAtMs: T0 + 10, type: 'ConnectionFailed' }, circuit, neutral);
    // Open for 500 ms: a wait within the limit, but the request after it would be the probe.
    expect(burstWaitMs(open, circuit, T0 + 10, LIMITS)).toBeUndefined();
    const held = applyHostOutcome(started, { kind: 'transport-failure', startedAtMs: T0, finishedAtMs: T0 + 10, type: 'DnsNotFound' }, policy, neutral);
    expect(burstWaitMs(held, policy, T0 + 10, LIMITS)).toBeUndefined();
  });

  it('rejects a time that is not one, naming it', () => {
    expect(() => burstWaitMs(initialHostPolitenessState(T0), policy, Number.NaN, LIMITS)).toThrow(PolitenessInputError);
    expect(() => burstWaitMs(initialHostPolitenessState(T0), policy, Number.NaN, LIMITS)).toThrow(/nowMs/);
  });
});

describe('the burst decisions around its requests', () => {
  const policy = { ...DEFAULT_HOST_POLITENESS_POLICY, minDelayMs: 250 };
  const limits = { ...DEFAULT_FETCH_BURST_LIMITS, maxSpanMs: 10_000, maxHostDelayMs: 1000 };

  it('withCrawlDelay: a refreshed Crawl-delay raises the delay, never lowers it', () => {
    expect(withCrawlDelay(policy, undefined)).toBe(policy);
    expect(withCrawlDelay(policy, 2000).crawlDelayMs).toBe(2000);
    expect(withCrawlDelay({ ...policy, crawlDelayMs: 3000 }, 2000).crawlDelayMs).toBe(3000);
  });

  it('burstMayExtend: room for more URLs and more span left than one delay', () => {
    const nowMs = 1_000_000;
    expect(burstMayExtend({ roomUrls: 5, firstRequestAtMs: nowMs - 1000, nowMs }, policy, limits)).toBe(true);
    expect(burstMayExtend({ roomUrls: 0, firstRequestAtMs: nowMs - 1000, nowMs }, policy, limits)).toBe(false);
    expect(burstMayExtend({ roomUrls: 5, firstRequestAtMs: undefined, nowMs }, policy, limits)).toBe(false);
    expect(burstMayExtend({ roomUrls: 5, firstRequestAtMs: nowMs - 9750, nowMs }, policy, limits)).toBe(false);
    expect(burstMayExtend({ roomUrls: 5, firstRequestAtMs: nowMs - 9749, nowMs }, policy, limits)).toBe(true);
  });

  it('burstRetriesAfterRobots: a readable file whose delay still fits a burst', () => {
    expect(burstRetriesAfterRobots({ readable: true }, policy, limits)).toBe(true);
    expect(burstRetriesAfterRobots({ readable: false }, policy, limits)).toBe(false);
    expect(burstRetriesAfterRobots({ readable: true }, withCrawlDelay(policy, 1000), limits)).toBe(true);
    expect(burstRetriesAfterRobots({ readable: true }, withCrawlDelay(policy, 1001), limits)).toBe(false);
  });
});
