/**
 * Parses a stored body (by its object key, never through Temporal): the document record with
 * its content identities, the link graph, and the new URLs for the frontier, keyed by
 * (fingerprint, generation, parser version), so a replay changes nothing. The page is analyzed
 * on its own (page-analysis.ts) and recorded with the other pages this worker parses meanwhile,
 * in one transaction (page-recorder.ts, record-pages.ts).
 */
import type { CrawlContextCache } from '../frontier/crawl-context.js';
import { isReadAsSitemap, type ParseBatchOutcome, type ParseDocumentInput, type ParseDocumentResult } from '../../contracts/activities.js';
import type { ActivityDeps } from '../deps.js';
import { analyzePage, type AnalyzedPage, type FetchedPage } from './page-analysis.js';
import { PageRecorder, type PageRecorderOptions } from './page-recorder.js';
import { recordAnalyzedPages } from './record-pages.js';
import { readFetchedSitemap } from './sitemap-reading.js';
import { isListingPage } from '../../config/crawl-config.js';
import { recordFetchedBody } from '../../storage/postgres/fetch-repository.js';
import { isTransactionConflict } from '../../storage/postgres/pool.js';
import { ParseBudgetError } from '../../parse/parse-budget.js';
import { RenderVerdictCache } from '../rendering/render-decisions.js';

/** A parse that threw, as a batch reports it: a page over its parse budget says so, so it is not parsed again. */
export function failedParseOutcome(error: unknown): ParseBatchOutcome {
  const message = error instanceof Error ? error.message : String(error);
  return error instanceof ParseBudgetError ? { ok: false, error: message, failureType: 'ParseBudgetExceeded' } : { ok: false, error: message };
}

/** A parse that succeeded, as a batch reports it: with the renders its page waits for. */
export function parsedOutcome(result: ParseDocumentResult): ParseBatchOutcome {
  return result.renders && result.renders.length > 0 ? { ok: true, renders: result.renders } : { ok: true };
}

/** Parses one fetched page, or reads a sitemap. */
export type PageParser = (input: ParseDocumentInput, fetched?: FetchedPage) => Promise<ParseDocumentResult>;

export function createPageParser(deps: ActivityDeps, crawls: CrawlContextCache, recorderOptions: PageRecorderOptions = {}): PageParser {
  // One per worker process: the more parses share it, the fewer statements a page costs.
  const recorder = new PageRecorder<AnalyzedPage, ParseDocumentResult>((pages) => recordAnalyzedPages(deps, pages), {
    isTransientFailure: isTransactionConflict,
    ...recorderOptions,
  });
  const rendering = { verdicts: new RenderVerdictCache(deps.pool, deps.now), random: Math.random };
  return parsePage;

  async function parsePage(input: ParseDocumentInput, fetched: FetchedPage = {}): Promise<ParseDocumentResult> {
    const context = await crawls.get(input.crawlId);
    if (isReadAsSitemap(input.purpose)) {
      // The reader reads the stored body and its own records; the fetch's records go first.
      if (fetched.fetchRecords) await recordFetchedBody(deps.pool, fetched.fetchRecords);
      return readFetchedSitemap(deps, context, input);
    }
    return recorder.record(await analyzePage(deps, context, input, fetched, rendering));
  }
}

/** Whether parsing this body records signal readings (a sitemap, a listing page): such parses go one at a time, in fetch order. */
export function createSignalReadingCheck(crawls: CrawlContextCache): (item: ParseDocumentInput) => Promise<boolean> {
  return async (item) => isReadAsSitemap(item.purpose) || isListingPage((await crawls.get(item.crawlId)).record.config, item.url);
}
