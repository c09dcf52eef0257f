import { describe, expect, it } from 'vitest';
import {
  readSitemapEntries,
  SitemapError,
  type RawSitemapEntry,
  type ReadSitemapEntriesInput,
  type SitemapRefusal,
} from '../../../../src/domain/sitemap/index.js';

const SITEMAP = 'http://h.example/a/sitemap.xml';
const utc = (iso: string): number => Date.parse(iso);

function read(entries: RawSitemapEntry[], overrides: Partial<ReadSitemapEntriesInput> = {}) {
  return readSitemapEntries({ sitemapUrl: SITEMAP, format: 'urlset', entries, declaredByRobotsOf: [], ...overrides });
}

function refusals(counts: Partial<Record<SitemapRefusal, number>>): Record<SitemapRefusal, number> {
  return { 'missing-loc': 0, 'not-absolute-http': 0, 'invalid-url': 0, 'too-long': 0, 'out-of-scope': 0, duplicate: 0, ...counts };
}

describe('readSitemapEntries: locs', () => {
  it('keeps locs trimmed and in canonical form', () => {
    const reading = read([{ loc: '\n   http://h.example/a/page \t' }, { loc: 'HTTP://H.EXAMPLE:80/a/b/./c/../x#frag' }, { loc: 'http://h.example/a/%7Euser/a b' }]);
    expect(reading).toStrictEqual({
      format: 'urlset',
      urls: [{ loc: 'http://h.example/a/page' }, { loc: 'http://h.example/a/b/x' }, { loc: 'http://h.example/a/~user/a%20b' }],
      sitemaps: [],
      refused: refusals({}),
      truncated: false,
    });
  });

  it.each<[SitemapRefusal, string]>([
    ['missing-loc', ''],
    ['missing-loc', ' \n\t '],
    ['not-absolute-http', '/a/relative'],
    ['not-absolute-http', 'relative.html'],
    ['not-absolute-http', '//h.example/a/protocol-relative'],
    ['not-absolute-http', 'ftp://h.example/a/file'],
    ['not-absolute-http', 'mailto:someone@h.example'],
    ['not-absolute-http', 'http:/h.example/a/one-slash'],
    ['invalid-url', 'http://user:secret@h.example/a/page'],
    ['invalid-url', 'http://h.example:99999/a/page'],
    ['invalid-url', 'http://h.example/a/line\nbreak'],
    ['invalid-url', 'http://exa mple.com/a/page'],
    ['invalid-url', 'http://[::1/a/page'],
    ['not-absolute-http', 'http:///a/three-slashes'],
    ['out-of-scope', 'http://h.example/b/page'],
    ['out-of-scope', 'https://h.example/a/page'],
    ['out-of-scope', 'http://other.example/a/page'],
  ])('refuses as %s: %j', (reason, loc) => {
    const reading = read([{ loc }]);
    expect(reading.urls).toEqual([]);
    expect(reading.refused).toStrictEqual(refusals({ [reason]: 1 }));
  });

  it('accepts a loc of exactly maxLocChars and refuses one character more', () => {
    const atLimit = `http://h.example/a/${'x'.repeat(2048 - 19)}`;
    expect(atLimit).toHaveLength(2048);
    expect(read([{ loc: atLimit }]).urls).toEqual([{ loc: atLimit }]);
    const reading = read([{ loc: `${atLimit}y` }]);
    expect(reading.urls).toEqual([]);
    expect(reading.refused).toStrictEqual(refusals({ 'too-long': 1 }));
  });

  it('refuses as too-long a loc short as written whose canonical form is over the limit', () => {
    const loc = `http://h.example/a/${'é'.repeat(500)}`;
    expect(loc.length).toBeLessThan(2048);
    expect(read([{ loc }]).refused).toStrictEqual(refusals({ 'too-long': 1 }));
  });

  it('applies a custom maxLocChars', () => {
    const reading = read([{ loc: 'http://h.example/a/12345678901' }, { loc: 'http://h.example/a/1234567890' }], { limits: { maxLocChars: 29 } });
    expect(reading.urls).toEqual([{ loc: 'http://h.example/a/1234567890' }]);
    expect(reading.refused).toStrictEqual(refusals({ 'too-long': 1 }));
  });

  it('lets a sitemap declared by another origin robots.txt list that origin', () => {
    const reading = read([{ loc: 'https://b.example/page' }, { loc: 'https://c.example/page' }], { declaredByRobotsOf: ['https://b.example'] });
    expect(reading.urls).toEqual([{ loc: 'https://b.example/page' }]);
    expect(reading.refused).toStrictEqual(refusals({ 'out-of-scope': 1 }));
  });
});

describe('readSitemapEntries: duplicates', () => {
  it('keeps the entry with the latest lastmod, at the position of the first occurrence', () => {
    const reading = read([
      { loc: 'http://h.example/a/1', lastmod: '2020-01-01', changefreq: 'yearly' },
      { loc: 'http://h.example/a/2' },
      { loc: 'http://H.EXAMPLE/a/1', lastmod: '2022-06-01', changefreq: 'daily' },
      { loc: 'http://h.example/a/./1#x', lastmod: '2021-01-01', changefreq: 'weekly' },
    ]);
    expect(reading.urls).toStrictEqual([
      { loc: 'http://h.example/a/1', lastmodMs: utc('2022-06-01T00:00:00Z'), lastmodToMs: utc('2022-06-01T23:59:59.999Z'), changefreq: 'daily' },
      { loc: 'http://h.example/a/2' },
    ]);
    expect(reading.refused).toStrictEqual(refusals({ duplicate: 2 }));
  });

  it('prefers an entry with a lastmod over one without, and the first of equals', () => {
    const later = read([{ loc: 'http://h.example/a/1', priority: '0.1' }, { loc: 'http://h.example/a/1', lastmod: '2020', priority: '0.9' }]);
    expect(later.urls).toStrictEqual([{ loc: 'http://h.example/a/1', lastmodMs: utc('2020-01-01T00:00:00Z'), lastmodToMs: utc('2020-12-31T23:59:59.999Z'), priority: 0.9 }]);
    const earlier = read([{ loc: 'http://h.example/a/1', lastmod: '2020', priority: '0.9' }, { loc: 'http://h.example/a/1', priority: '0.1' }]);
    expect(earlier.urls).toStrictEqual([{ loc: 'http://h.example/a/1', lastmodMs: utc('2020-01-01T00:00:00Z'), lastmodToMs: utc('2020-12-31T23:59:59.999Z'), priority: 0.9 }]);
    const tie = read([{ loc: 'http://h.example/a/1', lastmod: '2020', priority: '0.2' }, { loc: 'http://h.example/a/1', lastmod: '2020-01-01T00:00Z', priority: '0.8' }]);
    expect(tie.urls.map((entry) => entry.priority)).toEqual([0.2]);
    expect(tie.refused.duplicate).toBe(1);
  });

  it('does not count a refused entry as a duplicate', () => {
    const reading = read([{ loc: 'http://h.example/b/1' }, { loc: 'http://h.example/b/1' }]);
    expect(reading.refused).toStrictEqual(refusals({ 'out-of-scope': 2 }));
  });
});

describe('readSitemapEntries: fields', () => {
  it.each([
    ['0.5', 0.5],
    ['1', 1],
    ['1.0', 1],
    ['0', 0],
    ['0.0', 0],
    ['.3', 0.3],
    ['1.', 1],
    [' 0.7\n', 0.7],
    ['+0.2', 0.2],
  ])('keeps priority %j as %d', (priority, expected) => {
    expect(read([{ loc: 'http://h.example/a/p', priority }]).urls).toStrictEqual([{ loc: 'http://h.example/a/p', priority: expected }]);
  });

  it.each(['1.1', '2', '-0.1', '-0', 'high', '', '0.5.1', '1e-1', 'NaN', 'Infinity', '0x1', '0,5'])('drops priority %j and keeps the entry', (priority) => {
    expect(read([{ loc: 'http://h.example/a/p', priority }]).urls).toStrictEqual([{ loc: 'http://h.example/a/p' }]);
  });

  it.each([
    ['always', 'always'],
    ['hourly', 'hourly'],
    ['Daily', 'daily'],
    [' WEEKLY\n', 'weekly'],
    ['monthly', 'monthly'],
    ['yearly', 'yearly'],
    ['never', 'never'],
  ])('keeps changefreq %j as %s', (changefreq, expected) => {
    expect(read([{ loc: 'http://h.example/a/p', changefreq }]).urls).toStrictEqual([{ loc: 'http://h.example/a/p', changefreq: expected }]);
  });

  it.each(['often', 'day', '', 'week ly', 'constructor'])('drops changefreq %j and keeps the entry', (changefreq) => {
    expect(read([{ loc: 'http://h.example/a/p', changefreq }]).urls).toStrictEqual([{ loc: 'http://h.example/a/p' }]);
  });

  it('reads lastmod as a W3C Datetime span, and drops one that does not parse', () => {
    const reading = read([
      { loc: 'http://h.example/a/1', lastmod: ' 2004-12-23T18:00:15+00:00 ' },
      { loc: 'http://h.example/a/2', lastmod: '2023-02-29' },
      { loc: 'http://h.example/a/3', lastmod: 'Sat, 07 Sep 2002 00:00:01 GMT' },
    ]);
    expect(reading.urls).toStrictEqual([
      { loc: 'http://h.example/a/1', lastmodMs: utc('2004-12-23T18:00:15.000Z'), lastmodToMs: utc('2004-12-23T18:00:15.999Z') },
      { loc: 'http://h.example/a/2' },
      // RFC 822 is for RSS; a urlset lastmod must be W3C.
      { loc: 'http://h.example/a/3' },
    ]);
  });

  it('reads RSS dates as RFC 822 or W3C', () => {
    const reading = read(
      [
        { loc: 'http://h.example/a/1', lastmod: 'Sat, 07 Sep 2002 00:00:01 GMT' },
        { loc: 'http://h.example/a/2', lastmod: '2003-06-11T10:00:00+02:00' },
        { loc: 'http://h.example/a/3', lastmod: 'last week' },
      ],
      { format: 'rss' },
    );
    expect(reading.urls).toStrictEqual([
      { loc: 'http://h.example/a/1', lastmodMs: utc('2002-09-07T00:00:01.000Z'), lastmodToMs: utc('2002-09-07T00:00:01.999Z') },
      { loc: 'http://h.example/a/2', lastmodMs: utc('2003-06-11T08:00:00.000Z'), lastmodToMs: utc('2003-06-11T08:00:00.999Z') },
      { loc: 'http://h.example/a/3' },
    ]);
  });
});

describe('readSitemapEntries: formats', () => {
  it('puts the entries of a sitemap index in sitemaps, on the same site, without page fields', () => {
    const reading = read(
      [
        { loc: 'http://h.example/sitemap-1.xml.gz', lastmod: '2004-10-01T18:23:17+00:00', changefreq: 'daily', priority: '0.5' },
        { loc: 'http://h.example/a/sitemap-2.xml', lastmod: 'yesterday' },
        { loc: 'http://other.example/sitemap-3.xml' },
        { loc: 'http://h.example/sitemap-1.xml.gz' },
      ],
      { format: 'sitemapindex' },
    );
    expect(reading).toStrictEqual({
      format: 'sitemapindex',
      urls: [],
      sitemaps: [
        { loc: 'http://h.example/sitemap-1.xml.gz', lastmodMs: utc('2004-10-01T18:23:17.000Z'), lastmodToMs: utc('2004-10-01T18:23:17.999Z') },
        { loc: 'http://h.example/a/sitemap-2.xml' },
      ],
      refused: refusals({ 'out-of-scope': 1, duplicate: 1 }),
      truncated: false,
    });
  });

  it('reads nothing from an unrecognized document', () => {
    expect(read([{ loc: 'http://h.example/a/1' }], { format: 'unrecognized' })).toStrictEqual({
      format: 'unrecognized',
      urls: [],
      sitemaps: [],
      refused: refusals({}),
      truncated: false,
    });
  });

  it('reads text sitemap entries as pages', () => {
    expect(read([{ loc: 'http://h.example/a/1' }], { format: 'text' }).urls).toEqual([{ loc: 'http://h.example/a/1' }]);
  });
});

describe('readSitemapEntries: limits', () => {
  const entries = (count: number): RawSitemapEntry[] => Array.from({ length: count }, (_, index) => ({ loc: `http://h.example/a/${index}` }));

  it('reads maxEntries entries and marks the file truncated when there are more', () => {
    const reading = read(entries(4), { limits: { maxEntries: 3 } });
    expect(reading.urls.map((entry) => entry.loc)).toEqual(['http://h.example/a/0', 'http://h.example/a/1', 'http://h.example/a/2']);
    expect(reading.truncated).toBe(true);
  });

  it('is not truncated at exactly maxEntries', () => {
    const reading = read(entries(3), { limits: { maxEntries: 3 } });
    expect(reading.urls).toHaveLength(3);
    expect(reading.truncated).toBe(false);
  });

  it('counts refused entries toward maxEntries', () => {
    const reading = read([{ loc: '/relative' }, { loc: 'http://h.example/a/1' }, { loc: 'http://h.example/a/2' }], { limits: { maxEntries: 2 } });
    expect(reading.urls).toEqual([{ loc: 'http://h.example/a/1' }]);
    expect(reading.refused).toStrictEqual(refusals({ 'not-absolute-http': 1 }));
    expect(reading.truncated).toBe(true);
  });

  it('defaults to the protocol limit of 50,000 entries', () => {
    const reading = read(entries(50_001));
    expect(reading.urls).toHaveLength(50_000);
    expect(reading.urls.at(-1)).toEqual({ loc: 'http://h.example/a/49999' });
    expect(reading.truncated).toBe(true);
  });

  it('is truncated when the extractor stopped early', () => {
    expect(read(entries(1), { stoppedEarly: true }).truncated).toBe(true);
    expect(read(entries(1), { stoppedEarly: false }).truncated).toBe(false);
  });

  it.each([
    ['maxEntries', 0],
    ['maxEntries', 1.5],
    ['maxLocChars', -1],
    ['maxDocumentChars', Number.NaN],
  ])('throws SITEMAP_OPTIONS_INVALID for limits.%s = %d', (key, value) => {
    expect(() => read(entries(1), { limits: { [key]: value } })).toThrow(SitemapError);
    expect(() => read(entries(1), { limits: { [key]: value } })).toThrow(expect.objectContaining({ code: 'SITEMAP_OPTIONS_INVALID', field: `limits.${key}` }));
  });

  it('throws SITEMAP_URL_INVALID for a sitemap URL that is not absolute, even with no entries', () => {
    expect(() => read([], { sitemapUrl: 'sitemap.xml' })).toThrow(expect.objectContaining({ code: 'SITEMAP_URL_INVALID' }));
  });
});
