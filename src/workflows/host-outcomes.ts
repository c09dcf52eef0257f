/**
 * How one outcome changes a host's back queue: a fetch that returned, a fetch's final failure, an
 * unreachable robots.txt. Pure functions over HostQueue, called by HostLoop; each returns what the
 * workflow does next for the URL (settle it, parse its body), or requeues it.
 */
import type { FetchFailureDetails, FetchUrlResult, HostWorkItem, ParseBatchOutcome, RefreshRobotsResult, SettleOutcome } from '../contracts/activities.js';
import { FAILURE_POLICIES, POISON_ATTEMPT_LIMIT, retryDelayMs, type FetchFailureType } from '../domain/failures/index.js';
import { retryDelayScaleOf, robotsUnreachableRetryMsOf } from '../config/politeness-config.js';
import { plainSettlementOf, type FetchedResult } from '../contracts/fetch-followup.js';
import type { HostQueue } from './host-queue.js';

export interface FetchedItem {
  item: HostWorkItem;
  fetched: FetchedResult;
}

/** What follows an outcome: a URL to settle, a body for parseDocument, or bodies for one parseBatch. */
export type FollowUp =
  | { kind: 'settle'; item: HostWorkItem; outcome: SettleOutcome }
  | { kind: 'parse'; item: HostWorkItem; fetched: FetchedResult }
  | { kind: 'parse-batch'; batch: FetchedItem[] };

/**
 * What follows a body a batch or a burst could not parse: parseDocument and its poison budget, or,
 * for a page over its parse budget (final: the same bytes fail the same way), its settlement at once.
 */
export function afterFailedParse(item: HostWorkItem, fetched: FetchedResult, outcome: ParseBatchOutcome | undefined): FollowUp {
  if (outcome?.ok === false && outcome.failureType === 'ParseBudgetExceeded') {
    return { kind: 'settle', item, outcome: { kind: 'failed', failureType: outcome.failureType, message: outcome.error, stage: 'parse', attempts: 1 } };
  }
  return { kind: 'parse', item, fetched };
}

/** What follows a fetch that returned, its host outcome already noted. */
export function afterFetch(state: HostQueue, item: HostWorkItem, result: FetchUrlResult): FollowUp | undefined {
  const plain = plainSettlementOf(result);
  if (plain !== undefined) return { kind: 'settle', item, outcome: plain };
  switch (result.kind) {
    case 'fetched':
      return { kind: 'parse', item, fetched: result };
    case 'robots-stale':
      state.robotsFreshUntilMs[item.origin] = 0;
      state.requeueFront(item);
      return undefined;
    case 'skipped':
      return { kind: 'settle', item, outcome: result.reason === 'crawl-paused' ? { kind: 'returned', reason: result.reason } : { kind: 'dropped', reason: result.reason } };
    default:
      return undefined;
  }
}

/** A fetch's final failure (its activity-level retries spent): a host-level retry, or the URL settles as failed. */
export function decideAfterFailure(
state: HostQueue,
item: HostWorkItem,
type: string,
details: FetchFailureDetails | undefined,
message: string,
nowMs: number,
random: () => number,
): FollowUp | undefined {
  const policy = FAILURE_POLICIES[type as FetchFailureType];
  const attempts = item.attempt + 1;
  if (type === 'RobotsUnreachable' && item.politeness?.robotsUnreachablePatienceMs !== undefined) {
    // The fetch found the origin's rules unreachable until their next refresh: wait for it within the crawl's patience.
    return waitWithinRobotsPatience(state, item, details?.retryAfterAtMs ?? nowMs + robotsUnreachableRetryMsOf(item.politeness), nowMs);
  }
  const poisoned = (details?.poisonCount ?? 0) >= POISON_ATTEMPT_LIMIT;
  if (policy?.retryLayer === 'host' && attempts < policy.maxAttempts && !poisoned) {
    state.requeueFront({ ...withoutPriorAttempts(item), attempt: attempts, ...hostRetryNotBefore(item, type as FetchFailureType, attempts, details, nowMs, random) });
    return undefined;
  }
  const outcome: SettleOutcome = {
    kind: 'failed',
    failureType: type,
    message,
    stage: 'fetch',
    attempts,
    ...(details?.status === undefined ? {} : { status: details.status }),
    // The activity recorded the attempt when its failure carried details.
    ...(details !== undefined ? { recorded: true } : {}),
  };
  return { kind: 'settle', item, outcome };
}

/**
 * When a host-level retry may go: the failure type's backoff (scaled by the crawl), never before
 * a Retry-After or the robots.txt refresh the failure names. Independently, 429 and 503 hold the
 * whole host through its politeness state (Retry-After, else the throttle backoff).
 */
function hostRetryNotBefore(item: HostWorkItem, type: FetchFailureType, attempts: number, details: FetchFailureDetails | undefined, nowMs: number, random: () => number): { notBeforeMs?: number } {
  const delayMs = retryDelayMs(type, attempts, random, {
    nowMs,
    scale: retryDelayScaleOf(item.politeness),
    ...(details?.retryAfterAtMs === undefined ? {} : { retryAfterAtMs: details.retryAfterAtMs }),
  });
  return delayMs === undefined ? {} : { notBeforeMs: nowMs + delayMs };
}

/** What a refresh of an origin's robots.txt says for its next requests: how long the rules hold, and their Crawl-delay. */
export function noteRobotsRules(state: HostQueue, origin: string, result: RefreshRobotsResult): void {
  state.robotsFreshUntilMs[origin] = result.freshUntilMs;
  // Unreachable (disallow-all, RFC 9309 §2.3.1.4): the origin's patience counts from its first such answer.
  if (result.policyKind === 'disallow-all') state.robotsUnreachableSinceMs[origin] ??= result.finishedAtMs;
  else delete state.robotsUnreachableSinceMs[origin];
  if (result.crawlDelayMs !== undefined) state.robotsCrawlDelayMs[origin] = result.crawlDelayMs;
  else delete state.robotsCrawlDelayMs[origin];
}

/**
 * robots.txt is unreachable (5xx, network error: RFC 9309 §2.3.1.4, disallow everything for now):
 * every ready URL of the origin waits for the file's next refresh (RobotsUnreachable, a host-level
 * retry), or fails as RobotsUnreachable once its attempts are spent. Decided here, at once and
 * without a request: waiting for another politeness slot would find the rules stale again.
 */
export function waitForRobotsRefresh(state: HostQueue, origin: string, refreshAtMs: number, nowMs: number, random: () => number): FollowUp[] {
  const waiting = state.queue.filter((queued) => queued.origin === origin && (queued.notBeforeMs ?? 0) <= nowMs);
  state.queue = state.queue.filter((queued) => !waiting.includes(queued));
  const settles: FollowUp[] = [];
  for (const queued of waiting) {
    if (queued.politeness?.robotsUnreachablePatienceMs !== undefined) {
      pushDefined(settles, waitWithinRobotsPatience(state, queued, Math.max(nowMs, refreshAtMs), nowMs));
      continue;
    }
    const attempts = queued.attempt + 1;
    const delayMs = retryDelayMs('RobotsUnreachable', attempts, random, { nowMs, retryAfterAtMs: Math.max(nowMs, refreshAtMs), scale: retryDelayScaleOf(queued.politeness) });
    if (delayMs !== undefined) {
      state.queue.push({ ...queued, attempt: attempts, notBeforeMs: nowMs + delayMs });
    } else {
      const message = `robots.txt of ${origin} stayed unreachable for ${attempts} attempts; nothing else was fetched there`;
      settles.push({ kind: 'settle', item: queued, outcome: { kind: 'failed', failureType: 'RobotsUnreachable', message, stage: 'fetch', attempts } });
    }
  }
  return settles;
}

/**
 * A crawl with a robots.txt patience (a one-shot crawl): the URL waits for the next refresh of its
 * origin's unreachable robots.txt while that comes within the patience, counted from when it
 * first waited; past it, the URL is deferred to a later crawl, never fetched without rules.
 */
function waitWithinRobotsPatience(state: HostQueue, item: HostWorkItem, retryAtMs: number, nowMs: number): FollowUp | undefined {
  const sinceMs = Math.min(item.heldByRobotsSinceMs ?? nowMs, state.robotsUnreachableSinceMs[item.origin] ?? nowMs);
  state.robotsUnreachableSinceMs[item.origin] ??= sinceMs;
  const patienceMs = item.politeness?.robotsUnreachablePatienceMs ?? 0;
  if (retryAtMs - sinceMs <= patienceMs) {
    state.queue.push({ ...withoutPriorAttempts(item), attempt: item.attempt + 1, heldByRobotsSinceMs: sinceMs, notBeforeMs: retryAtMs });
    return undefined;
  }
  return { kind: 'settle', item, outcome: deferredOutcome(item, sinceMs, nowMs) };
}

/** When a queued URL's wait for its origin's unreachable robots.txt runs out (the crawl's patience), if it waits for one. */
export function robotsPatienceEndsAtMs(state: HostQueue, item: HostWorkItem): number | undefined {
  const patienceMs = item.politeness?.robotsUnreachablePatienceMs;
  const sinceMs = state.robotsUnreachableSinceMs[item.origin];
  return patienceMs === undefined || sinceMs === undefined ? undefined : sinceMs + patienceMs;
}

export function deferredOutcome(item: HostWorkItem, sinceMs: number, nowMs: number): SettleOutcome {
  const patienceS = Math.round((item.politeness?.robotsUnreachablePatienceMs ?? 0) / 1000);
  const message = `robots.txt of ${item.origin} stayed unreachable for ${Math.round((nowMs - sinceMs) / 1000)} s, past the crawl's patience of ${patienceS} s: left for a later crawl, not fetched`;
  return { kind: 'deferred', reason: 'robots-unreachable', message };
}

/** Adds a follow-up that may be absent (a URL requeued has none). */
export function pushDefined<T>(into: T[], value: T | undefined): void {
  if (value !== undefined) into.push(value);
}

/** A host-level retry starts a new count of activity-level attempts. */
function withoutPriorAttempts(item: HostWorkItem): HostWorkItem {
  const { priorAttempts, ...rest } = item;
  return priorAttempts === undefined ? item : rest;
}
