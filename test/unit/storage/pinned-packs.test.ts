// The packs a worker knows to stay (keepBodyStored asks the store for each once): bounded, the
// longest known forgotten first.
import { describe, expect, it } from 'vitest';
import { PinnedPacks } from '../../../src/storage/object-store/pinned-packs.js';

describe('PinnedPacks', () => {
  it('knows the packs added, each once', () => {
    const pinned = new PinnedPacks();
    pinned.add('packs/a.gz');
    pinned.add('packs/a.gz');
    expect(pinned.has('packs/a.gz')).toBe(true);
    expect(pinned.has('packs/b.gz')).toBe(false);
    expect(pinned.size).toBe(1);
  });

  it('forgets the longest known pack first once full', () => {
    const pinned = new PinnedPacks(2);
    pinned.add('packs/a.gz');
    pinned.add('packs/b.gz');
    pinned.add('packs/c.gz');
    expect([pinned.has('packs/a.gz'), pinned.has('packs/b.gz'), pinned.has('packs/c.gz')]).toEqual([false, true, true]);
    expect(pinned.size).toBe(2);
  });

  it('refuses a bound that is not a positive integer, naming it', () => {
    expect(() => new PinnedPacks(0)).toThrow(/PinnedPacks: maxPacks must be an integer > 0, got 0/);
    expect(() => new PinnedPacks(1.5)).toThrow(/maxPacks must be an integer > 0, got 1.5/);
  });
});
