import * as cheerio from 'cheerio';
import { describe, expect, it } from 'vitest';
import { extractHtmlDocument } from '../../../src/parse/html-document.js';
import { DEFAULT_MAX_ELEMENT_DEPTH, ParseBudgetError, checkParseBudget, measureDocumentShape, treeDepthOf, type TreeNode } from '../../../src/parse/parse-budget.js';

const PAGE_URL = 'https://example.com/page';
const options = { productToken: 'durablecrawler' };

/** `levels` nested <div>s around a link, inside a normal page. */
function nestedPage(levels: number): string {
  return `<html><head><title>Deep</title></head><body>${'<div>'.repeat(levels)}<a href="/inner">inner</a>${'</div>'.repeat(levels)}</body></html>`;
}

function budgetErrorOf(run: () => unknown): ParseBudgetError {
  try {
    run();
  } catch (error) {
    if (error instanceof ParseBudgetError) return error;
    throw error;
  }
  throw new Error('expected a ParseBudgetError');
}

describe('measureDocumentShape', () => {
  it('counts nesting depth and elements, void elements and implied closes included', () => {
    expect(measureDocumentShape('<html><body><div><p>a<p>b<br><img src=x></div></body></html>')).toEqual({ maxElementDepth: 5, elements: 7 }) // br and img sit inside the second p;
  });

  it('does not count markup inside scripts, styles or comments', () => {
    expect(measureDocumentShape(`<body><script>${'<div>'.repeat(5000)}</script><!-- ${'<div>'.repeat(5000)} --></body>`)).toEqual({ maxElementDepth: 2, elements: 2 });
  });

  it('stops counting once past a limit', () => {
    expect(measureDocumentShape(nestedPage(50_000), { maxElementDepth: 10, maxElements: Infinity }).maxElementDepth).toBe(11);
  });
});

describe('checkParseBudget', () => {
  it('lets a page at the depth cap through, and extraction of it does not overflow the stack', () => {
    const html = nestedPage(DEFAULT_MAX_ELEMENT_DEPTH - 3); // html, body, a
    expect(checkParseBudget(html, PAGE_URL).maxElementDepth).toBe(DEFAULT_MAX_ELEMENT_DEPTH);
    const document = extractHtmlDocument(html, PAGE_URL, { ...options, changeFields: { price: 'div a' }, listingEntries: true });
    expect(document.title).toBe('Deep');
    expect(document.links.map((link) => link.absoluteUrl)).toEqual(['https://example.com/inner']);
    expect(document.mainText).toBe('inner');
  });

  it('refuses one level more, with a stable code and the page named', () => {
    const error = budgetErrorOf(() => checkParseBudget(nestedPage(DEFAULT_MAX_ELEMENT_DEPTH - 2), PAGE_URL));
    expect(error.code).toBe('PARSE_BUDGET_DEPTH');
    expect(error.message).toContain(PAGE_URL);
    expect(ParseBudgetError.failureType).toBe('ParseBudgetExceeded');
  });

  it('refuses a page with more elements than the budget', () => {
    const html = `<body>${'<span>x</span>'.repeat(101)}</body>`;
    expect(budgetErrorOf(() => checkParseBudget(html, PAGE_URL, { maxElements: 100 })).code).toBe('PARSE_BUDGET_ELEMENTS');
    expect(checkParseBudget(html, PAGE_URL, { maxElements: 102 }).elements).toBe(102);
  });

  it('refuses the 50,000-level page of issue 26 in well under a second, before any tree is built', () => {
    const html = nestedPage(50_000);
    const startedAtMs = performance.now();
    const error = budgetErrorOf(() => extractHtmlDocument(html, PAGE_URL, options));
    const elapsedMs = performance.now() - startedAtMs;
    expect(error.code).toBe('PARSE_BUDGET_DEPTH');
    expect(elapsedMs).toBeLessThan(1000);
  });
});

describe('treeDepthOf', () => {
  it('measures the tree the builder made, which may be deeper than the markup says (tbody)', () => {
    expect(treeDepthOf(cheerio.load('<div><span>x</span></div>').root()[0]!)).toBe(4); // html, body, div, span
    expect(treeDepthOf(cheerio.load('<table><tr><td>x</td></tr></table>').root()[0]!)).toBe(6); // html, body, table, tbody, tr, td
  });

  it('walks a tree far deeper than the call stack allows', () => {
    let root: TreeNode = { children: [] };
    for (let i = 0; i < 100_000; i += 1) root = { children: [root, {}] };
    expect(treeDepthOf({ children: [root] })).toBe(100_001);
  });

  it('refuses nested tables the markup counts under the cap but the built tree nests over it', () => {
    // 300 levels of table > tr > td: 902 elements deep in the markup, 1,202 once each table has its tbody.
    const html = `<html><body>${'<table><tr><td>'.repeat(300)}cell${'</td></tr></table>'.repeat(300)}</body></html>`;
    expect(checkParseBudget(html, PAGE_URL).maxElementDepth).toBe(902);
    expect(budgetErrorOf(() => extractHtmlDocument(html, PAGE_URL, options)).message).toContain('parsed tree');
    expect(extractHtmlDocument(html, PAGE_URL, { ...options, budget: { maxElementDepth: 1202 } }).mainText).toBe('cell');
  });
});
