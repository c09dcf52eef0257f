import * as cheerio from 'cheerio';
import { describe, expect, it } from 'vitest';
import { MAX_CHANGE_FIELD_CHARS, changeFieldSelectorProblem, extractChangeFields } from '../../../src/parse/change-fields.js';
import { extractHtmlDocument } from '../../../src/parse/html-document.js';

const PAGE = 'https://shop.example/product/1';
const PRODUCT = `<html><head><title>Kettle</title></head><body>
  <header>Shop <span class="cart-total">$0.00</span></header>
  <h1>Kettle</h1>
  <p>A steel kettle.</p>
  <form action="/cart"><span class="price"> $19.99 </span><button>Add</button></form>
  <div id="availability">In
     stock<script>var nonce = "a1b2c3";</script></div>
  <footer>© Shop</footer></body></html>`;

describe('extractChangeFields', () => {
  it('reads each field before page chrome is removed, whitespace-collapsed, without script text', () => {
    const doc = extractHtmlDocument(PRODUCT, PAGE, { productToken: 'DurableCrawler', changeFields: { price: '.price', stock: '#availability', cart: '.cart-total' } });
    expect(doc.changeFields).toEqual({ price: '$19.99', stock: 'In stock', cart: '$0.00' });
    // The main text is what it was without fields: the form and the header are still chrome.
    expect(doc.mainText).toBe('Kettle A steel kettle. In stock');
    expect(extractHtmlDocument(PRODUCT, PAGE, { productToken: 'DurableCrawler' })).toMatchObject({ mainText: doc.mainText, changeFields: {} });
  });

  it('joins every match in document order, one per line, and skips empty ones', () => {
    const $ = cheerio.load('<ul><li class="p">$1</li><li class="p"> </li><li class="p">$2 <b>off</b></li></ul>');
    expect(extractChangeFields($, { prices: '.p' })).toEqual({ prices: '$1\n$2 off' });
  });

  it('gives "" for a field that matches nothing', () => {
    const $ = cheerio.load('<p>no price here</p>');
    expect(extractChangeFields($, { price: '.price', title: 'p' })).toEqual({ price: '', title: 'no price here' });
  });

  it('treats a selector that looks like markup as a selector, never as HTML to create', () => {
    const $ = cheerio.load('<p>text</p>');
    expect(extractChangeFields($, { odd: '<p>' })).toEqual({ odd: '' });
  });

  it(`caps a field at ${MAX_CHANGE_FIELD_CHARS} characters without splitting a surrogate pair`, () => {
    const many = Array.from({ length: 3000 }, (_, i) => `<i>${i}</i>`).join('');
    const capped = extractChangeFields(cheerio.load(many), { all: 'i' }).all!;
    expect(capped.length).toBe(MAX_CHANGE_FIELD_CHARS);
    expect(capped.startsWith('0\n1\n2\n')).toBe(true);
    // An emoji (two code units) straddling the cut is dropped whole.
    const emoji = extractChangeFields(cheerio.load(`<p>${'a'.repeat(MAX_CHANGE_FIELD_CHARS - 1)}😀 tail</p>`), { p: 'p' }).p!;
    expect(emoji).toBe('a'.repeat(MAX_CHANGE_FIELD_CHARS - 1));
  });
});

describe('changeFieldSelectorProblem', () => {
  it.each(['.price', '#availability', 'span.price > b', '[itemprop="price"]', 'li:nth-child(2n+1)', 'div:has(> .price)', 'p:first', 'td:contains("Total")'])(
    'accepts %s',
    (selector) => {
      expect(changeFieldSelectorProblem(selector)).toBeUndefined();
    },
  );

  it.each([
    ['.price[', /Expected name/],
    ['p,', /Empty sub-selector/],
    ['p::before', /Pseudo-elements are not supported/],
    [':price', /Unknown pseudo-class :price/],
    ['p:not(', /Missing closing parenthesis/],
  ])('explains why %s cannot be applied', (selector, problem) => {
    expect(changeFieldSelectorProblem(selector)).toMatch(problem);
  });
});
