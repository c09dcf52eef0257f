// sleepUntilMs ends by the clock, not by the timer: a timer that fires early (as Node's do on a busy
// event loop, counting from the loop's cached time) is followed by another sleep for the rest.
import { describe, expect, it } from 'vitest';
import { sleepUntilMs, type SleepClock } from '../../../src/services/fetching/sleep-until.js';

/** A fake clock whose sleeps advance it by a given share of what was asked (below 1: early timers). */
function fakeClock(startMs: number, shareOfAsked: number): SleepClock & { slept: number[]; at: () => number } {
  let nowMs = startMs;
  const slept: number[] = [];
  return {
    slept,
    at: () => nowMs,
    nowMs: () => nowMs,
    sleepMs: async (ms) => {
      slept.push(ms);
      nowMs += Math.max(1, Math.floor(ms * shareOfAsked));
    },
  };
}

describe('sleepUntilMs', () => {
  it('sleeps once when the timer is on time', async () => {
    const clock = fakeClock(1_000, 1);
    expect(await sleepUntilMs(1_500, clock)).toBe(500);
    expect(clock.slept).toEqual([500]);
    expect(clock.at()).toBe(1_500);
  });

  it('sleeps the rest again when the timer fires early, until the clock reaches the time', async () => {
    const clock = fakeClock(1_000, 0.99);
    await sleepUntilMs(1_500, clock);
    expect(clock.at()).toBeGreaterThanOrEqual(1_500);
    expect(clock.slept[0]).toBe(500);
    expect(clock.slept[1]).toBe(5);
    expect(clock.slept.length).toBeGreaterThan(2);
  });

  it('sleeps no more once its signal is aborted, even short of the time', async () => {
    const until = new AbortController();
    const clock = fakeClock(1_000, 0.5);
    const sleepMs = clock.sleepMs;
    clock.sleepMs = async (ms) => {
      await sleepMs(ms);
      until.abort();
    };
    expect(await sleepUntilMs(1_500, { ...clock, until: until.signal })).toBe(250);
    expect(clock.slept).toEqual([500]);
    expect(await sleepUntilMs(2_000, { ...clock, until: until.signal })).toBe(0);
  });

  it('does not sleep for a time already reached', async () => {
    const clock = fakeClock(2_000, 1);
    expect(await sleepUntilMs(1_500, clock)).toBe(0);
    expect(await sleepUntilMs(2_000, clock)).toBe(0);
    expect(clock.slept).toEqual([]);
  });

  it('refuses a time that is not a number, naming it', async () => {
    await expect(sleepUntilMs(Number.NaN, fakeClock(0, 1))).rejects.toThrow(/atMs must be a finite time in ms since the epoch, got NaN/);
  });

  it('ends by the real clock with real timers', async () => {
    const atMs = Date.now() + 30;
    await sleepUntilMs(atMs, { nowMs: Date.now, sleepMs: (ms) => new Promise((resolve) => setTimeout(resolve, ms)) });
    expect(Date.now()).toBeGreaterThanOrEqual(atMs);
  });
});
