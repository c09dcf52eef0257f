/**
 * Packs known to stay in the object store: each was found there after a fetch record pointing into
 * it had committed. `crawler bodies prune` removes only packs that nothing points into, fetch
 * records are never deleted, and records leave a pack only when it is missing (moveBodyRecords);
 * so such a pack stays, and a later record into it needs no request to check it
 * (keepBodyStored). A recrawl's unchanged pages point into few packs: one check each, not one a
 * page. Bounded: past `maxPacks`, the longest known goes first (and is checked again if needed).
 */
export class PinnedPacks {
  private readonly packs = new Set<string>();

  constructor(private readonly maxPacks = 100_000) {
    if (!Number.isInteger(maxPacks) || maxPacks <= 0) throw new Error(`PinnedPacks: maxPacks must be an integer > 0, got ${maxPacks}`);
  }

  has(pack: string): boolean {
    return this.packs.has(pack);
  }

  /** Call only with a pack found in the store after a record pointing into it committed. */
  add(pack: string): void {
    if (this.packs.has(pack)) return;
    if (this.packs.size >= this.maxPacks) this.packs.delete(this.packs.values().next().value!);
    this.packs.add(pack);
  }

  get size(): number {
    return this.packs.size;
  }
}
