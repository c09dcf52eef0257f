// Every canonicalization vector of the design's source material (its normalize_url asserts and
// exercise B), one test each, plus its worked example of three links to one product page
// (docs/design.md, "URL identity"). normalize() plays normalize_url.
import { describe, expect, it } from 'vitest';
import { canonicalizeUrl, compileQueryPolicies, UrlRejectedError, type QueryPolicySet } from '../../../../src/domain/url/index.js';

// The verified shop query policy: on https://shop.example:443, utm_source is tracking only.
const QUERY_POLICIES = compileQueryPolicies([
  { origin: 'https://shop.example', stripParams: ['utm_source'], note: 'verified that utm_source does not change the item page' },
]);

const normalize = (url: string, queryPolicies?: QueryPolicySet): string => canonicalizeUrl(url, { queryPolicies }).url;

function expectUserinfoRejected(url: string, secrets: string[]): void {
  let caught: unknown;
  try {
    normalize(url);
  } catch (error) {
    caught = error;
  }
  expect(caught, `credentialed URL was canonicalized: ${url}`).toBeInstanceOf(UrlRejectedError);
  const error = caught as UrlRejectedError;
  expect(error.code).toBe('userinfo');
  for (const secret of secrets) {
    expect(error.message).not.toContain(secret);
    expect(error.redactedInput).not.toContain(secret);
  }
}

describe('normalize_url asserts', () => {
  it('lowercases scheme and host, drops :80 and the fragment, keeps path case and the query as is', () => {
    expect(normalize('HTTP://Example.com:80/Path/?utm_source=x&id=42#s')).toBe('http://example.com/Path/?utm_source=x&id=42');
  });

  it('drops :443 for https and keeps a key-only parameter', () => {
    expect(normalize('https://EXAMPLE.com:443/a?flag')).toBe('https://example.com/a?flag');
  });

  it('keeps an empty value (?flag=)', () => {
    expect(normalize('https://example.com/a?flag=').endsWith('?flag=')).toBe(true);
  });

  it('keeps a reserved character encoded in the query (%2F)', () => {
    expect(normalize('https://example.com/a?next=%2F').endsWith('?next=%2F')).toBe(true);
  });

  it('keeps a bare trailing ? (opaque default policy)', () => {
    expect(normalize('https://example.com/a?')).toBe('https://example.com/a?');
  });

  it('leaves a URL without query alone', () => {
    expect(normalize('https://example.com/a')).toBe('https://example.com/a');
  });

  it('does not merge /a? with /a', () => {
    expect(normalize('https://example.com/a?')).not.toBe(normalize('https://example.com/a'));
  });

  it('keeps the empty query delimiter when a fragment follows it', () => {
    expect(normalize('https://example.com/a?#fragment')).toBe('https://example.com/a?');
  });

  it('does not read a ? after # as a query delimiter', () => {
    expect(normalize('https://example.com/a#fragment?not-query')).toBe('https://example.com/a');
  });

  it('applies the verified shop.example policy: utm_source=newsletter is stripped, with its ?', () => {
    expect(normalize('https://shop.example/item/42?utm_source=newsletter', QUERY_POLICIES)).toBe('https://shop.example/item/42');
  });

  it('rejects https://alice:secret@example.com/item/42 without leaking the credentials', () => {
    expectUserinfoRejected('https://alice:secret@example.com/item/42', ['alice', 'secret']);
  });

  it('rejects https://bob:secret@example.com/item/42 without leaking the credentials', () => {
    expectUserinfoRejected('https://bob:secret@example.com/item/42', ['bob', 'secret']);
  });
});

describe('exercise B (실습 B) asserts', () => {
  it('path case matters: /Docs != /docs (host case does not)', () => {
    expect(normalize('https://EXAMPLE.com/Docs')).not.toBe(normalize('https://example.com/docs'));
  });

  it('query values identify resources: ?id=1 != ?id=2', () => {
    expect(normalize('https://example.com/a?id=1')).not.toBe(normalize('https://example.com/a?id=2'));
  });

  it('fragments do not: #top == #bottom', () => {
    expect(normalize('https://example.com/a#top')).toBe(normalize('https://example.com/a#bottom'));
  });

  it('?flag != ?flag=', () => {
    expect(normalize('https://example.com/a?flag')).not.toBe(normalize('https://example.com/a?flag='));
  });

  it('?next=%2F != ?next=/', () => {
    expect(normalize('https://example.com/a?next=%2F')).not.toBe(normalize('https://example.com/a?next=/'));
  });

  it('/a? != /a', () => {
    expect(normalize('https://example.com/a?')).not.toBe(normalize('https://example.com/a'));
  });

  it('/a?#fragment == /a?', () => {
    expect(normalize('https://example.com/a?#fragment')).toBe('https://example.com/a?');
  });

  it('/a#fragment?not-query == /a', () => {
    expect(normalize('https://example.com/a#fragment?not-query')).toBe('https://example.com/a');
  });

  it('verified policy: shop.example/item/42?utm_source=newsletter == shop.example/item/42', () => {
    expect(normalize('https://shop.example/item/42?utm_source=newsletter', QUERY_POLICIES)).toBe('https://shop.example/item/42');
  });

  it('userinfo rejected: alice', () => {
    expectUserinfoRejected('https://alice:secret@example.com/item/42', ['alice', 'secret']);
  });

  it('userinfo rejected: bob', () => {
    expectUserinfoRejected('https://bob:secret@example.com/item/42', ['bob', 'secret']);
  });
});

describe('worked example: three links to one product page', () => {
  const links = [
    'https://shop.example/item/42?utm_source=newsletter',
    'https://SHOP.EXAMPLE:443/item/42#reviews',
    'https://shop.example/item/42?sort=recent',
  ];

  it('with the verified policy, only the first two converge', () => {
    const [a, b, c] = links.map((link) => normalize(link, QUERY_POLICIES));
    expect(a).toBe('https://shop.example/item/42');
    expect(b).toBe(a);
    expect(c).toBe('https://shop.example/item/42?sort=recent');
  });

  it('without the policy, all three stay distinct', () => {
    expect(new Set(links.map((link) => normalize(link))).size).toBe(3);
  });

  it('the same parameter on another origin is preserved', () => {
    expect(normalize('https://other.example/item/42?utm_source=newsletter', QUERY_POLICIES)).toBe(
      'https://other.example/item/42?utm_source=newsletter',
    );
    // Same host, other port: another origin too.
    expect(normalize('https://shop.example:8443/item/42?utm_source=newsletter', QUERY_POLICIES)).toBe(
      'https://shop.example:8443/item/42?utm_source=newsletter',
    );
  });

  it('records the canonicalization version beside the URL', () => {
    expect(canonicalizeUrl(links[1] as string).version).toBe(1);
  });
});
