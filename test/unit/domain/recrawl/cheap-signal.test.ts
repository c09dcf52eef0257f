import { describe, expect, it } from 'vitest';
import {
  RecrawlInputError,
  claimConfirmed,
  claimsOf,
  recrawlCandidateOf,
  recrawlPriority,
  signalClaim,
  signalTrustLevel,
  trustedSignal,
  windowOnOurClock,
} from '../../../../src/domain/recrawl/index.js';

const MIN = 60_000;
const HOUR = 3_600_000;
const DAY = 86_400_000;
const VISIT = Date.UTC(2026, 10, 30, 10, 0, 0);
const at = (ms: number) => ({ fromMs: ms, toMs: ms });
/** A date-only lastmod: the whole UTC day. */
const day = (y: number, m: number, d: number) => ({ fromMs: Date.UTC(y, m - 1, d), toMs: Date.UTC(y, m - 1, d) + DAY - 1 });

describe('signalClaim', () => {
  it.each([
    ['a lastmod after the visit', { changedWithin: at(VISIT + 10 * MIN), readAtMs: VISIT + HOUR }, 'changed'],
    ['a lastmod well before the visit, read after it', { changedWithin: at(VISIT - DAY), readAtMs: VISIT + HOUR }, 'unchanged'],
    ['a lastmod within the clock skew of the visit', { changedWithin: at(VISIT + 30_000), readAtMs: VISIT + HOUR }, undefined],
    ['a lastmod just before the visit, within the skew', { changedWithin: at(VISIT - 30_000), readAtMs: VISIT + HOUR }, undefined],
    ['a date-only lastmod of the visit day (the change may be after it)', { changedWithin: day(2026, 11, 30), readAtMs: VISIT + HOUR }, undefined],
    ['a date-only lastmod of the day before', { changedWithin: day(2026, 11, 29), readAtMs: VISIT + HOUR }, 'unchanged'],
    ['a date-only lastmod of the day after', { changedWithin: day(2026, 12, 1), readAtMs: VISIT + DAY }, 'changed'],
    ['an old lastmod read before the visit (it cannot vouch for what came after)', { changedWithin: at(VISIT - DAY), readAtMs: VISIT - HOUR }, undefined],
    ['a lastmod more than a day past its reading (a broken generator)', { changedWithin: at(VISIT + 3 * DAY), readAtMs: VISIT + HOUR }, undefined],
    ['a listing without lastmod', { changedWithin: undefined, readAtMs: VISIT + HOUR }, undefined],
  ] as const)('%s', (_name, reading, expected) => {
    expect(signalClaim(reading, VISIT)).toBe(expected);
  });

  it('says nothing without a reading or without a visit', () => {
    expect(signalClaim(undefined, VISIT)).toBeUndefined();
    expect(signalClaim({ changedWithin: at(VISIT + HOUR), readAtMs: VISIT + 2 * HOUR }, undefined)).toBeUndefined();
  });

  it('honours the tolerances it is given', () => {
    const reading = { changedWithin: at(VISIT + 30_000), readAtMs: VISIT + HOUR };
    expect(signalClaim(reading, VISIT, { clockSkewMs: 10_000 })).toBe('changed');
    const future = { changedWithin: at(VISIT + 3 * DAY), readAtMs: VISIT + HOUR };
    expect(signalClaim(future, VISIT, { maxFutureMs: 7 * DAY })).toBe('changed');
  });

  it('refuses an inverted window and bad options with an error naming them', () => {
    expect(() => signalClaim({ changedWithin: { fromMs: VISIT, toMs: VISIT - 1 }, readAtMs: VISIT }, VISIT)).toThrow(/reading\.changedWithin/);
    expect(() => signalClaim({ changedWithin: at(VISIT), readAtMs: VISIT }, VISIT, { clockSkewMs: -1 })).toThrow(RecrawlInputError);
    expect(() => signalClaim({ changedWithin: at(VISIT), readAtMs: Number.NaN }, VISIT)).toThrow(/readAtMs/);
  });
});

describe('windowOnOurClock', () => {
  it("moves a lastmod onto our clock by the response's Date, widened by what the Date leaves open", () => {
    // The site's clock runs 90 s ahead; it stamped Date (floored to the second) 40 ms into a 120 ms wait.
    const requestStartedAtMs = VISIT + HOUR;
    const serverDateMs = Math.floor((requestStartedAtMs + 40 + 90_000) / 1000) * 1000;
    const moved = windowOnOurClock(at(VISIT + 90_000 + 5_000), { serverDateMs, requestStartedAtMs, firstByteAfterMs: 120 });
    // The true change, 5 s after the visit on our clock, lies in the window; the window is under 1.2 s wide.
    expect(moved.fromMs).toBeLessThanOrEqual(VISIT + 5_000);
    expect(moved.toMs).toBeGreaterThanOrEqual(VISIT + 5_000);
    expect(moved.toMs - moved.fromMs).toBeLessThanOrEqual(1_120);
  });

  it('lets a reading on our clock claim a change seconds after the visit, which the skew allowance hides', () => {
    const reading = { changedWithin: { fromMs: VISIT + 4_000, toMs: VISIT + 5_000 }, readAtMs: VISIT + MIN };
    expect(signalClaim(reading, VISIT)).toBeUndefined();
    expect(signalClaim({ ...reading, onOurClock: true }, VISIT)).toBe('changed');
    const before = { changedWithin: { fromMs: VISIT - 5_000, toMs: VISIT - 4_000 }, readAtMs: VISIT + MIN };
    expect(signalClaim(before, VISIT)).toBeUndefined();
    expect(signalClaim({ ...before, onOurClock: true }, VISIT)).toBe('unchanged');
    // A window that straddles the visit still says nothing.
    expect(signalClaim({ changedWithin: { fromMs: VISIT - 500, toMs: VISIT + 500 }, readAtMs: VISIT + MIN, onOurClock: true }, VISIT)).toBeUndefined();
  });
});

describe('sitemap trust', () => {
  it.each([
    [{ confirmed: 0, refuted: 0 }, 'unknown'],
    [{ confirmed: 2, refuted: 0 }, 'unknown'],
    [{ confirmed: 3, refuted: 0 }, 'trusted'],
    [{ confirmed: 8, refuted: 2 }, 'trusted'],
    [{ confirmed: 7, refuted: 2 }, 'unreliable'],
    [{ confirmed: 0, refuted: 3 }, 'unreliable'],
  ] as const)('%o is %s', (record, level) => {
    expect(signalTrustLevel(record)).toBe(level);
  });

  it('takes its thresholds from options and validates the record', () => {
    expect(signalTrustLevel({ confirmed: 1, refuted: 0 }, { minCheckedClaims: 1 })).toBe('trusted');
    expect(signalTrustLevel({ confirmed: 5, refuted: 5 }, { minAccuracy: 0.5 })).toBe('trusted');
    expect(() => signalTrustLevel({ confirmed: -1, refuted: 0 })).toThrow(/trust\.confirmed/);
    expect(() => signalTrustLevel({ confirmed: 1, refuted: 0 }, { minAccuracy: 2 })).toThrow(/minAccuracy/);
  });

  it("acts on 'changed' unless the origin proved unreliable, on 'unchanged' only once trusted", () => {
    expect(trustedSignal('changed', 'unknown')).toBe('changed');
    expect(trustedSignal('changed', 'trusted')).toBe('changed');
    expect(trustedSignal('changed', 'unreliable')).toBeUndefined();
    expect(trustedSignal('unchanged', 'unknown')).toBeUndefined();
    expect(trustedSignal('unchanged', 'trusted')).toBe('unchanged');
    expect(trustedSignal('unchanged', 'unreliable')).toBeUndefined();
    expect(trustedSignal(undefined, 'trusted')).toBeUndefined();
  });

  it('a claim is confirmed when the verdict agrees', () => {
    expect(claimConfirmed('changed', 'changed')).toBe(true);
    expect(claimConfirmed('changed', 'unchanged')).toBe(false);
    expect(claimConfirmed('unchanged', 'unchanged')).toBe(true);
    expect(claimConfirmed('unchanged', 'changed')).toBe(false);
  });
});

describe('cheap signals in the candidate and its priority', () => {
  const facts = {
    id: 'a'.repeat(32),
    valueTier: 1,
    ratePerDay: 1 / 30,
    lastVisitAtMs: VISIT,
    expectedBytes: 50_000,
    hasValidators: true,
    hostHealth: 1,
    changeStreak: 0,
    nearDuplicate: false,
  };
  const now = VISIT + 2 * DAY;

  it("'changed' makes the visit certain to pay and costs it as a full fetch; 'unchanged' buys nothing", () => {
    const plain = recrawlCandidateOf(facts, now);
    const changed = recrawlCandidateOf({ ...facts, cheapSignal: 'changed' }, now);
    const unchanged = recrawlCandidateOf({ ...facts, cheapSignal: 'unchanged' }, now);
    expect(plain.cheapSignal).toBeUndefined();
    expect(changed.cheapSignal).toBe('changed');
    // A conditional request to a page known to have changed transfers the whole page.
    expect(changed.costUnits).toBeGreaterThan(plain.costUnits);
    expect(unchanged.costUnits).toBeLessThanOrEqual(plain.costUnits);
    expect(recrawlPriority(changed, 7)).toBeGreaterThan(recrawlPriority(plain, 7));
    expect(recrawlPriority(unchanged, 7)).toBe(0);
  });
});

describe('claimsOf', () => {
  it('asks each source about the same visit', () => {
    const digest = 'a'.repeat(64);
    expect(
      claimsOf({ sitemap: { changedWithin: at(VISIT + HOUR), readAtMs: VISIT + 2 * HOUR }, listing: { digest, digestAtVisit: digest, readAtMs: VISIT + HOUR } }, VISIT),
    ).toEqual({ sitemap: 'changed', listing: 'unchanged' });
    expect(claimsOf({}, VISIT)).toEqual({ sitemap: undefined, listing: undefined });
  });
});
