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

  it('survives hostile markup and caps the links it keeps', () => {
    const many = Array.from({ length: 50 }, (_, i) => `<a href="/p${i}">${i}</a>`).join('');
    const doc = extractHtmlDocument(`<<<<div><a href=">${many}</div></a></p></b>`, PAGE, { productToken: 'DurableCrawler', maxLinks: 10 });
    expect(doc.links.length).toBeLessThanOrEqual(10);
    expect(() => extract('\u0000\uffff<html><body>\u0000</body>')).not.toThrow();
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
