/**
 * The parse activities: one body (parseDocument) or a fetch burst's bodies (parseBatch). The parse
 * is services/documents/page-parser.ts's; the activity maps its failures to their types.
 */
import { ApplicationFailure } from '@temporalio/activity';
import type { CrawlContextCache } from '../services/frontier/crawl-context.js';
import type { ParseBatchInput, ParseBatchOutcome, ParseBatchResult, ParseDocumentInput, ParseDocumentResult } from '../contracts/activities.js';
import { createSignalReadingCheck, failedParseOutcome, parsedOutcome, type PageParser } from '../services/documents/page-parser.js';
import { ParseBudgetError } from '../parse/parse-budget.js';

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
