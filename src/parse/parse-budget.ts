/**
 * What one HTML document may cost the parser. The tree builder's time grows with nesting depth
 * times element count (bench/README.md, "Figures behind the defaults") and the DOM helpers that
 * read text recurse once per level (a RangeError from about 4,000 levels), so a hostile page far
 * under the body cap could pin a worker. The budget is enforced while the
 * document is read (ParseBudgetGuard): the parse stops at the first element over it.
 */
import { Parser } from 'htmlparser2';
import type { FetchFailureType } from '../domain/failures/index.js';

export interface ParseBudgetOptions {
  /**
   * Deepest element nesting the tree builder is given. Real pages rarely pass 100 levels; the DOM
   * text helpers recurse per level and overflow the stack at about 4,000. Default 1,000.
   */
  maxElementDepth?: number;
  /**
   * Most elements the tree builder is given: a 10 MiB page of hundreds of thousands takes seconds
   * to load. Large real pages have some tens of thousands. Default 250,000.
   */
  maxElements?: number;
}

export const DEFAULT_MAX_ELEMENT_DEPTH = 1000;
export const DEFAULT_MAX_ELEMENTS = 250_000;

/** Stable codes of ParseBudgetError; match on these, not on messages. */
export type ParseBudgetCode = 'PARSE_BUDGET_DEPTH' | 'PARSE_BUDGET_ELEMENTS' | 'PARSE_BUDGET_TIME';

/**
 * A document over its parse budget. Not a bug of ours and not transient: the same bytes fail the
 * same way, so it is recorded once as ParseBudgetExceeded (docs/failures.md), never retried.
 */
export class ParseBudgetError extends Error {
  override readonly name = 'ParseBudgetError';
  /** The failure type the crawl records for it. */
  static readonly failureType: FetchFailureType = 'ParseBudgetExceeded';
  readonly code: ParseBudgetCode;
  readonly url: string;
  /** Which limit, in words ("more than 250000 elements"). */
  readonly detail: string;

  constructor(code: ParseBudgetCode, url: string, detail: string) {
    super(`${code} parsing ${url}: ${detail}; recorded as ParseBudgetExceeded, not retried`);
    this.code = code;
    this.url = url;
    this.detail = detail;
  }
}

/** How big a document's tree would be, measured without building it. */
export interface DocumentShape {
  /** Deepest element nesting, as the streaming tokenizer sees it (implied closes included). */
  maxElementDepth: number;
  elements: number;
}

/**
 * One linear, non-recursive pass over the markup; stops counting once past either limit. For
 * benchmarks and diagnosis: extraction enforces the budget with ParseBudgetGuard as it parses.
 */
export function measureDocumentShape(html: string, limits: Required<ParseBudgetOptions> = { maxElementDepth: Infinity, maxElements: Infinity }): DocumentShape {
  const shape: DocumentShape = { maxElementDepth: 0, elements: 0 };
  let depth = 0;
  let over = false;
  const parser = new Parser(
    {
      onopentag() {
        if (over) return;
        depth += 1;
        shape.elements += 1;
        if (depth > shape.maxElementDepth) shape.maxElementDepth = depth;
        if (shape.maxElementDepth > limits.maxElementDepth || shape.elements > limits.maxElements) {
          over = true;
          parser.pause();
        }
      },
      onclosetag() {
        if (depth > 0) depth -= 1;
      },
    },
    { decodeEntities: false },
  );
  parser.end(html);
  return shape;
}

/**
 * Counts elements as a parser opens and closes them, and throws ParseBudgetError at the first one
 * past the budget: the document is never read further, so a 50,000-level page costs 1,000 levels.
 * Fed by the parser that builds our tree, it sees exactly the tree's nesting (implied closes and
 * void elements included).
 */
export class ParseBudgetGuard {
  private readonly maxElementDepth: number;
  private readonly maxElements: number;
  private depth = 0;
  private elements = 0;

  constructor(
    private readonly pageUrl: string,
    options: ParseBudgetOptions = {},
  ) {
    this.maxElementDepth = options.maxElementDepth ?? DEFAULT_MAX_ELEMENT_DEPTH;
    this.maxElements = options.maxElements ?? DEFAULT_MAX_ELEMENTS;
  }

  /** An element opened. Throws ParseBudgetError when it nests too deep or is one too many. */
  enterElement(): void {
    this.depth += 1;
    this.elements += 1;
    if (this.depth > this.maxElementDepth) {
      throw new ParseBudgetError('PARSE_BUDGET_DEPTH', this.pageUrl, `elements nest deeper than ${this.maxElementDepth} levels`);
    }
    if (this.elements > this.maxElements) {
      throw new ParseBudgetError('PARSE_BUDGET_ELEMENTS', this.pageUrl, `more than ${this.maxElements} elements`);
    }
  }

  /** The innermost open element closed. */
  leaveElement(): void {
    if (this.depth > 0) this.depth -= 1;
  }
}
