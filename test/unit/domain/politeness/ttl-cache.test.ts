import { describe, expect, it } from 'vitest';
import { PolitenessInputError, TtlCache } from '../../../../src/domain/politeness/index.js';

type DnsAnswer = { addresses: string[] } | { negative: 'NXDOMAIN' };

describe('TtlCache', () => {
  it('returns a value until its TTL passes, then forgets it', () => {
    const cache = new TtlCache<string, number>({ maxEntries: 10 });
    cache.set('a', 1, 1000, 0);
    expect(cache.get('a', 0)).toBe(1);
    expect(cache.get('a', 999)).toBe(1);
    expect(cache.get('a', 1000)).toBeUndefined();
    expect(cache.size).toBe(0);
  });

  it('keeps positive and negative entries with their own TTLs', () => {
    const cache = new TtlCache<string, DnsAnswer>({ maxEntries: 10 });
    cache.set('example.com', { addresses: ['93.184.216.34'] }, 300_000, 0);
    cache.set('nope.invalid', { negative: 'NXDOMAIN' }, 30_000, 0);
    expect(cache.get('nope.invalid', 29_999)).toEqual({ negative: 'NXDOMAIN' });
    expect(cache.get('nope.invalid', 30_000)).toBeUndefined();
    expect(cache.get('example.com', 30_000)).toEqual({ addresses: ['93.184.216.34'] });
  });

  it('evicts the least recently used entry when full', () => {
    const cache = new TtlCache<string, number>({ maxEntries: 3 });
    cache.set('a', 1, 10_000, 0);
    cache.set('b', 2, 10_000, 0);
    cache.set('c', 3, 10_000, 0);
    expect(cache.get('a', 1)).toBe(1); // a is now the most recent
    cache.set('d', 4, 10_000, 2);
    expect(cache.size).toBe(3);
    expect(cache.get('b', 3)).toBeUndefined();
    expect(cache.get('a', 3)).toBe(1);
    expect(cache.get('c', 3)).toBe(3);
    expect(cache.get('d', 3)).toBe(4);
  });

  it('overwriting a key refreshes its value, TTL and recency without growing', () => {
    const cache = new TtlCache<string, number>({ maxEntries: 2 });
    cache.set('a', 1, 100, 0);
    cache.set('b', 2, 100, 0);
    cache.set('a', 10, 1000, 50);
    expect(cache.size).toBe(2);
    cache.set('c', 3, 1000, 60);
    expect(cache.get('b', 60)).toBeUndefined();
    expect(cache.get('a', 500)).toBe(10);
  });

  it('treats a TTL of 0 or less as "do not cache" and drops the old entry', () => {
    const cache = new TtlCache<string, number>({ maxEntries: 2 });
    cache.set('a', 1, 1000, 0);
    cache.set('a', 2, 0, 10);
    expect(cache.get('a', 10)).toBeUndefined();
    cache.set('b', 1, -5, 10);
    expect(cache.size).toBe(0);
  });

  it('delete, prune and clear', () => {
    const cache = new TtlCache<number, string>({ maxEntries: 10 });
    cache.set(1, 'one', 100, 0);
    cache.set(2, 'two', 200, 0);
    cache.set(3, 'three', 300, 0);
    cache.delete(3);
    expect(cache.get(3, 0)).toBeUndefined();
    expect(cache.prune(150)).toBe(1);
    expect(cache.size).toBe(1);
    cache.clear();
    expect(cache.size).toBe(0);
  });

  it('reading an expired entry does not count as a use', () => {
    const cache = new TtlCache<string, number>({ maxEntries: 2 });
    cache.set('old', 1, 10, 0);
    expect(cache.get('old', 20)).toBeUndefined();
    expect(cache.get('old', 0)).toBeUndefined(); // gone, even if time went backwards
  });

  it.each([0, -1, 1.5, Number.NaN])('rejects maxEntries %s with a typed error', (maxEntries) => {
    expect(() => new TtlCache({ maxEntries })).toThrow(PolitenessInputError);
    expect(() => new TtlCache({ maxEntries })).toThrow(expect.objectContaining({ code: 'POLITENESS_TTL_CACHE_INVALID' }));
  });

  it('rejects NaN times and TTLs', () => {
    const cache = new TtlCache<string, number>({ maxEntries: 2 });
    expect(() => cache.set('a', 1, Number.NaN, 0)).toThrow(expect.objectContaining({ field: 'ttlMs' }));
    expect(() => cache.get('a', Number.NaN)).toThrow(expect.objectContaining({ code: 'POLITENESS_TIME_INVALID' }));
  });
});
