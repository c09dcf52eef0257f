// The render's pacer of its page's host, on a clock the test moves: requests go one at a time,
// each a host delay after the previous one's end (the page fetch's included), through the same
// arithmetic as a fetch; the host's politeness afterwards is what the workflow takes back.
import { describe, expect, it } from 'vitest';
import { HostTurnPacer } from '../../../src/services/rendering/request-pacers.js';
import { applyHostOutcome, initialHostPolitenessState, onFetchStarted, resolveHostPolitenessPolicy, type HostOutcome } from '../../../src/domain/politeness/index.js';

const T0 = 1_800_000_000_000;

/** A clock that moves only when slept on or told to. */
function fakeClock(startMs: number) {
  let now = startMs;
  return {
    now: () => now,
    sleepMs: async (ms: number) => {
      now += ms;
    },
    advance: (ms: number) => (now += ms),
  };
}

const response = (startedAtMs: number, tookMs: number, status = 200): HostOutcome => ({ kind: 'response', startedAtMs, finishedAtMs: startedAtMs + tookMs, status, responseMs: tookMs });

describe('HostTurnPacer', () => {
  const policy = resolveHostPolitenessPolicy({ minDelayMs: 1000, adaptiveFactor: 0 });

  it("spaces the render's requests by the host delay from each one's end, the page fetch's first", async () => {
    const clock = fakeClock(T0);
    // The page was fetched in the host's turn and ended at T0.
    const afterPage = applyHostOutcome(onFetchStarted(initialHostPolitenessState(T0 - 40), T0 - 40), response(T0 - 40, 40), policy, () => 0.5);
    const pacer = new HostTurnPacer(afterPage, policy, clock);
    const starts: number[] = [];
    const send = async () => {
      const startedAtMs = clock.now();
      starts.push(startedAtMs);
      clock.advance(30);
      return { result: 'ok', outcome: response(startedAtMs, 30) };
    };
    // Asked for at once, as a browser asks for its scripts: they still go one after another.
    await Promise.all([pacer.run(send), pacer.run(send), pacer.run(send)]);
    expect(starts[0]! - T0).toBeGreaterThanOrEqual(1000);
    expect(starts[1]! - (starts[0]! + 30)).toBeGreaterThanOrEqual(1000);
    expect(starts[2]! - (starts[1]! + 30)).toBeGreaterThanOrEqual(1000);
    expect(pacer.requestsStarted).toBe(3);
    // What the host workflow takes back: nothing in flight, the next fetch a delay after the last end.
    expect(pacer.politeness.inFlight).toBe(0);
    expect(pacer.politeness.nextFetchAtMs).toBe(starts[2]! + 30 + 1000);
  });

  it('refuses a request the host asks to wait longer for than a render may, and sends nothing', async () => {
    const clock = fakeClock(T0);
    const throttled = { ...initialHostPolitenessState(T0), retryAfterAtMs: T0 + 60_000 };
    const pacer = new HostTurnPacer(throttled, policy, clock);
    let sent = 0;
    const answer = await pacer.run(async () => {
      sent += 1;
      return { result: 'ok', outcome: response(clock.now(), 10) };
    });
    expect(answer).toMatchObject({ refused: 'politeness-refused' });
    expect(sent).toBe(0);
    expect(pacer.requestsStarted).toBe(0);
  });

  it('counts a 429 like a fetch would: the host is throttled, and the next request refused', async () => {
    const clock = fakeClock(T0);
    const pacer = new HostTurnPacer(initialHostPolitenessState(T0), policy, clock);
    await pacer.run(async () => ({ result: 'ok', outcome: response(clock.now(), 10, 429) }));
    expect(pacer.politeness.retryAfterAtMs).toBeGreaterThan(T0 + 4000);
    expect(await pacer.run(async () => ({ result: 'ok', outcome: response(clock.now(), 10) }))).toMatchObject({ refused: 'politeness-refused' });
  });

  it("takes a robots.txt's Crawl-delay into every later wait", async () => {
    const clock = fakeClock(T0);
    const pacer = new HostTurnPacer(initialHostPolitenessState(T0), policy, clock);
    await pacer.run(async () => {
      // The gate raises it while the robots.txt request is still its turn's, before its outcome counts.
      pacer.raiseCrawlDelay(3000);
      return { result: 'robots', outcome: response(clock.now(), 10) };
    });
    const before = clock.now();
    let startedAtMs = 0;
    await pacer.run(async () => {
      startedAtMs = clock.now();
      return { result: 'ok', outcome: response(startedAtMs, 10) };
    });
    expect(startedAtMs - (T0 + 10)).toBeGreaterThanOrEqual(3000);
    expect(startedAtMs).toBeGreaterThan(before);
  });

  it('gives the slot back, without a delay, when sending fails on our side', async () => {
    const clock = fakeClock(T0);
    const pacer = new HostTurnPacer(initialHostPolitenessState(T0), policy, clock);
    await expect(pacer.run(async () => Promise.reject(new Error('our bug')))).rejects.toThrow('our bug');
    expect(pacer.politeness.inFlight).toBe(0);
    expect(pacer.requestsStarted).toBe(0);
  });
});
