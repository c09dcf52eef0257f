// The seen test in tiers (docs/design.md, "Seen test"): a Bloom filter in memory, the exact store behind it.
// The filter only ever answers "certainly new" or "possibly seen"; a possibly-seen URL is looked
// up in the exact store and never dropped on the filter's word, or coverage would shrink
// silently. Registration itself stays one atomic insert per fingerprint in the exact store, so a
// stale or missing filter (another worker registered the URL, a restart, an evicted filter) costs
// a conflict, never a duplicate.

/** The one question the seen test asks the filter: never "add". */
export interface SeenFilterProbe {
  mightContain(fingerprintHex: string): boolean;
}

export interface SeenTestPlan {
  /** The fingerprints asked about, in the caller's order. */
  fingerprints: readonly string[];
  /** False when there was no filter: every fingerprint goes to the atomic insert unlooked-up. */
  filtered: boolean;
  /** Certainly not in the filter: straight to the atomic insert, no lookup. */
  negatives: ReadonlySet<string>;
  /** Possibly seen: look these up in the exact store before deciding anything. */
  toConfirm: string[];
}

export interface SeenTestVerdict {
  /** Carry on to trap assessment and the atomic insert: negatives and false positives, in order. */
  unseen: string[];
  /** Positives the exact store holds: already registered, skip them. */
  seen: string[];
  /** Positives the exact store does not hold: the filter's false positives, treated as new. */
  falsePositives: string[];
}

/**
 * Splits `fingerprints` by the filter: negatives (certainly new) and those that need an exact
 * lookup (filter positives). Without a filter nothing needs a lookup: the insert is the check.
 */
export function planSeenTest(filter: SeenFilterProbe | undefined, fingerprints: readonly string[]): SeenTestPlan {
  if (!filter) return { fingerprints, filtered: false, negatives: new Set(fingerprints), toConfirm: [] };
  const negatives = new Set<string>();
  const toConfirm: string[] = [];
  for (const fingerprint of fingerprints) {
    if (filter.mightContain(fingerprint)) toConfirm.push(fingerprint);
    else negatives.add(fingerprint);
  }
  return { fingerprints, filtered: true, negatives, toConfirm };
}

/**
 * The verdict once the positives were looked up. Only a positive the exact store confirmed is
 * "seen"; anything `inExactStore` says about a negative is ignored (the atomic insert decides).
 */
export function settleSeenTest(plan: SeenTestPlan, inExactStore: ReadonlySet<string>): SeenTestVerdict {
  const seen: string[] = [];
  const falsePositives: string[] = [];
  const unseen: string[] = [];
  const positives = new Set(plan.toConfirm);
  for (const fingerprint of plan.fingerprints) {
    if (!positives.has(fingerprint)) unseen.push(fingerprint);
    else if (inExactStore.has(fingerprint)) seen.push(fingerprint);
    else {
      falsePositives.push(fingerprint);
      unseen.push(fingerprint);
    }
  }
  return { unseen, seen, falsePositives };
}
