import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import {
  EMPTY_CHANGE_EVIDENCE,
  RecrawlInputError,
  changeKey,
  estimateChangeRate,
  nextRecrawlDelayDays,
  allottedRevisitDelayDays,
  observeVisit,
  type UrlChangeEvidence,
  type VisitContent,
} from '../../../../src/domain/recrawl/index.js';

const DAY = 86_400_000;
const key = (text: string, scheme = 'n1'): VisitContent => ({ kind: 'content', changeKey: changeKey(scheme, Buffer.from(text).toString('hex')) });

describe('observeVisit', () => {
  it('takes the first visit as a baseline: nothing to compare yet', () => {
    const first = observeVisit(EMPTY_CHANGE_EVIDENCE, 10 * DAY, key('a'));
    expect(first.verdict).toBe('baseline');
    expect(first.observation).toBeUndefined();
    expect(first.evidence).toMatchObject({ lastObservedAtMs: 10 * DAY, lastChangeKey: `n1:${Buffer.from('a').toString('hex')}`, observations: 0, changes: 0 });
  });

  it('compares change keys: a different key is a change, the interval since the last visit is recorded', () => {
    const first = observeVisit(EMPTY_CHANGE_EVIDENCE, 0, key('a')).evidence;
    const same = observeVisit(first, 2 * DAY, key('a'));
    expect(same.verdict).toBe('unchanged');
    expect(same.observation).toEqual({ intervalDays: 2, changed: false });
    const changed = observeVisit(same.evidence, 3 * DAY, key('b'));
    expect(changed.verdict).toBe('changed');
    expect(changed.observation).toEqual({ intervalDays: 1, changed: true });
    expect(changed.evidence).toMatchObject({ observations: 2, changes: 1, observedDays: 3, changeStreak: 1, lastChangedAtMs: 3 * DAY });
  });

  it('counts a 304 as unchanged and keeps the last content key', () => {
    const first = observeVisit(EMPTY_CHANGE_EVIDENCE, 0, key('a')).evidence;
    const notModified = observeVisit(first, DAY / 2, { kind: 'not-modified' });
    expect(notModified.verdict).toBe('unchanged');
    expect(notModified.evidence.lastChangeKey).toBe(first.lastChangeKey);
    // ... and a later body with the same content is still unchanged.
    expect(observeVisit(notModified.evidence, DAY, key('a')).verdict).toBe('unchanged');
  });

  it('never compares keys of different schemes (a parser upgrade is not a change)', () => {
    const first = observeVisit(EMPTY_CHANGE_EVIDENCE, 0, key('a', 'n1')).evidence;
    const upgraded = observeVisit(first, DAY, key('a', 'n2'));
    expect(upgraded.verdict).toBe('baseline');
    expect(upgraded.evidence.observations).toBe(0);
    expect(upgraded.evidence.lastChangeKey).toMatch(/^n2:/);
  });

  it('ignores a report that is not after the last observation (late or replayed)', () => {
    const first = observeVisit(EMPTY_CHANGE_EVIDENCE, 5 * DAY, key('a')).evidence;
    const late = observeVisit(first, 4 * DAY, key('b'));
    expect(late.verdict).toBe('stale');
    expect(late.evidence).toBe(first);
  });

  it('resets the streak on an unchanged visit', () => {
    let evidence: UrlChangeEvidence = observeVisit(EMPTY_CHANGE_EVIDENCE, 0, key('0')).evidence;
    for (let i = 1; i <= 3; i += 1) evidence = observeVisit(evidence, i * DAY, key(String(i))).evidence;
    expect(evidence.changeStreak).toBe(3);
    evidence = observeVisit(evidence, 4 * DAY, { kind: 'not-modified' }).evidence;
    expect(evidence.changeStreak).toBe(0);
    expect(evidence).toMatchObject({ observations: 4, changes: 3, observedDays: 4 });
  });

  it("dates a change by the version's age when its Last-Modified falls after the previous visit, and keeps the record of checks", () => {
    const first = observeVisit(EMPTY_CHANGE_EVIDENCE, 0, key('a'), 3 * DAY);
    expect(first.baselineVersionAgeDays).toBe(3);
    const changed = observeVisit(first.evidence, 2 * DAY, key('b'), DAY / 4);
    expect(changed.observation).toEqual({ intervalDays: 2, changed: true, versionAgeDays: 0.25 });
    expect(changed.evidence.versionDateChecks).toEqual({ confirmed: 1, refuted: 0 });
    // A date that did not move although the content did: not dated, and held against the URL.
    const stuck = observeVisit(changed.evidence, 3 * DAY, key('c'), DAY + DAY / 4);
    expect(stuck.observation).toEqual({ intervalDays: 1, changed: true });
    expect(stuck.evidence.versionDateChecks).toEqual({ confirmed: 1, refuted: 1 });
    // A 304 is the server's own comparison: nothing to check.
    expect(observeVisit(stuck.evidence, 4 * DAY, { kind: 'not-modified' }, 0).evidence.versionDateChecks).toEqual({ confirmed: 1, refuted: 1 });
    // Without a date there is nothing to check either.
    expect(observeVisit(stuck.evidence, 4 * DAY, key('c')).evidence.versionDateChecks).toEqual({ confirmed: 1, refuted: 1 });
  });

  it('accumulates evidence that matches the observations it produced (property)', () => {
    fc.assert(
      fc.property(fc.array(fc.record({ gapMs: fc.integer({ min: 1, max: 30 * DAY }), content: fc.integer({ min: 0, max: 3 }), notModified: fc.boolean() }), { minLength: 1, maxLength: 40 }), (visits) => {
        let evidence: UrlChangeEvidence = EMPTY_CHANGE_EVIDENCE;
        let atMs = 0;
        const observations = [];
        for (const visit of visits) {
          atMs += visit.gapMs;
          const result = observeVisit(evidence, atMs, visit.notModified ? { kind: 'not-modified' } : key(String(visit.content)));
          if (result.observation) observations.push(result.observation);
          evidence = result.evidence;
        }
        expect(evidence.observations).toBe(observations.length);
        expect(evidence.changes).toBe(observations.filter((o) => o.changed).length);
        expect(evidence.observedDays).toBeCloseTo(observations.reduce((sum, o) => sum + o.intervalDays, 0), 6);
        // What the URL record keeps is exactly what the estimator needs.
        if (observations.length > 0) expect(estimateChangeRate(observations).changes).toBe(evidence.changes);
      }),
    );
  });
});

describe('changeKey', () => {
  it('joins a scheme and a hex digest, and refuses anything else', () => {
    expect(changeKey('n1', 'ab12')).toBe('n1:ab12');
    expect(() => changeKey('N1', 'ab')).toThrow(RecrawlInputError);
    expect(() => changeKey('r', 'xyz')).toThrow(/hex digest/);
  });
});

describe('nextRecrawlDelayDays', () => {
  it('is due when a change has become as likely as not: ln 2 / rate', () => {
    expect(nextRecrawlDelayDays(1)).toBeCloseTo(Math.LN2, 12);
    expect(nextRecrawlDelayDays(1 / 7)).toBeCloseTo(7 * Math.LN2, 12);
  });

  it('stays within ten minutes and thirty days', () => {
    expect(nextRecrawlDelayDays(10_000)).toBeCloseTo(10 / 1440, 12);
    expect(nextRecrawlDelayDays(0)).toBe(30);
    expect(nextRecrawlDelayDays(0.0001)).toBe(30);
  });

  it('falls as the rate rises (property)', () => {
    fc.assert(
      fc.property(fc.double({ min: 0, max: 1e4, noNaN: true }), fc.double({ min: 0, max: 1e4, noNaN: true }), (a, b) => {
        const [slow, fast] = a <= b ? [a, b] : [b, a];
        expect(nextRecrawlDelayDays(fast)).toBeLessThanOrEqual(nextRecrawlDelayDays(slow));
      }),
    );
  });

  it('rejects bad input with a stable code', () => {
    expect(() => nextRecrawlDelayDays(-1)).toThrow(expect.objectContaining({ code: 'RECRAWL_RATE_INVALID' }));
    expect(() => nextRecrawlDelayDays(1, { dueProbability: 1 })).toThrow(expect.objectContaining({ code: 'RECRAWL_OPTIONS_INVALID' }));
  });
});

describe('allottedRevisitDelayDays', () => {
  it('is the allotted interval within ten minutes and thirty days, and thirty days for a page allotted nothing', () => {
    expect(allottedRevisitDelayDays(0.25)).toBe(4);
    expect(allottedRevisitDelayDays(1000)).toBeCloseTo(10 / 1440, 12);
    expect(allottedRevisitDelayDays(0.001)).toBe(30);
    expect(allottedRevisitDelayDays(0)).toBe(30);
    expect(allottedRevisitDelayDays(0, { maxDays: 60 })).toBe(60);
    expect(() => allottedRevisitDelayDays(-1)).toThrow(expect.objectContaining({ code: 'RECRAWL_RATE_INVALID' }));
  });
});
