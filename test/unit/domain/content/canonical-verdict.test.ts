import { describe, expect, it } from 'vitest';
import { canonicalHintVerdict, simhash64, tokenize, normalizeTextForHash, type CanonicalHintFacts } from '../../../../src/domain/content/index.js';

const identityOf = (text: string) => ({ textLength: 1000, simhash: simhash64(tokenize(normalizeTextForHash(text))) });
const TEXT = Array.from({ length: 200 }, (_, i) => `word${i % 50} harbour ${i}`).join(' ');
const side = (text: string, hash: string) => ({ normalizedHash: hash, identity: identityOf(text) });
const facts = (over: Partial<CanonicalHintFacts> = {}): CanonicalHintFacts => ({
  sourceHost: 'a.example',
  targetHost: 'a.example',
  source: side(TEXT, 'h1'),
  target: { ...side(TEXT, 'h1'), redirected: false, pointsElsewhere: false },
  ...over,
});

describe('canonicalHintVerdict', () => {
  it('obeys a same-host hint to a page with the same text', () => {
    expect(canonicalHintVerdict(facts())).toEqual({ kind: 'obeyed', match: 'exact' });
  });

  it('obeys a hint to a near duplicate', () => {
    const near = { ...side(`${TEXT} plus one`, 'h2'), redirected: false, pointsElsewhere: false };
    expect(canonicalHintVerdict(facts({ target: near }))).toEqual({ kind: 'obeyed', match: 'near' });
  });

  it('keeps a hint to other content, another host, a redirect or a non-canonical page as evidence', () => {
    const other = { ...side('An entirely different page about trains and timetables, nothing alike at all.', 'h3'), redirected: false, pointsElsewhere: false };
    expect(canonicalHintVerdict(facts({ target: other }))).toEqual({ kind: 'evidence', reason: 'different-content' });
    expect(canonicalHintVerdict(facts({ targetHost: 'b.example' }))).toEqual({ kind: 'evidence', reason: 'cross-host' });
    expect(canonicalHintVerdict(facts({ target: { ...side(TEXT, 'h1'), redirected: true, pointsElsewhere: false } }))).toEqual({ kind: 'evidence', reason: 'redirect' });
    expect(canonicalHintVerdict(facts({ target: { ...side(TEXT, 'h1'), redirected: false, pointsElsewhere: true } }))).toEqual({ kind: 'evidence', reason: 'non-canonical' });
  });

  it('waits for a same-host target not parsed yet, and judges a cross-host one at once', () => {
    expect(canonicalHintVerdict(facts({ target: undefined }))).toEqual({ kind: 'pending' });
    expect(canonicalHintVerdict(facts({ target: undefined, targetHost: 'b.example' }))).toEqual({ kind: 'evidence', reason: 'cross-host' });
  });

  it('never obeys on two empty pages', () => {
    const empty = { normalizedHash: null, identity: undefined };
    expect(canonicalHintVerdict(facts({ source: empty, target: { ...empty, redirected: false, pointsElsewhere: false } }))).toEqual({ kind: 'evidence', reason: 'different-content' });
  });
});
