/**
 * What the crawler reads from an HTML page (000 §4.1, §7): title, language, links with their
 * anchor text and rel, <base href>, robots directives, the rel=canonical hint and the main text
 * for content identity. Untrusted input: any markup, any size the fetcher let through.
 */
import * as cheerio from 'cheerio';
import { resolveHref } from '../domain/url/index.js';
import { extractChangeFields } from './change-fields.js';
import { extractListingEntries, type ListingEntry } from './listing-entries.js';
import { checkParseBudget, checkTreeDepth, type ParseBudgetOptions } from './parse-budget.js';

export interface ExtractedLink {
  /** The attribute as written. */
  href: string;
  /** Absolute http(s) URL, or undefined for mailto:, javascript:, malformed and the like. */
  absoluteUrl: string | undefined;
  anchorText: string;
  /** rel attribute, lower-cased. */
  rel: string;
  nofollow: boolean;
}

export interface ExtractedDocument {
  title: string | null;
  language: string | null;
  /** The base links resolve against: <base href> when valid, else the page URL. */
  baseUrl: string;
  links: ExtractedLink[];
  /** Directives from <meta name="robots"> and <meta name="{our token}">, lower-cased. */
  metaRobots: string | null;
  canonicalHint: string | null;
  /** Visible main text: scripts, styles and page chrome (nav, header, footer, aside) removed. */
  mainText: string;
  /** Text of each configured change field (see extractChangeFields); {} when none are configured. */
  changeFields: Record<string, string>;
  /** The page's entries as a listing page (see extractListingEntries); [] unless asked for. */
  listingEntries: ListingEntry[];
}

export interface ExtractOptions {
  /** Our robots product token, for <meta name="durablecrawler">. */
  productToken: string;
  /** Links kept at most; a page with more is a trap or a sitemap. Default 5,000. */
  maxLinks?: number;
  /** The crawl's change fields, name to CSS selector (CrawlConfig.changeFields). Default none. */
  changeFields?: Readonly<Record<string, string>>;
  /** Read the page's entries as a listing page (CrawlConfig.listingPages). Default false. */
  listingEntries?: boolean;
  /** Depth and size limits checked before the tree is built (parse-budget.ts). Default its defaults. */
  budget?: ParseBudgetOptions;
}

/** Markup whose text is never shown: removed before anything reads text. */
const NON_TEXT = 'script, style, noscript, template';
/** Page chrome: not the main text, but a configured field may live there (a price in a form). */
const CHROME = 'nav, header, footer, aside, form, iframe, svg';

/** Throws ParseBudgetError, before building any tree, for a document deeper or larger than its budget. */
export function extractHtmlDocument(html: string, pageUrl: string, options: ExtractOptions): ExtractedDocument {
  checkParseBudget(html, pageUrl, options.budget);
  const $ = cheerio.load(html);
  checkTreeDepth($.root()[0]!, pageUrl, options.budget);
  const maxLinks = options.maxLinks ?? 5000;

  const baseHref = $('base[href]').first().attr('href');
  const baseUrl = (baseHref && resolveHref(baseHref, pageUrl)) || pageUrl;

  const links: ExtractedLink[] = [];
  $('a[href], area[href]').each((_, element) => {
    if (links.length >= maxLinks) return false;
    const node = $(element);
    const href = (node.attr('href') ?? '').trim();
    if (!href) return undefined;
    const rel = (node.attr('rel') ?? '').toLowerCase().trim();
    links.push({
      href,
      absoluteUrl: resolveHref(href, baseUrl),
      anchorText: collapse(node.text()).slice(0, 500),
      rel,
      nofollow: rel.split(/\s+/).includes('nofollow'),
    });
    return undefined;
  });

  const token = options.productToken.toLowerCase();
  const directives: string[] = [];
  $('meta[name][content]').each((_, element) => {
    const name = ($(element).attr('name') ?? '').toLowerCase().trim();
    if (name === 'robots' || name === token) directives.push(($(element).attr('content') ?? '').toLowerCase().trim());
  });

  const canonicalHref = $('link[rel~="canonical"][href]').first().attr('href');
  const title = collapse($('title').first().text()) || null;
  const language = ($('html').attr('lang') ?? '').trim() || null;

  $(NON_TEXT).remove();
  const changeFields = options.changeFields ? extractChangeFields($, options.changeFields) : {};
  const listingEntries = options.listingEntries ? extractListingEntries($, baseUrl) : [];
  $(CHROME).remove();
  const mainText = collapse($('body').length > 0 ? $('body').text() : $.root().text());

  return {
    title: title?.slice(0, 1000) ?? null,
    language: language?.slice(0, 35) ?? null,
    baseUrl,
    links,
    metaRobots: directives.length > 0 ? directives.join(', ') : null,
    canonicalHint: canonicalHref ? (resolveHref(canonicalHref, baseUrl) ?? null) : null,
    mainText,
    changeFields,
    listingEntries,
  };
}

/** noindex / nofollow from meta robots and X-Robots-Tag (which may name a user agent: "bot: nofollow"). */
export function robotsDirectives(metaRobots: string | null, xRobotsTag: string | undefined, productToken: string): { noindex: boolean; nofollow: boolean } {
  const token = productToken.toLowerCase();
  const values: string[] = [];
  if (metaRobots) values.push(...metaRobots.split(','));
  for (const part of (xRobotsTag ?? '').toLowerCase().split(',')) {
    const scoped = /^\s*([\w-]+)\s*:\s*(.*)$/.exec(part);
    if (scoped && !['noindex', 'nofollow', 'none', 'all', 'index', 'follow', 'unavailable_after', 'max-snippet', 'max-image-preview', 'max-video-preview', 'noarchive', 'nosnippet', 'notranslate', 'noimageindex'].includes(scoped[1]!)) {
      if (scoped[1] === token || scoped[1] === '*') values.push(scoped[2]!);
      continue;
    }
    values.push(part);
  }
  const set = new Set(values.map((value) => value.trim()).filter(Boolean));
  return {
    noindex: set.has('noindex') || set.has('none'),
    nofollow: set.has('nofollow') || set.has('none'),
  };
}

function collapse(text: string): string {
  return text.replace(/\s+/g, ' ').trim();
}
