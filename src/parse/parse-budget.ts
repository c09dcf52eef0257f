/**
 * What one HTML document may cost the parser (issue 26). The tree builder's time grows with
 * nesting depth times element count (8,000 nested <div>s took 0.3 s, 50,000 took 44 s) and the
 * DOM helpers that read text recurse once per level (a RangeError from about 4,000 levels), so a
 * hostile page far under the body cap could pin a worker. A linear streaming pre-scan measures
 * the document first; one over budget is never handed to the tree builder.
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
   * Most elements the tree builder is given: a 10 MiB page of 600,000 elements takes about 3 s
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

/** One linear, non-recursive pass over the markup; stops counting once past either limit. */
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

/** A node of a parsed tree, structurally: elements and the document have children, text does not. */
export interface TreeNode {
  /** domhandler's node type ('tag', 'text', 'root', ...): present on every node, unused here. */
  type?: string;
  children?: readonly TreeNode[];
}

/**
 * Deepest element nesting of a built tree (the root itself not counted), walked with an explicit
 * stack: the tree builder may nest deeper than the tokenizer counted (it adds the tbody of a table).
 */
export function treeDepthOf(root: TreeNode): number {
  let deepest = 0;
  const stack: Array<[TreeNode, number]> = [[root, 0]];
  for (let next = stack.pop(); next !== undefined; next = stack.pop()) {
    const [node, depth] = next;
    if (depth > deepest) deepest = depth;
    for (const child of node.children ?? []) if (child.children !== undefined) stack.push([child, depth + 1]);
  }
  return deepest;
}

/** Throws ParseBudgetError when a built tree nests deeper than the budget: before anything recursive reads it. */
export function checkTreeDepth(root: TreeNode, pageUrl: string, options: ParseBudgetOptions = {}): void {
  const maxElementDepth = options.maxElementDepth ?? DEFAULT_MAX_ELEMENT_DEPTH;
  if (treeDepthOf(root) > maxElementDepth) {
    throw new ParseBudgetError('PARSE_BUDGET_DEPTH', pageUrl, `the parsed tree nests deeper than ${maxElementDepth} levels`);
  }
}

/** Throws ParseBudgetError when the document is deeper or larger than the budget allows. */
export function checkParseBudget(html: string, pageUrl: string, options: ParseBudgetOptions = {}): DocumentShape {
  const limits = { maxElementDepth: options.maxElementDepth ?? DEFAULT_MAX_ELEMENT_DEPTH, maxElements: options.maxElements ?? DEFAULT_MAX_ELEMENTS };
  const shape = measureDocumentShape(html, limits);
  if (shape.maxElementDepth > limits.maxElementDepth) {
    throw new ParseBudgetError('PARSE_BUDGET_DEPTH', pageUrl, `elements nest deeper than ${limits.maxElementDepth} levels`);
  }
  if (shape.elements > limits.maxElements) {
    throw new ParseBudgetError('PARSE_BUDGET_ELEMENTS', pageUrl, `more than ${limits.maxElements} elements`);
  }
  return shape;
}
