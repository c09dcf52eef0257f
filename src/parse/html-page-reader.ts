/**
 * What the crawler reads from an HTML page, gathered from the parser's events in document order
 * (a pre-order walk of the tree, without the tree): title, language, <base href>, robots meta
 * tags, the rel=canonical link, links with their anchor text and rel, and the main text. Raw
 * values only: URLs are resolved and texts collapsed by extractHtmlDocument. Every structure here
 * is a flat array or a counter, so a page nested as deep as the parse budget allows costs no stack.
 */

/** Elements whose text is never shown: neither main text nor anchor text, nor in the tree a selector reads. */
export const NON_TEXT_ELEMENTS: ReadonlySet<string> = new Set(['script', 'style', 'noscript', 'template']);
/** Page chrome: its text is not the main text (its links still count). */
const CHROME = new Set(['nav', 'header', 'footer', 'aside', 'form', 'iframe', 'svg']);
/**
 * Elements whose content a browser never parses as markup (raw text when scripting is on, or a
 * template's inert content). htmlparser2 parses it as elements; a link, meta tag or title in it is
 * not one a browser would see, so none is read there.
 */
const INERT = new Set(['noscript', 'iframe', 'noembed', 'noframes', 'template']);
/** ASCII whitespace, which separates the keywords of a rel attribute (HTML's "set of space-separated tokens"). */
const ASCII_WHITESPACE = /[\t\n\f\r ]+/;

// What an open element changed, undone when it closes.
const IN_NON_TEXT = 1;
const IN_CHROME = 2;
const IN_INERT = 4;
const IN_TITLE = 8;
const READING_TITLE = 16;
const OPENS_LINK = 32;
const IN_NOSCRIPT = 64;
const IN_SCRIPT = 128;

import { APP_ROOT_IDS, frameworkMarkersOfElement, frameworkMarkersOfScriptText, type FrameworkMarker } from '../domain/render/index.js';

/** Characters of <noscript> text kept for the render decision: a plea for JavaScript is short. */
const NOSCRIPT_TEXT_KEPT = 500;
/** Characters of each inline script read for hydration markers: the state object is near its start. */
const SCRIPT_TEXT_READ = 300;

/** What the render decision reads (src/domain/render), gathered in the same pass at a few comparisons an element. */
export interface RawRenderSignals {
  /** <script> elements, with a src or inline (outside inert content). */
  scripts: number;
  /** Framework markers seen, with repeats. */
  markers: FrameworkMarker[];
  /** An application root (APP_ROOT_IDS) closed with no element and no text inside. */
  emptyAppRoot: boolean;
  /** The text of the page's <noscript> elements, the first NOSCRIPT_TEXT_KEPT characters. */
  noscriptText: string;
}

/** A link as written: an <a> or <area> with a non-empty href. */
export interface RawLink {
  /** The href attribute, trimmed. */
  href: string;
  /** The rel attribute, lower-cased and trimmed. */
  rel: string;
  /** Text inside the element, in pieces, not collapsed; text inside a nested link is that link's. */
  anchorText: string[];
}

/** Everything HtmlPageReader gathered; absent values are undefined. */
export interface RawPageFacts {
  /** Text of the first <title>, in pieces. */
  title: string[];
  /** The first lang attribute of an <html> element. */
  language: string | undefined;
  /** The href of the first <base href>. */
  baseHref: string | undefined;
  /** Content of each <meta name="robots"> and <meta name="{product token}">, lower-cased and trimmed, in order. */
  robotsDirectives: string[];
  /** The href of the first <link> whose rel has the keyword canonical (ASCII case-insensitive). */
  canonicalHref: string | undefined;
  /** The hrefs of <link rel="alternate"> elements whose type is an RSS or Atom feed, at most MAX_FEEDS, in order. */
  feedHrefs: string[];
  links: RawLink[];
  /**
   * Text outside titles, non-text elements and page chrome, in pieces. Stray text in <head> and
   * text after </body> count, as a browser's tree builder moves them into the body.
   */
  mainText: string[];
  render: RawRenderSignals;
}

export interface HtmlPageReaderOptions {
  /** Our robots product token, lower-cased, for <meta name="{token}">. */
  productToken: string;
  /** Links kept at most; the rest of the page is still read for its text. */
  maxLinks: number;
}

/** Fed with one document's elements and text in document order; `facts` holds what it read. */
export class HtmlPageReader {
  readonly facts: RawPageFacts = {
    title: [],
    language: undefined,
    baseHref: undefined,
    robotsDirectives: [],
    canonicalHref: undefined,
    feedHrefs: [],
    links: [],
    mainText: [],
    render: { scripts: 0, markers: [], emptyAppRoot: false, noscriptText: '' },
  };
  /** What each open element changed (IN_* flags), innermost last. */
  private readonly openFlags: number[] = [];
  /** Links whose element is open, innermost last: text goes to the innermost. */
  private readonly openLinks: RawLink[] = [];
  private nonTextDepth = 0;
  private chromeDepth = 0;
  private inertDepth = 0;
  private titleDepth = 0;
  private readingTitle = false;
  private titleSeen = false;
  /** Depth (openFlags length) of an open application root with nothing seen inside yet; -1: none. */
  private appRootDepth = -1;
  private inNoscript = 0;
  private scriptTextRead = -1;

  constructor(private readonly options: HtmlPageReaderOptions) {}

  openElement(name: string, attributes: Readonly<Record<string, string>>): void {
    this.readRenderSignals(name, attributes);
    let flags = 0;
    if (this.inertDepth === 0) flags |= this.readElement(name, attributes);
    if (NON_TEXT_ELEMENTS.has(name)) flags |= IN_NON_TEXT;
    if (CHROME.has(name)) flags |= IN_CHROME;
    if (INERT.has(name)) flags |= IN_INERT;
    if (name === 'title') flags |= IN_TITLE;
    if (name === 'noscript') {
      flags |= IN_NOSCRIPT;
      this.inNoscript += 1;
    }
    if (name === 'script' && this.inertDepth === 0) {
      flags |= IN_SCRIPT;
      this.scriptTextRead = 0;
    }
    if (flags & IN_NON_TEXT) this.nonTextDepth += 1;
    if (flags & IN_CHROME) this.chromeDepth += 1;
    if (flags & IN_INERT) this.inertDepth += 1;
    if (flags & IN_TITLE) this.titleDepth += 1;
    this.openFlags.push(flags);
  }

  /** Closes the innermost open element (the parser closes in order, implied closes included). */
  closeElement(): void {
    if (this.appRootDepth === this.openFlags.length) {
      // Closed with nothing inside: the application fills it in the browser.
      this.facts.render.emptyAppRoot = true;
      this.appRootDepth = -1;
    }
    const flags = this.openFlags.pop() ?? 0;
    if (flags & IN_NOSCRIPT) this.inNoscript -= 1;
    if (flags & IN_SCRIPT) this.scriptTextRead = -1;
    if (flags & IN_NON_TEXT) this.nonTextDepth -= 1;
    if (flags & IN_CHROME) this.chromeDepth -= 1;
    if (flags & IN_INERT) this.inertDepth -= 1;
    if (flags & IN_TITLE) this.titleDepth -= 1;
    if (flags & READING_TITLE) this.readingTitle = false;
    if (flags & OPENS_LINK) this.openLinks.pop();
  }

  text(data: string): void {
    this.readRenderText(data);
    if (this.readingTitle) this.facts.title.push(data);
    if (this.nonTextDepth > 0) return;
    const link = this.openLinks[this.openLinks.length - 1];
    if (link !== undefined) link.anchorText.push(data);
    if (this.chromeDepth === 0 && this.titleDepth === 0) this.facts.mainText.push(data);
  }

  /** Scripts, markers, and whether an application root stays empty: an element inside one fills it. */
  private readRenderSignals(name: string, attributes: Readonly<Record<string, string>>): void {
    const render = this.facts.render;
    if (this.appRootDepth >= 0) this.appRootDepth = -1;
    if (this.inertDepth > 0) return;
    if (name === 'script') render.scripts += 1;
    const id = attributes.id;
    if (id !== undefined && APP_ROOT_IDS.has(id) && name !== 'script' && !render.emptyAppRoot) this.appRootDepth = this.openFlags.length + 1;
    if (id !== undefined || name === 'script' || name === 'html' || name === 'body' || name === 'div' || name.includes('-') || attributes.class !== undefined) {
      const markers = frameworkMarkersOfElement(name, attributes);
      if (markers.length > 0 && render.markers.length < 32) render.markers.push(...markers);
    }
  }

  private readRenderText(data: string): void {
    const render = this.facts.render;
    if (this.appRootDepth >= 0 && data.trim() !== '') this.appRootDepth = -1;
    if (this.inNoscript > 0 && render.noscriptText.length < NOSCRIPT_TEXT_KEPT) render.noscriptText += data.slice(0, NOSCRIPT_TEXT_KEPT - render.noscriptText.length);
    if (this.scriptTextRead >= 0 && this.scriptTextRead < SCRIPT_TEXT_READ) {
      const markers = frameworkMarkersOfScriptText(data.slice(0, SCRIPT_TEXT_READ - this.scriptTextRead));
      this.scriptTextRead += data.length;
      if (markers.length > 0 && render.markers.length < 32) render.markers.push(...markers);
    }
  }

  /** Reads an element outside inert content; returns READING_TITLE or OPENS_LINK when it starts one. */
  private readElement(name: string, attributes: Readonly<Record<string, string>>): number {
    const facts = this.facts;
    switch (name) {
      case 'a':
      case 'area':
        return this.openLink(attributes);
      case 'title':
        if (this.titleSeen) return 0;
        this.titleSeen = true;
        this.readingTitle = true;
        return READING_TITLE;
      case 'html':
        if (facts.language === undefined) facts.language = attributes.lang;
        return 0;
      case 'base':
        if (facts.baseHref === undefined) facts.baseHref = attributes.href;
        return 0;
      case 'meta':
        this.readMeta(attributes);
        return 0;
      case 'link':
        if (facts.canonicalHref === undefined && attributes.href !== undefined && hasRelKeyword(attributes.rel, 'canonical')) facts.canonicalHref = attributes.href;
        if (attributes.href !== undefined && facts.feedHrefs.length < MAX_FEEDS && hasRelKeyword(attributes.rel, 'alternate') && isFeedType(attributes.type)) facts.feedHrefs.push(attributes.href);
        return 0;
      default:
        return 0;
    }
  }

  private openLink(attributes: Readonly<Record<string, string>>): number {
    const href = attributes.href?.trim();
    if (!href || this.facts.links.length >= this.options.maxLinks) return 0;
    const link: RawLink = { href, rel: (attributes.rel ?? '').toLowerCase().trim(), anchorText: [] };
    this.facts.links.push(link);
    this.openLinks.push(link);
    return OPENS_LINK;
  }

  private readMeta(attributes: Readonly<Record<string, string>>): void {
    const { name, content } = attributes;
    if (name === undefined || content === undefined) return;
    const normalizedName = name.toLowerCase().trim();
    if (normalizedName === 'robots' || normalizedName === this.options.productToken) this.facts.robotsDirectives.push(content.toLowerCase().trim());
  }
}

/** Feeds a page may announce: a page with more is not a page whose feeds we want. */
export const MAX_FEEDS = 10;

const FEED_TYPES = new Set(['application/rss+xml', 'application/atom+xml']);

/** `type` names an RSS or Atom feed (parameters and case ignored). */
function isFeedType(type: string | undefined): boolean {
  return type !== undefined && FEED_TYPES.has(type.split(';')[0]!.trim().toLowerCase());
}

function hasRelKeyword(rel: string | undefined, keyword: string): boolean {
  if (rel === undefined) return false;
  return rel.toLowerCase().split(ASCII_WHITESPACE).includes(keyword);
}
