/**
 * Reads a fetched sitemap or feed (a frontier entry of purpose 'sitemap' or 'feed'): the URLs it
 * lists are registered in the crawl like links (discovery; source 'sitemap' or 'feed') and give
 * their records a lastmod window (the recrawl planner's cheap change signal; docs/design.md, "Cost per detected change"); the sitemaps
 * an index lists join the same crawl as their own work items (so politeness and robots hold for
 * them too).
 * One transaction, keyed like any parse by (fingerprint, generation, parser version).
 */
import { gunzipSync } from 'node:zlib';
import { parseHttpDate } from '../../domain/politeness/index.js';
import { windowOnOurClock, type ServerClockReading } from '../../domain/recrawl/index.js';
import { SITEMAP_MAX_UNCOMPRESSED_BYTES, SITEMAP_REFUSALS, type SitemapReading } from '../../domain/sitemap/index.js';
import { tryCanonicalizeUrl, urlFingerprint, type CanonicalUrl } from '../../domain/url/index.js';
import { decodeCharset } from '../../http/index.js';
import { readSitemapDocument } from '../../parse/sitemap-document.js';
import { recordDocument, type DocumentRecord } from '../../storage/postgres/document-repository.js';
import { getFetch, type FetchRecord } from '../../storage/postgres/fetch-repository.js';
import { registerFrontierEntries, type NewFrontierEntry } from '../../storage/postgres/frontier-registration.js';
import { settleFrontierEntry } from '../../storage/postgres/frontier-settlement.js';
import { inTransaction } from '../../storage/postgres/pool.js';
import { applySitemapLastmods, getSitemap, recordSitemapReading, upsertSitemaps, type ListedUrl } from '../../storage/postgres/sitemap-repository.js';
import type { CrawlContext } from '../frontier/crawl-context.js';
import { registerDiscoveredUrls, type DiscoveredUrl } from '../frontier/link-registration.js';
import type { ParseDocumentInput, ParseDocumentResult } from '../../contracts/activities.js';
import type { ActivityDeps } from '../deps.js';

/** Bump when the reading changes what it records: readings are keyed by it like documents. */
export const SITEMAP_READER_VERSION = 1;
/** Depth of the sitemaps robots.txt declares; an index there lists sitemaps one deeper, which may not be indexes themselves (sitemaps.org). */
const MAX_SITEMAP_DEPTH = 1;
const GZIP_MAGIC = [0x1f, 0x8b];

export async function readFetchedSitemap(deps: ActivityDeps, context: CrawlContext, input: ParseDocumentInput): Promise<ParseDocumentResult> {
  const [stored, fetch, sitemap] = await Promise.all([
    deps.bodies.getBody(input.bodyKey),
    getFetch(deps.pool, input.fingerprint, input.generation),
    getSitemap(deps.pool, input.fingerprint),
  ]);
  const readAtMs = fetch?.fetchedAt.getTime() ?? deps.now();
  const declaredBy = sitemap?.declaredBy ?? [];
  // A feed a page links to speaks for its own origin (an item elsewhere is a link to follow, not
  // the site's word), not only for its directory as a sitemap would.
  const isFeed = input.purpose === 'feed';
  const reading = readBody(stored, input, isFeed ? [...declaredBy, originOf(input.finalUrl)] : declaredBy);
  // The reader's refusals, and this reading's own (URLs without a canonical form, nested indexes).
  const refused: Record<string, number> = { ...reading.refused };

  // The lastmods are on the site's clock: its Date header moves them onto ours.
  const clock = serverClockOf(fetch);
  const { listed, discovered } = listedUrlsOf(reading, context, clock, refused);
  // The pages a sitemap lists sit one link below the site's root, whatever index led to it; a
  // feed's items one link below the feed.
  const listedDepth = isFeed ? input.depth + 1 : 1;
  const source = isFeed || reading.format === 'rss' || reading.format === 'atom' ? 'feed' : 'sitemap';
  const children = childSitemapsOf(reading, context, input, refused);

  return inTransaction(deps.pool, async (client) => {
    // A sitemap reached by a redirect has no record yet: it gets one, so no recrawl takes it for a page.
    if (!sitemap) await upsertSitemaps(client, [{ fingerprint: input.fingerprint, url: input.url, declaredBy: [] }]);
    // A child speaks for the origins that declared its index.
    await upsertSitemaps(client, children.map((child) => ({ fingerprint: child.fingerprint, url: child.url, declaredBy, parent: input.fingerprint })));
    // Known URLs first: the reading counts what the crawler had a record of before it.
    const knownUrls = await applySitemapLastmods(client, readAtMs, listed, clock !== undefined);
    // The listed pages, as links are (scope, traps, the seen test, the discovery budget); a
    // recrawl's sweep takes only those never fetched (insertFrontierEntries).
    const pages =
      discovered.length === 0
        ? undefined
        : await registerDiscoveredUrls(client, context, {
            sourceFingerprint: input.fingerprint,
            depth: listedDepth,
            urls: discovered,
            kind: 'link',
            source,
            recordEdges: false,
            nowMs: readAtMs,
          });
    // The discovery budget bounds how many sitemaps one index can add; a child read in an earlier
    // crawl is read again.
    const registered = await registerFrontierEntries(client, input.crawlId, children, { respectDiscoveryBudget: true, shardKey: input.fingerprint, includeFetched: true });
    const pagesRegistered = pages?.registered ?? 0;
    const figures = { format: reading.format, urls: listed.length, knownUrls, registered: pagesRegistered, sitemaps: children.length, refused: withoutZeros(refused), truncated: reading.truncated };
    await recordDocument(client, sitemapDocumentOf(input, reading, registered.length + pagesRegistered, figures));
    await recordSitemapReading(client, { fingerprint: input.fingerprint, readAtMs, format: reading.format, urls: listed.length, knownUrls, refused: withoutZeros(refused) });
    await settleFrontierEntry(client, { crawlId: input.crawlId, fingerprint: input.fingerprint, generation: input.generation, state: 'done', outcome: 'ok' });
    return { title: null, linksFound: reading.urls.length + reading.sitemaps.length, linksRegistered: registered.length + pagesRegistered, noindex: false, nofollow: false };
  });
}

/** The listed URLs that have a canonical form: their lastmod windows on our clock, and their registrations as discovered URLs. */
function listedUrlsOf(
  reading: SitemapReading,
  context: CrawlContext,
  clock: ServerClockReading | undefined,
  refused: Record<string, number>,
): { listed: ListedUrl[]; discovered: DiscoveredUrl[] } {
  const listed: ListedUrl[] = [];
  const discovered: DiscoveredUrl[] = [];
  for (const entry of reading.urls) {
    const canonical = canonicalOf(entry.loc, context, refused);
    if (!canonical) continue;
    const window = entry.lastmodMs === undefined ? undefined : { fromMs: entry.lastmodMs, toMs: entry.lastmodToMs ?? entry.lastmodMs };
    const ours = window && clock ? windowOnOurClock(window, clock) : window;
    listed.push({ fingerprint: urlFingerprint(canonical.url), ...(ours === undefined ? {} : { lastmodFromMs: ours.fromMs, lastmodToMs: ours.toMs }) });
    discovered.push({
      absoluteUrl: canonical.url,
      listed: { ...(entry.priority === undefined ? {} : { listedPriority: entry.priority }), ...(ours === undefined ? {} : { lastmodMs: ours.toMs }) },
    });
  }
  return { listed, discovered };
}

/** The sitemaps an index lists, as frontier entries of this crawl; none from an index too deep to list more (counted as refused). */
function childSitemapsOf(reading: SitemapReading, context: CrawlContext, input: ParseDocumentInput, refused: Record<string, number>): NewFrontierEntry[] {
  if (reading.sitemaps.length > 0 && input.depth >= MAX_SITEMAP_DEPTH) {
    refused['nested-index'] = (refused['nested-index'] ?? 0) + reading.sitemaps.length;
    return [];
  }
  const children: NewFrontierEntry[] = [];
  for (const child of reading.sitemaps) {
    const canonical = canonicalOf(child.loc, context, refused);
    if (!canonical) continue;
    children.push({
      fingerprint: urlFingerprint(canonical.url),
      url: canonical.url,
      host: canonical.host,
      origin: canonical.origin,
      canonicalizationVersion: canonical.version,
      depth: input.depth + 1,
      priority: 1,
      tier: 0,
      purpose: 'sitemap',
      source: 'sitemap',
      discoveredFrom: input.fingerprint,
    });
  }
  return children;
}

/** A sitemap's document row: no text, its links the URLs and sitemaps it lists, its figures in `extracted`. */
function sitemapDocumentOf(input: ParseDocumentInput, reading: SitemapReading, linksRegistered: number, figures: Record<string, unknown>): DocumentRecord {
  return {
    fingerprint: input.fingerprint,
    generation: input.generation,
    parserVersion: SITEMAP_READER_VERSION,
    crawlId: input.crawlId,
    title: null,
    language: null,
    canonicalHint: null,
    metaRobots: null,
    xRobotsTag: null,
    noindex: false,
    nofollow: false,
    charset: null,
    textLength: 0,
    normalizedHash: null,
    simhashSigned: null,
    minhash: null,
    linksFound: reading.urls.length + reading.sitemaps.length,
    linksRegistered,
    extracted: { sitemap: figures },
  };
}

/** The body as text: gunzipped when it is a .gz file (bounded, a gzip bomb is refused), then decoded. */
function readBody(stored: Buffer, input: ParseDocumentInput, declaredBy: readonly string[]): SitemapReading {
  let bytes = stored;
  if (stored[0] === GZIP_MAGIC[0] && stored[1] === GZIP_MAGIC[1]) {
    try {
      bytes = gunzipSync(stored, { maxOutputLength: SITEMAP_MAX_UNCOMPRESSED_BYTES });
    } catch {
      // A broken or oversized archive: nothing is read, and the reading says it stopped early.
      return emptyReading();
    }
  }
  const text = decodeCharset(bytes, input.contentType).text;
  return readSitemapDocument(text, input.finalUrl, { declaredByRobotsOf: declaredBy });
}

function emptyReading(): SitemapReading {
  return { format: 'unrecognized', urls: [], sitemaps: [], refused: Object.fromEntries(SITEMAP_REFUSALS.map((reason) => [reason, 0])) as SitemapReading['refused'], truncated: true };
}

function withoutZeros(counts: Record<string, number>): Record<string, number> {
  return Object.fromEntries(Object.entries(counts).filter(([, count]) => count > 0));
}

/** The origin of a URL the crawl fetched (always canonicalizable). */
function originOf(url: string): string {
  const canonical = tryCanonicalizeUrl(url);
  return canonical.ok ? canonical.value.origin : url;
}

/** The crawl's canonical form of a listed URL (its query policies apply); a URL that has none is counted as refused. */
function canonicalOf(loc: string, context: CrawlContext, refused: Record<string, number>): CanonicalUrl | undefined {
  const canonical = tryCanonicalizeUrl(loc, context.canonicalizeOptions);
  if (canonical.ok) return canonical.value;
  const reason = `invalid-url:${canonical.error.code}`;
  refused[reason] = (refused[reason] ?? 0) + 1;
  return undefined;
}

/** When the sitemap's server stamped its response, by its clock and ours; undefined without a usable Date. */
function serverClockOf(fetch: FetchRecord | undefined): ServerClockReading | undefined {
  const date = fetch?.headers['date'];
  if (!fetch || !date) return undefined;
  const requestStartedAtMs = fetch.fetchedAt.getTime();
  const serverDateMs = parseHttpDate(date, requestStartedAtMs);
  const firstByteAfterMs = fetch.timings['firstByteMs'];
  if (serverDateMs === undefined || firstByteAfterMs === undefined || !(firstByteAfterMs >= 0)) return undefined;
  return { serverDateMs, requestStartedAtMs, firstByteAfterMs };
}
