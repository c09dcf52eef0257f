/**
 * The fetch burst activity: a few URLs of one host fetched in sequence by one activity. The burst
 * is services/fetching/fetch-burst.ts's; the activity hands it the running activity's scope.
 */
import type { FetchBurstInput, FetchBurstResult } from '../contracts/activities.js';
import type { ActivityDeps } from '../services/deps.js';
import { runFetchBurst, type FetchBurstParts } from '../services/fetching/fetch-burst.js';
import { currentActivityScope } from './support/activity-scope.js';
import { withTemporalFailures } from './support/temporal-failure.js';

export function createFetchBurstActivities(deps: ActivityDeps, parts: FetchBurstParts) {
  async function fetchBurst(input: FetchBurstInput): Promise<FetchBurstResult> {
    return withTemporalFailures(() => runFetchBurst(deps, parts, currentActivityScope(), input));
  }
  return { fetchBurst };
}
