import { tryCanonicalizeUrl, type CanonicalUrl, type UrlRejectionCode } from '../url/index.js';
import { resolveSitemapLimits, type SitemapLimits } from './limits.js';
import { rfc822DatetimeSpan } from './rfc822-datetime.js';
import { compileSitemapScope } from './sitemap-scope.js';
import {
  SITEMAP_REFUSALS,
  type RawSitemapEntry,
  type SitemapChangefreq,
  type SitemapChildEntry,
  type SitemapFormat,
  type SitemapReading,
  type SitemapRefusal,
  type SitemapUrlEntry,
} from './types.js';
import type { DatetimeSpan } from './utc-calendar.js';
import { w3cDatetimeSpan } from './w3c-datetime.js';

export interface ReadSitemapEntriesInput {
  /** URL the body was fetched from, after redirects: the location rule is relative to it. */
  sitemapUrl: string;
  format: SitemapFormat;
  /** Entries in document order. Only the first `limits.maxEntries` are read; one more marks the file truncated. */
  entries: readonly RawSitemapEntry[];
  /** Origins whose robots.txt declared this sitemap (see SitemapScopeOptions). */
  declaredByRobotsOf: readonly string[];
  /** Default: the protocol's limits (DEFAULT_SITEMAP_LIMITS). */
  limits?: Partial<SitemapLimits>;
  /** True when the extractor stopped before the end of the document (size or nesting limit, body cut off). Default false. */
  stoppedEarly?: boolean;
}

const CHANGEFREQS: ReadonlySet<string> = new Set<SitemapChangefreq>(['always', 'hourly', 'daily', 'weekly', 'monthly', 'yearly', 'never']);

/** xsd:decimal, the type sitemaps.org gives <priority>, without the signs no priority needs. */
const DECIMAL = /^\+?(?:\d+(?:\.\d*)?|\.\d+)$/;

const REFUSAL_OF: Record<UrlRejectionCode, SitemapRefusal> = {
  empty: 'missing-loc',
  malformed: 'not-absolute-http',
  'unsupported-scheme': 'not-absolute-http',
  userinfo: 'invalid-url',
  'invalid-host': 'invalid-url',
  'invalid-port': 'invalid-url',
  'invalid-characters': 'invalid-url',
  'too-long': 'too-long',
};

/**
 * What a sitemap's extracted entries say, after the protocol's checks: a loc must be an absolute
 * http(s) URL (relative ones are refused, not resolved: the protocol requires absolute URLs), at
 * most `maxLocChars` long, and within the sitemap's scope (compileSitemapScope). Each loc is kept
 * in canonical form, once: of entries with the same canonical URL the one with the latest lastmod
 * wins (one with a lastmod beats one without; a tie keeps the first). A lastmod that does not
 * parse, a changefreq outside the protocol's words and a priority outside [0, 1] are dropped
 * while the entry stays. Entries of a sitemap index become `sitemaps`, all others `urls`; an
 * 'unrecognized' document yields nothing.
 * @throws SitemapError for bad limits or an invalid `sitemapUrl`/`declaredByRobotsOf`, never for entries.
 */
export function readSitemapEntries(input: ReadSitemapEntriesInput): SitemapReading {
  const { format, entries } = input;
  const limits = resolveSitemapLimits(input.limits);
  const scope = compileSitemapScope(input.sitemapUrl, { declaredByRobotsOf: input.declaredByRobotsOf });
  const reading: SitemapReading = {
    format,
    urls: [],
    sitemaps: [],
    refused: Object.fromEntries(SITEMAP_REFUSALS.map((reason) => [reason, 0])) as Record<SitemapRefusal, number>,
    truncated: (input.stoppedEarly ?? false) || entries.length > limits.maxEntries,
  };
  if (format === 'unrecognized') return reading;

  const isIndex = format === 'sitemapindex';
  const positionOfLoc = new Map<string, number>();
  const count = Math.min(entries.length, limits.maxEntries);
  for (let index = 0; index < count; index++) {
    const raw = entries[index] as RawSitemapEntry;
    const located = locate(raw.loc, limits.maxLocChars);
    if ('refusal' in located) {
      reading.refused[located.refusal]++;
    } else if (!(isIndex ? scope.mayListSitemap(located) : scope.mayListUrl(located))) {
      reading.refused['out-of-scope']++;
    } else if (isIndex) {
      keepLatest(reading.sitemaps, positionOfLoc, childEntry(located.url, raw), reading.refused);
    } else {
      keepLatest(reading.urls, positionOfLoc, urlEntry(located.url, raw, format), reading.refused);
    }
  }
  return reading;
}

function locate(loc: string, maxLocChars: number): CanonicalUrl | { refusal: SitemapRefusal } {
  const text = loc.trim();
  if (text === '') return { refusal: 'missing-loc' };
  if (text.length > maxLocChars) return { refusal: 'too-long' };
  const canonical = tryCanonicalizeUrl(text, { maxUrlLength: maxLocChars });
  return canonical.ok ? canonical.value : { refusal: REFUSAL_OF[canonical.error.code] };
}

function keepLatest<Entry extends { loc: string; lastmodMs?: number }>(
  kept: Entry[],
  positionOfLoc: Map<string, number>,
  entry: Entry,
  refused: Record<SitemapRefusal, number>,
): void {
  const position = positionOfLoc.get(entry.loc);
  if (position === undefined) {
    positionOfLoc.set(entry.loc, kept.length);
    kept.push(entry);
    return;
  }
  refused.duplicate++;
  const earlierMs = (kept[position] as Entry).lastmodMs;
  if (entry.lastmodMs !== undefined && (earlierMs === undefined || entry.lastmodMs > earlierMs)) kept[position] = entry;
}

function childEntry(loc: string, raw: RawSitemapEntry): SitemapChildEntry {
  const lastmod = lastmodSpanOf(raw.lastmod, 'sitemapindex');
  return lastmod === undefined ? { loc } : { loc, lastmodMs: lastmod.fromMs, lastmodToMs: lastmod.toMs };
}

function urlEntry(loc: string, raw: RawSitemapEntry, format: SitemapFormat): SitemapUrlEntry {
  const entry: SitemapUrlEntry = { loc };
  const lastmod = lastmodSpanOf(raw.lastmod, format);
  if (lastmod !== undefined) {
    entry.lastmodMs = lastmod.fromMs;
    entry.lastmodToMs = lastmod.toMs;
  }
  const changefreq = raw.changefreq?.trim().toLowerCase();
  if (changefreq !== undefined && CHANGEFREQS.has(changefreq)) entry.changefreq = changefreq as SitemapChangefreq;
  const priority = priorityOf(raw.priority);
  if (priority !== undefined) entry.priority = priority;
  return entry;
}

/** RSS dates are RFC 822 (`pubDate`) or W3C (`dc:date`, `atom:updated`); every other format uses W3C Datetime. */
function lastmodSpanOf(text: string | undefined, format: SitemapFormat): DatetimeSpan | undefined {
  if (text === undefined) return undefined;
  return w3cDatetimeSpan(text) ?? (format === 'rss' ? rfc822DatetimeSpan(text) : undefined);
}

function priorityOf(text: string | undefined): number | undefined {
  const trimmed = text?.trim();
  if (trimmed === undefined || !DECIMAL.test(trimmed)) return undefined;
  const priority = Number(trimmed);
  return priority >= 0 && priority <= 1 ? priority : undefined;
}
