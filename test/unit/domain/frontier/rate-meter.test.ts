import { describe, it, expect } from 'vitest';
import { RateMeter, admissionDecision } from '../../../../src/domain/frontier/index.js';

describe('RateMeter', () => {
  it('measures a steady rate over its window', () => {
    const meter = new RateMeter({ windowMs: 10_000 });
    // 10 events every 500 ms = 20/s, for 30 s, off the bucket edges.
    for (let t = 250; t < 30_000; t += 500) meter.record(10, t);
    expect(meter.ratePerSecond(30_000)).toBeCloseTo(20, 5);
    expect(meter.ratePerSecond(30_400)).toBeGreaterThan(18);
    expect(meter.ratePerSecond(30_400)).toBeLessThan(22);
  });

  it('forgets events older than the window and reads 0 when idle', () => {
    const meter = new RateMeter({ windowMs: 10_000 });
    meter.record(100, 0);
    expect(meter.ratePerSecond(5_000)).toBeGreaterThan(0);
    expect(meter.ratePerSecond(10_500)).toBe(0);
    expect(new RateMeter({ windowMs: 1000 }).ratePerSecond(123)).toBe(0);
  });

  it('follows a rate change within one window', () => {
    const meter = new RateMeter({ windowMs: 5_000 });
    const rates: number[] = [];
    for (let t = 50; t < 20_000; t += 100) {
      meter.record(t < 10_000 ? 10 : 1, t); // 100/s, then 10/s
      if (t === 9_950 || t === 12_450 || t === 19_950) rates.push(meter.ratePerSecond(t + 50));
    }
    expect(rates[0]).toBeCloseTo(100, 5);
    expect(rates[1]).toBeGreaterThan(10);
    expect(rates[1]).toBeLessThan(100);
    expect(rates[2]).toBeCloseTo(10, 5);
  });

  it('does not report an infinite rate at startup', () => {
    const meter = new RateMeter({ windowMs: 10_000, bucketCount: 10 });
    meter.record(5, 1_000_000);
    // One bucket (1 s) is the shortest span it divides by.
    expect(meter.ratePerSecond(1_000_000)).toBe(5);
    // Before the window fills, the span runs from the first record, not from a full window ago.
    meter.record(5, 1_002_000);
    expect(meter.ratePerSecond(1_003_000)).toBeCloseTo(10 / 3, 5);
  });

  it('keeps memory bounded by the bucket count', () => {
    const meter = new RateMeter({ windowMs: 1000, bucketCount: 4 });
    for (let t = 0; t < 100_000; t += 7) meter.record(1, t);
    expect(meter.toJSON().buckets.length).toBeLessThanOrEqual(4);
  });

  it('counts a record from a clock step back into the newest bucket', () => {
    const meter = new RateMeter({ windowMs: 10_000 });
    meter.record(1, 50_000);
    meter.record(1, 10_000);
    const state = meter.toJSON();
    expect(state.buckets).toEqual([[50, 2]]);
  });

  it('round-trips through plain JSON, as across continue-as-new', () => {
    const meter = new RateMeter({ windowMs: 8_000, bucketCount: 8 });
    for (let t = 0; t < 12_000; t += 250) meter.record(3, t);
    const restored = RateMeter.fromJSON(JSON.parse(JSON.stringify(meter)));
    expect(restored.ratePerSecond(12_000)).toBe(meter.ratePerSecond(12_000));
    restored.record(10, 12_100);
    meter.record(10, 12_100);
    expect(restored.toJSON()).toEqual(meter.toJSON());
  });

  it('feeds admission: a backlog that drains at the measured rate sets backlog seconds', () => {
    const meter = new RateMeter({ windowMs: 10_000 });
    for (let t = 0; t <= 10_000; t += 100) meter.record(50, t); // 500/s
    const d = admissionDecision({
      inFlight: 0,
      maxInFlight: 100,
      budgetRemaining: 100,
      downstream: { backlogItems: 10_000, consumeRatePerSecond: meter.ratePerSecond(10_000) },
      nowMs: 10_000,
      paused: false,
      stopping: false,
    });
    expect(d.backlogSeconds).toBeCloseTo(20, 0);
  });

  it.each([
    [() => new RateMeter({ windowMs: 0 }), 'options.windowMs'],
    [() => new RateMeter({ windowMs: 1000, bucketCount: 0 }), 'options.bucketCount'],
    [() => new RateMeter({ windowMs: 1000 }).record(-1, 0), 'count'],
    [() => new RateMeter({ windowMs: 1000 }).record(1, Number.NaN), 'nowMs'],
    [() => RateMeter.fromJSON({ windowMs: 1000, bucketCount: 10, firstRecordMs: 0, buckets: [[2, 1], [1, 1]] }), 'state.buckets[1][0]'],
    [() => RateMeter.fromJSON({ windowMs: 1000, bucketCount: 10, firstRecordMs: 0, buckets: 'x' as never }), 'state.buckets'],
  ])('rejects bad input with a typed error (%#: %s)', (call, field) => {
    expect(call).toThrow(expect.objectContaining({ code: 'FRONTIER_RATE_METER_INVALID', field }));
  });
});
