import { seededRandom } from '../../../src/domain/random.js';

export { seededRandom };

/** FNV-1a over a string: derives independent seeds from names (host, path) reproducibly. */
export function hashString(text: string): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    hash ^= text.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193);
  }
  return hash >>> 0;
}

/** An integer in [0, bound) drawn from `random`. */
export function randomInt(random: () => number, bound: number): number {
  return Math.floor(random() * bound);
}

export function pick<T>(random: () => number, items: readonly T[]): T {
  const item = items[randomInt(random, items.length)];
  if (item === undefined) throw new RangeError('pick: empty list');
  return item;
}
