/**
 * What the parse of one page computes before it writes anything: the extracted document, its
 * robots directives, its content identities (normalized hash, SimHash, MinHash), its change key,
 * the links to follow and a listing page's entries. Pure CPU once the body is in hand, so a batch
 * of pages spends its transaction on the store alone (record-pages.ts).
 */
import { SHORT_DOCUMENT_CHARS, minhashSignature, normalizeTextForHash, simhash64, toSignedInt64String, tokenize } from '../../domain/content/index.js';
import { isListingPage } from '../../config/crawl-config.js';
import { pageChangeKey } from '../../domain/recrawl/index.js';
import { productTokenOf } from '../../domain/robots/index.js';
import { canonicalFromLinkHeader } from '../../domain/url/index.js';
import { decodeCharset } from '../../http/index.js';
import { extractHtmlDocument, robotsDirectives } from '../../parse/html-document.js';
import type { DocumentRecord } from '../../storage/postgres/document-repository.js';
import { getFetch, type FetchedBodyRecords } from '../../storage/postgres/fetch-repository.js';
import type { ListingEntryDigest } from '../../storage/postgres/listing-repository.js';
import type { CrawlContext } from '../frontier/crawl-context.js';
import type { ParseDocumentInput } from '../../contracts/activities.js';
import type { ActivityDeps } from '../deps.js';
import type { DiscoveredUrl } from '../frontier/link-registration.js';
import { listingEntriesOf } from './listing-reading.js';
import { sha256HexOfText } from './text-hash.js';
import { planPageRender, type PageRenderPlan, type RenderVerdictCache } from '../rendering/render-decisions.js';

/**
 * Bump when extraction changes what it produces: documents are keyed by it (docs/design.md, "Content identity"), and a
 * change key of another version starts a new baseline instead of reporting a change.
 * 2: htmlparser2 instead of parse5: main text without <title> elements in the body,
 * anchor text without script text, no links in <template>, U+0000 read as U+FFFD, no implied tbody.
 */
export const PARSER_VERSION = 2;

/** What a fetch burst hands the parse of a page it fetched. */
export interface FetchedPage {
  /** The page's decoded body, kept in memory by the fetch; without it the body is read from the store. */
  heldBody?: Buffer;
  /** The fetch's records, left to this parse: written first in its transaction, so both commit together. */
  fetchRecords?: FetchedBodyRecords;
}

/** The fields of the page's document row that its analysis decides. */
type AnalyzedDocument = Pick<
  DocumentRecord,
  'title' | 'language' | 'canonicalHint' | 'metaRobots' | 'xRobotsTag' | 'noindex' | 'nofollow' | 'charset' | 'textLength' | 'normalizedHash' | 'simhashSigned' | 'minhash' | 'linksFound'
>;

/**
 * The page's document row: what its analysis decided, under one parser version (the HTTP parse's,
 * or the rendered DOM's), with what registering its links did and the extras of that parse.
 */
export function documentRecordOf(page: AnalyzedPage, parserVersion: number, linksRegistered: number, extracted: Record<string, unknown>): DocumentRecord {
  return {
    fingerprint: page.fingerprint,
    generation: page.input.generation,
    parserVersion,
    crawlId: page.crawlId,
    title: page.title,
    language: page.language,
    canonicalHint: page.canonicalHint,
    metaRobots: page.metaRobots,
    xRobotsTag: page.xRobotsTag,
    noindex: page.noindex,
    nofollow: page.nofollow,
    charset: page.charset,
    textLength: page.textLength,
    normalizedHash: page.normalizedHash,
    simhashSigned: page.simhashSigned,
    minhash: page.minhash,
    linksFound: page.linksFound,
    linksRegistered,
    extracted,
  };
}

/** A page ready to record. */
export interface AnalyzedPage extends AnalyzedDocument {
  input: ParseDocumentInput;
  context: CrawlContext;
  fetchRecords: FetchedBodyRecords | undefined;
  crawlId: string;
  fingerprint: string;
  /** A listing page: its reading orders the visits after it, so it is recorded alone. */
  alone: boolean;
  charsetSource: string;
  /** Hex SHA-256 of the normalized text whatever the text (the change key's input); normalizedHash is null for an empty text. */
  textHash: string;
  simhash: bigint | null;
  changeKey: string;
  changeFields: Record<string, string> | undefined;
  /** The links to register (nofollow honoured). */
  links: DiscoveredUrl[];
  /** A listing page's entries. */
  listingEntries: ListingEntryDigest[] | undefined;
  /** When the fetch read the page: the visit's time. */
  readAtMs: number;
  /** What the parse decided about rendering the page; absent when the crawl never renders. */
  renderPlan: PageRenderPlan | undefined;
}

/** What the analysis of a page needs for its render decision. */
export interface RenderPlanning {
  verdicts: RenderVerdictCache;
  random: () => number;
}

export async function analyzePage(deps: ActivityDeps, context: CrawlContext, input: ParseDocumentInput, fetched: FetchedPage = {}, rendering?: RenderPlanning): Promise<AnalyzedPage> {
  const config = context.record.config;
  const token = productTokenOf(config.userAgent);
  const [bytes, fetch] = await Promise.all([fetched.heldBody ?? deps.bodies.getBody(input.bodyKey), fetchFactsOf(deps, input)]);
  const decoded = decodeCharset(bytes, input.contentType);
  // Crawls stored before changeFields existed have none.
  const changeFields = config.changeFields ?? {};
  const listingPage = isListingPage(config, input.url);
  const extractOptions = { productToken: token, changeFields, listingEntries: listingPage };
  const document = deps.extractHtml ? await deps.extractHtml(decoded.text, input.finalUrl, extractOptions) : extractHtmlDocument(decoded.text, input.finalUrl, extractOptions);
  const xRobotsTag = fetch?.xRobotsTag;
  const directives = robotsDirectives(document.metaRobots, xRobotsTag, token);

  const normalized = normalizeTextForHash(document.mainText);
  const tokens = tokenize(normalized);
  const simhash = tokens.length > 0 ? simhash64(tokens) : null;
  const minhash = normalized.length > 0 && normalized.length < SHORT_DOCUMENT_CHARS ? minhashSignature(normalized) : null;
  // A change is a change of the normalized main text, or of the configured fields (timestamps and tokens masked), never of the bytes (docs/design.md, "Change model").
  const textHash = sha256HexOfText(normalized);
  const changeKey = pageChangeKey({ parserVersion: PARSER_VERSION, normalizedHash: textHash, changeFields, fieldValues: document.changeFields });

  // nofollow on the page, or rel=nofollow on the link unless the crawl chose to follow those.
  const followable = directives.nofollow ? [] : document.links.filter((link) => link.absoluteUrl !== undefined && (config.followNofollowLinks || !link.nofollow));
  const renderPlan = rendering && input.purpose !== 'sitemap' ? await planPageRender(config, { finalUrl: input.finalUrl, features: document.renderFeatures, hrefs: document.links.map((link) => link.href) }, rendering.verdicts, rendering.random) : undefined;
  return {
    input,
    context,
    fetchRecords: fetched.fetchRecords,
    crawlId: input.crawlId,
    fingerprint: input.fingerprint,
    alone: listingPage,
    title: document.title,
    language: document.language,
    // The page's own <link rel=canonical> first, else its response's Link header.
    canonicalHint: document.canonicalHint ?? fetch?.linkCanonical ?? null,
    metaRobots: document.metaRobots,
    xRobotsTag: xRobotsTag ?? null,
    noindex: directives.noindex,
    nofollow: directives.nofollow,
    charset: decoded.charset,
    charsetSource: decoded.source,
    textLength: document.mainText.length,
    normalizedHash: normalized.length > 0 ? textHash : null,
    textHash,
    simhash,
    simhashSigned: simhash === null ? null : toSignedInt64String(simhash),
    minhash,
    changeKey,
    changeFields: Object.keys(changeFields).length > 0 ? document.changeFields : undefined,
    linksFound: document.links.length,
    links: [
      // Its feeds list what the site publishes, linked or not (a page's nofollow covers them too);
      // first, so that an <a> to the same feed does not make it a page.
      ...(directives.nofollow ? [] : (document.feeds ?? []).map((feed) => ({ absoluteUrl: feed, rel: 'alternate', purpose: 'feed' }))),
      ...followable.map((link) => ({ absoluteUrl: link.absoluteUrl!, anchorText: link.anchorText, rel: link.rel || undefined })),
    ],
    listingEntries: listingPage ? listingEntriesOf(document.listingEntries, context) : undefined,
    readAtMs: fetch?.fetchedAtMs ?? deps.now(),
    renderPlan,
  };
}

/** What the parse needs of the fetch: carried in its input, or read from the record in histories from before. */
async function fetchFactsOf(
  deps: ActivityDeps,
  input: ParseDocumentInput,
): Promise<{ fetchedAtMs: number; xRobotsTag: string | undefined; linkCanonical: string | undefined } | undefined> {
  if (input.fetchedAtMs !== undefined) return { fetchedAtMs: input.fetchedAtMs, xRobotsTag: input.xRobotsTag, linkCanonical: input.linkCanonical };
  const record = await getFetch(deps.pool, input.fingerprint, input.generation);
  return record && { fetchedAtMs: record.fetchedAt.getTime(), xRobotsTag: record.headers['x-robots-tag'], linkCanonical: canonicalFromLinkHeader(record.headers['link'], record.finalUrl) };
}
