import { describe, it, expect } from 'vitest';
import { BloomFilter, bloomSizing, FrontierInputError } from '../../../../src/domain/frontier/index.js';
import { seededRandom } from '../../../../src/domain/random.js';
import { randomFingerprint } from './random-fingerprints.js';

describe('bloomSizing (docs/design.md, "Seen test")', () => {
  it('reproduces the table row n = 1e9, p = 1%: 9.59 bit/URL, 1.20 GB, k ≈ 7', () => {
    const s = bloomSizing(1_000_000_000, 0.01);
    expect(s.bitsPerItem.toFixed(2)).toBe('9.59');
    expect((s.bytes / 1e9).toFixed(2)).toBe('1.20');
    expect(s.hashes).toBe(7);
  });

  it('reproduces the table row n = 1e9, p = 0.1%: 14.38 bit/URL, 1.80 GB, k ≈ 10', () => {
    const s = bloomSizing(1_000_000_000, 0.001);
    expect(s.bitsPerItem.toFixed(2)).toBe('14.38');
    expect((s.bytes / 1e9).toFixed(2)).toBe('1.80');
    expect(s.hashes).toBe(10);
  });

  it('matches exercise C: m_bits / 8 / 1e9 and k = (m/n) ln 2 for p in [0.01, 0.001]', () => {
    const n = 1_000_000_000;
    for (const [p, gb, k] of [
      [0.01, 1.198, 6.64],
      [0.001, 1.797, 9.97],
    ] as const) {
      const mBits = (-n * Math.log(p)) / Math.log(2) ** 2;
      const s = bloomSizing(n, p);
      expect(s.bits).toBe(Math.ceil(mBits));
      expect(s.bits / 8 / 1e9).toBeCloseTo(gb, 3);
      expect(((s.bits / n) * Math.LN2)).toBeCloseTo(k, 2);
      expect(s.hashes).toBe(Math.round((mBits / n) * Math.LN2));
    }
  });

  it('rounds bits and bytes up and keeps at least one hash for a loose rate', () => {
    const s = bloomSizing(1, 0.9);
    expect(s.bits).toBe(1);
    expect(s.bytes).toBe(1);
    expect(s.hashes).toBe(1);
    const t = bloomSizing(10, 0.01);
    expect(t.bits).toBe(96); // 95.85… rounded up
    expect(t.bytes).toBe(12);
  });

  it.each([
    [0, 0.01, 'capacity'],
    [-5, 0.01, 'capacity'],
    [1.5, 0.01, 'capacity'],
    [Number.NaN, 0.01, 'capacity'],
    [100, 0, 'falsePositiveRate'],
    [100, 1, 'falsePositiveRate'],
    [100, -0.1, 'falsePositiveRate'],
    [100, Number.NaN, 'falsePositiveRate'],
  ])('rejects capacity %s, rate %s with a typed error naming %s', (n, p, field) => {
    try {
      bloomSizing(n, p);
      expect.unreachable();
    } catch (error) {
      expect(error).toBeInstanceOf(FrontierInputError);
      expect((error as FrontierInputError).code).toBe('FRONTIER_BLOOM_SIZING_INVALID');
      expect((error as FrontierInputError).field).toBe(field);
    }
  });
});

describe('BloomFilter', () => {
  it.each([
    [0.01, 0.008, 0.012],
    [0.001, 0.0006, 0.0014],
  ])('at capacity 100k and p = %s: no false negatives, empirical false-positive rate near p', (p, low, high) => {
    const random = seededRandom(p === 0.01 ? 1 : 2);
    const filter = BloomFilter.create(100_000, p);
    const added = Array.from({ length: 100_000 }, () => randomFingerprint(random));
    for (const fp of added) filter.add(fp);
    expect(added.every((fp) => filter.mightContain(fp))).toBe(true);

    const addedSet = new Set(added);
    let falsePositives = 0;
    let probes = 0;
    while (probes < 100_000) {
      const fp = randomFingerprint(random);
      if (addedSet.has(fp)) continue;
      probes += 1;
      if (filter.mightContain(fp)) falsePositives += 1;
    }
    const rate = falsePositives / probes;
    expect(rate).toBeGreaterThan(low);
    expect(rate).toBeLessThan(high);
    // At capacity about half the bits are set, and the implied rate agrees with the target.
    expect(filter.fillRatio).toBeGreaterThan(0.45);
    expect(filter.fillRatio).toBeLessThan(0.55);
    expect(filter.estimatedFalsePositiveRate).toBeGreaterThan(low);
    expect(filter.estimatedFalsePositiveRate).toBeLessThan(high);
  });

  it('estimates the number of distinct items added within 2%', () => {
    const random = seededRandom(3);
    const filter = BloomFilter.create(50_000, 0.01);
    expect(filter.approximateCount).toBe(0);
    for (let i = 0; i < 20_000; i += 1) filter.add(randomFingerprint(random));
    expect(Math.abs(filter.approximateCount - 20_000)).toBeLessThan(400);
    // Adding the same key again changes nothing.
    const fp = randomFingerprint(random);
    filter.add(fp);
    const before = filter.approximateCount;
    filter.add(fp);
    filter.add(fp.toUpperCase());
    expect(filter.approximateCount).toBe(before);
  });

  it('reports an empty filter as containing nothing', () => {
    const random = seededRandom(4);
    const filter = BloomFilter.create(1000, 0.01);
    for (let i = 0; i < 1000; i += 1) expect(filter.mightContain(randomFingerprint(random))).toBe(false);
  });

  it('testAndAdd says false for a new key and true once it is present', () => {
    const filter = BloomFilter.create(1000, 0.001);
    const fp = '0123456789abcdef0123456789abcdef';
    expect(filter.testAndAdd(fp)).toBe(false);
    expect(filter.testAndAdd(fp)).toBe(true);
    expect(filter.mightContain(fp.toUpperCase())).toBe(true);
  });

  it('round-trips through toBytes/fromBytes with the same answers and sizing', () => {
    const random = seededRandom(5);
    const filter = BloomFilter.create(10_000, 0.01);
    const added = Array.from({ length: 5000 }, () => randomFingerprint(random));
    for (const fp of added) filter.add(fp);
    const probes = Array.from({ length: 5000 }, () => randomFingerprint(random));

    const bytes = filter.toBytes();
    expect(bytes.length).toBe(32 + filter.sizing.bytes);
    const restored = BloomFilter.fromBytes(bytes);
    expect(restored.sizing).toEqual(filter.sizing);
    expect(restored.approximateCount).toBe(filter.approximateCount);
    expect(added.every((fp) => restored.mightContain(fp))).toBe(true);
    expect(probes.map((fp) => restored.mightContain(fp))).toEqual(probes.map((fp) => filter.mightContain(fp)));

    // The restored filter owns its bits: changing it does not change the bytes it came from.
    restored.add(probes[0]!);
    expect(BloomFilter.fromBytes(bytes).mightContain(probes[0]!)).toBe(filter.mightContain(probes[0]!));
  });

  it('fromBytes rejects truncated, foreign or tampered state with a typed error', () => {
    const bytes = BloomFilter.create(1000, 0.01).toBytes();
    const tampered = bytes.slice();
    tampered[5] = 3; // hash count no longer matches the formula
    const wrongMagic = bytes.slice();
    wrongMagic[0] = 0;
    for (const bad of [bytes.slice(0, bytes.length - 1), wrongMagic, tampered, new Uint8Array(4)]) {
      expect(() => BloomFilter.fromBytes(bad)).toThrow(
        expect.objectContaining({ code: 'FRONTIER_BLOOM_STATE_INVALID', field: 'bytes' }),
      );
    }
  });

  it.each(['', 'xyz', '0123456789abcdef0123456789abcde', '0123456789abcdef0123456789abcdefa', 'g123456789abcdef0123456789abcdef'])(
    'rejects fingerprint %j with FRONTIER_FINGERPRINT_INVALID',
    (fp) => {
      const filter = BloomFilter.create(10, 0.01);
      expect(() => filter.add(fp)).toThrow(expect.objectContaining({ code: 'FRONTIER_FINGERPRINT_INVALID' }));
      expect(() => filter.mightContain(fp)).toThrow(FrontierInputError);
    },
  );

  it('spreads the k probes of one key over k distinct bits', () => {
    const filter = BloomFilter.create(1000, 0.01);
    filter.add('ffffffffffffffffffffffffffffffff');
    expect(filter.fillRatio * filter.sizing.bits).toBe(filter.sizing.hashes);
  });
});
