import { ContentInputError } from './errors.js';
import { DEFAULT_MINHASH_OPTIONS, SHORT_DOCUMENT_CHARS, estimateJaccard, minhashSignature, type MinhashOptions } from './minhash.js';
import { SIMHASH_MAX_DISTANCE, hammingDistance64, simhash64 } from './simhash.js';
import { tokenize } from './tokenize.js';

/** What a parsed document stores to answer "is this nearly the same text?" (docs/design.md, "Near-duplicates"). */
export interface ContentIdentity {
  /** Length of the normalized text in code points. */
  textLength: number;
  /** 64-bit SimHash of the normalized text's tokens. */
  simhash: bigint;
  /** MinHash signature, present for short documents (textLength < shortDocumentChars). */
  minhash?: number[];
}

/** Thresholds for {@link isNearDuplicate} and {@link computeContentIdentity}. */
export interface NearDuplicateOptions {
  /** Largest SimHash Hamming distance that is a near-duplicate. Default 3 (k=3, docs/design.md, "Near-duplicates"). */
  maxSimhashDistance: number;
  /** Smallest estimated Jaccard similarity that is a near-duplicate for short documents. Default 0.8. */
  minJaccard: number;
  /** Documents shorter than this many characters are compared by MinHash. Default 300. */
  shortDocumentChars: number;
  /** MinHash parameters; defaults {@link DEFAULT_MINHASH_OPTIONS}. */
  minhash: MinhashOptions;
}

export const DEFAULT_NEAR_DUPLICATE_OPTIONS: Readonly<NearDuplicateOptions> = Object.freeze({
  maxSimhashDistance: SIMHASH_MAX_DISTANCE,
  minJaccard: 0.8,
  shortDocumentChars: SHORT_DOCUMENT_CHARS,
  minhash: DEFAULT_MINHASH_OPTIONS,
});

/** Verdict of {@link isNearDuplicate}: which method decided, and its measure. */
export interface NearDuplicateVerdict {
  near: boolean;
  method: 'simhash' | 'minhash';
  /** SimHash Hamming distance, when method is 'simhash'. */
  distance?: number;
  /** Estimated Jaccard similarity, when method is 'minhash'. */
  jaccard?: number;
}

/**
 * Content identity of a document's normalized text (pass `normalizeTextForHash` output; the
 * exact normalized hash is SHA-256 of that same string, computed outside the domain).
 */
export function computeContentIdentity(normalizedText: string, options: Partial<NearDuplicateOptions> = {}): ContentIdentity {
  const { shortDocumentChars, minhash } = { ...DEFAULT_NEAR_DUPLICATE_OPTIONS, ...options };
  const textLength = Array.from(normalizedText).length;
  const identity: ContentIdentity = { textLength, simhash: simhash64(tokenize(normalizedText)) };
  if (textLength < shortDocumentChars) identity.minhash = minhashSignature(normalizedText, minhash);
  return identity;
}

/**
 * Whether two documents are near-duplicates. If either is shorter than `shortDocumentChars` and
 * both carry MinHash signatures, MinHash decides (Jaccard >= minJaccard), because a few changed
 * words swing a short document's SimHash by many bits. Otherwise SimHash decides
 * (distance <= maxSimhashDistance).
 */
export function isNearDuplicate(a: ContentIdentity, b: ContentIdentity, options: Partial<NearDuplicateOptions> = {}): NearDuplicateVerdict {
  const { maxSimhashDistance, minJaccard, shortDocumentChars } = { ...DEFAULT_NEAR_DUPLICATE_OPTIONS, ...options };
  for (const [field, identity] of [['a', a], ['b', b]] as const) {
    if (!Number.isSafeInteger(identity.textLength) || identity.textLength < 0) {
      throw new ContentInputError('CONTENT_IDENTITY_INVALID', `${field}.textLength`, identity.textLength, 'pass the normalized text length, a non-negative integer');
    }
  }
  const short = Math.min(a.textLength, b.textLength) < shortDocumentChars;
  if (short && a.minhash && b.minhash) {
    const jaccard = estimateJaccard(a.minhash, b.minhash);
    return { near: jaccard >= minJaccard, method: 'minhash', jaccard };
  }
  const distance = hammingDistance64(a.simhash, b.simhash);
  return { near: distance <= maxSimhashDistance, method: 'simhash', distance };
}
