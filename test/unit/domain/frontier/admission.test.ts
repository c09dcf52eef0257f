import { describe, it, expect } from 'vitest';
import fc from 'fast-check';
import { admissionDecision, type AdmissionInput } from '../../../../src/domain/frontier/index.js';

const base: AdmissionInput = {
  inFlight: 0,
  maxInFlight: 100,
  budgetRemaining: 1000,
  downstream: { backlogItems: 0, consumeRatePerSecond: 50 },
  nowMs: 1_000_000,
  paused: false,
  stopping: false,
};
const at = (patch: Partial<AdmissionInput>) => admissionDecision({ ...base, ...patch });

const inputs: fc.Arbitrary<AdmissionInput> = fc.record({
  inFlight: fc.integer({ min: 0, max: 2000 }),
  maxInFlight: fc.integer({ min: 0, max: 2000 }),
  budgetRemaining: fc.oneof(fc.integer({ min: 0, max: 5000 }), fc.double({ min: 0, max: 5000, noNaN: true })),
  downstream: fc.record({
    backlogItems: fc.integer({ min: 0, max: 1_000_000 }),
    consumeRatePerSecond: fc.oneof(fc.constant(0), fc.double({ min: 0, max: 10_000, noNaN: true })),
    oldestItemAgeSeconds: fc.option(fc.double({ min: 0, max: 1000, noNaN: true }), { nil: undefined }),
  }),
  nowMs: fc.integer({ min: 0, max: 2 ** 45 }),
  paused: fc.boolean(),
  stopping: fc.boolean(),
});

describe('admissionDecision (docs/design.md, "Backpressure")', () => {
  it('holds its bounds for random inputs (property)', () => {
    fc.assert(
      fc.property(inputs, fc.integer({ min: 0, max: 100 }), fc.integer({ min: 1, max: 300 }), (input, target, spread) => {
        const options = { targetBacklogSeconds: target, maxBacklogSeconds: target + spread };
        const d = admissionDecision(input, options);
        expect(Number.isInteger(d.admit)).toBe(true);
        expect(d.admit).toBeGreaterThanOrEqual(0);
        expect(d.admit).toBeLessThanOrEqual(Math.max(0, input.maxInFlight - input.inFlight));
        expect(d.admit).toBeLessThanOrEqual(input.budgetRemaining);
        expect(d.throttleFactor).toBeGreaterThanOrEqual(0);
        expect(d.throttleFactor).toBeLessThanOrEqual(1);
        if (input.paused || input.stopping || d.backlogSeconds >= options.maxBacklogSeconds) expect(d.admit).toBe(0);
        if (d.backlogSeconds <= target && !input.paused && !input.stopping) expect(d.throttleFactor).toBe(1);
        expect(d.reason === 'ok').toBe(d.admit > 0);
        const age = input.downstream.oldestItemAgeSeconds;
        if (age !== undefined) expect(d.backlogSeconds).toBeLessThanOrEqual(age);
      }),
      { numRuns: 3000 },
    );
  });

  it('admits the whole headroom when downstream keeps up', () => {
    expect(at({ inFlight: 30 })).toEqual({ admit: 70, backlogSeconds: 0, throttleFactor: 1, reason: 'ok', recheckAtMs: null });
  });

  it('never admits beyond maxInFlight, and reports the limit when full', () => {
    expect(at({ inFlight: 100 }).admit).toBe(0);
    expect(at({ inFlight: 100 }).reason).toBe('in-flight-limit');
    expect(at({ inFlight: 150 }).admit).toBe(0);
    expect(at({ inFlight: 99 }).admit).toBe(1);
  });

  it('never admits beyond the budget, and reports exhaustion', () => {
    expect(at({ budgetRemaining: 7 }).admit).toBe(7);
    expect(at({ budgetRemaining: 0.9 })).toMatchObject({ admit: 0, reason: 'budget-exhausted' });
  });

  it('admits nothing while paused or stopping, stopping taking precedence', () => {
    expect(at({ paused: true })).toMatchObject({ admit: 0, reason: 'paused', throttleFactor: 0 });
    expect(at({ stopping: true })).toMatchObject({ admit: 0, reason: 'stopping' });
    expect(at({ stopping: true, paused: true, budgetRemaining: 0 }).reason).toBe('stopping');
  });

  it('computes backlog seconds as lag / consume rate: 10,000 items at 500/s is 20 s', () => {
    const d = at({ downstream: { backlogItems: 10_000, consumeRatePerSecond: 500 } });
    expect(d.backlogSeconds).toBe(20);
  });

  it('scales admission down linearly between target and max backlog seconds', () => {
    const rate = 100;
    const factorAt = (seconds: number) => at({ downstream: { backlogItems: seconds * rate, consumeRatePerSecond: rate } });
    expect(factorAt(10).throttleFactor).toBe(1);
    expect(factorAt(35)).toMatchObject({ throttleFactor: 0.5, admit: 50, reason: 'ok' });
    expect(factorAt(47.5)).toMatchObject({ throttleFactor: 0.25, admit: 25 });
    expect(factorAt(60)).toMatchObject({ throttleFactor: 0, admit: 0, reason: 'backlog' });
    expect(factorAt(600).admit).toBe(0);
  });

  it('treats a backlog that nothing drains as infinite, and an empty one as zero', () => {
    expect(at({ downstream: { backlogItems: 5, consumeRatePerSecond: 0 } })).toMatchObject({
      admit: 0,
      backlogSeconds: Number.POSITIVE_INFINITY,
      reason: 'backlog',
      recheckAtMs: base.nowMs + 30_000,
    });
    expect(at({ downstream: { backlogItems: 0, consumeRatePerSecond: 0 } })).toMatchObject({ admit: 100, backlogSeconds: 0 });
  });

  it('caps the backlog at the oldest item\'s age: a burst a starved stage clears at once is no backlog', () => {
    // Ten bodies from one burst, after 30 s with two parses (a paused host): 150 s by rate alone.
    const burst = at({ downstream: { backlogItems: 10, consumeRatePerSecond: 2 / 30, oldestItemAgeSeconds: 0.4 } });
    expect(burst).toMatchObject({ admit: 100, backlogSeconds: 0.4, throttleFactor: 1, reason: 'ok' });
    expect(at({ downstream: { backlogItems: 10, consumeRatePerSecond: 2 / 30 } })).toMatchObject({ admit: 0, reason: 'backlog' });
    // A real shortage: the oldest age agrees with lag over rate, and admission scales down as before.
    expect(at({ downstream: { backlogItems: 3500, consumeRatePerSecond: 100, oldestItemAgeSeconds: 36 } })).toMatchObject({ backlogSeconds: 35, throttleFactor: 0.5 });
  });

  it('stops admission to a hung stage once its oldest item has waited the maximum', () => {
    const hung = (ageSeconds: number) => at({ downstream: { backlogItems: 5, consumeRatePerSecond: 0, oldestItemAgeSeconds: ageSeconds } });
    expect(hung(2)).toMatchObject({ backlogSeconds: 2, throttleFactor: 1, admit: 100 });
    expect(hung(35)).toMatchObject({ throttleFactor: 0.5, admit: 50 });
    expect(hung(60)).toMatchObject({ throttleFactor: 0, admit: 0, reason: 'backlog', recheckAtMs: base.nowMs + 30_000 });
  });

  it('on a backlog stop, suggests rechecking when the backlog should be back at the target', () => {
    // 7,000 items at 100/s = 70 s; draining to 10 s takes 60 s, clamped to the 30 s maximum.
    expect(at({ downstream: { backlogItems: 7000, consumeRatePerSecond: 100 } }).recheckAtMs).toBe(base.nowMs + 30_000);
    const d = admissionDecision(
      { ...base, downstream: { backlogItems: 7000, consumeRatePerSecond: 100 } },
      { targetBacklogSeconds: 50, maxBacklogSeconds: 60 },
    );
    expect(d.recheckAtMs).toBe(base.nowMs + 20_000);
    expect(at({ inFlight: 100 }).recheckAtMs).toBeNull();
  });

  it('honours custom thresholds', () => {
    const d = admissionDecision(
      { ...base, downstream: { backlogItems: 300, consumeRatePerSecond: 100 } },
      { targetBacklogSeconds: 1, maxBacklogSeconds: 5 },
    );
    expect(d).toMatchObject({ backlogSeconds: 3, throttleFactor: 0.5, admit: 50 });
  });

  it.each([
    [{ inFlight: -1 }, {}, 'inFlight'],
    [{ maxInFlight: Number.NaN }, {}, 'maxInFlight'],
    [{ budgetRemaining: -3 }, {}, 'budgetRemaining'],
    [{ downstream: { backlogItems: 1, consumeRatePerSecond: -1 } }, {}, 'downstream.consumeRatePerSecond'],
    [{ downstream: { backlogItems: 1, consumeRatePerSecond: 1, oldestItemAgeSeconds: -0.5 } }, {}, 'downstream.oldestItemAgeSeconds'],
    [{}, { targetBacklogSeconds: 60, maxBacklogSeconds: 60 }, 'options.maxBacklogSeconds'],
    [{}, { targetBacklogSeconds: -1 }, 'options.targetBacklogSeconds'],
  ])('rejects input %j with options %j, naming %s', (patch, options, field) => {
    expect(() => admissionDecision({ ...base, ...patch }, options)).toThrow(
      expect.objectContaining({ code: 'FRONTIER_ADMISSION_INPUT_INVALID', field }),
    );
  });
});
