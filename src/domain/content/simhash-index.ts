import { ContentInputError, requireInteger } from './errors.js';
import { SIMHASH_MAX_DISTANCE, hammingDistance64, requireU64 } from './simhash.js';

/** Number of 16-bit blocks a SimHash is split into for the permuted-blocks index. */
export const SIMHASH_BLOCKS = 4;

/** One index entry: `key` is the value of 16-bit block `block` (block 0 = bits 0-15, block 3 = bits 48-63). */
export interface SimhashBlockKey {
  block: number;
  key: number;
}

/**
 * The permuted-blocks index of Manku et al. (2007) for k = 3: split the 64 bits into 4 blocks of
 * 16. Three differing bits touch at most three blocks, so two hashes within distance 3 agree
 * exactly on at least one block. The store indexes every (block, key) pair; a lookup fetches the
 * rows sharing any of the query's four pairs and confirms them by Hamming distance, instead of
 * scanning every stored hash.
 */
export function simhashBlockKeys(h: bigint): SimhashBlockKey[] {
  requireU64('h', h);
  const keys: SimhashBlockKey[] = [];
  for (let block = 0; block < SIMHASH_BLOCKS; block += 1) {
    keys.push({ block, key: Number((h >> BigInt(16 * block)) & 0xffffn) });
  }
  return keys;
}

/** A near-duplicate found by {@link SimhashBlockIndex.findNear}. */
export interface SimhashMatch {
  id: string;
  distance: number;
}

/**
 * In-memory form of the block index: the reference the Postgres repository mirrors, and
 * useful on its own for a batch. Not thread-safe; holds only what is added to it.
 */
export class SimhashBlockIndex {
  private readonly hashes = new Map<string, bigint>();
  private readonly buckets = new Map<number, Set<string>>();

  /** Number of ids stored. */
  get size(): number {
    return this.hashes.size;
  }

  /** Stores `id` under `h`, replacing a previous hash for the same id. */
  add(id: string, h: bigint): void {
    this.remove(id);
    this.hashes.set(id, h);
    for (const key of simhashBlockKeys(h)) {
      const bucketId = bucketOf(key);
      let bucket = this.buckets.get(bucketId);
      if (!bucket) this.buckets.set(bucketId, (bucket = new Set()));
      bucket.add(id);
    }
  }

  /** Forgets `id`; returns whether it was stored. */
  remove(id: string): boolean {
    const h = this.hashes.get(id);
    if (h === undefined) return false;
    this.hashes.delete(id);
    for (const key of simhashBlockKeys(h)) {
      const bucketId = bucketOf(key);
      const bucket = this.buckets.get(bucketId);
      bucket?.delete(id);
      if (bucket?.size === 0) this.buckets.delete(bucketId);
    }
    return true;
  }

  /**
   * Stored ids within `maxDistance` bits of `h`, nearest first (ties by id). Only ids sharing a
   * block are examined, which is complete for `maxDistance` up to {@link SIMHASH_MAX_DISTANCE}.
   */
  findNear(h: bigint, maxDistance: number = SIMHASH_MAX_DISTANCE): SimhashMatch[] {
    requireInteger('CONTENT_OPTIONS_INVALID', 'maxDistance', maxDistance, 0, SIMHASH_MAX_DISTANCE);
    const matches: SimhashMatch[] = [];
    const seen = new Set<string>();
    for (const key of simhashBlockKeys(h)) {
      for (const id of this.buckets.get(bucketOf(key)) ?? []) {
        if (seen.has(id)) continue;
        seen.add(id);
        const stored = this.hashes.get(id);
        if (stored === undefined) throw new ContentInputError('CONTENT_IDENTITY_INVALID', 'index', id, 'index buckets and hashes disagree: a bug in SimhashBlockIndex');
        const distance = hammingDistance64(h, stored);
        if (distance <= maxDistance) matches.push({ id, distance });
      }
    }
    return matches.sort((a, b) => a.distance - b.distance || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  }

  /** How many stored ids a lookup of `h` examines: the candidate set, for checking it is not a scan. */
  candidateCount(h: bigint): number {
    const ids = new Set<string>();
    for (const key of simhashBlockKeys(h)) for (const id of this.buckets.get(bucketOf(key)) ?? []) ids.add(id);
    return ids.size;
  }
}

function bucketOf({ block, key }: SimhashBlockKey): number {
  return block * 0x1_0000 + key;
}
