/**
 * Parses a stored body (by its object key, never through Temporal): the document record with
 * its content identities, the link graph, and the new URLs for the frontier, keyed by
 * (fingerprint, generation, parser version), so a replay changes nothing. The page is analyzed
 * on its own (page-analysis.ts) and recorded with the other pages this worker parses meanwhile,
 * in one transaction (page-recorder.ts, record-pages.ts).
 */
import { ApplicationFailure } from '@temporalio/activity';
import type { CrawlContextCache } from '../services/frontier/crawl-context.js';
import { isReadAsSitemap, type ParseBatchInput, type ParseBatchOutcome, type ParseBatchResult, type ParseDocumentInput, type ParseDocumentResult } from '../contracts/activities.js';
import type { ActivityDeps } from '../services/deps.js';
import { analyzePage, type AnalyzedPage, type FetchedPage } from '../services/documents/page-analysis.js';
import { PageRecorder, type PageRecorderOptions } from '../services/documents/page-recorder.js';
import { recordAnalyzedPages } from '../services/documents/record-pages.js';
import { readFetchedSitemap } from '../services/documents/sitemap-reading.js';
import { isListingPage } from '../config/crawl-config.js';
import { recordFetchedBody } from '../storage/postgres/fetch-repository.js';
import { isTransactionConflict } from '../storage/postgres/pool.js';
import { ParseBudgetError } from '../parse/parse-budget.js';
import { RenderVerdictCache } from '../services/rendering/render-decisions.js';

export { PARSER_VERSION, type FetchedPage } from '../services/documents/page-analysis.js';

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

export function createParseActivities(parsePage: PageParser, crawls: CrawlContextCache) {
  const readsSignalsOf = createSignalReadingCheck(crawls);
  async function parseDocument(input: ParseDocumentInput): Promise<ParseDocumentResult> {
    try {
      return await parsePage(input);
    } catch (error) {
      // The same bytes fail the same way: one attempt, recorded as its type by the host workflow.
      if (error instanceof ParseBudgetError) throw ApplicationFailure.create({ type: ParseBudgetError.failureType, message: error.message, nonRetryable: true });
      throw error;
    }
  }

  /**
   * The bodies of one fetch burst, parsed side by side in one activity (one activity's events for
   * the lot). A failure is reported, not thrown: the workflow hands that body to parseDocument,
   * whose retry policy is the parse stage's, or settles it at once when it is over its parse budget. Each parse is idempotent, so a retried batch redoes nothing.
   *
   * A batch with a listing page or a sitemap is parsed one body at a time, in fetch order: a
   * reading and a visit of an item it lists must be recorded in the order they were fetched, or a
   * reading taken after the visit could replace, before the visit is recorded, the one whose claim
   * the visit checks (the claim would go unchecked).
   */
  async function parseBatch(input: ParseBatchInput): Promise<ParseBatchResult> {
    const settled = (await readsSignals(input.items)) ? await inOrder(input.items) : await Promise.allSettled(input.items.map((item) => parsePage(item)));
    return {
      outcomes: settled.map((outcome): ParseBatchOutcome => (outcome.status === 'fulfilled' ? parsedOutcome(outcome.value) : failedParseOutcome(outcome.reason))),
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
    for (const item of items) settled.push(...(await Promise.allSettled([parsePage(item)])));
    return settled;
  }

  return { parseDocument, parseBatch };
}
