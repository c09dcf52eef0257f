import { describe, expect, it } from 'vitest';
import { extractHtmlDocument } from '../../../src/parse/html-document.js';
import { DEFAULT_MAX_ELEMENT_DEPTH, ParseBudgetError, measureDocumentShape } from '../../../src/parse/parse-budget.js';

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

describe('extractHtmlDocument under the parse budget', () => {
  it('lets a page at the depth cap through, and reading it with cheerio does not overflow the stack', () => {
    const html = nestedPage(DEFAULT_MAX_ELEMENT_DEPTH - 3); // html, body, a
    expect(measureDocumentShape(html).maxElementDepth).toBe(DEFAULT_MAX_ELEMENT_DEPTH);
    const document = extractHtmlDocument(html, PAGE_URL, { ...options, changeFields: { price: 'div a' }, listingEntries: true });
    expect(document.title).toBe('Deep');
    expect(document.links.map((link) => link.absoluteUrl)).toEqual(['https://example.com/inner']);
    expect(document.mainText).toBe('inner');
    expect(document.changeFields).toEqual({ price: 'inner' });
  });

  it('refuses one level more, with a stable code and the page named', () => {
    const error = budgetErrorOf(() => extractHtmlDocument(nestedPage(DEFAULT_MAX_ELEMENT_DEPTH - 2), PAGE_URL, options));
    expect(error.code).toBe('PARSE_BUDGET_DEPTH');
    expect(error.url).toBe(PAGE_URL);
    expect(error.message).toContain(PAGE_URL);
    expect(ParseBudgetError.failureType).toBe('ParseBudgetExceeded');
  });

  it('refuses a page with more elements than the budget', () => {
    const html = `<body>${'<span>x</span>'.repeat(101)}</body>`;
    expect(budgetErrorOf(() => extractHtmlDocument(html, PAGE_URL, { ...options, budget: { maxElements: 100 } })).code).toBe('PARSE_BUDGET_ELEMENTS');
    expect(extractHtmlDocument(html, PAGE_URL, { ...options, budget: { maxElements: 102 } }).mainText).toBe('x'.repeat(101));
  });

  it('refuses the 50,000-level page of issue 26 in well under a second', () => {
    const html = nestedPage(50_000);
    const startedAtMs = performance.now();
    const error = budgetErrorOf(() => extractHtmlDocument(html, PAGE_URL, options));
    const elapsedMs = performance.now() - startedAtMs;
    expect(error.code).toBe('PARSE_BUDGET_DEPTH');
    expect(elapsedMs).toBeLessThan(1000);
  });

  it('counts closes the markup leaves implied, and void elements, as closed', () => {
    // 5,000 paragraphs, list items and cells that never close, and 5,000 <br>s: siblings, not 5,000 levels.
    const html = `<html><body>${'<p>a<br>'.repeat(5000)}<ul>${'<li>b'.repeat(5000)}</ul><table><tr>${'<td>c'.repeat(5000)}</table></body></html>`;
    const document = extractHtmlDocument(html, PAGE_URL, { ...options, budget: { maxElementDepth: 6, maxElements: 30_000 } });
    expect(document.mainText).toBe(`${'a'.repeat(5000)}${'b'.repeat(5000)}${'c'.repeat(5000)}`);
  });

  it('does not count markup inside scripts, styles or comments', () => {
    const html = `<body><script>${'<div>'.repeat(5000)}</script><style>${'<div>'.repeat(5000)}</style><!-- ${'<div>'.repeat(5000)} -->text</body>`;
    expect(extractHtmlDocument(html, PAGE_URL, { ...options, budget: { maxElementDepth: 2, maxElements: 3 } }).mainText).toBe('text');
  });

  it('builds no element the markup does not have: nested tables nest as written, without a tbody', () => {
    // 300 levels of table > tr > td inside html and body: 902 levels; a spec tree builder would add a tbody to each (1,202).
    const html = `<html><body>${'<table><tr><td>'.repeat(300)}cell${'</td></tr></table>'.repeat(300)}</body></html>`;
    const changeFields = { innermost: 'table > tr > td:not(:has(td))', viaTbody: 'tbody td' };
    expect(extractHtmlDocument(html, PAGE_URL, { ...options, changeFields })).toMatchObject({ mainText: 'cell', changeFields: { innermost: 'cell', viaTbody: '' } });
    expect(budgetErrorOf(() => extractHtmlDocument(html, PAGE_URL, { ...options, budget: { maxElementDepth: 901 } })).code).toBe('PARSE_BUDGET_DEPTH');
  });
});
