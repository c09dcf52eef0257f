import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { SIMHASH_MAX_DISTANCE, SimhashBlockIndex, hammingDistance64, simhashBlockKeys } from '../../../../src/domain/content/index.js';
import { seededRandom } from '../../../../src/domain/random.js';

const u64 = fc.bigInt({ min: 0n, max: 2n ** 64n - 1n });

function randomU64(random: () => number): bigint {
  let h = 0n;
  for (let i = 0; i < 4; i += 1) h = (h << 16n) | BigInt(Math.floor(random() * 0x10000));
  return h;
}

function flipBits(h: bigint, bits: readonly number[]): bigint {
  return bits.reduce((acc, bit) => acc ^ (1n << BigInt(bit)), h);
}

describe('simhashBlockKeys', () => {
  it('splits the 64 bits into four 16-bit blocks, low block first, that rebuild the hash', () => {
    expect(simhashBlockKeys(0x0001_0002_0003_0004n)).toEqual([
      { block: 0, key: 4 },
      { block: 1, key: 3 },
      { block: 2, key: 2 },
      { block: 3, key: 1 },
    ]);
    fc.assert(
      fc.property(u64, (h) => {
        const rebuilt = simhashBlockKeys(h).reduce((acc, { block, key }) => acc | (BigInt(key) << BigInt(16 * block)), 0n);
        expect(rebuilt).toBe(h);
      }),
    );
  });

  it('two hashes within distance 3 share at least one (block, key) pair', () => {
    fc.assert(
      fc.property(u64, fc.uniqueArray(fc.integer({ min: 0, max: 63 }), { maxLength: SIMHASH_MAX_DISTANCE }), (h, bits) => {
        const other = flipBits(h, bits);
        expect(hammingDistance64(h, other)).toBe(bits.length);
        const keys = new Set(simhashBlockKeys(h).map(({ block, key }) => `${block}:${key}`));
        expect(simhashBlockKeys(other).some(({ block, key }) => keys.has(`${block}:${key}`))).toBe(true);
      }),
      { numRuns: 1000 },
    );
  });

  it('four flipped bits, one per block, can defeat the index: why k is 3', () => {
    const h = 0x1234_5678_9abc_def0n;
    const other = flipBits(h, [0, 16, 32, 48]);
    const keys = new Set(simhashBlockKeys(h).map(({ block, key }) => `${block}:${key}`));
    expect(simhashBlockKeys(other).some(({ block, key }) => keys.has(`${block}:${key}`))).toBe(false);
  });
});

describe('SimhashBlockIndex', () => {
  it('finds exactly what a full scan finds within distance 3, examining a small candidate set', () => {
    const random = seededRandom(42);
    const index = new SimhashBlockIndex();
    const stored = new Map<string, bigint>();
    for (let i = 0; i < 2000; i += 1) {
      const h = randomU64(random);
      stored.set(`doc${i}`, h);
      index.add(`doc${i}`, h);
    }
    // plant near-duplicates of a few documents
    for (let i = 0; i < 20; i += 1) {
      const base = stored.get(`doc${i}`) ?? 0n;
      const near = flipBits(base, [Math.floor(random() * 64), Math.floor(random() * 64), Math.floor(random() * 64)]);
      stored.set(`near${i}`, near);
      index.add(`near${i}`, near);
    }
    for (let i = 0; i < 20; i += 1) {
      const query = stored.get(`doc${i}`) ?? 0n;
      const scan = [...stored].filter(([, h]) => hammingDistance64(h, query) <= 3).map(([id]) => id).sort();
      const found = index.findNear(query).map((m) => m.id).sort();
      expect(found).toEqual(scan);
      expect(found).toContain(`near${i}`);
      expect(index.candidateCount(query)).toBeLessThan(50);
    }
  });

  it('returns matches nearest first with their distance, and honours a smaller maxDistance', () => {
    const index = new SimhashBlockIndex();
    index.add('same', 0xffn);
    index.add('two', 0xffn ^ 0b11n);
    index.add('one', 0xffn ^ 0b1n);
    expect(index.findNear(0xffn)).toEqual([
      { id: 'same', distance: 0 },
      { id: 'one', distance: 1 },
      { id: 'two', distance: 2 },
    ]);
    expect(index.findNear(0xffn, 1).map((m) => m.id)).toEqual(['same', 'one']);
  });

  it('replaces an id on re-add and forgets it on remove', () => {
    const index = new SimhashBlockIndex();
    index.add('a', 0n);
    index.add('a', 2n ** 64n - 1n);
    expect(index.size).toBe(1);
    expect(index.findNear(0n)).toEqual([]);
    expect(index.remove('a')).toBe(true);
    expect(index.remove('a')).toBe(false);
    expect(index.findNear(2n ** 64n - 1n)).toEqual([]);
  });

  it('refuses distances the four-block index cannot guarantee', () => {
    expect(() => new SimhashBlockIndex().findNear(0n, 4)).toThrow(expect.objectContaining({ code: 'CONTENT_OPTIONS_INVALID' }));
  });
});
