/**
 * The fetch activity: one URL per activity. The fetch is services/fetching/url-fetcher.ts's; the
 * activity numbers its try under the failure type's policy, counted on from any burst try.
 */
import { Context } from '@temporalio/activity';
import type { FetchUrlInput, FetchUrlResult } from '../contracts/activities.js';
import type { UrlFetcher } from '../services/fetching/url-fetch-types.js';
import { withTemporalFailures } from './support/temporal-failure.js';

export function createFetchActivities(fetchUrlAttempt: UrlFetcher) {
  /** One URL per activity: Temporal's retries are the policy's, counted on from any burst try. */
  async function fetchUrl(input: FetchUrlInput): Promise<FetchUrlResult> {
    return withTemporalFailures(() => fetchUrlAttempt(input, (input.priorAttempts ?? 0) + Context.current().info.attempt));
  }
  return { fetchUrl };
}
