import { ContentInputError, requireInteger } from './errors.js';
import { fmix32, hash32 } from './hash.js';

/** Below this many characters SimHash is unstable (a few words move many bits): use MinHash (docs/design.md, "Near-duplicates"). */
export const SHORT_DOCUMENT_CHARS = 300;

/** How a MinHash signature is computed. Signatures compare only when all three fields match. */
export interface MinhashOptions {
  /** Characters (code points) per shingle. Default 5, within the usual 3-5 for short texts (docs/design.md, "Near-duplicates"). */
  shingleSize: number;
  /** Signature length: the Jaccard estimate's standard error is about sqrt(J(1-J)/permutations). Default 64. */
  permutations: number;
  /** Selects the hash family; change it and every stored signature must be recomputed. Default 0. */
  seed: number;
}

export const DEFAULT_MINHASH_OPTIONS: Readonly<MinhashOptions> = Object.freeze({ shingleSize: 5, permutations: 64, seed: 0 });

/**
 * The set of overlapping `size`-character shingles of `text` (code points, not UTF-16 units).
 * Text no longer than one shingle is a single shingle, so two equal short texts still match.
 */
export function characterShingles(text: string, size: number = DEFAULT_MINHASH_OPTIONS.shingleSize): Set<string> {
  requireInteger('CONTENT_MINHASH_OPTIONS_INVALID', 'size', size, 1, 64);
  const chars = Array.from(text);
  if (chars.length <= size) return new Set([text]);
  const shingles = new Set<string>();
  for (let i = 0; i + size <= chars.length; i += 1) shingles.add(chars.slice(i, i + size).join(''));
  return shingles;
}

/**
 * MinHash signature of `text`'s character shingles: for each of `permutations` hash functions,
 * the minimum hash over the shingle set. The share of equal positions between two signatures
 * estimates the Jaccard similarity of the sets. Pass `normalizeTextForHash` output so masked
 * timestamps and tokens do not count as differences.
 *
 * Hash family: h_i(s) = fmix32(a_i * hash32(s) + b_i mod 2^32), a_i odd, (a_i, b_i) drawn from
 * a splitmix32 stream seeded by `seed`. Values are unsigned 32-bit integers.
 */
export function minhashSignature(text: string, options: Partial<MinhashOptions> = {}): number[] {
  const { shingleSize, permutations, seed } = { ...DEFAULT_MINHASH_OPTIONS, ...options };
  requireInteger('CONTENT_MINHASH_OPTIONS_INVALID', 'options.shingleSize', shingleSize, 1, 64);
  requireInteger('CONTENT_MINHASH_OPTIONS_INVALID', 'options.permutations', permutations, 1, 4096);
  requireInteger('CONTENT_MINHASH_OPTIONS_INVALID', 'options.seed', seed, 0, 0xffff_ffff);
  const bases = Array.from(characterShingles(text, shingleSize), hash32);
  const family = hashFamily(seed, permutations);
  const signature: number[] = [];
  for (let i = 0; i < permutations; i += 1) {
    const a = family[2 * i] ?? 1;
    const b = family[2 * i + 1] ?? 0;
    let min = 0xffff_ffff;
    for (const x of bases) {
      const v = fmix32((Math.imul(a, x) + b) >>> 0);
      if (v < min) min = v;
    }
    signature.push(min);
  }
  return signature;
}

/**
 * Estimated Jaccard similarity of the shingle sets behind two signatures: the share of positions
 * where they agree. Both must come from the same {@link MinhashOptions}.
 */
export function estimateJaccard(a: readonly number[], b: readonly number[]): number {
  if (a.length === 0 || a.length !== b.length) {
    throw new ContentInputError(
      'CONTENT_SIGNATURES_INCOMPATIBLE',
      'b.length',
      b.length,
      `signatures must be non-empty and of equal length (a has ${a.length}); recompute both with the same MinhashOptions`,
    );
  }
  let equal = 0;
  for (let i = 0; i < a.length; i += 1) if (a[i] === b[i]) equal += 1;
  return equal / a.length;
}

function hashFamily(seed: number, permutations: number): Uint32Array {
  // splitmix32: a fixed, well-mixed stream, so (a_i, b_i) are a pure function of the seed.
  const out = new Uint32Array(2 * permutations);
  let state = seed >>> 0;
  for (let i = 0; i < out.length; i += 1) {
    state = (state + 0x9e3779b9) >>> 0;
    let z = state;
    z = Math.imul(z ^ (z >>> 16), 0x85ebca6b);
    z = Math.imul(z ^ (z >>> 13), 0xc2b2ae35);
    z = (z ^ (z >>> 16)) >>> 0;
    out[i] = i % 2 === 0 ? (z | 1) >>> 0 : z;
  }
  return out;
}
