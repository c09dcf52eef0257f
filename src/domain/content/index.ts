// Content identity (docs/design.md, "Content identity"): which text counts as "the content", and three ways to compare it.
export { ContentInputError, type ContentErrorCode } from './errors.js';
export { normalizeTextForHash, MASK_PLACEHOLDERS, DEFAULT_NORMALIZE_OPTIONS, type NormalizeOptions } from './normalize.js';
export { tokenize } from './tokenize.js';
export { hash64, hash32, fnv1a64, fnv1a32 } from './hash.js';
export {
  simhash64,
  hammingDistance64,
  simhashToHex,
  simhashFromHex,
  toSignedInt64String,
  fromSignedInt64String,
  SIMHASH_MAX_DISTANCE,
} from './simhash.js';
export { simhashBlockKeys, SimhashBlockIndex, SIMHASH_BLOCKS, type SimhashBlockKey, type SimhashMatch } from './simhash-index.js';
export {
  minhashSignature,
  estimateJaccard,
  characterShingles,
  SHORT_DOCUMENT_CHARS,
  DEFAULT_MINHASH_OPTIONS,
  type MinhashOptions,
} from './minhash.js';
export { minhashBandKeys, MINHASH_BANDS, type MinhashBandKey } from './minhash-lsh.js';
export {
  computeContentIdentity,
  isNearDuplicate,
  DEFAULT_NEAR_DUPLICATE_OPTIONS,
  type ContentIdentity,
  type NearDuplicateOptions,
  type NearDuplicateVerdict,
} from './identity.js';
export {
  canonicalHintVerdict,
  type CanonicalEvidenceReason,
  type CanonicalHintFacts,
  type CanonicalSide,
  type CanonicalVerdict,
} from './canonical-verdict.js';
