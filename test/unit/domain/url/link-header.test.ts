import { describe, expect, it } from 'vitest';
import { canonicalFromLinkHeader } from '../../../../src/domain/url/index.js';

const BASE = 'https://site.example/a/page?x=1';

describe('canonicalFromLinkHeader', () => {
  it('reads a canonical link, resolved against the page', () => {
    expect(canonicalFromLinkHeader('<https://site.example/a/page>; rel="canonical"', BASE)).toBe('https://site.example/a/page');
    expect(canonicalFromLinkHeader('</a/canon>; rel=canonical', BASE)).toBe('https://site.example/a/canon');
    expect(canonicalFromLinkHeader('<other>; REL="Canonical"', BASE)).toBe('https://site.example/a/other');
  });

  it('finds it among several links, parameters in any order, rel values with several types', () => {
    const header = '<https://site.example/p.pdf>; rel="alternate"; type="application/pdf", <https://cdn.example/x,y>; title="a, b"; rel="preload", <https://site.example/c>; type="text/html"; rel="canonical alternate"';
    expect(canonicalFromLinkHeader(header, BASE)).toBe('https://site.example/c');
  });

  it('takes the first canonical link', () => {
    expect(canonicalFromLinkHeader('<https://site.example/1>; rel="canonical", <https://site.example/2>; rel="canonical"', BASE)).toBe('https://site.example/1');
  });

  it('returns undefined without a canonical link, for a non-http target and for junk', () => {
    expect(canonicalFromLinkHeader(undefined, BASE)).toBeUndefined();
    expect(canonicalFromLinkHeader('', BASE)).toBeUndefined();
    expect(canonicalFromLinkHeader('<https://site.example/x>; rel="next"', BASE)).toBeUndefined();
    expect(canonicalFromLinkHeader('<mailto:a@b.example>; rel="canonical"', BASE)).toBeUndefined();
    expect(canonicalFromLinkHeader('rel="canonical"; <>', BASE)).toBeUndefined();
    expect(canonicalFromLinkHeader('<'.repeat(100_000), BASE)).toBeUndefined();
  });
});
