import { bloomSizing, type BloomSizing } from './bloom-sizing.js';
import { FrontierInputError } from './errors.js';

const FINGERPRINT_PATTERN = /^[0-9a-fA-F]{32}$/;

// Serialized form: a fixed header, then the bit array. The header carries what is needed to
// re-derive the sizing, so bytes written by one build are checked, not trusted, by another.
const MAGIC = [0x43, 0x52, 0x42, 0x46]; // "CRBF": crawler Bloom filter
const FORMAT_VERSION = 1;
const HEADER_BYTES = 32;

/**
 * Tier 1 of the seen test (docs/design.md, "Seen test"): an in-memory Bloom filter in front of the exact store.
 *
 * No false negatives: `mightContain` is true for every fingerprint added. A true answer means only
 * "possibly seen"; the caller must confirm it in the exact store, never treat it as seen.
 *
 * Keys are 128-bit URL fingerprints (32 hex characters). They are already uniform hashes, so the
 * k bit indexes come from the fingerprint's own bits by double hashing (Kirsch–Mitzenmacher,
 * `g_i = h1 + i·h2 mod m`) with no further hashing.
 */
export class BloomFilter {
  readonly sizing: BloomSizing;
  readonly #bits: Uint8Array;
  #setBits: number;

  private constructor(sizing: BloomSizing, bits: Uint8Array, setBits: number) {
    this.sizing = sizing;
    this.#bits = bits;
    this.#setBits = setBits;
  }

  /**
   * An empty filter sized by {@link bloomSizing}. Allocates `sizing.bytes` bytes at once.
   * @throws FrontierInputError `FRONTIER_BLOOM_SIZING_INVALID` for nonsense capacity or rate.
   */
  static create(capacity: number, falsePositiveRate: number): BloomFilter {
    const sizing = bloomSizing(capacity, falsePositiveRate);
    return new BloomFilter(sizing, new Uint8Array(sizing.bytes), 0);
  }

  /**
   * Restores a filter written by {@link toBytes}. The bit array is copied.
   * @throws FrontierInputError `FRONTIER_BLOOM_STATE_INVALID` when the bytes are not such a filter.
   */
  static fromBytes(bytes: Uint8Array): BloomFilter {
    const fail = (hint: string): never => {
      throw new FrontierInputError('FRONTIER_BLOOM_STATE_INVALID', 'bytes', bytes, hint);
    };
    if (!(bytes instanceof Uint8Array) || bytes.length < HEADER_BYTES) return fail('expected the output of BloomFilter.toBytes()');
    if (MAGIC.some((byte, i) => bytes[i] !== byte)) return fail('missing the CRBF header; expected the output of BloomFilter.toBytes()');
    const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    const version = view.getUint8(4);
    if (version !== FORMAT_VERSION) return fail(`format version ${version} is not supported (this build reads ${FORMAT_VERSION}); rebuild the filter`);
    const hashes = view.getUint8(5);
    const capacity = view.getFloat64(8, true);
    const falsePositiveRate = view.getFloat64(16, true);
    const bits = view.getFloat64(24, true);
    let sizing: BloomSizing;
    try {
      sizing = bloomSizing(capacity, falsePositiveRate);
    } catch {
      return fail('the header holds an invalid capacity or rate; rebuild the filter');
    }
    if (sizing.bits !== bits || sizing.hashes !== hashes) return fail('the header does not match the sizing formula; rebuild the filter');
    if (bytes.length !== HEADER_BYTES + sizing.bytes) return fail(`expected ${HEADER_BYTES + sizing.bytes} bytes, got ${bytes.length}; the state is truncated`);
    const body = bytes.slice(HEADER_BYTES);
    return new BloomFilter(sizing, body, countSetBits(body));
  }

  /** Records a fingerprint (32 hex characters, either case). */
  add(fingerprintHex: string): void {
    this.testAndAdd(fingerprintHex);
  }

  /**
   * Records a fingerprint and says whether it might have been present before: false means
   * certainly new. One call, so a single owner's check-and-insert cannot interleave.
   */
  testAndAdd(fingerprintHex: string): boolean {
    let present = true;
    this.#forEachIndex(fingerprintHex, (byteIndex, mask) => {
      const byte = this.#bits[byteIndex] ?? 0;
      if ((byte & mask) === 0) {
        present = false;
        this.#bits[byteIndex] = byte | mask;
        this.#setBits += 1;
      }
    });
    return present;
  }

  /** False: certainly never added. True: possibly added; confirm in the exact store. */
  mightContain(fingerprintHex: string): boolean {
    let present = true;
    this.#forEachIndex(fingerprintHex, (byteIndex, mask) => {
      if (((this.#bits[byteIndex] ?? 0) & mask) === 0) present = false;
    });
    return present;
  }

  /** Share of bits set, 0..1. Near 0.5 at capacity; beyond that the filter is saturating. */
  get fillRatio(): number {
    return this.#setBits / this.sizing.bits;
  }

  /** The false-positive rate the current fill implies, `fillRatio^k`; compare with the target. */
  get estimatedFalsePositiveRate(): number {
    return this.fillRatio ** this.sizing.hashes;
  }

  /**
   * Distinct items added, estimated from the set bits (Swamidass–Baldi): `-(m/k) ln(1 - X/m)`.
   * Infinity once every bit is set, when the count can no longer be told.
   */
  get approximateCount(): number {
    const { bits, hashes } = this.sizing;
    if (this.#setBits >= bits) return Number.POSITIVE_INFINITY;
    return Math.round((-bits / hashes) * Math.log1p(-this.#setBits / bits));
  }

  /** A self-describing copy of the filter for storage (32-byte header, then the bit array). */
  toBytes(): Uint8Array {
    const out = new Uint8Array(HEADER_BYTES + this.#bits.length);
    out.set(MAGIC, 0);
    const view = new DataView(out.buffer);
    view.setUint8(4, FORMAT_VERSION);
    view.setUint8(5, this.sizing.hashes);
    view.setFloat64(8, this.sizing.capacity, true);
    view.setFloat64(16, this.sizing.falsePositiveRate, true);
    view.setFloat64(24, this.sizing.bits, true);
    out.set(this.#bits, HEADER_BYTES);
    return out;
  }

  #forEachIndex(fingerprintHex: string, visit: (byteIndex: number, mask: number) => void): void {
    if (typeof fingerprintHex !== 'string' || !FINGERPRINT_PATTERN.test(fingerprintHex)) {
      throw new FrontierInputError(
        'FRONTIER_FINGERPRINT_INVALID',
        'fingerprintHex',
        fingerprintHex,
        'pass a 128-bit URL fingerprint as exactly 32 hex characters',
      );
    }
    const { bits, hashes } = this.sizing;
    // Two 52-bit slices stay exact as doubles, and m can exceed 2^32 (1.2e9 bytes = 9.6e9 bits),
    // so the arithmetic is done in doubles, not 32-bit integers.
    const h1 = Number.parseInt(fingerprintHex.slice(0, 13), 16) % bits;
    let h2 = Number.parseInt(fingerprintHex.slice(13, 26), 16) % bits;
    if (h2 === 0) h2 = 1; // a zero step would put all k probes on one bit
    let index = h1;
    for (let i = 0; i < hashes; i += 1) {
      visit(Math.floor(index / 8), 1 << (index % 8));
      index += h2;
      if (index >= bits) index -= bits;
    }
  }
}

function countSetBits(bytes: Uint8Array): number {
  let count = 0;
  for (const byte of bytes) {
    let b = byte;
    while (b !== 0) {
      b &= b - 1;
      count += 1;
    }
  }
  return count;
}
