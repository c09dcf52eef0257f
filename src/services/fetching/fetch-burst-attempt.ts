import { TypedFailure } from '../../domain/failures/index.js';
import {
  applyHostOutcome,
  burstRetriesAfterRobots,
  hostOutcomeOfFailure,
  hostOutcomeOfResult,
  hostOutcomeOfRobotsRefresh,
  withCrawlDelay,
  type FetchBurstLimits,
  type HostOutcome,
  type HostPolitenessPolicy,
  type HostPolitenessState,
} from '../../domain/politeness/index.js';
import type { FetchPreflight } from '../../storage/postgres/fetch-repository.js';
import type { FetchBurstOutcome, FetchFailureDetails, FetchUrlInput, FetchUrlResult, RefreshRobotsResult } from '../../contracts/activities.js';
import type { ActivityDeps } from '../deps.js';
import { isReadableRefresh, type DeferredRecords } from './fetch-burst-beside.js';
import type { FetchBurstParts } from './fetch-burst-pages.js';
import type { HeldBody } from './held-bodies.js';
import type { UrlFetchOptions } from './url-fetch-types.js';

/** A burst's try of a URL is its first under the failure type's policy. */
const BURST_ATTEMPT_NUMBER = 1;

/** What a burst's fetch of a page leaves for its parse: the body held in memory, the records left to the parse's transaction. */
export interface BurstPage {
  held?: HeldBody;
  deferred?: DeferredRecords;
}

/** A URL's outcome in the burst's result, and what it tells the host's politeness. */
export interface AttemptSettled {
  outcome: FetchBurstOutcome;
  hostOutcome: HostOutcome;
}

/** What the burst hands the fetch of one of its URLs. */
export interface AttemptHooks {
  preflight: Promise<FetchPreflight>;
  refreshesRobots: boolean;
  /** Counts the fetch's time. */
  fetching: (work: Promise<FetchUrlResult>) => Promise<FetchUrlResult>;
  /** Called with a fetch's outcome when it returned: its page is parsed or settled by the burst. */
  finished: (outcome: Extract<FetchBurstOutcome, { kind: 'done' }>) => void;
  onStoreWaiting: (waiting: boolean) => void;
}

/**
 * The fetch of one URL of a burst. A body that arrived whole goes to storage while the next
 * request goes out (`storingBegins` resolves with its host outcome): the host is free once its
 * response has ended, and packing and recording it take longer than that. A failure comes back
 * as an outcome, with its retry delay, not thrown: the workflow applies its typed policy.
 */
export function attemptOf(deps: ActivityDeps, parts: FetchBurstParts, item: FetchUrlInput, page: BurstPage, hooks: AttemptHooks): { attempt: Promise<AttemptSettled>; storingBegins: Promise<HostOutcome> } {
  let storingStarted!: (hostOutcome: HostOutcome) => void;
  const storingBegins = new Promise<HostOutcome>((resolve) => (storingStarted = resolve));
  const options: UrlFetchOptions = {
    preflight: { origin: item.origin, read: hooks.preflight },
    // Stale rules, an unreachable file's past its retry time included, are refreshed here once per origin.
    refreshesRobots: hooks.refreshesRobots,
    onStoring: (hostOutcome) => storingStarted(hostOutcome),
    // This burst parses the page: the fetch leaves its records to that parse's transaction.
    holding: { budget: parts.heldBodies, take: (body: HeldBody) => (page.held = body) },
    deferRecord: (records, keepStored) => (page.deferred = { records, ...(keepStored ? { keepStored } : {}) }),
    onStoreWaiting: hooks.onStoreWaiting,
  };
  const attempt = hooks.fetching(parts.fetchUrlAttempt(item, BURST_ATTEMPT_NUMBER, options)).then(
    (result): AttemptSettled => {
      const done: Extract<FetchBurstOutcome, { kind: 'done' }> = { kind: 'done', result };
      hooks.finished(done);
      return { outcome: done, hostOutcome: hostOutcomeOfResult(result) };
    },
    (error: unknown): AttemptSettled => {
      page.held?.release();
      return failedAttempt(deps, error);
    },
  );
  return { attempt, storingBegins };
}

/** A typed fetch failure as the burst reports it; any other error fails the burst. */
function failedAttempt(deps: ActivityDeps, error: unknown): AttemptSettled {
  if (!(error instanceof TypedFailure)) throw error;
  const details = error.details as FetchFailureDetails | undefined;
  return {
    hostOutcome: hostOutcomeOfFailure(error.type, details, deps.now()),
    outcome: {
      kind: 'failed',
      failureType: error.type,
      message: error.message,
      ...(details === undefined ? {} : { details }),
      ...(error.retry.nonRetryable || error.retry.nextRetryDelayMs === undefined ? {} : { retryDelayMs: error.retry.nextRetryDelayMs }),
    },
  };
}

/**
 * What a robots.txt refreshed in the burst changes: its Crawl-delay counts from this very request,
 * as the workflow counts it, and the URL tries again with the new rules while they allow more of
 * the burst (`again`).
 */
export function robotsRefreshOf(
  refreshed: RefreshRobotsResult,
  politeness: HostPolitenessState,
  policy: HostPolitenessPolicy,
  limits: FetchBurstLimits,
): { policy: HostPolitenessPolicy; politeness: HostPolitenessState; again: boolean } {
  const next = withCrawlDelay(policy, refreshed.crawlDelayMs);
  return {
    policy: next,
    politeness: applyHostOutcome(politeness, hostOutcomeOfRobotsRefresh(refreshed), next, Math.random),
    again: burstRetriesAfterRobots({ readable: isReadableRefresh(refreshed) }, next, limits),
  };
}
