import { requireNumber } from './validate.js';

/** The size of a Bloom filter for a capacity and false-positive rate (docs/design.md, "Seen test"). */
export interface BloomSizing {
  /** Expected number of distinct items `n` the filter is sized for. */
  capacity: number;
  /** Target false-positive probability `p` at `capacity` items, in (0, 1). */
  falsePositiveRate: number;
  /** Bits in the array: `m = -n ln p / (ln 2)^2`, rounded up to a whole bit. */
  bits: number;
  /** Bytes that hold `bits`: `ceil(bits / 8)`. Decimal GB, as capacity plans quote it, is `bytes / 1e9`. */
  bytes: number;
  /** Hash functions `k = (m / n) ln 2`, rounded to the nearest integer, at least 1. */
  hashes: number;
  /** Theoretical bits per item `m / n = -ln p / (ln 2)^2`, before rounding `m` up. */
  bitsPerItem: number;
}

/**
 * Sizes a Bloom filter exactly by the standard formula (docs/design.md, "Seen test"):
 * `m = -n ln p / (ln 2)^2`, `k = (m / n) ln 2`.
 *
 * @param capacity expected distinct items, an integer >= 1.
 * @param falsePositiveRate target false-positive probability, strictly between 0 and 1.
 * @throws FrontierInputError `FRONTIER_BLOOM_SIZING_INVALID` naming the bad argument.
 */
export function bloomSizing(capacity: number, falsePositiveRate: number): BloomSizing {
  requireNumber('FRONTIER_BLOOM_SIZING_INVALID', 'capacity', capacity, { min: 1, integer: true });
  requireNumber('FRONTIER_BLOOM_SIZING_INVALID', 'falsePositiveRate', falsePositiveRate, {
    min: 0,
    max: 1,
    minExclusive: true,
    maxExclusive: true,
  });
  const bitsPerItem = -Math.log(falsePositiveRate) / (Math.LN2 * Math.LN2);
  const bits = Math.ceil(capacity * bitsPerItem);
  return {
    capacity,
    falsePositiveRate,
    bits,
    bytes: Math.ceil(bits / 8),
    hashes: Math.max(1, Math.round(bitsPerItem * Math.LN2)),
    bitsPerItem,
  };
}
