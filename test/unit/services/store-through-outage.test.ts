import { TypedFailure } from '../../../src/domain/failures/index.js';
import { describe, expect, it } from 'vitest';
import { STORAGE_UNAVAILABLE, storeThroughOutage, type StoreOutageHooks } from '../../../src/services/fetching/store-through-outage.js';

/** A fake clock the sleeps advance, and what the hooks saw. */
function hooks(): StoreOutageHooks & { slept: number[]; failures: { sinceMs: number; nextTryAtMs: number }[]; recovered: number; beats: number } {
  let nowMs = 1_000_000;
  const seen = {
    slept: [] as number[],
    failures: [] as { sinceMs: number; nextTryAtMs: number }[],
    recovered: 0,
    beats: 0,
  };
  return Object.assign(seen, {
    nowMs: () => nowMs,
    sleepMs: async (ms: number) => {
      seen.slept.push(ms);
      nowMs += ms;
    },
    heartbeat: () => void (seen.beats += 1),
    onFailure: (_error: unknown, sinceMs: number, nextTryAtMs: number) => void seen.failures.push({ sinceMs, nextTryAtMs }),
    onRecovered: () => void (seen.recovered += 1),
  });
}

/** A store that fails its first `failures` tries. */
function storeFailing(failures: number): { store: () => Promise<string>; tries: () => number } {
  let tries = 0;
  return {
    store: async () => {
      tries += 1;
      if (tries <= failures) throw Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:9000'), { code: 'ECONNREFUSED' });
      return 'stored';
    },
    tries: () => tries,
  };
}

const options = { patienceMs: 60_000, firstRetryDelayMs: 1_000, maxRetryDelayMs: 10_000 };

describe('storeThroughOutage', () => {
  it('stores at once when the store answers, and reports nothing', async () => {
    const seen = hooks();
    const { store, tries } = storeFailing(0);
    await expect(storeThroughOutage('a body', store, options, seen)).resolves.toBe('stored');
    expect(tries()).toBe(1);
    expect(seen.slept).toEqual([]);
    expect(seen.failures).toEqual([]);
    expect(seen.recovered).toBe(0);
  });

  it('tries again with a doubling delay, capped, until the store is back, and says it recovered', async () => {
    const seen = hooks();
    const { store, tries } = storeFailing(6);
    await expect(storeThroughOutage('a body', store, options, seen)).resolves.toBe('stored');
    expect(tries()).toBe(7);
    expect(seen.slept).toEqual([1_000, 2_000, 4_000, 8_000, 10_000, 10_000]);
    expect(seen.failures.every(({ sinceMs }) => sinceMs === 1_000_000)).toBe(true);
    expect(seen.failures.map(({ nextTryAtMs }) => nextTryAtMs - 1_000_000)).toEqual([1_000, 3_000, 7_000, 15_000, 25_000, 35_000]);
    expect(seen.recovered).toBe(1);
    // Before and after each sleep: the activity's heartbeat timeout is shorter than the patience.
    expect(seen.beats).toBe(12);
  });

  it('fails as StorageUnavailable, naming what and why, when the next try would come past the patience', async () => {
    const seen = hooks();
    const { store, tries } = storeFailing(Infinity);
    const failure = await storeThroughOutage('the body of http://a.test/', store, options, seen).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(TypedFailure);
    expect((failure as TypedFailure).type).toBe(STORAGE_UNAVAILABLE);
    expect((failure as TypedFailure).retry).toEqual({ nonRetryable: false });
    expect((failure as Error).message).toMatch(/could not store the body of http:\/\/a\.test\/ in \d+ s of tries \(\d+ tries\): connect ECONNREFUSED/);
    expect((failure as Error).message).toContain('crawler stack up');
    // Tries at 0, 1, 3, 7, 15, 25, 35, 45 and 55 s; the next would come at 65 s, past the 60 s patience.
    expect(seen.slept.reduce((sum, ms) => sum + ms, 0)).toBeLessThanOrEqual(options.patienceMs);
    expect(tries()).toBe(9);
    expect(seen.recovered).toBe(0);
  });
});
