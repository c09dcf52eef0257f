import { describe, expect, it } from 'vitest';
import { characterShingles, estimateJaccard, minhashSignature } from '../../../../src/domain/content/index.js';
import { seededRandom } from '../../../../src/domain/random.js';

function exactJaccard(a: Set<string>, b: Set<string>): number {
  let shared = 0;
  for (const s of a) if (b.has(s)) shared += 1;
  return shared / (a.size + b.size - shared);
}

function randomWords(random: () => number, count: number): string[] {
  const letters = 'abcdefghijklmnopqrstuvwxyz';
  return Array.from({ length: count }, () => Array.from({ length: 3 + Math.floor(random() * 6) }, () => letters[Math.floor(random() * 26)]).join(''));
}

describe('characterShingles', () => {
  it('takes overlapping code-point windows; a text no longer than one shingle is one shingle', () => {
    expect([...characterShingles('abcdef', 3)]).toEqual(['abc', 'bcd', 'cde', 'def']);
    expect([...characterShingles('한국어', 2)]).toEqual(['한국', '국어']);
    expect([...characterShingles('abc', 5)]).toEqual(['abc']);
    expect([...characterShingles('', 5)]).toEqual(['']);
  });
});

describe('minhashSignature and estimateJaccard', () => {
  it('gives 64 unsigned 32-bit values by default, deterministic for a seed', () => {
    const sig = minhashSignature('a short product description');
    expect(sig).toHaveLength(64);
    expect(sig.every((v) => Number.isInteger(v) && v >= 0 && v < 2 ** 32)).toBe(true);
    expect(minhashSignature('a short product description')).toEqual(sig);
    expect(minhashSignature('a short product description', { seed: 1 })).not.toEqual(sig);
  });

  it('estimates 1 for identical text and near 0 for disjoint text', () => {
    const a = minhashSignature('the quick brown fox jumps over the lazy dog');
    expect(estimateJaccard(a, minhashSignature('the quick brown fox jumps over the lazy dog'))).toBe(1);
    expect(estimateJaccard(a, minhashSignature('0123456789 ~~~~ ----- ;;;;;; 98765'))).toBeLessThan(0.1);
  });

  it('estimates the exact shingle Jaccard within sampling error', () => {
    const random = seededRandom(7);
    const errors: number[] = [];
    for (let trial = 0; trial < 40; trial += 1) {
      const words = randomWords(random, 40);
      const edited = words.map((w) => (random() < 0.15 * (trial % 5) ? randomWords(random, 1)[0] ?? w : w));
      const a = words.join(' ');
      const b = edited.join(' ');
      const exact = exactJaccard(characterShingles(a, 5), characterShingles(b, 5));
      const estimate = estimateJaccard(minhashSignature(a, { permutations: 256 }), minhashSignature(b, { permutations: 256 }));
      errors.push(estimate - exact);
      expect(Math.abs(estimate - exact)).toBeLessThan(0.12); // ~4 standard errors at 256 permutations
    }
    const bias = errors.reduce((s, e) => s + e, 0) / errors.length;
    expect(Math.abs(bias)).toBeLessThan(0.02);
  });

  it('refuses signatures of different lengths and bad options with codes', () => {
    expect(() => estimateJaccard([1, 2], [1])).toThrow(expect.objectContaining({ code: 'CONTENT_SIGNATURES_INCOMPATIBLE' }));
    expect(() => estimateJaccard([], [])).toThrow(expect.objectContaining({ code: 'CONTENT_SIGNATURES_INCOMPATIBLE' }));
    expect(() => minhashSignature('x', { permutations: 0 })).toThrow(expect.objectContaining({ code: 'CONTENT_MINHASH_OPTIONS_INVALID' }));
    expect(() => minhashSignature('x', { shingleSize: 2.5 })).toThrow(expect.objectContaining({ code: 'CONTENT_MINHASH_OPTIONS_INVALID' }));
  });
});
