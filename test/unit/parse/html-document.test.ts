import { describe, expect, it } from 'vitest';
import { extractHtmlDocument, robotsDirectives } from '../../../src/parse/html-document.js';

const PAGE = 'https://site.example/dir/page.html';
const extract = (html: string, url = PAGE) => extractHtmlDocument(html, url, { productToken: 'DurableCrawler' });

describe('extractHtmlDocument', () => {
  it('reads the title, the language and the visible main text without page chrome', () => {
    const doc = extract(`<html lang="ko"><head><title>  Hello
      world </title><style>p{}</style></head><body><nav>menu</nav><header>top</header>
      <p>Main text</p><script>var x = 1</script><footer>foot</footer><aside>ad</aside></body></html>`);
    expect(doc.title).toBe('Hello world');
    expect(doc.language).toBe('ko');
    expect(doc.mainText).toBe('Main text');
  });

  it('resolves relative, protocol-relative, absolute and dot-segment links against the page', () => {
    const doc = extract(`<a href="other.html">a</a><a href="../up">b</a><a href="//cdn.example/x">c</a>
      <a href="https://elsewhere.example/y?q=1#frag">d</a><a href="?only=query">e</a>`);
    expect(doc.links.map((link) => link.absoluteUrl)).toEqual([
      'https://site.example/dir/other.html',
      'https://site.example/up',
      'https://cdn.example/x',
      'https://elsewhere.example/y?q=1#frag',
      'https://site.example/dir/page.html?only=query',
    ]);
  });

  it('honours <base href> for every link', () => {
    const doc = extract('<base href="https://base.example/root/"><a href="child">x</a><a href="/abs">y</a>');
    expect(doc.baseUrl).toBe('https://base.example/root/');
    expect(doc.links.map((link) => link.absoluteUrl)).toEqual(['https://base.example/root/child', 'https://base.example/abs']);
  });

  it('keeps non-http(s) links visible but without an absolute URL', () => {
    const doc = extract('<a href="mailto:a@b.example">m</a><a href="javascript:void(0)">j</a><a href="tel:+1">t</a><a href="data:text/plain,x">d</a>');
    expect(doc.links).toHaveLength(4);
    expect(doc.links.every((link) => link.absoluteUrl === undefined)).toBe(true);
  });

  it('records anchor text and rel, and marks rel=nofollow', () => {
    const doc = extract('<a href="/a" rel="NoFollow noopener">  Read   more </a><a href="/b" rel="next">Next</a><area href="/c" alt="map">');
    expect(doc.links.map(({ anchorText, rel, nofollow }) => ({ anchorText, rel, nofollow }))).toEqual([
      { anchorText: 'Read more', rel: 'nofollow noopener', nofollow: true },
      { anchorText: 'Next', rel: 'next', nofollow: false },
      { anchorText: '', rel: '', nofollow: false },
    ]);
  });

  it('reads meta robots for every robot and for our token, and the canonical hint', () => {
    const doc = extract('<meta name="robots" content="NOINDEX"><meta name="DurableCrawler" content="nofollow"><meta name="googlebot" content="none"><link rel="canonical" href="/canonical">');
    expect(doc.metaRobots).toBe('noindex, nofollow');
    expect(doc.canonicalHint).toBe('https://site.example/canonical');
  });

  it('reads the RSS and Atom feeds a page announces, resolved, once each, and nothing else', () => {
    const doc = extract(
      '<link rel="alternate" type="application/rss+xml" href="/feed.xml">' +
        '<link rel="Alternate  stylesheet" type="Application/Atom+XML; charset=utf-8" href="atom.xml">' +
        '<link rel="alternate" type="application/rss+xml" href="/feed.xml">' +
        '<link rel="alternate" hreflang="fr" href="/fr/">' +
        '<link rel="alternate" type="text/html" href="/mobile">' +
        '<link rel="stylesheet" type="application/rss+xml" href="/not-a-feed">' +
        '<link rel="alternate" type="application/rss+xml" href="javascript:alert(1)">',
    );
    expect(doc.feeds).toEqual(['https://site.example/feed.xml', 'https://site.example/dir/atom.xml']);
  });

  it('keeps at most ten feeds of a page', () => {
    const doc = extract(Array.from({ length: 30 }, (_, i) => `<link rel="alternate" type="application/atom+xml" href="/f${i}.xml">`).join(''));
    expect(doc.feeds).toHaveLength(10);
  });

  it('survives hostile markup and caps the links it keeps', () => {
    const many = Array.from({ length: 50 }, (_, i) => `<a href="/p${i}">${i}</a>`).join('');
    const doc = extractHtmlDocument(`<<<<div><a href=">${many}</div></a></p></b>`, PAGE, { productToken: 'DurableCrawler', maxLinks: 10 });
    expect(doc.links.length).toBeLessThanOrEqual(10);
    expect(() => extract('\u0000\uffff<html><body>\u0000</body>')).not.toThrow();
  });
});

describe('extractHtmlDocument on tricky markup', () => {
  const linksOf = (html: string, maxLinks?: number) =>
    extractHtmlDocument(html, PAGE, { productToken: 'DurableCrawler', maxLinks }).links.map(({ href, anchorText }) => [href, anchorText]);

  it('reads a page without <head> or <body>: the title stays out of the main text', () => {
    expect(extract('<title>Only a title</title><p>First</p> <p>Second</p>')).toMatchObject({ title: 'Only a title', mainText: 'First Second' });
  });

  it('counts stray text in <head>, content after </body> and a second <body>, as a browser moves them into the body', () => {
    expect(extract('<html><head><title>T</title>stray </head><body>B</body></html>').mainText).toBe('stray B');
    expect(extract('<html><head><title>T</title><p>Hello</html>').mainText).toBe('Hello');
    expect(extract('<html><body><p>in</p></body></html> <p>after</p>').mainText).toBe('in after');
    expect(extract('<body><p>one</p></body> <body><p>two</p></body>').mainText).toBe('one two');
  });

  it('leaves page chrome out of the main text wherever it sits, and keeps its links', () => {
    const doc = extract('<main><nav><a href="/menu">Menu</a></nav><p>Text</p><form>Search <input></form><aside>Ad</aside> more<iframe>frame</iframe><svg><text>icon</text></svg></main>');
    expect(doc.mainText).toBe('Text more');
    expect(doc.links.map((link) => link.href)).toEqual(['/menu']);
  });

  it('gives the text of nested anchors to the innermost one', () => {
    expect(linksOf('<a href="/outer">out <a href="/inner">in</a> side</a>')).toEqual([
      ['/outer', 'out side'],
      ['/inner', 'in'],
    ]);
  });

  it('keeps script text out of anchor text, and keeps the title of an icon link', () => {
    expect(linksOf('<a href="/x">Read<script>var s = 1</script> more</a><a href="/home"><svg><title>Home</title></svg></a>')).toEqual([
      ['/x', 'Read more'],
      ['/home', 'Home'],
    ]);
  });

  it('decodes entities in text and attributes', () => {
    const doc = extract('<title>Caf&eacute; &amp; bar</title><p>&lt;b&gt; &copy; 2024&nbsp;&#x1F600;</p><a href="/q?a=1&amp;b=2">x</a>');
    expect(doc.title).toBe('Café & bar');
    expect(doc.mainText).toBe('<b> © 2024 😀x');
    expect(doc.links[0]?.absoluteUrl).toBe('https://site.example/q?a=1&b=2');
  });

  it('reads uppercase tags and attributes, and rel keywords in any case', () => {
    const doc = extract('<HTML LANG="ko"><HEAD><TITLE>Up</TITLE><LINK REL="Canonical nofollow" HREF="/c"><META NAME="Robots" CONTENT="NoIndex"></HEAD><BODY><A HREF="/X" REL="NoFollow Next">Go</A></BODY></HTML>');
    expect(doc).toMatchObject({ title: 'Up', language: 'ko', canonicalHint: 'https://site.example/c', metaRobots: 'noindex', mainText: 'Go' });
    expect(doc.links).toEqual([{ href: '/X', absoluteUrl: 'https://site.example/X', anchorText: 'Go', rel: 'nofollow next', nofollow: true }]);
  });

  it('takes the first canonical link and the first <base href>, wherever they are', () => {
    const doc = extract('<a href="x">x</a><link rel="alternate" href="/alt"><link rel="canonical" href="first"><link rel="canonical" href="second"><base href="/b/"><base href="/c/">');
    expect(doc.canonicalHint).toBe('https://site.example/b/first');
    expect(doc.links[0]?.absoluteUrl).toBe('https://site.example/b/x');
  });

  it('keeps the first maxLinks links in document order, and still reads the text after them', () => {
    const many = Array.from({ length: 20 }, (_, i) => `<a href="/p${i}">${i}</a>`).join(' ');
    const doc = extractHtmlDocument(`${many} <p>tail</p>`, PAGE, { productToken: 'DurableCrawler', maxLinks: 5 });
    expect(doc.links.map((link) => link.href)).toEqual(['/p0', '/p1', '/p2', '/p3', '/p4']);
    expect(doc.mainText.endsWith('19 tail')).toBe(true);
  });

  it('reads no link, title or meta tag a browser would not parse as markup (noscript, template, iframe)', () => {
    const doc = extract('<noscript><a href="/ns">ns</a><meta name="robots" content="noindex"></noscript><template><a href="/t">t</a><title>Template</title></template><iframe><a href="/if">if</a></iframe><textarea><a href="/ta">ta</a></textarea><a href="/real">real</a>');
    expect(doc.links.map((link) => link.href)).toEqual(['/real']);
    expect(doc).toMatchObject({ title: null, metaRobots: null });
  });

  it('writes no NUL character (Postgres text cannot hold one)', () => {
    const doc = extract('\u0000<title>a\u0000b</title><p>c\u0000d</p><a href="/e\u0000" rel="n\u0000">f\u0000</a>');
    expect(JSON.stringify(doc)).not.toContain('\\u0000');
    expect(doc.title).toBe('a\ufffdb');
  });
});

describe('robotsDirectives', () => {
  it.each([
    [null, undefined, { noindex: false, nofollow: false }],
    ['noindex', undefined, { noindex: true, nofollow: false }],
    ['nofollow', undefined, { noindex: false, nofollow: true }],
    ['none', undefined, { noindex: true, nofollow: true }],
    [null, 'noindex, nofollow', { noindex: true, nofollow: true }],
    [null, 'otherbot: nofollow', { noindex: false, nofollow: false }],
    [null, 'durablecrawler: nofollow', { noindex: false, nofollow: true }],
    [null, 'unavailable_after: 25 Jun 2010 15:00:00 PST', { noindex: false, nofollow: false }],
    ['index, follow', 'all', { noindex: false, nofollow: false }],
  ] as const)('meta %j with X-Robots-Tag %j', (meta, header, expected) => {
    expect(robotsDirectives(meta, header, 'DurableCrawler')).toEqual(expected);
  });
});
