/**
 * One parse of an HTML document: htmlparser2's tokenizer and tree rules (those of Crawlee's
 * CheerioCrawler) feed the parse budget, the page reader and, only when a CSS selector must run,
 * a DOM tree for cheerio. No pre-scan, no second pass over the markup, no recursion.
 */
import { DomHandler, Parser, type Handler } from 'htmlparser2';
import { HtmlPageReader, NON_TEXT_ELEMENTS, type HtmlPageReaderOptions, type RawPageFacts } from './html-page-reader.js';
import { ParseBudgetGuard, type ParseBudgetOptions } from './parse-budget.js';

export interface SinglePassOptions extends HtmlPageReaderOptions {
  /** Depth and size limits, enforced as the document is read. Default parse-budget.ts's defaults. */
  budget?: ParseBudgetOptions;
  /** Also build the DOM tree (for cheerio). Default false: the reader needs none. */
  buildTree?: boolean;
}

/** The tree's root, as domhandler builds it and cheerio.load takes it. */
export type DomDocument = DomHandler['root'];

export interface SinglePassResult {
  facts: RawPageFacts;
  /** The document without script, style, noscript and template elements; present when buildTree was set. */
  tree: DomDocument | undefined;
}

/** Throws ParseBudgetError at the first element past the budget, before the rest is read. */
export function readHtmlOnce(html: string, pageUrl: string, options: SinglePassOptions): SinglePassResult {
  const guard = new ParseBudgetGuard(pageUrl, options.budget);
  const reader = new HtmlPageReader(options);
  const tree = options.buildTree ? new ShownTreeBuilder() : undefined;
  const handler: Partial<Handler> = {
    onopentag(name, attributes) {
      guard.enterElement();
      reader.openElement(name, attributes);
      tree?.open(name, attributes);
    },
    onclosetag() {
      guard.leaveElement();
      reader.closeElement();
      tree?.close();
    },
    ontext(data) {
      reader.text(data);
      tree?.text(data);
    },
  };
  new Parser(handler, { decodeEntities: true }).end(withoutNul(html));
  return { facts: reader.facts, tree: tree?.root };
}

/**
 * Postgres text cannot hold U+0000, and a browser's tokenizer never passes one through (it drops
 * it or writes U+FFFD); htmlparser2 keeps it, so it is replaced before the parse.
 */
function withoutNul(html: string): string {
  return html.includes('\u0000') ? html.replaceAll('\u0000', '\ufffd') : html;
}

/** A domhandler tree of the shown document: the subtrees of NON_TEXT_ELEMENTS are never built, so no selector's text includes theirs. */
class ShownTreeBuilder {
  private readonly dom = new DomHandler();
  /** Open elements inside a skipped subtree, the skipped element included. */
  private skippedDepth = 0;

  get root(): DomDocument {
    return this.dom.root;
  }

  open(name: string, attributes: Record<string, string>): void {
    if (this.skippedDepth > 0 || NON_TEXT_ELEMENTS.has(name)) this.skippedDepth += 1;
    else this.dom.onopentag(name, attributes);
  }

  close(): void {
    if (this.skippedDepth > 0) this.skippedDepth -= 1;
    else this.dom.onclosetag();
  }

  text(data: string): void {
    if (this.skippedDepth === 0) this.dom.ontext(data);
  }
}
