import { describe, expect, it } from 'vitest';
import {
  DEFAULT_RATE_PRIOR,
  hostHealthScore,
  recrawlCandidateOf,
  recrawlPriority,
  visitCost,
  type KnownUrlFacts,
} from '../../../../src/domain/recrawl/index.js';

const DAY = 86_400_000;
const NOW = 1_000 * DAY;
const facts = (over: Partial<KnownUrlFacts> = {}): KnownUrlFacts => ({
  id: 'a',
  valueTier: 2,
  ratePerDay: 0.5,
  lastVisitAtMs: NOW - 2 * DAY,
  expectedBytes: 100_000,
  hasValidators: false,
  hostHealth: 1,
  changeStreak: 0,
  nearDuplicate: false,
  ...over,
});

describe('recrawlCandidateOf', () => {
  it('takes value from the tier, rate from the record and days since the last visit', () => {
    expect(recrawlCandidateOf(facts(), NOW)).toEqual({ id: 'a', value: 1, ratePerDay: 0.5, daysSinceVisit: 2, costUnits: 1, unchangedCostUnits: 1, changedCostUnits: 1, changeStreak: 0 });
    expect(recrawlCandidateOf(facts({ valueTier: 0 }), NOW).value).toBe(16);
    expect(recrawlCandidateOf(facts({ valueTier: 9 }), NOW).value).toBe(0.25);
    expect(recrawlCandidateOf(facts({ valueTier: 1 }), NOW, { valueTiers: [3, 2] }).value).toBe(2);
  });

  it('demotes a near-duplicate by a quarter of its value, never to nothing', () => {
    const member = recrawlCandidateOf(facts({ nearDuplicate: true }), NOW);
    expect(member.value).toBe(0.25);
    expect(recrawlPriority(member, 4)).toBeCloseTo(recrawlPriority(recrawlCandidateOf(facts(), NOW), 4) / 4, 12);
  });

  it('prices a conditional request by the chance of a 304, and a sick host higher', () => {
    const plain = recrawlCandidateOf(facts(), NOW);
    const conditional = recrawlCandidateOf(facts({ hasValidators: true }), NOW);
    expect(conditional.costUnits).toBeLessThan(plain.costUnits);
    const p = 1 - Math.exp(-0.5 * 2);
    expect(conditional.costUnits).toBeCloseTo(visitCost({ expectedBytes: 100_000, conditional: true, hostHealth: 1, probabilityChanged: p }), 12);
    expect(recrawlCandidateOf(facts({ hostHealth: 0 }), NOW).costUnits).toBeCloseTo(5 * plain.costUnits, 12);
  });

  it('prices the visit that finds the page unchanged (a 304) and the one that finds it changed, for the allocation', () => {
    const conditional = recrawlCandidateOf(facts({ hasValidators: true, expectedBytes: 500_000 }), NOW);
    expect(conditional.unchangedCostUnits).toBeCloseTo(visitCost({ expectedBytes: 500_000, conditional: true, hostHealth: 1, probabilityChanged: 0 }), 12);
    expect(conditional.changedCostUnits).toBeCloseTo(5, 12);
    const plain = recrawlCandidateOf(facts({ expectedBytes: 500_000 }), NOW);
    expect(plain.unchangedCostUnits).toBeCloseTo(5, 12);
  });

  it('prices by the bytes the last full exchange measured on the wire when known, and by the host’s own validators and 304s', () => {
    const measured = recrawlCandidateOf(facts({ expectedBytes: 500_000, lastTransferBytes: 120_000 }), NOW);
    expect(measured.changedCostUnits).toBeCloseTo(1.2, 12);
    // A host whose 304s cost 3 KB, and one that ignores its validators half the time.
    const heavy304 = recrawlCandidateOf(facts({ hasValidators: true, lastTransferBytes: 200_000, hostNotModifiedBytes: 3_000 }), NOW);
    expect(heavy304.unchangedCostUnits).toBeCloseTo(visitCost({ expectedBytes: 200_000, conditional: true, hostHealth: 1, probabilityChanged: 0, notModifiedBytes: 3_000 }), 12);
    expect(heavy304.unchangedCostUnits).toBeCloseTo(0.1, 12);
    const ignoring = recrawlCandidateOf(facts({ hasValidators: true, lastTransferBytes: 200_000, hostValidatorHonourRate: 0.5, hostNotModifiedBytes: 1_000 }), NOW);
    expect(ignoring.unchangedCostUnits).toBeCloseTo((0.5 * 1_000 + 0.5 * 200_000) / 100_000, 12);
    expect(ignoring.changedCostUnits).toBeCloseTo(2, 12);
    // A host that never honours them costs a full page whether or not the page changed.
    const never = recrawlCandidateOf(facts({ hasValidators: true, lastTransferBytes: 200_000, hostValidatorHonourRate: 0 }), NOW);
    expect(never.unchangedCostUnits).toBeCloseTo(never.changedCostUnits!, 12);
  });

  it('under a per-request model, prices every visit alike: validators save nothing', () => {
    const options = { cost: { unit: 'requests' as const } };
    const small = recrawlCandidateOf(facts({ hasValidators: true, lastTransferBytes: 2_000 }), NOW, options);
    const large = recrawlCandidateOf(facts({ lastTransferBytes: 2_000_000 }), NOW, options);
    expect([small.costUnits, small.unchangedCostUnits, small.changedCostUnits, large.costUnits]).toEqual([1, 1, 1, 1]);
    expect(recrawlCandidateOf(facts({ hostHealth: 0.5 }), NOW, options).costUnits).toBeCloseTo(3, 12);
  });

  it('keeps a streak of changes from making a page with a dated rate a probe candidate', () => {
    expect(recrawlCandidateOf(facts({ changeStreak: 4 }), NOW).changeStreak).toBe(4);
    expect(recrawlCandidateOf(facts({ changeStreak: 4, rateDated: true }), NOW).changeStreak).toBe(0);
  });

  it('assumes the default prior and a month for a page with no history', () => {
    const unknown = recrawlCandidateOf(facts({ ratePerDay: null, lastVisitAtMs: null, expectedBytes: null }), NOW);
    expect(unknown).toMatchObject({ ratePerDay: DEFAULT_RATE_PRIOR.ratePerDay, daysSinceVisit: 30, costUnits: 1 });
  });

  it('rejects empty tiers and bad facts with stable codes', () => {
    expect(() => recrawlCandidateOf(facts(), NOW, { valueTiers: [] })).toThrow(expect.objectContaining({ code: 'RECRAWL_OPTIONS_INVALID' }));
    expect(() => recrawlCandidateOf(facts({ valueTier: -1 }), NOW)).toThrow(expect.objectContaining({ code: 'RECRAWL_CANDIDATE_INVALID' }));
  });
});

describe('hostHealthScore', () => {
  it('is 1 for an unknown or untroubled host', () => {
    expect(hostHealthScore(undefined, NOW)).toBe(1);
    expect(hostHealthScore({ recentThrottles: 0, consecutiveFailures: 0 }, NOW)).toBe(1);
  });

  it('loses a tenth per recent throttle and halves per failure in a row', () => {
    expect(hostHealthScore({ recentThrottles: 3 }, NOW)).toBeCloseTo(0.7, 12);
    expect(hostHealthScore({ recentThrottles: 3, consecutiveFailures: 2 }, NOW)).toBeCloseTo(0.175, 12);
    expect(hostHealthScore({ recentThrottles: 50 }, NOW)).toBe(0);
  });

  it('is 0 while the host is quarantined, held or its circuit is open, and recovers after', () => {
    expect(hostHealthScore({ quarantined: true }, NOW)).toBe(0);
    expect(hostHealthScore({ holdUntilMs: NOW + 1 }, NOW)).toBe(0);
    expect(hostHealthScore({ circuitOpenUntilMs: NOW + 1 }, NOW)).toBe(0);
    expect(hostHealthScore({ circuitOpenUntilMs: NOW - 1, holdUntilMs: NOW - 1 }, NOW)).toBe(1);
  });
});
