import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { allocateVisitFrequencies, planRecrawlCycle, type RecrawlCandidate } from '../../../../src/domain/recrawl/index.js';
import { seededRandom } from '../../../../src/domain/random.js';

const candidate = (id: string, over: Partial<RecrawlCandidate> = {}): RecrawlCandidate => ({ id, value: 1, ratePerDay: 0.5, daysSinceVisit: 2, costUnits: 1, ...over });
const none = { recrawl: 0, reestimation: 0, verification: 0 };

describe('planRecrawlCycle', () => {
  it('allocates the recrawl visits as the optimum does and takes the pages most overdue against their allotted interval first', () => {
    const candidates = [
      candidate('every-minute', { ratePerDay: 1440, daysSinceVisit: 30 }),
      candidate('daily', { ratePerDay: 1, daysSinceVisit: 1 }),
      candidate('daily-just-seen', { ratePerDay: 1, daysSinceVisit: 0.1 }),
      candidate('weekly', { ratePerDay: 1 / 7, daysSinceVisit: 9 }),
      candidate('daily-critical', { ratePerDay: 1, value: 16, daysSinceVisit: 0.5 }),
      candidate('daily-expensive', { ratePerDay: 1, costUnits: 50, daysSinceVisit: 1 }),
    ];
    // 3 visits a cycle, a cycle a day: the pages share 3 visits a day.
    const plan = planRecrawlCycle(candidates, { ...none, recrawl: 3 }, 1, seededRandom(1));
    const allotted = allocateVisitFrequencies(
      candidates.map((c) => ({ ratePerDay: c.ratePerDay, value: c.value, unchangedCostUnits: c.costUnits, changedCostUnits: c.costUnits })),
      3,
    );
    const expected = candidates
      .map((c, i) => ({ id: c.id, overdue: c.daysSinceVisit * (allotted[i] ?? 0) }))
      .filter((c) => c.overdue > 0)
      .sort((a, b) => b.overdue - a.overdue)
      .slice(0, 3)
      .map((c) => c.id);
    expect(plan.recrawl).toEqual(expected);
    expect([...plan.allottedVisitsPerDay.values()]).toEqual(allotted);
    expect(plan.allottedVisitsPerDay.get('every-minute')).toBe(0);
    // Unvisited for a month, the page changing every minute still gets nothing: no visit keeps it fresh.
    expect(plan.recrawl).not.toContain('every-minute');
    expect(plan.recrawl).toContain('daily-critical');
    expect(plan.recrawl).not.toContain('daily-expensive');
  });

  it('skips visits that buy nothing and gives unused reserved slots to recrawl', () => {
    const candidates = [candidate('a'), candidate('b'), candidate('just-visited', { daysSinceVisit: 0 }), candidate('signal', { cheapSignal: 'unchanged' })];
    const plan = planRecrawlCycle(candidates, { recrawl: 1, reestimation: 5, verification: 0 }, 1, seededRandom(1));
    expect(plan.reestimation).toEqual([]); // nothing believed static
    expect(plan.recrawl.sort()).toEqual(['a', 'b']);
  });

  it('makes a page a trusted signal says changed due at once', () => {
    const candidates = [candidate('overdue', { daysSinceVisit: 4 }), candidate('signalled', { daysSinceVisit: 0.01, cheapSignal: 'changed' }), candidate('quiet', { daysSinceVisit: 0.02 })];
    expect(planRecrawlCycle(candidates, { ...none, recrawl: 2 }, 1, seededRandom(1)).recrawl).toEqual(['overdue', 'signalled']);
  });

  it('re-estimates pages believed static, longest since visit first', () => {
    const candidates = [
      candidate('static-old', { ratePerDay: 0.001, daysSinceVisit: 200 }),
      candidate('static-recent', { ratePerDay: 0.001, daysSinceVisit: 20 }),
      candidate('static-older-faster', { ratePerDay: 0.02, daysSinceVisit: 300 }),
      candidate('busy', { ratePerDay: 1, daysSinceVisit: 500 }),
    ];
    const plan = planRecrawlCycle(candidates, { ...none, reestimation: 2 }, 1, seededRandom(1));
    expect(plan.reestimation).toEqual(['static-older-faster', 'static-old']);
    expect(planRecrawlCycle(candidates, { ...none, reestimation: 2 }, 1, seededRandom(1), { staticRateThresholdPerDay: 0.01 }).reestimation).toEqual(['static-old', 'static-recent']);
  });

  it('samples verification uniformly, whatever the score', () => {
    const candidates = Array.from({ length: 10 }, (_, i) => candidate(`p${i}`, { ratePerDay: i === 0 ? 0 : 1, daysSinceVisit: i === 1 ? 0 : 2 }));
    const counts = new Map<string, number>();
    const random = seededRandom(9);
    const rounds = 4000;
    for (let round = 0; round < rounds; round += 1) {
      for (const id of planRecrawlCycle(candidates, { ...none, verification: 3 }, 1, random).verification) counts.set(id, (counts.get(id) ?? 0) + 1);
    }
    for (const c of candidates) expect(Math.abs((counts.get(c.id) ?? 0) / rounds - 0.3)).toBeLessThan(0.04); // p0 and p1 score 0
  });

  it('probes censored pages soon after their last visit when the budget reserves probes', () => {
    const candidates = [
      candidate('streak-fresh', { changeStreak: 5, daysSinceVisit: 0.01 }),
      candidate('streak-1h', { changeStreak: 3, daysSinceVisit: 0.05 }),
      candidate('streak-2d', { changeStreak: 4, daysSinceVisit: 2 }),
      candidate('short-streak', { changeStreak: 2, daysSinceVisit: 0.06 }),
    ];
    const plan = planRecrawlCycle(candidates, { ...none, probe: 2 }, 1, seededRandom(1));
    expect(plan.probe).toEqual(['streak-1h', 'streak-2d']);
    expect(planRecrawlCycle(candidates, none, 1, seededRandom(1))).not.toHaveProperty('probe');
  });

  it('does not probe a page a trusted signal says is unchanged', () => {
    const candidates = [
      candidate('signalled', { changeStreak: 3, daysSinceVisit: 0.05, cheapSignal: 'unchanged' }),
      candidate('unsignalled', { changeStreak: 3, daysSinceVisit: 0.5 }),
    ];
    expect(planRecrawlCycle(candidates, { ...none, probe: 2 }, 1, seededRandom(1)).probe).toEqual(['unsignalled']);
  });

  it('never plans an id twice and never exceeds the total budget', () => {
    const arbCandidate = fc.record({
      ratePerDay: fc.double({ min: 0, max: 100, noNaN: true }),
      daysSinceVisit: fc.double({ min: 0, max: 400, noNaN: true }),
      value: fc.constantFrom(0.25, 1, 4, 16),
      costUnits: fc.double({ min: 0.1, max: 10, noNaN: true }),
      changeStreak: fc.nat(6),
    });
    fc.assert(
      fc.property(
        fc.array(arbCandidate, { maxLength: 60 }),
        fc.record({ recrawl: fc.nat(30), reestimation: fc.nat(10), verification: fc.nat(10), probe: fc.nat(10) }),
        fc.integer(),
        (raw, budget, seed) => {
          const candidates = raw.map((c, i) => ({ ...c, id: `u${i}` }));
          const plan = planRecrawlCycle(candidates, budget, 3, seededRandom(seed));
          const all = [...plan.recrawl, ...plan.reestimation, ...plan.verification, ...(plan.probe ?? [])];
          expect(new Set(all).size).toBe(all.length);
          expect(all.length).toBeLessThanOrEqual(budget.recrawl + budget.reestimation + budget.verification + budget.probe);
          expect(all.every((id) => candidates.some((c) => c.id === id))).toBe(true);
          expect(plan.verification.length).toBe(Math.min(budget.verification, candidates.length));
        },
      ),
      { numRuns: 300 },
    );
  });

  it('is deterministic for the same random stream', () => {
    const candidates = Array.from({ length: 50 }, (_, i) => candidate(`p${i}`, { ratePerDay: (i % 7) / 3, daysSinceVisit: i % 11 }));
    const budget = { recrawl: 10, reestimation: 2, verification: 3 };
    expect(planRecrawlCycle(candidates, budget, 2, seededRandom(5))).toEqual(planRecrawlCycle(candidates, budget, 2, seededRandom(5)));
  });

  it('rejects duplicate ids, bad budgets and a broken random source with codes', () => {
    expect(() => planRecrawlCycle([candidate('a'), candidate('a')], none, 1, seededRandom(1))).toThrow(expect.objectContaining({ code: 'RECRAWL_DUPLICATE_ID', field: 'candidates[1].id' }));
    expect(() => planRecrawlCycle([candidate('a')], { ...none, recrawl: 1.5 }, 1, seededRandom(1))).toThrow(expect.objectContaining({ code: 'RECRAWL_BUDGET_INVALID', field: 'budget.recrawl' }));
    expect(() => planRecrawlCycle([candidate('a')], { ...none, verification: 1 }, 1, () => 1)).toThrow(expect.objectContaining({ field: 'random()' }));
  });
});
