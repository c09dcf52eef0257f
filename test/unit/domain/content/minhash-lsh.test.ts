import { describe, expect, it } from 'vitest';
import { ContentInputError, MINHASH_BANDS, estimateJaccard, minhashBandKeys, minhashSignature, normalizeTextForHash } from '../../../../src/domain/content/index.js';

const shared = (a: number[], b: number[]): number => {
  const keys = new Set(minhashBandKeys(a).map((k) => `${k.band}:${k.key}`));
  return minhashBandKeys(b).filter((k) => keys.has(`${k.band}:${k.key}`)).length;
};

describe('minhashBandKeys', () => {
  it('cuts a 64-value signature into 16 signed 32-bit band keys', () => {
    const keys = minhashBandKeys(minhashSignature('opening hours: monday to friday'));
    expect(keys).toHaveLength(MINHASH_BANDS);
    expect(keys.map((k) => k.band)).toEqual([...Array(16).keys()]);
    for (const { key } of keys) expect(key).toBe(key | 0);
  });

  it('makes near-duplicate short texts candidates and unrelated ones not', () => {
    const a = minhashSignature(normalizeTextForHash('Opening hours: Monday to Friday, nine to five. Closed on public holidays. Call the front desk for appointments.'));
    const b = minhashSignature(normalizeTextForHash('Opening hours: Monday to Friday, nine to five. Closed on public holidays. Call the front desk for an appointment.'));
    const c = minhashSignature(normalizeTextForHash('The ferry to the islands leaves at noon and returns before dark, weather permitting.'));
    expect(estimateJaccard(a, b)).toBeGreaterThanOrEqual(0.8);
    expect(shared(a, b)).toBeGreaterThan(0);
    expect(shared(a, c)).toBe(0);
    expect(shared(a, a)).toBe(16);
  });

  it('refuses a signature that does not split into the bands', () => {
    expect(() => minhashBandKeys([1, 2, 3])).toThrow(ContentInputError);
    expect(() => minhashBandKeys([])).toThrow(/multiple of 16 bands/);
  });
});
