import { describe, expect, it } from 'vitest';
import { redactUserinfo, resolveHref } from '../../../../src/domain/url/index.js';

describe('redactUserinfo', () => {
  it.each([
    ['https://alice:secret@example.com/item/42', 'https://***@example.com/item/42'],
    ['https://alice@example.com/', 'https://***@example.com/'],
    ['https://@example.com/', 'https://***@example.com/'],
    ['https://a@b@example.com/', 'https://***@example.com/'],
    ['https:alice:secret@example.com/', 'https:***@example.com/'],
    ['ht\ttps://alice:secret@example.com/', 'https://***@example.com/'],
    ['//alice:secret@example.com/', '//***@example.com/'],
    ['alice:secret@example.com/item', '***@example.com/item'],
    ['https://alice:se/cret@example.com/', 'https://***@example.com/'],
  ])('%s → %s', (input, expected) => {
    expect(redactUserinfo(input)).toBe(expected);
  });

  it('leaves URLs without any @ alone', () => {
    expect(redactUserinfo('https://example.com/a?b=c#d')).toBe('https://example.com/a?b=c#d');
  });

  it('over-redacts an @ outside the authority rather than risk a leak', () => {
    expect(redactUserinfo('https://medium.com/@user/post')).toBe('https://***@user/post');
  });
});

describe('resolveHref', () => {
  const base = 'https://example.com/dir/page.html?x=1#top';

  it.each([
    ['other.html', 'https://example.com/dir/other.html'],
    ['./other.html', 'https://example.com/dir/other.html'],
    ['../up.html', 'https://example.com/up.html'],
    ['../../../../up.html', 'https://example.com/up.html'],
    ['/root?q=1', 'https://example.com/root?q=1'],
    ['?q=2', 'https://example.com/dir/page.html?q=2'],
    ['#frag', 'https://example.com/dir/page.html?x=1#frag'],
    ['', 'https://example.com/dir/page.html?x=1'],
    ['//cdn.example.org/a', 'https://cdn.example.org/a'],
    ['http://Other.Example/b', 'http://Other.Example/b'],
    ['HTTPS://example.com/c', 'https://example.com/c'],
    ['https:same-scheme-relative', 'https://example.com/dir/same-scheme-relative'],
    ['  \n/spaced\t/out  ', 'https://example.com/spaced/out'],
    ['\\\\evil.example\\x', 'https://evil.example/x'],
    ['/a\\b?c\\d', 'https://example.com/a/b?c\\d'],
    ['/q?b=2&a=1&flag&e=', 'https://example.com/q?b=2&a=1&flag&e='],
    ['/q?next=%2F', 'https://example.com/q?next=%2F'],
    ['/bücher?ü', 'https://example.com/bücher?ü'],
  ])('%j → %s', (href, expected) => {
    expect(resolveHref(href, base)).toBe(expected);
  });

  it.each([
    'mailto:someone@example.com',
    'javascript:alert(1)',
    'JavaScript:void(0)',
    'data:text/html,<p>x</p>',
    'tel:+15551234',
    'ftp://example.com/file',
    'http:other-scheme-relative-needs-slashes',
    '//user:pw@example.com/',
    'https://bad host/',
    'http://[::1/',
    'https://example.com:99999/',
  ])('%j → undefined', (href) => {
    expect(resolveHref(href, base)).toBeUndefined();
  });

  it('returns undefined when the base itself is not an absolute http(s) URL', () => {
    expect(resolveHref('a', '/relative/base')).toBeUndefined();
    expect(resolveHref('a', 'ftp://example.com/')).toBeUndefined();
  });

  it('resolves against a <base href> that has an empty path', () => {
    expect(resolveHref('a/b', 'https://example.com')).toBe('https://example.com/a/b');
  });
});
