/**
 * What one outcome means for a host's back queue: a fetch that returned, a fetch's final failure,
 * an unreachable robots.txt. Pure functions: each returns a decision, what the workflow does next
 * for the URL (settle it, parse its body) and the changes to the queue (requeue it, mark its rules
 * stale), which the loop applies with applyDecision. They read the queue, never change it.
 */
import type { FetchFailureDetails, FetchUrlResult, HostWorkItem, ParseBatchOutcome, SettleOutcome } from '../contracts/activities.js';
import { FAILURE_POLICIES, POISON_ATTEMPT_LIMIT, retryDelayMs, type FetchFailureType } from '../domain/failures/index.js';
import { retryDelayScaleOf, robotsUnreachableRetryMsOf } from '../config/politeness-config.js';
import { plainSettlementOf, type FetchedResult } from '../contracts/fetch-followup.js';
import type { HostQueue } from './host-queue.js';

/** A change an outcome makes to the host's queue, applied in order by applyDecision. */
export type QueueChange =
  /** A host-level retry: back to the front, to go when the host allows. */
  | { kind: 'requeue-front'; item: HostWorkItem }
  /** A URL that waits for a later time (its notBeforeMs) behind the others. */
  | { kind: 'enqueue'; item: HostWorkItem }
  /** The origin's rules are stale: refresh them before its next request. */
  | { kind: 'robots-stale'; origin: string }
  /** The origin's robots.txt is unreachable since then (kept if an earlier time is noted). */
  | { kind: 'robots-unreachable-since'; origin: string; sinceMs: number };

/** What an outcome decides: at most one follow-up per URL, and the queue's changes. */
export interface OutcomeDecision {
  followUps: FollowUp[];
  changes: QueueChange[];
}

/** What the deciders read of the queue. */
export type QueueView = Pick<HostQueue, 'robotsUnreachableSince'>;

const decided = (followUp: FollowUp | undefined, ...changes: QueueChange[]): OutcomeDecision => ({ followUps: followUp === undefined ? [] : [followUp], changes });

/** Applies a decision's changes to the queue, in order, and returns its follow-ups. */
export function applyDecision(state: HostQueue, decision: OutcomeDecision): FollowUp[] {
  for (const change of decision.changes) {
    switch (change.kind) {
      case 'requeue-front':
        state.requeueFront(change.item);
        break;
      case 'enqueue':
        state.enqueue([change.item]);
        break;
      case 'robots-stale':
        state.noteRobotsFreshUntil(change.origin, 0);
        break;
      case 'robots-unreachable-since':
        state.noteRobotsUnreachableSince(change.origin, change.sinceMs);
        break;
    }
  }
  return decision.followUps;
}

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
export function afterFetch(item: HostWorkItem, result: FetchUrlResult): OutcomeDecision {
  const plain = plainSettlementOf(result);
  if (plain !== undefined) return decided({ kind: 'settle', item, outcome: plain });
  switch (result.kind) {
    case 'fetched':
      return decided({ kind: 'parse', item, fetched: result });
    case 'robots-stale':
      return decided(undefined, { kind: 'robots-stale', origin: item.origin }, { kind: 'requeue-front', item });
    case 'skipped':
      return decided({ kind: 'settle', item, outcome: result.reason === 'crawl-paused' ? { kind: 'returned', reason: result.reason } : { kind: 'dropped', reason: result.reason } });
    default:
      return decided(undefined);
  }
}

/** A fetch's final failure (its activity-level retries spent): a host-level retry, or the URL settles as failed. */
export function decideAfterFailure(
state: QueueView,
item: HostWorkItem,
type: string,
details: FetchFailureDetails | undefined,
message: string,
nowMs: number,
random: () => number,
): OutcomeDecision {
  const policy = FAILURE_POLICIES[type as FetchFailureType];
  const attempts = item.attempt + 1;
  if (type === 'RobotsUnreachable' && item.politeness?.robotsUnreachablePatienceMs !== undefined) {
    // The fetch found the origin's rules unreachable until their next refresh: wait for it within the crawl's patience.
    return waitWithinRobotsPatience(item, details?.retryAfterAtMs ?? nowMs + robotsUnreachableRetryMsOf(item.politeness), nowMs, state.robotsUnreachableSince(item.origin)).decision;
  }
  const poisoned = (details?.poisonCount ?? 0) >= POISON_ATTEMPT_LIMIT;
  if (policy?.retryLayer === 'host' && attempts < policy.maxAttempts && !poisoned) {
    return decided(undefined, { kind: 'requeue-front', item: { ...withoutPriorAttempts(item), attempt: attempts, ...hostRetryNotBefore(item, type as FetchFailureType, attempts, details, nowMs, random) } });
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
  return decided({ kind: 'settle', item, outcome });
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

/**
 * robots.txt is unreachable (5xx, network error: RFC 9309 §2.3.1.4, disallow everything for now):
 * every ready URL of the origin waits for the file's next refresh (RobotsUnreachable, a host-level
 * retry), or fails as RobotsUnreachable once its attempts are spent. Decided here, at once and
 * without a request: waiting for another politeness slot would find the rules stale again.
 */
export function waitForRobotsRefresh(state: HostQueue, origin: string, refreshAtMs: number, nowMs: number, random: () => number): FollowUp[] {
  const waiting = state.takeWhere((queued) => queued.origin === origin && (queued.notBeforeMs ?? 0) <= nowMs);
  return applyDecision(state, decideRobotsRefreshWait(state, waiting, origin, refreshAtMs, nowMs, random));
}

/** What waitForRobotsRefresh decides for the URLs it took off the queue. */
export function decideRobotsRefreshWait(state: QueueView, waiting: readonly HostWorkItem[], origin: string, refreshAtMs: number, nowMs: number, random: () => number): OutcomeDecision {
  const decision: OutcomeDecision = { followUps: [], changes: [] };
  // The first URL that waits within its patience notes since when the origin is unreachable; the next ones count from then.
  let unreachableSinceMs = state.robotsUnreachableSince(origin);
  for (const queued of waiting) {
    if (queued.politeness?.robotsUnreachablePatienceMs !== undefined) {
      const patient = waitWithinRobotsPatience(queued, Math.max(nowMs, refreshAtMs), nowMs, unreachableSinceMs);
      unreachableSinceMs = patient.unreachableSinceMs;
      decision.followUps.push(...patient.decision.followUps);
      decision.changes.push(...patient.decision.changes);
      continue;
    }
    const attempts = queued.attempt + 1;
    const delayMs = retryDelayMs('RobotsUnreachable', attempts, random, { nowMs, retryAfterAtMs: Math.max(nowMs, refreshAtMs), scale: retryDelayScaleOf(queued.politeness) });
    if (delayMs !== undefined) {
      decision.changes.push({ kind: 'enqueue', item: { ...queued, attempt: attempts, notBeforeMs: nowMs + delayMs } });
    } else {
      const message = `robots.txt of ${origin} stayed unreachable for ${attempts} attempts; nothing else was fetched there`;
      decision.followUps.push({ kind: 'settle', item: queued, outcome: { kind: 'failed', failureType: 'RobotsUnreachable', message, stage: 'fetch', attempts } });
    }
  }
  return decision;
}

/**
 * A crawl with a robots.txt patience (a one-shot crawl): the URL waits for the next refresh of its
 * origin's unreachable robots.txt while that comes within the patience, counted from when it
 * first waited; past it, the URL is deferred to a later crawl, never fetched without rules.
 */
function waitWithinRobotsPatience(item: HostWorkItem, retryAtMs: number, nowMs: number, unreachableSinceMs: number | undefined): { decision: OutcomeDecision; unreachableSinceMs: number } {
  const sinceMs = Math.min(item.heldByRobotsSinceMs ?? nowMs, unreachableSinceMs ?? nowMs);
  const noted: QueueChange = { kind: 'robots-unreachable-since', origin: item.origin, sinceMs };
  const patienceMs = item.politeness?.robotsUnreachablePatienceMs ?? 0;
  const decision =
    retryAtMs - sinceMs <= patienceMs
      ? decided(undefined, noted, { kind: 'enqueue', item: { ...withoutPriorAttempts(item), attempt: item.attempt + 1, heldByRobotsSinceMs: sinceMs, notBeforeMs: retryAtMs } })
      : decided({ kind: 'settle', item, outcome: deferredOutcome(item, sinceMs, nowMs) }, noted);
  return { decision, unreachableSinceMs: unreachableSinceMs ?? sinceMs };
}

/** When a queued URL's wait for its origin's unreachable robots.txt runs out (the crawl's patience), if it waits for one. */
export function robotsPatienceEndsAtMs(state: QueueView, item: HostWorkItem): number | undefined {
  const patienceMs = item.politeness?.robotsUnreachablePatienceMs;
  const sinceMs = state.robotsUnreachableSince(item.origin);
  return patienceMs === undefined || sinceMs === undefined ? undefined : sinceMs + patienceMs;
}

export function deferredOutcome(item: HostWorkItem, sinceMs: number, nowMs: number): SettleOutcome {
  const patienceS = Math.round((item.politeness?.robotsUnreachablePatienceMs ?? 0) / 1000);
  const message = `robots.txt of ${item.origin} stayed unreachable for ${Math.round((nowMs - sinceMs) / 1000)} s, past the crawl's patience of ${patienceS} s: left for a later crawl, not fetched`;
  return { kind: 'deferred', reason: 'robots-unreachable', message };
}

/** A host-level retry starts a new count of activity-level attempts. */
function withoutPriorAttempts(item: HostWorkItem): HostWorkItem {
  const { priorAttempts, ...rest } = item;
  return priorAttempts === undefined ? item : rest;
}
