// For the unit tests of fetch bursts (services/fetching/fetch-burst.ts): the URLs a burst is given (first tries of one
// crawl on one host, with a 2 ms delay so that the bursts' waits are short), and a burst around a
// fake fetch whose parses and settles answer at once.
import type { FetchUrlInput } from '../../src/contracts/activities.js';
import type { ActivityDeps } from '../../src/services/deps.js';
import type { UrlFetcher } from '../../src/services/fetching/url-fetch-types.js';
import { createFetchBurstActivities } from '../../src/activities/fetch-burst-activity.js';
import { HeldBodyBudget } from '../../src/services/fetching/held-bodies.js';

/** The `i`th URL of `host` (path /p<i>), as a burst's input carries it. */
export function burstItemOf(host: string, i: number): FetchUrlInput {
  return {
    crawlId: 'c',
    fingerprint: String(i).padStart(32, '0'),
    url: `http://${host}/p${i}`,
    origin: `http://${host}`,
    depth: 1,
    generation: 1,
    attempt: 0,
    purpose: 'discovery',
    minHostDelayMs: 2,
    maxConcurrentFetches: 1,
    hostDelayMs: 2,
  };
}

/** A burst's activities around `fetchUrl`, with parses and settles that answer at once; `deps` adds to the clock. */
export const burstActivitiesFetchingWith = (fetchUrl: UrlFetcher, deps: Partial<ActivityDeps> = {}) =>
  createFetchBurstActivities({ now: Date.now, ...deps } as unknown as ActivityDeps, {
    fetchUrlAttempt: fetchUrl,
    parseBatch: async () => ({ outcomes: [] }),
    parsePage: async () => ({ title: null, linksFound: 0, linksRegistered: 0, noindex: false, nofollow: false }),
    settleUrl: async () => ({ deadLettered: false }),
    readsSignals: async () => false,
    heldBodies: new HeldBodyBudget(),
  });
