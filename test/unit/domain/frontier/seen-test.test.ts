import { describe, expect, it } from 'vitest';
import { BloomFilter, planSeenTest, settleSeenTest, type SeenFilterProbe } from '../../../../src/domain/frontier/index.js';
import { seededRandom } from '../../../../src/domain/random.js';
import { randomFingerprint } from './random-fingerprints.js';

const fp = (n: number): string => n.toString(16).padStart(32, '0');

/** A filter that answers from a fixed set: lets a test script exact false positives. */
const scripted = (positives: Iterable<string>): SeenFilterProbe => {
  const set = new Set(positives);
  return { mightContain: (fingerprint) => set.has(fingerprint) };
};

describe('planSeenTest: which fingerprints need an exact lookup', () => {
  it('sends Bloom negatives straight to the insert and only positives to the exact store', () => {
    const plan = planSeenTest(scripted([fp(2), fp(4)]), [fp(1), fp(2), fp(3), fp(4)]);
    expect(plan.filtered).toBe(true);
    expect([...plan.negatives]).toEqual([fp(1), fp(3)]);
    expect(plan.toConfirm).toEqual([fp(2), fp(4)]);
  });

  it('without a filter looks nothing up: the atomic insert is the check', () => {
    const plan = planSeenTest(undefined, [fp(1), fp(2)]);
    expect(plan).toMatchObject({ filtered: false, toConfirm: [] });
    expect([...plan.negatives]).toEqual([fp(1), fp(2)]);
    expect(settleSeenTest(plan, new Set([fp(1)])).unseen).toEqual([fp(1), fp(2)]);
  });

  it('never asks the filter to add: planning twice gives the same plan', () => {
    const random = seededRandom(3);
    const [a, b] = [randomFingerprint(random), randomFingerprint(random)];
    const filter = BloomFilter.create(100, 0.01);
    filter.add(a);
    const first = planSeenTest(filter, [a, b]);
    const second = planSeenTest(filter, [a, b]);
    expect(first.toConfirm).toEqual([a]);
    expect(second.toConfirm).toEqual(first.toConfirm);
    expect(filter.mightContain(b)).toBe(false);
  });
});

describe('settleSeenTest: a positive is seen only when the exact store confirms it', () => {
  it('splits positives into seen (confirmed) and false positives (treated as new)', () => {
    const plan = planSeenTest(scripted([fp(2), fp(3)]), [fp(1), fp(2), fp(3)]);
    const verdict = settleSeenTest(plan, new Set([fp(2)]));
    expect(verdict.seen).toEqual([fp(2)]);
    expect(verdict.falsePositives).toEqual([fp(3)]);
    expect(verdict.unseen).toEqual([fp(1), fp(3)]);
  });

  it('ignores what the store says about negatives: those go to the insert, which decides', () => {
    const plan = planSeenTest(scripted([]), [fp(1)]);
    expect(settleSeenTest(plan, new Set([fp(1)]))).toEqual({ unseen: [fp(1)], seen: [], falsePositives: [] });
  });

  it('with a real filter over random fingerprints: nothing unseen is ever called seen, and no added one is missed', () => {
    const random = seededRandom(11);
    const filter = BloomFilter.create(500, 0.05);
    const added = Array.from({ length: 500 }, () => randomFingerprint(random));
    for (const fingerprint of added) filter.add(fingerprint);
    const fresh = Array.from({ length: 2000 }, () => randomFingerprint(random));
    const store = new Set(added);
    const plan = planSeenTest(filter, [...added, ...fresh]);
    // No false negatives: every added fingerprint needs a lookup.
    expect(plan.toConfirm.slice(0, added.length)).toEqual(added);
    const verdict = settleSeenTest(plan, store);
    expect(verdict.seen).toEqual(added);
    expect(verdict.unseen).toEqual(fresh);
    // Some fresh fingerprints hit the filter and were confirmed absent, not dropped.
    expect(verdict.falsePositives.length).toBeGreaterThan(0);
    expect(verdict.falsePositives.length).toBeLessThan(fresh.length * 0.15);
    expect(verdict.falsePositives.every((fingerprint) => verdict.unseen.includes(fingerprint))).toBe(true);
  });
});
