import { describe, it, expect } from 'vitest';
import { seededRandom } from '../../../../src/domain/random.js';

describe('seededRandom', () => {
  it('repeats the same sequence for the same seed and differs across seeds', () => {
    const a = seededRandom(42);
    const b = seededRandom(42);
    const c = seededRandom(43);
    const seqA = Array.from({ length: 5 }, a);
    expect(Array.from({ length: 5 }, b)).toEqual(seqA);
    expect(Array.from({ length: 5 }, c)).not.toEqual(seqA);
  });

  it('yields values in [0, 1) with a roughly uniform mean and spread', () => {
    const random = seededRandom(7);
    const values = Array.from({ length: 100_000 }, random);
    expect(values.every((v) => v >= 0 && v < 1)).toBe(true);
    const mean = values.reduce((s, v) => s + v, 0) / values.length;
    expect(mean).toBeGreaterThan(0.49);
    expect(mean).toBeLessThan(0.51);
    const deciles = new Array<number>(10).fill(0);
    for (const v of values) deciles[Math.floor(v * 10)]! += 1;
    for (const count of deciles) expect(Math.abs(count - 10_000)).toBeLessThan(500);
  });
});
