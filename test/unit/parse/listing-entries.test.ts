import { describe, expect, it } from 'vitest';
import * as cheerio from 'cheerio';
import { extractHtmlDocument } from '../../../src/parse/html-document.js';
import { extractListingEntries } from '../../../src/parse/listing-entries.js';

/** Entries as the parse reads them: from the document extractHtmlDocument loaded, scripts removed. */
const entriesOf = (html: string, pageUrl: string) => extractHtmlDocument(html, pageUrl, { productToken: 'testbot', listingEntries: true }).listingEntries;

const BASE = 'http://shop.test/category/kettles';

describe('extractListingEntries', () => {
  it('takes each linked item with the text of the entry it sits in', () => {
    const html = `<html><body>
      <nav><a href="/">Home</a> <a href="/about">About</a></nav>
      <ul class="products">
        <li><a href="/p/blue"><img src="/blue.jpg" alt=""></a> <a href="/p/blue">Blue kettle</a> <span class="price">24.90</span> In stock</li>
        <li><a href="/p/red">Red kettle</a> <span class="price">19.90</span> Sold out</li>
      </ul>
      <table><tr><td><a href="http://other.test/x?a=1&amp;b=2">Partner kettle</a></td><td>31.00</td></tr></table>
      <div itemscope itemtype="https://schema.org/Product"><a href="/p/green">Green kettle</a> <b>29.00</b></div>
      <article><h2><a href="/news/1">News</a></h2><script>var t = Date.now()</script><p>Opening hours changed</p></article>
    </body></html>`;
    expect(entriesOf(html, BASE)).toEqual([
      { url: 'http://shop.test/p/blue', text: 'Blue kettle 24.90 In stock' },
      { url: 'http://shop.test/p/red', text: 'Red kettle 19.90 Sold out' },
      { url: 'http://other.test/x?a=1&b=2', text: 'Partner kettle 31.00' },
      { url: 'http://shop.test/p/green', text: 'Green kettle 29.00' },
      { url: 'http://shop.test/news/1', text: 'News Opening hours changed' },
    ]);
  });

  it('keeps links outside any item out (navigation is not an entry), and resolves against the base it is given', () => {
    const html = '<p><a href="a">loose</a></p><ol><li><a href="b">B</a> 1</li></ol>';
    expect(entriesOf(html, 'http://cdn.test/list/')).toEqual([{ url: 'http://cdn.test/list/b', text: 'B 1' }]);
  });

  it('joins the entries of one item listed twice, and drops links that are no http(s) URL', () => {
    const html = '<ul><li><a href="/p/1">One</a> 10</li><li><a href="/p/1">One again</a> 11</li><li><a href="mailto:x@y.test">Mail</a></li><li><a href="javascript:void(0)">JS</a></li></ul>';
    expect(entriesOf(html, BASE)).toEqual([{ url: 'http://shop.test/p/1', text: 'One 10\nOne again 11' }]);
  });

  it('caps the entries and their length (untrusted input)', () => {
    const items = Array.from({ length: 50 }, (_, i) => `<li><a href="/p/${i}">Item ${i}</a> ${'x'.repeat(100)}</li>`).join('');
    const entries = extractListingEntries(cheerio.load(`<ul>${items}</ul>`), BASE, { maxEntries: 10, maxEntryChars: 20 });
    expect(entries).toHaveLength(10);
    expect(entries[9]).toEqual({ url: 'http://shop.test/p/9', text: 'Item 9 xxxxxxxxxxxxx' });
    for (const entry of entries) expect(entry.text.length).toBeLessThanOrEqual(20);
  });
});
