/**
 * Parses a stored body (by its object key, never through Temporal): the document record with
 * its content identities, the link graph, and the new URLs for the frontier, all in one
 * transaction keyed by (fingerprint, generation, parser version), so a replay changes nothing.
 */
import {
  SHORT_DOCUMENT_CHARS,
  minhashSignature,
  normalizeTextForHash,
  simhash64,
  toSignedInt64String,
  tokenize,
} from '../domain/content/index.js';
import { isListingPage } from '../config/crawl-config.js';
import { sha256Hex } from '../domain/hash/index.js';
import { pageChangeKey } from '../domain/recrawl/index.js';
import { productTokenOf } from '../domain/robots/index.js';
import { decodeCharset } from '../http/index.js';
import { extractHtmlDocument, robotsDirectives } from '../parse/html-document.js';
import { recordParsedPage } from '../storage/postgres/document-repository.js';
import { fetchedBodyStatement, getFetch, recordFetchedBody, type FetchedBodyRecords } from '../storage/postgres/fetch-repository.js';
import { inTransaction } from '../storage/postgres/pool.js';
import type { CrawlContextCache } from './crawl-context.js';
import type { ParseBatchInput, ParseBatchOutcome, ParseBatchResult, ParseDocumentInput, ParseDocumentResult } from './contracts.js';
import type { ActivityDeps } from './deps.js';
import { recordVisit } from './change-detection.js';
import { registerDiscoveredUrls, type RegistrationResult } from './link-registration.js';
import { listingEntriesOf, recordListingReading } from './listing-reading.js';
import { clusterNearDuplicates } from './near-duplicates.js';
import { readFetchedSitemap } from './sitemap-reading.js';

const NOTHING_REGISTERED: RegistrationResult = { registered: 0, edges: 0, rejected: [], outcomes: [] };

/** Bump when extraction changes what it produces: documents are keyed by it (000 §7.1). */
export const PARSER_VERSION = 1;

/** What a fetch burst hands the parse of a page it fetched. */
export interface FetchedPage {
  /** The page's decoded body, kept in memory by the fetch; without it the body is read from the store. */
  heldBody?: Buffer;
  /** The fetch's records, left to this parse: written first in its transaction, so both commit together. */
  fetchRecords?: FetchedBodyRecords;
}

/** Parses one fetched page, or reads a sitemap. */
export type PageParser = (input: ParseDocumentInput, fetched?: FetchedPage) => Promise<ParseDocumentResult>;

export function createPageParser(deps: ActivityDeps, crawls: CrawlContextCache): PageParser {
  return parsePage;

  async function parsePage(input: ParseDocumentInput, fetched: FetchedPage = {}): Promise<ParseDocumentResult> {
    const { heldBody, fetchRecords } = fetched;
    const context = await crawls.get(input.crawlId);
    if (input.purpose === 'sitemap') {
      // The reader reads the stored body and its own records; the fetch's records go first.
      if (fetchRecords) await recordFetchedBody(deps.pool, fetchRecords);
      return readFetchedSitemap(deps, context, input);
    }
    const config = context.record.config;
    const token = productTokenOf(config.userAgent);
    const [bytes, fetch] = await Promise.all([heldBody ?? deps.bodies.getBody(input.bodyKey), fetchFactsOf(input)]);
    const decoded = decodeCharset(bytes, input.contentType);
    // Crawls stored before changeFields existed have none.
    const changeFields = config.changeFields ?? {};
    const listingPage = isListingPage(config, input.url);
    const document = extractHtmlDocument(decoded.text, input.finalUrl, { productToken: token, changeFields, listingEntries: listingPage });
    const xRobotsTag = fetch?.xRobotsTag;
    const directives = robotsDirectives(document.metaRobots, xRobotsTag, token);

    const normalized = normalizeTextForHash(document.mainText);
    const tokens = tokenize(normalized);
    const simhashValue = tokens.length > 0 ? simhash64(tokens) : null;
    const simhash = simhashValue === null ? null : toSignedInt64String(simhashValue);
    const minhash = normalized.length > 0 && normalized.length < SHORT_DOCUMENT_CHARS ? minhashSignature(normalized) : null;
    // A change is a change of the normalized main text, or of the configured fields (timestamps and tokens masked), never of the bytes (001).
    const normalizedHash = sha256Hex(normalized);
    const visitKey = pageChangeKey({ parserVersion: PARSER_VERSION, normalizedHash, changeFields, fieldValues: document.changeFields });

    // nofollow on the page, or rel=nofollow on the link unless the crawl chose to follow those.
    const followable = directives.nofollow
      ? []
      : document.links.filter((link) => link.absoluteUrl !== undefined && (config.followNofollowLinks || !link.nofollow));
    const listingEntries = listingPage ? listingEntriesOf(document.listingEntries, context) : undefined;
    const readAtMs = fetch?.fetchedAtMs ?? deps.now();

    // The fetch's records open the transaction, sent with BEGIN: both commit together.
    const openWith = fetchRecords ? { openWith: fetchedBodyStatement(fetchRecords) } : {};
    return inTransaction(deps.pool, async (client) => {
      // A signal sweep only reads: its crawl fetches the sweep's sitemaps and listings, nothing they link to.
      const registration =
        context.record.kind === 'signals'
          ? NOTHING_REGISTERED
          : await registerDiscoveredUrls(client, context, {
              sourceFingerprint: input.fingerprint,
              depth: input.depth + 1,
              urls: followable.map((link) => ({ absoluteUrl: link.absoluteUrl!, anchorText: link.anchorText, rel: link.rel || undefined })),
              kind: 'link',
              nowMs: deps.now(),
              sourceContentHash: normalized.length > 0 ? sha256Hex(normalized) : null,
            });
      const listing = listingEntries ? await recordListingReading(client, { readAtMs, entries: listingEntries }) : undefined;
      // The document, the page's settlement and the lock on its URL's evidence in one round trip.
      // Settled before the near-duplicate step, which takes the index's key locks: they are held to
      // COMMIT, so nothing but that step and the writes sent with COMMIT come after them.
      const settlement = { crawlId: input.crawlId, fingerprint: input.fingerprint, generation: input.generation, state: 'done', outcome: 'ok' } as const;
      const page = await recordParsedPage(client, {
        fingerprint: input.fingerprint,
        generation: input.generation,
        parserVersion: PARSER_VERSION,
        crawlId: input.crawlId,
        title: document.title,
        language: document.language,
        canonicalHint: document.canonicalHint,
        metaRobots: document.metaRobots,
        xRobotsTag: xRobotsTag ?? null,
        noindex: directives.noindex,
        nofollow: directives.nofollow,
        charset: decoded.charset,
        textLength: document.mainText.length,
        normalizedHash: normalized.length > 0 ? normalizedHash : null,
        simhashSigned: simhash,
        minhash,
        linksFound: document.links.length,
        linksRegistered: registration.registered,
        extracted: {
          charsetSource: decoded.source,
          ...(Object.keys(changeFields).length > 0 ? { changeFields: document.changeFields } : {}),
          ...(listing ? { listing } : {}),
        },
      }, settlement);
      if (page.recorded) {
        // Once per (fingerprint, generation, parser version): a replayed parse finds its document and adds nothing.
        await recordVisit(
          client,
          {
            fingerprint: input.fingerprint,
            generation: input.generation,
            crawlId: input.crawlId,
            observedAtMs: readAtMs,
            content: { kind: 'content', changeKey: visitKey },
            normalizedHash,
          },
          { evidence: page.evidence },
        );
        await clusterNearDuplicates(client, {
          fingerprint: input.fingerprint,
          generation: input.generation,
          parserVersion: PARSER_VERSION,
          simhash: simhashValue,
          minhash,
        });
      }
      return {
        title: document.title,
        linksFound: document.links.length,
        linksRegistered: registration.registered,
        noindex: directives.noindex,
        nofollow: directives.nofollow,
      };
    }, openWith);
  }

  /** What the parse needs of the fetch: carried in its input, or read from the record in histories from before. */
  async function fetchFactsOf(input: ParseDocumentInput): Promise<{ fetchedAtMs: number; xRobotsTag: string | undefined } | undefined> {
    if (input.fetchedAtMs !== undefined) return { fetchedAtMs: input.fetchedAtMs, xRobotsTag: input.xRobotsTag };
    const record = await getFetch(deps.pool, input.fingerprint, input.generation);
    return record && { fetchedAtMs: record.fetchedAt.getTime(), xRobotsTag: record.headers['x-robots-tag'] };
  }
}

/** Whether parsing this body records signal readings (a sitemap, a listing page): such parses go one at a time, in fetch order. */
export function createSignalReadingCheck(crawls: CrawlContextCache): (item: ParseDocumentInput) => Promise<boolean> {
  return async (item) => item.purpose === 'sitemap' || isListingPage((await crawls.get(item.crawlId)).record.config, item.url);
}

export function createParseActivities(parsePage: PageParser, crawls: CrawlContextCache) {
  const readsSignalsOf = createSignalReadingCheck(crawls);
  async function parseDocument(input: ParseDocumentInput): Promise<ParseDocumentResult> {
    return parsePage(input);
  }

  /**
   * The bodies of one fetch burst, parsed side by side in one activity (one activity's events for
   * the lot). A failure is reported, not thrown: the workflow hands that body to parseDocument,
   * whose retry policy is the parse stage's. Each parse is idempotent, so a retried batch redoes nothing.
   *
   * A batch with a listing page or a sitemap is parsed one body at a time, in fetch order: a
   * reading and a visit of an item it lists must be recorded in the order they were fetched, or a
   * reading taken after the visit could replace, before the visit is recorded, the one whose claim
   * the visit checks (the claim would go unchecked).
   */
  async function parseBatch(input: ParseBatchInput): Promise<ParseBatchResult> {
    const settled = (await readsSignals(input.items)) ? await inOrder(input.items) : await Promise.allSettled(input.items.map((item) => parseDocument(item)));
    return {
      outcomes: settled.map((outcome): ParseBatchOutcome =>
        outcome.status === 'fulfilled' ? { ok: true } : { ok: false, error: outcome.reason instanceof Error ? outcome.reason.message : String(outcome.reason) },
      ),
    };
  }

  async function readsSignals(items: readonly ParseDocumentInput[]): Promise<boolean> {
    for (const item of items) {
      if (await readsSignalsOf(item)) return true;
    }
    return false;
  }

  async function inOrder(items: readonly ParseDocumentInput[]): Promise<PromiseSettledResult<ParseDocumentResult>[]> {
    const settled: PromiseSettledResult<ParseDocumentResult>[] = [];
    for (const item of items) settled.push(...(await Promise.allSettled([parseDocument(item)])));
    return settled;
  }

  return { parseDocument, parseBatch };
}
