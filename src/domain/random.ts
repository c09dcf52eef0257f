/**
 * A small seeded PRNG (mulberry32) for code that takes an injected `random: () => number`.
 *
 * Not cryptographic. Tests use it for reproducible draws; workflows may use it too, though inside
 * a Temporal workflow the SDK's seeded `Math.random` is already deterministic.
 *
 * @param seed any number; only its low 32 bits matter.
 * @returns a function yielding floats in [0, 1), the same sequence for the same seed.
 */
export function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}
