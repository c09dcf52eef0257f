import { gzipSync } from 'node:zlib';
import { describe, expect, it, vi } from 'vitest';
import { readSitemapEntries, SitemapError, type SitemapRefusal } from '../../../src/domain/sitemap/index.js';
import type * as sitemapDomain from '../../../src/domain/sitemap/index.js';
import { readSitemapDocument, type ReadSitemapDocumentOptions } from '../../../src/parse/sitemap-document.js';

// The real readSitemapEntries, watched: the extractor must stop at the limit, not hand on every entry.
vi.mock('../../../src/domain/sitemap/index.js', async (importOriginal) => {
  const actual = await importOriginal<typeof sitemapDomain>();
  return { ...actual, readSitemapEntries: vi.fn(actual.readSitemapEntries) };
});

/** How many raw entries the last read handed to readSitemapEntries. */
const entriesExtracted = (): number => vi.mocked(readSitemapEntries).mock.lastCall?.[0].entries.length ?? -1;

const SITEMAP = 'http://www.example.com/sitemap.xml';
const NOT_DECLARED: ReadSitemapDocumentOptions = { declaredByRobotsOf: [] };
const utc = (iso: string): number => Date.parse(iso);
const read = (text: string, options: ReadSitemapDocumentOptions = NOT_DECLARED, url = SITEMAP) => readSitemapDocument(text, url, options);

function refusals(counts: Partial<Record<SitemapRefusal, number>>): Record<SitemapRefusal, number> {
  return { 'missing-loc': 0, 'not-absolute-http': 0, 'invalid-url': 0, 'too-long': 0, 'out-of-scope': 0, duplicate: 0, ...counts };
}

const urlset = (body: string) => `<?xml version="1.0" encoding="UTF-8"?>\n<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">${body}</urlset>`;

// https://www.sitemaps.org/protocol.html, "Sample XML Sitemap".
const SITEMAPS_ORG_URLSET = `<?xml version="1.0" encoding="UTF-8"?>
<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">
   <url>
      <loc>http://www.example.com/</loc>
      <lastmod>2005-01-01</lastmod>
      <changefreq>monthly</changefreq>
      <priority>0.8</priority>
   </url>
   <url>
      <loc>http://www.example.com/catalog?item=12&amp;desc=vacation_hawaii</loc>
      <changefreq>weekly</changefreq>
   </url>
   <url>
      <loc>http://www.example.com/catalog?item=73&amp;desc=vacation_new_zealand</loc>
      <lastmod>2004-12-23</lastmod>
      <changefreq>weekly</changefreq>
   </url>
   <url>
      <loc>http://www.example.com/catalog?item=74&amp;desc=vacation_newfoundland</loc>
      <lastmod>2004-12-23T18:00:15+00:00</lastmod>
      <priority>0.3</priority>
   </url>
   <url>
      <loc>http://www.example.com/catalog?item=83&amp;desc=vacation_usa</loc>
      <lastmod>2004-11-23</lastmod>
   </url>
</urlset>`;

// https://www.sitemaps.org/protocol.html, "Sample XML Sitemap Index".
const SITEMAPS_ORG_INDEX = `<?xml version="1.0" encoding="UTF-8"?>
<sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">
   <sitemap>
      <loc>http://www.example.com/sitemap1.xml.gz</loc>
      <lastmod>2004-10-01T18:23:17+00:00</lastmod>
   </sitemap>
   <sitemap>
      <loc>http://www.example.com/sitemap2.xml.gz</loc>
      <lastmod>2005-01-01</lastmod>
   </sitemap>
</sitemapindex>`;

describe('readSitemapDocument: the sitemaps.org examples', () => {
  it('reads the sample urlset', () => {
    expect(read(SITEMAPS_ORG_URLSET)).toStrictEqual({
      format: 'urlset',
      urls: [
        { loc: 'http://www.example.com/', lastmodMs: utc('2005-01-01T00:00:00.000Z'), lastmodToMs: utc('2005-01-01T23:59:59.999Z'), changefreq: 'monthly', priority: 0.8 },
        { loc: 'http://www.example.com/catalog?item=12&desc=vacation_hawaii', changefreq: 'weekly' },
        {
          loc: 'http://www.example.com/catalog?item=73&desc=vacation_new_zealand',
          lastmodMs: utc('2004-12-23T00:00:00.000Z'),
          lastmodToMs: utc('2004-12-23T23:59:59.999Z'),
          changefreq: 'weekly',
        },
        {
          loc: 'http://www.example.com/catalog?item=74&desc=vacation_newfoundland',
          lastmodMs: utc('2004-12-23T18:00:15.000Z'),
          lastmodToMs: utc('2004-12-23T18:00:15.999Z'),
          priority: 0.3,
        },
        { loc: 'http://www.example.com/catalog?item=83&desc=vacation_usa', lastmodMs: utc('2004-11-23T00:00:00.000Z'), lastmodToMs: utc('2004-11-23T23:59:59.999Z') },
      ],
      sitemaps: [],
      refused: refusals({}),
      truncated: false,
    });
  });

  it('reads the sample sitemap index', () => {
    expect(read(SITEMAPS_ORG_INDEX, NOT_DECLARED, 'http://www.example.com/sitemap_index.xml')).toStrictEqual({
      format: 'sitemapindex',
      urls: [],
      sitemaps: [
        { loc: 'http://www.example.com/sitemap1.xml.gz', lastmodMs: utc('2004-10-01T18:23:17.000Z'), lastmodToMs: utc('2004-10-01T18:23:17.999Z') },
        { loc: 'http://www.example.com/sitemap2.xml.gz', lastmodMs: utc('2005-01-01T00:00:00.000Z'), lastmodToMs: utc('2005-01-01T23:59:59.999Z') },
      ],
      refused: refusals({}),
      truncated: false,
    });
  });

  it('does not decompress: a gzipped body is unrecognized (the caller gunzips)', () => {
    const gzipped = gzipSync(Buffer.from(SITEMAPS_ORG_URLSET)).toString('latin1');
    expect(read(gzipped)).toStrictEqual({ format: 'unrecognized', urls: [], sitemaps: [], refused: refusals({}), truncated: false });
  });
});

describe('readSitemapDocument: XML details', () => {
  it('ignores namespace prefixes and the case of names', () => {
    const prefixed = `<sm:urlset xmlns:sm="http://www.sitemaps.org/schemas/sitemap/0.9"><sm:url><sm:loc>http://www.example.com/a</sm:loc><sm:lastmod>2024-01-02</sm:lastmod></sm:url></sm:urlset>`;
    const shouting = `<SM:URLSET xmlns:SM="http://www.sitemaps.org/schemas/sitemap/0.9"><SM:Url><SM:LOC>http://www.example.com/a</SM:LOC><Sm:LastMod>2024-01-02</Sm:LastMod></SM:Url></SM:URLSET>`;
    for (const text of [prefixed, shouting]) {
      const reading = read(text);
      expect(reading.format).toBe('urlset');
      expect(reading.urls).toStrictEqual([{ loc: 'http://www.example.com/a', lastmodMs: utc('2024-01-02T00:00:00Z'), lastmodToMs: utc('2024-01-02T23:59:59.999Z') }]);
    }
  });

  it('reads only direct children of <url>: image, video and hreflang extensions are not the page', () => {
    const reading = read(
      urlset(`<url xmlns:image="http://www.google.com/schemas/sitemap-image/1.1" xmlns:xhtml="http://www.w3.org/1999/xhtml">
        <image:image><image:loc>http://www.example.com/photo.jpg</image:loc></image:image>
        <xhtml:link rel="alternate" hreflang="de" href="http://www.example.com/de/page"/>
        <loc>http://www.example.com/page</loc>
        <news:news xmlns:news="http://www.google.com/schemas/sitemap-news/0.9"><news:publication_date>2024-01-01</news:publication_date><news:lastmod>2020-01-01</news:lastmod></news:news>
      </url>`),
    );
    expect(reading.urls).toStrictEqual([{ loc: 'http://www.example.com/page' }]);
  });

  it('takes the first <loc> of an entry and treats an entry without one as missing-loc', () => {
    const reading = read(urlset('<url><loc>http://www.example.com/first</loc><loc>http://www.example.com/second</loc></url><url><lastmod>2024-01-01</lastmod></url>'));
    expect(reading.urls).toStrictEqual([{ loc: 'http://www.example.com/first' }]);
    expect(reading.refused).toStrictEqual(refusals({ 'missing-loc': 1 }));
  });

  it('reads CDATA as text, without decoding entities inside it', () => {
    const reading = read(
      urlset(`<url><loc><![CDATA[http://www.example.com/a?x=1&y=2]]></loc></url>
        <url><loc>
          <![CDATA[http://www.example.com/b?x=1&amp;y=2]]>
        </loc></url>
        <url><loc>http://www.example.com/<![CDATA[c]]>?q=<![CDATA[<d>]]></loc></url>`),
    );
    expect(reading.urls.map((entry) => entry.loc)).toEqual(['http://www.example.com/a?x=1&y=2', 'http://www.example.com/b?x=1&amp;y=2', 'http://www.example.com/c?q=%3Cd%3E']);
  });

  it('decodes the XML entities and numeric references, and nothing else', () => {
    const reading = read(
      urlset(`<url><loc>http://www.example.com/a?x=1&amp;y=2&#38;z=3&#x26;w=&apos;&quot;</loc></url>
        <url><loc>http://www.example.com/b&nbsp;c&copy;</loc></url>`),
    );
    expect(reading.urls.map((entry) => entry.loc)).toEqual(['http://www.example.com/a?x=1&y=2&z=3&w=%27%22', 'http://www.example.com/b&nbsp;c&copy;']);
  });

  it('finds the root after a BOM, whitespace, the XML declaration, comments, a stylesheet and a DOCTYPE', () => {
    const text = `\uFEFF \n<?xml version="1.0"?><!-- generated <urlset> by hand --><?xml-stylesheet type="text/xsl" href="/s.xsl"?>
      <!DOCTYPE urlset [ <!ELEMENT urlset ANY> ]>
      <urlset><url><loc>http://www.example.com/a</loc></url></urlset>`;
    expect(read(text)).toStrictEqual({ format: 'urlset', urls: [{ loc: 'http://www.example.com/a' }], sitemaps: [], refused: refusals({}), truncated: false });
  });

  it('refuses entries outside the sitemap directory, and accepts those of origins that declared it', () => {
    const text = urlset(`<url><loc>http://www.example.com/blog/post</loc></url><url><loc>http://www.example.com/shop/item</loc></url>
      <url><loc>https://shop.example/item</loc></url><url><loc>/blog/relative</loc></url>`);
    const alone = read(text, NOT_DECLARED, 'http://www.example.com/blog/sitemap.xml');
    expect(alone.urls).toStrictEqual([{ loc: 'http://www.example.com/blog/post' }]);
    expect(alone.refused).toStrictEqual(refusals({ 'out-of-scope': 2, 'not-absolute-http': 1 }));
    const declared = read(text, { declaredByRobotsOf: ['https://shop.example'] }, 'http://www.example.com/blog/sitemap.xml');
    expect(declared.urls.map((entry) => entry.loc)).toEqual(['http://www.example.com/blog/post', 'https://shop.example/item']);
  });

  it('keeps entries whose end tag is missing when a parent end tag closes them', () => {
    const reading = read('<urlset><url><loc>http://www.example.com/a</loc></urlset>');
    expect(reading.urls).toStrictEqual([{ loc: 'http://www.example.com/a' }]);
    expect(reading.truncated).toBe(false);
  });

  it('keeps complete entries of a body missing only its root end tag', () => {
    const reading = read('<urlset><url><loc>http://www.example.com/a</loc></url>\n');
    expect(reading.urls).toStrictEqual([{ loc: 'http://www.example.com/a' }]);
    expect(reading.truncated).toBe(false);
  });

  it('drops an entry the body was cut off inside, and says so', () => {
    const reading = read('<urlset><url><loc>http://www.example.com/a</loc></url><url><loc>http://www.example.com/b-cut-her');
    expect(reading.urls).toStrictEqual([{ loc: 'http://www.example.com/a' }]);
    expect(reading.truncated).toBe(true);
  });
});

describe('readSitemapDocument: feeds', () => {
  const RSS = `<?xml version="1.0"?>
<rss version="2.0" xmlns:atom="http://www.w3.org/2005/Atom" xmlns:dc="http://purl.org/dc/elements/1.1/">
  <channel>
    <title>Example news</title>
    <link>http://www.example.com/</link>
    <atom:link href="http://www.example.com/feed.xml" rel="self" type="application/rss+xml"/>
    <lastBuildDate>Sat, 07 Sep 2002 09:42:31 GMT</lastBuildDate>
    <item>
      <title>One</title>
      <link>http://www.example.com/news/one</link>
      <description>&lt;p&gt;Escaped &lt;a href="http://www.example.com/not-an-entry"&gt;HTML&lt;/a&gt;&lt;/p&gt;</description>
      <pubDate>Sat, 07 Sep 2002 00:00:01 GMT</pubDate>
    </item>
    <item>
      <atom:link href="http://www.example.com/news/ignored" rel="alternate"/>
      <link>http://www.example.com/news/two</link>
      <pubDate>Tue, 10 Jun 2003 04:00:00 -0500</pubDate>
      <atom:updated>2003-06-12T00:00:00Z</atom:updated>
    </item>
    <item>
      <guid>http://www.example.com/news/three</guid>
      <dc:date>2003-06-11T10:00:00+02:00</dc:date>
    </item>
    <item>
      <guid isPermaLink="false">tag:example.com,2003:four</guid>
      <pubDate>Tue, 10 Jun 2003 04:00:00 GMT</pubDate>
    </item>
    <item>
      <link><![CDATA[http://www.example.com/news/five?a=1&b=2]]></link>
      <pubDate>sometime</pubDate>
    </item>
  </channel>
</rss>`;

  it('reads RSS 2.0 items: link (or permalink guid) as loc, atom:updated, pubDate or dc:date as lastmod', () => {
    expect(read(RSS)).toStrictEqual({
      format: 'rss',
      urls: [
        { loc: 'http://www.example.com/news/one', lastmodMs: utc('2002-09-07T00:00:01.000Z'), lastmodToMs: utc('2002-09-07T00:00:01.999Z') },
        { loc: 'http://www.example.com/news/two', lastmodMs: utc('2003-06-12T00:00:00.000Z'), lastmodToMs: utc('2003-06-12T00:00:00.999Z') },
        { loc: 'http://www.example.com/news/three', lastmodMs: utc('2003-06-11T08:00:00.000Z'), lastmodToMs: utc('2003-06-11T08:00:00.999Z') },
        { loc: 'http://www.example.com/news/five?a=1&b=2' },
      ],
      sitemaps: [],
      refused: refusals({ 'missing-loc': 1 }),
      truncated: false,
    });
  });

  it('reads RSS 1.0 (RDF) items', () => {
    const rdf = `<rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#" xmlns="http://purl.org/rss/1.0/" xmlns:dc="http://purl.org/dc/elements/1.1/">
      <channel rdf:about="http://www.example.com/"><link>http://www.example.com/</link></channel>
      <item rdf:about="http://www.example.com/one"><link>http://www.example.com/one</link><dc:date>2004-01-02</dc:date></item>
    </rdf:RDF>`;
    expect(read(rdf)).toStrictEqual({
      format: 'rss',
      urls: [{ loc: 'http://www.example.com/one', lastmodMs: utc('2004-01-02T00:00:00.000Z'), lastmodToMs: utc('2004-01-02T23:59:59.999Z') }],
      sitemaps: [],
      refused: refusals({}),
      truncated: false,
    });
  });

  it('reads Atom entries: the alternate link as loc, updated (else published) as lastmod', () => {
    // RFC 4287 §1.1's example, plus entries with several links and with published only.
    const atom = `<?xml version="1.0" encoding="utf-8"?>
<feed xmlns="http://www.w3.org/2005/Atom">
  <title>Example Feed</title>
  <link href="http://www.example.com/"/>
  <updated>2003-12-13T18:30:02Z</updated>
  <author><name>John Doe</name></author>
  <id>urn:uuid:60a76c80-d399-11d9-b93C-0003939e0af6</id>
  <entry>
    <title>Atom-Powered Robots Run Amok</title>
    <link href="http://www.example.com/2003/12/13/atom03"/>
    <id>urn:uuid:1225c695-cfb8-4ebb-aaaa-80da344efa6a</id>
    <updated>2003-12-13T18:30:02Z</updated>
    <summary>Some text.</summary>
  </entry>
  <entry>
    <link rel="self" href="http://www.example.com/entries/2.atom"/>
    <link rel="edit" href="http://www.example.com/entries/2/edit"/>
    <link rel="ALTERNATE" type="text/html" href="http://www.example.com/2?a=1&amp;b=2"/>
    <published>2003-12-14T10:00:00-05:00</published>
    <content type="xhtml"><div xmlns="http://www.w3.org/1999/xhtml"><a href="http://www.example.com/not-an-entry">x</a></div></content>
  </entry>
  <entry>
    <link rel="enclosure" href="http://www.example.com/audio.mp3"/>
    <updated>2003-12-15T00:00:00Z</updated>
  </entry>
</feed>`;
    expect(read(atom)).toStrictEqual({
      format: 'atom',
      urls: [
        { loc: 'http://www.example.com/2003/12/13/atom03', lastmodMs: utc('2003-12-13T18:30:02.000Z'), lastmodToMs: utc('2003-12-13T18:30:02.999Z') },
        { loc: 'http://www.example.com/2?a=1&b=2', lastmodMs: utc('2003-12-14T15:00:00.000Z'), lastmodToMs: utc('2003-12-14T15:00:00.999Z') },
      ],
      sitemaps: [],
      refused: refusals({ 'missing-loc': 1 }),
      truncated: false,
    });
  });
});

describe('readSitemapDocument: plain-text sitemaps', () => {
  it('reads one absolute URL per line, in any line-break style, blank lines skipped', () => {
    const text = '\uFEFFhttp://www.example.com/a\r\n\r\n   http://www.example.com/b  \n\nhttp://www.example.com/c\rhttp://www.example.com/d\n/relative\nhttp://other.example/x\nhttp://www.example.com/a\n';
    expect(read(text, NOT_DECLARED, 'http://www.example.com/sitemap.txt')).toStrictEqual({
      format: 'text',
      urls: [{ loc: 'http://www.example.com/a' }, { loc: 'http://www.example.com/b' }, { loc: 'http://www.example.com/c' }, { loc: 'http://www.example.com/d' }],
      sitemaps: [],
      refused: refusals({ 'not-absolute-http': 1, 'out-of-scope': 1, duplicate: 1 }),
      truncated: false,
    });
  });

  it('reads a last line without a line break', () => {
    expect(read('HTTP://www.example.com/a').urls).toStrictEqual([{ loc: 'http://www.example.com/a' }]);
  });

  it('stops after maxEntries lines', () => {
    const text = Array.from({ length: 5 }, (_, index) => `http://www.example.com/${index}`).join('\n');
    const reading = read(text, { declaredByRobotsOf: [], limits: { maxEntries: 2 } });
    expect(reading.urls.map((entry) => entry.loc)).toEqual(['http://www.example.com/0', 'http://www.example.com/1']);
    expect(reading.truncated).toBe(true);
    expect(entriesExtracted()).toBe(3);
  });
});

describe('readSitemapDocument: what is not a sitemap', () => {
  it.each([
    ['empty', ''],
    ['blank', ' \n\t'],
    ['plain words', 'Service Unavailable\nhttp://www.example.com/a'],
    ['JSON', '{"urls": ["http://www.example.com/a"]}'],
    ['HTML', '<!DOCTYPE html><html><head><title>Sitemap</title></head><body><a href="http://www.example.com/a">a</a><loc>http://www.example.com/b</loc></body></html>'],
    ['XHTML with a namespace', '<?xml version="1.0"?><html xmlns="http://www.w3.org/1999/xhtml"><body><url><loc>http://www.example.com/a</loc></url></body></html>'],
    ['an unknown root', '<?xml version="1.0"?><sitemaps><url><loc>http://www.example.com/a</loc></url></sitemaps>'],
    ['a root named like an entry', '<url><loc>http://www.example.com/a</loc></url>'],
    ['a root named like Object.prototype', '<constructor><url><loc>http://www.example.com/a</loc></url></constructor>'],
    ['markup without elements', '<!-- nothing here -->'],
    ['binary garbage', '\u0000\u0001\u00ff<\u0000urlset'],
  ])('%s is unrecognized, with no entries', (_, text) => {
    expect(read(text)).toStrictEqual({ format: 'unrecognized', urls: [], sitemaps: [], refused: refusals({}), truncated: false });
  });
});

describe('readSitemapDocument: hostile input', () => {
  it('leaves DTD entities unexpanded (billion laughs): bounded time and size', () => {
    const levels = Array.from({ length: 9 }, (_, level) => `<!ENTITY lol${level + 1} "${`&lol${level};`.repeat(10)}">`).join('\n  ');
    const bomb = `<?xml version="1.0"?>
<!DOCTYPE urlset [
  <!ENTITY lol0 "lol">
  ${levels}
]>
<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">
  <url><loc>http://www.example.com/&lol9;</loc><lastmod>&lol9;</lastmod><changefreq>&lol9;</changefreq></url>
</urlset>`;
    const startedMs = performance.now();
    const reading = read(bomb);
    expect(performance.now() - startedMs).toBeLessThan(1000);
    expect(reading).toStrictEqual({ format: 'urlset', urls: [{ loc: 'http://www.example.com/&lol9;' }], sitemaps: [], refused: refusals({}), truncated: false });
    expect(JSON.stringify(reading).length).toBeLessThan(300);
  });

  it('never resolves external entities', () => {
    const xxe = `<?xml version="1.0"?>
<!DOCTYPE urlset [ <!ENTITY xxe SYSTEM "file:///etc/passwd"> <!ENTITY remote SYSTEM "http://attacker.example/x"> ]>
<urlset><url><loc>http://www.example.com/&xxe;</loc></url><url><loc>&remote;</loc></url></urlset>`;
    const reading = read(xxe);
    expect(reading.urls).toStrictEqual([{ loc: 'http://www.example.com/&xxe;' }]);
    expect(reading.refused).toStrictEqual(refusals({ 'not-absolute-http': 1 }));
  });

  it('stops at maxEntries and marks the reading truncated', () => {
    const entries = Array.from({ length: 5 }, (_, index) => `<url><loc>http://www.example.com/${index}</loc></url>`).join('');
    const reading = read(urlset(entries), { declaredByRobotsOf: [], limits: { maxEntries: 3 } });
    expect(reading.urls.map((entry) => entry.loc)).toEqual(['http://www.example.com/0', 'http://www.example.com/1', 'http://www.example.com/2']);
    expect(reading.truncated).toBe(true);
    // One past the limit proves there were more; the rest is never extracted.
    expect(entriesExtracted()).toBe(4);
  });

  it('is not truncated at exactly maxEntries', () => {
    const entries = Array.from({ length: 3 }, (_, index) => `<url><loc>http://www.example.com/${index}</loc></url>`).join('');
    const reading = read(urlset(entries), { declaredByRobotsOf: [], limits: { maxEntries: 3 } });
    expect(reading.urls).toHaveLength(3);
    expect(reading.truncated).toBe(false);
  });

  it('reads the protocol maximum of 50,000 entries from a larger file and stops there', () => {
    const entries = Array.from({ length: 50_010 }, (_, index) => `<url><loc>http://www.example.com/${index}</loc></url>\n`).join('');
    const reading = read(urlset(entries));
    expect(reading.urls).toHaveLength(50_000);
    expect(reading.urls[49_999]).toStrictEqual({ loc: 'http://www.example.com/49999' });
    expect(reading.truncated).toBe(true);
    expect(entriesExtracted()).toBe(50_001);
  });

  it('stops at a nesting bomb, keeping the entries before it', () => {
    const reading = read(urlset(`<url><loc>http://www.example.com/a</loc></url>${'<x>'.repeat(100_000)}<url><loc>http://www.example.com/b</loc></url>`));
    expect(reading.urls).toStrictEqual([{ loc: 'http://www.example.com/a' }]);
    expect(reading.truncated).toBe(true);
  });

  it('reads only maxDocumentChars of the body, dropping the entry cut in two', () => {
    const text = urlset('<url><loc>http://www.example.com/a</loc></url><url><loc>http://www.example.com/bbbbbbbb</loc></url>');
    const cutAt = text.indexOf('bbbb');
    const reading = read(text, { declaredByRobotsOf: [], limits: { maxDocumentChars: cutAt } });
    expect(reading.urls).toStrictEqual([{ loc: 'http://www.example.com/a' }]);
    expect(reading.truncated).toBe(true);
    expect(read(text, { declaredByRobotsOf: [], limits: { maxDocumentChars: text.length } }).truncated).toBe(false);
  });

  it('reads only maxDocumentChars of a text sitemap, dropping the line cut in two', () => {
    const text = 'http://www.example.com/a\nhttp://www.example.com/bbbbbbbb\n';
    const reading = read(text, { declaredByRobotsOf: [], limits: { maxDocumentChars: text.indexOf('bbbb') } });
    expect(reading.urls).toStrictEqual([{ loc: 'http://www.example.com/a' }]);
    expect(reading.truncated).toBe(true);
  });

  it('refuses a huge loc as too-long', () => {
    const reading = read(urlset(`<url><loc>http://www.example.com/${'x'.repeat(1_000_000)}</loc></url><url><loc>http://www.example.com/ok</loc></url>`));
    expect(reading.urls).toStrictEqual([{ loc: 'http://www.example.com/ok' }]);
    expect(reading.refused).toStrictEqual(refusals({ 'too-long': 1 }));
  });

  it('throws SitemapError for an invalid sitemap URL or limits, never for the body', () => {
    expect(() => read(SITEMAPS_ORG_URLSET, NOT_DECLARED, '/sitemap.xml')).toThrow(SitemapError);
    expect(() => read(SITEMAPS_ORG_URLSET, { declaredByRobotsOf: [], limits: { maxEntries: 0 } })).toThrow(expect.objectContaining({ code: 'SITEMAP_OPTIONS_INVALID' }));
  });
});
