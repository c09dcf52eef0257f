/**
 * The text of a crawl's configured change fields (CrawlConfig.changeFields): what a price monitor
 * compares instead of the whole main text. Selectors are checked once, when the crawl is
 * configured, with the same engine that applies them here, so a page never fails on a bad one.
 */
import * as cheerio from 'cheerio';
import type { CheerioAPI } from 'cheerio';

/**
 * Characters of a field's text that are kept and compared (UTF-16 code units). A price or a stock
 * line is far shorter; the cap bounds what a broad selector such as `main` stores per document.
 */
export const MAX_CHANGE_FIELD_CHARS = 2000;

/** Between the texts of a field's matches. Matches are whitespace-collapsed, so it cannot occur inside one. */
const MATCH_SEPARATOR = '\n';

let probe: CheerioAPI | undefined;

/**
 * Why cheerio cannot apply `selector`, or undefined when it can. css-select compiles a selector
 * before it looks at any element, so trying it on an empty document finds syntax errors and
 * unsupported parts (pseudo-elements, unknown pseudo-classes) without any page.
 */
export function changeFieldSelectorProblem(selector: string): string | undefined {
  probe ??= cheerio.load('');
  try {
    probe.root().find(selector);
    return undefined;
  } catch (error) {
    return error instanceof Error ? error.message : String(error);
  }
}

/**
 * Each field's text: the text of every element its selector matches, in document order, each
 * whitespace-collapsed, joined by a newline, at most MAX_CHANGE_FIELD_CHARS. A field that matches
 * nothing is ''. `$` is the page's tree with its chrome (a price may sit in a form or a header) and
 * without scripts and styles. The tree is htmlparser2's, as Crawlee's CheerioCrawler reads pages:
 * it holds the elements the markup has, so a `tbody` a browser's devtools show but the markup
 * omits is not there.
 */
export function extractChangeFields($: CheerioAPI, selectors: Readonly<Record<string, string>>): Record<string, string> {
  const fields: Record<string, string> = {};
  for (const [name, selector] of Object.entries(selectors)) {
    const texts: string[] = [];
    let length = 0;
    for (const element of $.root().find(selector)) {
      if (length >= MAX_CHANGE_FIELD_CHARS) break;
      const text = $(element).text().replace(/\s+/g, ' ').trim();
      if (!text) continue;
      texts.push(text);
      length += text.length + MATCH_SEPARATOR.length;
    }
    fields[name] = capChars(texts.join(MATCH_SEPARATOR), MAX_CHANGE_FIELD_CHARS);
  }
  return fields;
}

/** The first `max` code units, without a lone high surrogate at the cut (jsonb refuses one). */
function capChars(text: string, max: number): string {
  if (text.length <= max) return text;
  const cut = text.slice(0, max);
  return /[\ud800-\udbff]$/.test(cut) ? cut.slice(0, -1) : cut;
}
