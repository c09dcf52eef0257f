import { describe, it, expect } from 'vitest';
import fc from 'fast-check';
import { urlPriority, DEFAULT_PRIORITY_WEIGHTS, type PrioritySignals } from '../../../../src/domain/frontier/index.js';

const unit = fc.double({ min: 0, max: 1, noNaN: true });
const signals: fc.Arbitrary<PrioritySignals> = fc.record(
  {
    depth: fc.integer({ min: 0, max: 50 }),
    inlinks: fc.integer({ min: 0, max: 1_000_000 }),
    hostImportance: unit,
    recrawlValue: unit,
    trapPenalty: unit,
    nearDuplicate: fc.boolean(),
  },
  { requiredKeys: ['depth', 'inlinks'] },
);

describe('urlPriority', () => {
  it('ranks a seed with many in-links and an important host near the top, and stays in 0..1', () => {
    const top = urlPriority({ depth: 0, inlinks: 1000, hostImportance: 1, recrawlValue: 1 });
    expect(top).toBeCloseTo(1, 10);
    const bottom = urlPriority({ depth: 1000, inlinks: 0, hostImportance: 0, recrawlValue: 0 });
    expect(bottom).toBeLessThan(0.01);
    fc.assert(
      fc.property(signals, (s) => {
        const p = urlPriority(s);
        return p >= 0 && p <= 1;
      }),
    );
  });

  it('is monotone: deeper never ranks higher', () => {
    fc.assert(
      fc.property(signals, fc.integer({ min: 1, max: 20 }), (s, extra) => urlPriority({ ...s, depth: s.depth + extra }) <= urlPriority(s)),
    );
    expect(urlPriority({ depth: 1, inlinks: 0 })).toBeLessThan(urlPriority({ depth: 0, inlinks: 0 }));
  });

  it('is monotone: more in-links never rank lower, with diminishing returns that saturate', () => {
    fc.assert(
      fc.property(signals, fc.integer({ min: 1, max: 1000 }), (s, extra) => urlPriority({ ...s, inlinks: s.inlinks + extra }) >= urlPriority(s)),
    );
    const at = (inlinks: number) => urlPriority({ depth: 2, inlinks });
    expect(at(10)).toBeGreaterThan(at(0));
    expect(at(10) - at(0)).toBeGreaterThan(at(1000) - at(990));
    expect(at(5000)).toBe(at(1000));
  });

  it('penalties never raise the priority, and a full trap penalty drops it to 0', () => {
    fc.assert(
      fc.property(signals, unit, fc.boolean(), (s, trap, dup) => {
        const base = urlPriority({ ...s, trapPenalty: 0, nearDuplicate: false });
        return urlPriority({ ...s, trapPenalty: trap, nearDuplicate: dup }) <= base;
      }),
    );
    expect(urlPriority({ depth: 0, inlinks: 50, trapPenalty: 1 })).toBe(0);
  });

  it('demotes near-duplicates by the factor without dropping them', () => {
    const base = urlPriority({ depth: 1, inlinks: 5 });
    const dup = urlPriority({ depth: 1, inlinks: 5, nearDuplicate: true });
    expect(dup).toBeCloseTo(base * DEFAULT_PRIORITY_WEIGHTS.nearDuplicateFactor, 12);
    expect(dup).toBeGreaterThan(0);
  });

  it('host importance raises priority, and its absence means the neutral default', () => {
    const s = { depth: 2, inlinks: 3 };
    expect(urlPriority({ ...s, hostImportance: 0.9 })).toBeGreaterThan(urlPriority({ ...s, hostImportance: 0.1 }));
    expect(urlPriority(s)).toBe(urlPriority({ ...s, hostImportance: DEFAULT_PRIORITY_WEIGHTS.defaultHostImportance }));
  });

  it('ranks never-fetched URLs on link signals alone (no recrawl value means no recrawl term)', () => {
    const s = { depth: 0, inlinks: 1000, hostImportance: 1 };
    expect(urlPriority(s)).toBeCloseTo(1, 10);
    expect(urlPriority({ ...s, recrawlValue: 0 })).toBeLessThan(urlPriority(s));
  });

  it('honours custom weights: only depth counts when the others weigh 0', () => {
    const weights = { inlinks: 0, hostImportance: 0, recrawlValue: 0, depthHalfScore: 1 };
    expect(urlPriority({ depth: 1, inlinks: 1e6, hostImportance: 1 }, weights)).toBeCloseTo(0.5, 12);
    expect(urlPriority({ depth: 3, inlinks: 0 }, weights)).toBeCloseTo(0.25, 12);
  });

  it.each([
    [{ depth: -1, inlinks: 0 }, {}, 'signals.depth'],
    [{ depth: 0, inlinks: Number.NaN }, {}, 'signals.inlinks'],
    [{ depth: 0, inlinks: 0, hostImportance: 1.5 }, {}, 'signals.hostImportance'],
    [{ depth: 0, inlinks: 0, trapPenalty: -0.1 }, {}, 'signals.trapPenalty'],
    [{ depth: 0, inlinks: 0 }, { nearDuplicateFactor: 2 }, 'weights.nearDuplicateFactor'],
    [{ depth: 0, inlinks: 0 }, { depthHalfScore: 0 }, 'weights.depthHalfScore'],
    [{ depth: 0, inlinks: 0 }, { depth: 0, inlinks: 0, hostImportance: 0 }, 'weights'],
  ])('rejects %j with weights %j, naming %s', (s, weights, field) => {
    expect(() => urlPriority(s as PrioritySignals, weights)).toThrow(
      expect.objectContaining({ code: 'FRONTIER_PRIORITY_INPUT_INVALID', field }),
    );
  });
});
