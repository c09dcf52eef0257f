import { PolitenessInputError, requireTimeMs } from './errors.js';

export interface TtlCacheOptions {
  /** Entries kept; setting one more evicts the least recently used. No default: size it for its use. */
  maxEntries: number;
}

interface Entry<V> {
  value: V;
  expiresAtMs: number;
}

/**
 * A map whose entries expire, with least-recently-used eviction. Time is a parameter, so it is
 * pure and testable; the HTTP layer keeps DNS answers in it, positive and negative, each with its
 * own TTL. Expired entries are dropped when read, and evicted first by age like any other.
 */
export class TtlCache<K, V> {
  // A Map iterates in insertion order; re-inserting on every hit keeps the LRU entry first.
  private readonly entries = new Map<K, Entry<V>>();
  private readonly maxEntries: number;

  constructor(options: TtlCacheOptions) {
    if (!Number.isSafeInteger(options.maxEntries) || options.maxEntries < 1) {
      throw new PolitenessInputError('POLITENESS_TTL_CACHE_INVALID', 'options.maxEntries', options.maxEntries, 'pass an integer >= 1');
    }
    this.maxEntries = options.maxEntries;
  }

  /** The live value for `key`, refreshing its recency; undefined if missing or expired at nowMs. */
  get(key: K, nowMs: number): V | undefined {
    requireTimeMs('nowMs', nowMs);
    const entry = this.entries.get(key);
    if (entry === undefined) return undefined;
    this.entries.delete(key);
    if (nowMs >= entry.expiresAtMs) return undefined;
    this.entries.set(key, entry);
    return entry.value;
  }

  /** Stores `value` until nowMs + ttlMs. A ttlMs of 0 or less means "do not cache" and removes the key. */
  set(key: K, value: V, ttlMs: number, nowMs: number): void {
    requireTimeMs('nowMs', nowMs);
    if (typeof ttlMs !== 'number' || Number.isNaN(ttlMs)) {
      throw new PolitenessInputError('POLITENESS_TTL_CACHE_INVALID', 'ttlMs', ttlMs, 'pass a number of ms (0 or less to not cache)');
    }
    this.entries.delete(key);
    if (ttlMs <= 0) return;
    this.entries.set(key, { value, expiresAtMs: nowMs + ttlMs });
    while (this.entries.size > this.maxEntries) {
      const oldest = this.entries.keys().next();
      if (oldest.done === true) break;
      this.entries.delete(oldest.value);
    }
  }

  delete(key: K): void {
    this.entries.delete(key);
  }

  /** Removes every entry expired at nowMs; returns how many went. */
  prune(nowMs: number): number {
    requireTimeMs('nowMs', nowMs);
    let removed = 0;
    for (const [key, entry] of this.entries) {
      if (nowMs >= entry.expiresAtMs) {
        this.entries.delete(key);
        removed += 1;
      }
    }
    return removed;
  }

  clear(): void {
    this.entries.clear();
  }

  /** Entries held, expired ones not yet dropped included. */
  get size(): number {
    return this.entries.size;
  }
}
