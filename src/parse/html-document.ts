/**
 * What the crawler reads from an HTML page (docs/design.md, "Discovery" and "Content identity"): title, language, links with their
 * anchor text and rel, <base href>, robots directives, the rel=canonical hint and the main text
 * for content identity. Untrusted input: any markup, any size the fetcher let through.
 */
import * as cheerio from 'cheerio';
import { resolveHref } from '../domain/url/index.js';
import { distinctMarkers, noscriptAsksForJavaScript, type RenderFeatures } from '../domain/render/index.js';
import { extractChangeFields } from './change-fields.js';
import { extractListingEntries, type ListingEntry } from './listing-entries.js';
import { readHtmlOnce } from './html-single-pass.js';
import type { ParseBudgetOptions } from './parse-budget.js';

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
  /** RSS and Atom feeds the page announces (<link rel="alternate" type="application/rss+xml|atom+xml">), absolute http(s), in order. */
  feeds: string[];
  /**
   * Visible main text: the document's text without its title, scripts, styles, noscript, templates
   * and page chrome (nav, header, footer, aside, form, iframe, svg), whitespace collapsed.
   */
  mainText: string;
  /** Text of each configured change field (see extractChangeFields); {} when none are configured. */
  changeFields: Record<string, string>;
  /** The page's entries as a listing page (see extractListingEntries); [] unless asked for. */
  listingEntries: ListingEntry[];
  /** What the render decision reads of the page (src/domain/render). */
  renderFeatures: RenderFeatures;
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
  /** Depth and size limits, enforced as the document is parsed (parse-budget.ts). Default its defaults. */
  budget?: ParseBudgetOptions;
}

/**
 * Reads the page in one parse (html-single-pass.ts). A tree for cheerio is built only for the
 * crawl's change fields or a listing page. Throws ParseBudgetError at the first element past the
 * budget, before the rest of the document is read.
 */
export function extractHtmlDocument(html: string, pageUrl: string, options: ExtractOptions): ExtractedDocument {
  const changeFieldSelectors = options.changeFields && Object.keys(options.changeFields).length > 0 ? options.changeFields : undefined;
  const { facts, tree } = readHtmlOnce(html, pageUrl, {
    productToken: options.productToken.toLowerCase(),
    maxLinks: options.maxLinks ?? 5000,
    budget: options.budget,
    buildTree: changeFieldSelectors !== undefined || options.listingEntries === true,
  });
  const baseUrl = (facts.baseHref && resolveHref(facts.baseHref, pageUrl)) || pageUrl;

  const links = facts.links.map(
    (link): ExtractedLink => ({
      href: link.href,
      absoluteUrl: resolveHref(link.href, baseUrl),
      anchorText: collapse(link.anchorText.join('')).slice(0, 500),
      rel: link.rel,
      nofollow: link.rel.split(/\s+/).includes('nofollow'),
    }),
  );

  // The tree has no scripts or styles, but still its chrome: a price may sit in a form or a header, an entry in an aside.
  const $ = tree && cheerio.load(tree);
  const changeFields = $ && changeFieldSelectors ? extractChangeFields($, changeFieldSelectors) : {};
  const listingEntries = $ && options.listingEntries ? extractListingEntries($, baseUrl) : [];
  const title = collapse(facts.title.join('')) || null;
  const language = (facts.language ?? '').trim() || null;
  const mainText = collapse(facts.mainText.join(''));
  const render = facts.render;

  return {
    title: title?.slice(0, 1000) ?? null,
    language: language?.slice(0, 35) ?? null,
    baseUrl,
    links,
    metaRobots: facts.robotsDirectives.length > 0 ? facts.robotsDirectives.join(', ') : null,
    canonicalHint: facts.canonicalHref ? (resolveHref(facts.canonicalHref, baseUrl) ?? null) : null,
    feeds: [...new Set(facts.feedHrefs.flatMap((href) => resolveHref(href.trim(), baseUrl) ?? []))],
    mainText,
    changeFields,
    listingEntries,
    renderFeatures: {
      textLength: mainText.length,
      linkCount: links.length,
      scriptCount: render.scripts,
      frameworkMarkers: distinctMarkers(render.markers),
      emptyAppRoot: render.emptyAppRoot,
      noscriptAsksForJavaScript: render.noscriptText !== '' && noscriptAsksForJavaScript(render.noscriptText),
    },
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

/**
 * Each run of whitespace as one space, trimmed. A lone space is already its own collapse, so only
 * longer runs and other whitespace characters are rewritten: most of a page's text is left alone.
 */
const WHITESPACE_TO_REWRITE = /\s{2,}|[^\S ]/g;

function collapse(text: string): string {
  return text.replace(WHITESPACE_TO_REWRITE, ' ').trim();
}
