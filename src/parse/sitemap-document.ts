/**
 * Reads a sitemap body: a sitemaps.org `urlset` or `sitemapindex`, an RSS 2.0 (or RSS 1.0 / RDF)
 * or Atom feed, or a plain-text list of URLs. Untrusted input: any markup, any size the fetcher
 * let through. The caller decompresses `.gz` bodies and decodes the charset first.
 *
 * XML goes through htmlparser2's streaming parser in XML mode, the parser cheerio's XML mode
 * runs, without building a DOM: cheerio.load on a 50 MiB sitemap of small entries takes about
 * 1 GiB of heap, streaming a few MiB, and streaming can stop at the entry limit. The parser
 * decodes only XML's five named entities and numeric character references; it never reads a
 * DTD, so `<!ENTITY>` declarations (billion laughs, external entities) stay inert text.
 */
import { Parser } from 'htmlparser2';
import {
  readSitemapEntries,
  resolveSitemapLimits,
  type RawSitemapEntry,
  type SitemapFormat,
  type SitemapLimits,
  type SitemapReading,
} from '../domain/sitemap/index.js';

export interface ReadSitemapDocumentOptions {
  /** Origins whose robots.txt declared this sitemap: it may list any of their URLs (see SitemapScopeOptions). */
  declaredByRobotsOf: readonly string[];
  /** Default: the protocol's limits (DEFAULT_SITEMAP_LIMITS). */
  limits?: Partial<SitemapLimits>;
}

/**
 * What the sitemap at `sitemapUrl` (the URL the body came from, after redirects) says; see
 * readSitemapEntries for what is kept. The format is told by the root element's local name,
 * namespaces and prefixes ignored and case-insensitively (`<urlset>`, `<sm:URLSET>`), or, when
 * the body does not begin with `<` (after a BOM and whitespace), by a first line that is an
 * http(s) URL: a text sitemap, one URL per line. Anything else is 'unrecognized'.
 * @throws SitemapError for bad limits or an invalid `sitemapUrl`, never for the body.
 */
export function readSitemapDocument(text: string, sitemapUrl: string, options: ReadSitemapDocumentOptions): SitemapReading {
  const limits = resolveSitemapLimits(options.limits);
  const cut = text.length > limits.maxDocumentChars;
  const body = cut ? text.slice(0, limits.maxDocumentChars) : text;
  const extraction = LEADING_MARKUP.test(body) ? extractXmlEntries(body, limits.maxEntries) : extractTextEntries(body, limits.maxEntries, cut);
  return readSitemapEntries({
    sitemapUrl,
    format: extraction.format,
    entries: extraction.entries,
    declaredByRobotsOf: options.declaredByRobotsOf,
    limits,
    stoppedEarly: cut || extraction.stoppedEarly,
  });
}

const LEADING_MARKUP = /^\uFEFF?\s*</;
const LEADING_URL = /^\uFEFF?\s*https?:\/\//i;

/**
 * Deeper than any sitemap or feed needs (Atom XHTML content included); a deeper document is a
 * nesting bomb, and stopping there also bounds the parser's own stack.
 */
const MAX_ELEMENT_DEPTH = 256;

interface Extraction {
  format: SitemapFormat;
  /** At most maxEntries + 1: one more than the limit tells readSitemapEntries the file was truncated. */
  entries: RawSitemapEntry[];
  /** Stopped before the end for another reason: too deep, or the body ended inside an entry. */
  stoppedEarly: boolean;
}

/** One URL per line, blank lines skipped; a body cut at the size limit loses its partial last line. */
function extractTextEntries(body: string, maxEntries: number, cut: boolean): Extraction {
  if (!LEADING_URL.test(body)) return { format: 'unrecognized', entries: [], stoppedEarly: false };
  const entries: RawSitemapEntry[] = [];
  const end = cut ? lastLineEnd(body) : body.length;
  const lineBreaks = /\r\n?|\n/g;
  let start = 0;
  while (start < end && entries.length <= maxEntries) {
    const lineBreak = lineBreaks.exec(body);
    const stop = lineBreak && lineBreak.index < end ? lineBreak.index : end;
    // A BOM on the first line goes with the trimming readSitemapEntries does.
    const line = body.slice(start, stop);
    if (line.trim() !== '') entries.push({ loc: line });
    start = stop === end ? end : lineBreaks.lastIndex;
  }
  return { format: 'text', entries, stoppedEarly: false };
}

function lastLineEnd(body: string): number {
  return Math.max(body.lastIndexOf('\n'), body.lastIndexOf('\r')) + 1;
}

/** Where a format keeps its entries: local names from the root down to the entry element. */
const ENTRY_PATHS: ReadonlyMap<string, { format: SitemapFormat; entryPath: readonly string[] }> = new Map([
  ['urlset', { format: 'urlset', entryPath: ['urlset', 'url'] }],
  ['sitemapindex', { format: 'sitemapindex', entryPath: ['sitemapindex', 'sitemap'] }],
  ['rss', { format: 'rss', entryPath: ['rss', 'channel', 'item'] }],
  // RSS 1.0: items are siblings of the channel, under <rdf:RDF>.
  ['rdf', { format: 'rss', entryPath: ['rdf', 'item'] }],
  ['feed', { format: 'atom', entryPath: ['feed', 'entry'] }],
]);

/** An entry being read: the first value of each field, as written. */
interface EntryDraft {
  loc?: string;
  lastmod?: string;
  changefreq?: string;
  priority?: string;
  /** RSS <guid> that is a permalink: the item's URL when it has no <link>. */
  permalink?: string;
  /** Feed dates by preference: Atom/RSS <updated> first, then RSS <pubDate>, then <dc:date> or Atom <published>. */
  updated?: string;
  published?: string;
  dated?: string;
}

/** A direct child of the entry element being read. */
interface FieldDraft {
  name: string;
  text: string;
  /** The few attributes any format reads (href, rel, ispermalink), by lower-cased name. */
  attributes: Map<string, string>;
}

const FIELD_ATTRIBUTES = new Set(['href', 'rel', 'ispermalink']);

function extractXmlEntries(body: string, maxEntries: number): Extraction {
  const entries: RawSitemapEntry[] = [];
  // Local names of the open elements, root first.
  const open: string[] = [];
  let format: SitemapFormat = 'unrecognized';
  let entryPath: readonly string[] = [];
  let entry: EntryDraft | undefined;
  let field: FieldDraft | undefined;
  let stopped = false;
  let stoppedEarly = false;
  // Set while parser.end() closes what the body left open: an entry closed then was cut off.
  // onclosetag's isImplied cannot tell, since htmlparser2 also sets it for self-closing <link/>.
  let ending = false;

  const stop = (early: boolean): void => {
    stopped = true;
    stoppedEarly ||= early;
    parser.pause();
  };
  const isFieldOpen = (): boolean => field !== undefined && open.length === entryPath.length + 1;

  const parser = new Parser(
    {
      onopentagname(name) {
        if (stopped) return;
        open.push(localName(name));
        if (open.length > MAX_ELEMENT_DEPTH) return stop(true);
        if (open.length === 1) {
          const shape = ENTRY_PATHS.get(open[0] as string);
          if (!shape) return stop(false);
          ({ format, entryPath } = shape);
        } else if (!entry && open.length === entryPath.length && entryPath.every((step, depth) => open[depth] === step)) {
          entry = {};
        } else if (entry && open.length === entryPath.length + 1) {
          field = { name: open[open.length - 1] as string, text: '', attributes: new Map() };
        }
      },
      onattribute(name, value) {
        if (stopped || !isFieldOpen()) return;
        const key = name.toLowerCase();
        if (FIELD_ATTRIBUTES.has(key)) field?.attributes.set(key, value);
      },
      ontext(text) {
        if (!stopped && isFieldOpen() && field) field.text += text;
      },
      onclosetag() {
        if (stopped) return;
        if (entry && field && open.length === entryPath.length + 1) {
          takeField(format, entry, field);
          field = undefined;
        } else if (entry && open.length === entryPath.length) {
          if (ending) stoppedEarly = true;
          else entries.push(rawEntryOf(format, entry));
          entry = undefined;
          if (entries.length > maxEntries) return stop(true);
        }
        open.pop();
      },
    },
    { xmlMode: true },
  );
  parser.write(body);
  if (!stopped) {
    ending = true;
    parser.end();
  }
  return { format, entries, stoppedEarly };
}

/** `sm:URLSET` → `urlset`: namespaces are ignored, and so is case, which sitemap writers get wrong. */
function localName(qualifiedName: string): string {
  return qualifiedName.slice(qualifiedName.lastIndexOf(':') + 1).toLowerCase();
}

/** Records a finished child element of an entry; the first occurrence of each field wins. */
function takeField(format: SitemapFormat, entry: EntryDraft, field: FieldDraft): void {
  const { name, text, attributes } = field;
  switch (format) {
    case 'urlset':
    case 'sitemapindex':
      if (name === 'loc') entry.loc ??= text;
      else if (name === 'lastmod') entry.lastmod ??= text;
      else if (name === 'changefreq') entry.changefreq ??= text;
      else if (name === 'priority') entry.priority ??= text;
      return;
    case 'rss':
      // An <atom:link/> beside the RSS <link> has no text; only a link with text is the item's URL.
      if (name === 'link' && text.trim() !== '') entry.loc ??= text;
      else if (name === 'guid' && attributes.get('ispermalink')?.trim().toLowerCase() !== 'false') entry.permalink ??= text;
      else if (name === 'updated') entry.updated ??= text;
      else if (name === 'pubdate') entry.published ??= text;
      else if (name === 'date') entry.dated ??= text;
      return;
    case 'atom':
      if (name === 'link' && isAlternateLink(attributes.get('rel'))) entry.loc ??= attributes.get('href');
      else if (name === 'updated') entry.updated ??= text;
      else if (name === 'published') entry.published ??= text;
      return;
    default:
      return;
  }
}

/** Atom (RFC 4287 §4.2.7.2): a link without rel is rel="alternate", the entry's own page. */
function isAlternateLink(rel: string | undefined): boolean {
  const value = rel?.trim().toLowerCase() ?? '';
  return value === '' || value === 'alternate' || value === 'http://www.iana.org/assignments/relation/alternate';
}

function rawEntryOf(format: SitemapFormat, entry: EntryDraft): RawSitemapEntry {
  const raw: RawSitemapEntry = { loc: entry.loc ?? entry.permalink ?? '' };
  const lastmod = format === 'rss' || format === 'atom' ? (entry.updated ?? entry.published ?? entry.dated) : entry.lastmod;
  if (lastmod !== undefined) raw.lastmod = lastmod;
  if (entry.changefreq !== undefined) raw.changefreq = entry.changefreq;
  if (entry.priority !== undefined) raw.priority = entry.priority;
  return raw;
}
