/**
 * The entries of a listing page (docs/design.md, "Cost per detected change": category and search pages show their items' prices and
 * status): for each link, the text of the item it sits in (the closest list item, table row,
 * article or microdata item). A link outside any item is navigation, not an entry. Untrusted
 * input: counts and lengths are capped.
 */
import type { CheerioAPI } from 'cheerio';
import { resolveHref } from '../domain/url/index.js';

/** An item container: what one entry of a listing is written in. */
const ITEM = 'li, tr, article, [itemscope], dd';

export interface ListingEntryOptions {
  /** Entries kept at most. Default 2,000. */
  maxEntries?: number;
  /** Characters of an entry's text kept. Default 1,000. */
  maxEntryChars?: number;
}

export interface ListingEntry {
  /** Absolute http(s) URL the entry links to. */
  url: string;
  /** The entry's text, whitespace collapsed; several entries for one URL are joined in document order. */
  text: string;
}

/**
 * Called by extractHtmlDocument on the page's tree without the markup that is never shown
 * (scripts, styles) and with its chrome: an entry may sit in an aside.
 * @param baseUrl what the page's links resolve against: its `<base href>` when valid, else its URL.
 */
export function extractListingEntries($: CheerioAPI, baseUrl: string, options: ListingEntryOptions = {}): ListingEntry[] {
  const maxEntries = options.maxEntries ?? 2000;
  const maxEntryChars = options.maxEntryChars ?? 1000;
  const texts = new Map<string, string[]>();
  const containersSeen = new Map<string, Set<unknown>>();
  $('a[href]').each((_, element) => {
    const link = $(element);
    const container = link.closest(ITEM);
    if (container.length === 0) return undefined;
    const url = resolveHref((link.attr('href') ?? '').trim(), baseUrl);
    if (url === undefined) return undefined;
    const seen = containersSeen.get(url) ?? new Set<unknown>();
    // An image link and a title link in one item are one entry.
    if (seen.has(container[0])) return undefined;
    if (!texts.has(url) && texts.size >= maxEntries) return false;
    seen.add(container[0]);
    containersSeen.set(url, seen);
    const text = textOf(container[0] as unknown as DomNode).replace(/\s+/g, ' ').trim().slice(0, maxEntryChars);
    texts.set(url, [...(texts.get(url) ?? []), text]);
    return undefined;
  });
  return [...texts].map(([url, parts]) => ({ url, text: parts.join('\n') }));
}

/** The text of a node with a space between elements: "<td>Kettle</td><td>31.00</td>" reads "Kettle 31.00". */
function textOf(node: DomNode): string {
  if (node.type === 'text') return node.data ?? '';
  return (node.children ?? []).map(textOf).join(' ');
}

/** The part of cheerio's node shape this module reads (its types live in a package we do not depend on). */
interface DomNode {
  type: string;
  data?: string;
  children?: DomNode[];
}
