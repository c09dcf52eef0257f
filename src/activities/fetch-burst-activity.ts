/**
 * A fetch burst: a few URLs of one host fetched in sequence by one activity. For hosts with short
 * delays this pays the activity, timer and workflow tasks of the one-URL path once per burst
 * instead of once per URL; it can also claim the host's next URLs. It parses each body it fetched
 * during the wait before its next request, settles the URLs that need no parse, and claims after
 * the parses, so one activity takes a host from fetched to settled and refilled; the slot is then
 * held until its last body is parsed, which slows a host only when parsing lags (backpressure,
 * docs/design.md, "Backpressure"). Bodies it could not parse go back to the workflow, which hands them to the next burst
 * (parsed beside its requests) or to one parseBatch when no burst follows.
 * An origin whose robots.txt is stale or unknown when its URL's turn comes is refreshed in the
 * burst, as a request of its own in the host's politeness.
 *
 * Politeness is the workflow's arithmetic, run here: a request starts only when canStartFetch
 * allows, and every outcome goes through applyHostOutcome; the final state goes back to the host
 * workflow. Failures come back as outcomes, not thrown: the workflow applies their typed policy.
 * A retried burst (a crashed worker) starts after the retry interval, which is longer than any
 * wait a burst makes, and finds its finished URLs answered from their fetch records.
 */
import { ApplicationFailure, Context, log } from '@temporalio/activity';
import { msToNumber } from '@temporalio/common';
import {
  applyHostOutcome,
  burstWaitMs,
  hostOutcomeOfFailure,
  hostOutcomeOfResult,
  hostOutcomeOfRobotsRefresh,
  onFetchStarted,
  policyDelayMs,
  type HostOutcome,
  type HostPolitenessState,
} from '../domain/politeness/index.js';
import { readFetchPreflights, recordFetchedBody, type FetchedBodyRecords, type FetchPreflight } from '../storage/postgres/fetch-repository.js';
import { claimHostWork, claimHostWorkToFetch, type ClaimHostWorkInput } from '../storage/postgres/frontier-claims.js';
import { releaseHost } from '../storage/postgres/host-repository.js';
import type {
  BurstClaim,
  FetchBurstInput,
  FetchBurstOutcome,
  FetchBurstResult,
  FetchFailureDetails,
  FetchUrlInput,
  HostWorkItem,
  ParseBatchInput,
  ParseBatchOutcome,
  ParseBatchResult,
  ParseDocumentInput,
  RefreshRobotsResult,
  SettleOutcome,
  SettleUrlInput,
  SettleUrlResult,
} from '../contracts/activities.js';
import { activityCallToken } from './support/activity-call-token.js';
import type { ActivityDeps } from '../services/deps.js';
import type { UrlFetcher, UrlFetchOptions } from '../services/fetching/url-fetch-types.js';
import type { HeldBody, HeldBodyBudget } from '../services/fetching/held-bodies.js';
import { ownParseQueue } from '../services/fetching/own-parse-queue.js';
import type { RobotsRefresher } from '../services/fetching/robots-refresher.js';
import { sleepUntilMs } from '../services/fetching/sleep-until.js';
import { failedParseOutcome, parsedOutcome, type PageParser } from '../services/documents/page-parser.js';
import type { FetchedPage } from '../services/documents/page-analysis.js';
import { parseInputOf, plainSettlementOf } from '../contracts/fetch-followup.js';

/**
 * Date.now() is whole milliseconds, so a recorded finish may be up to a millisecond before the real
 * one, while the host sees real time: without a margin a server logs a gap just under the delay.
 * The wait also ends by the clock, not by the timer alone (sleepUntilMs): a timer on a busy worker
 * can fire early (bench/README.md, "Figures behind the defaults").
 */
const TIMER_MARGIN_MS = 2;

/**
 * Bodies of one burst being stored at once, at most: with a 250 ms delay and a store answering in
 * its 100 ms pack wait, one is; a store that stops answering stops the burst's requests at this many.
 */
export const MAX_BODIES_STORING = 4;

/** Well inside the burst's 60 s heartbeat timeout. */
const HEARTBEAT_WHILE_FINISHING_MS = 5000;

/**
 * A burst's first heartbeat waits this long, well inside its 60 s heartbeat timeout: each one sent
 * is a write on the Temporal server, and most bursts end sooner. A cancellation reaches a burst at
 * its heartbeats, so one ends at most this long after it is cancelled.
 */
const FIRST_HEARTBEAT_AFTER_MS = 10_000;

/**
 * A burst's own pages parsed at once, at most. Each parse holds a pool connection through its
 * transaction, most of it waiting for round trips; one at a time, a burst's parses take most of its
 * time and hold its host's next burst back (bench/README.md, "Figures behind the defaults").
 */
const OWN_PARSES_AT_ONCE = 3;

/** A burst's try of a URL is its first under the failure type's policy. */
const BURST_ATTEMPT_NUMBER = 1;

/** What a fetch burst does its work with. */
export interface FetchBurstParts {
  fetchUrlAttempt: UrlFetcher;
  /** For the previous burst's bodies (input.parse). */
  parseBatch: (input: ParseBatchInput) => Promise<ParseBatchResult>;
  /** For this burst's own bodies, from memory when the budget held them. */
  parsePage: PageParser;
  settleUrl: (input: SettleUrlInput) => Promise<SettleUrlResult>;
  /** Whether a body records signal readings (a sitemap, a listing page): those are parsed alone, in fetch order. */
  readsSignals: (input: ParseDocumentInput) => Promise<boolean>;
  /** Bounds the bodies held between a burst's fetch and its own parse of them. */
  heldBodies: HeldBodyBudget;
  /** An origin's robots.txt refreshed in the burst. Absent: the burst ends at stale rules. */
  refreshRobots?: RobotsRefresher;
}

export function createFetchBurstActivities(deps: ActivityDeps, parts: FetchBurstParts) {
  const { fetchUrlAttempt, parseBatch, parsePage, settleUrl, readsSignals, heldBodies, refreshRobots } = parts;

  async function fetchBurst(input: FetchBurstInput): Promise<FetchBurstResult> {
    const context = Context.current();
    // A local burst (a run's first, short one) has no heartbeat: its workflow task is its liveness.
    const heartbeat = context.info.isLocal ? () => undefined : () => context.heartbeat();
    const burstStartedAtMs = Date.now();
    // Where the burst's time goes (stageMs in the result): sums per stage; parses overlap the waits.
    const stageMs = { waiting: 0, fetching: 0, parsing: 0, claiming: 0, finishing: 0 };
    const timed = async <T>(stage: Exclude<keyof typeof stageMs, 'finishing'>, work: Promise<T>): Promise<T> => {
      const startedAtMs = Date.now();
      try {
        return await work;
      } finally {
        stageMs[stage] += Date.now() - startedAtMs;
      }
    };
    let politeness: HostPolitenessState = input.politeness;
    // A robots.txt refreshed in the burst may add a Crawl-delay: every later wait takes it.
    let policy = input.policy;
    const robots: { origin: string; refreshed: RefreshRobotsResult }[] = [];
    /** Stale rules of an origin are refreshed here, once per burst, when the workflow asked for it. */
    const refreshesRobotsOf = (origin: string): boolean => refreshRobots !== undefined && !robots.some((refresh) => refresh.origin === origin);
    let requestsStarted = 0;
    const outcomes: FetchBurstOutcome[] = [];
    // A failure, stale robots rules or a long wait ends the burst: the rest go back untried.
    let ended = false;
    // The previous burst's bodies are parsed beside the requests: parsing never delays a request by more than its CPU time.
    const parsed = input.parse && input.parse.length > 0 ? parseBeside(input.parse) : undefined;
    // So are this burst's own bodies, started in fetch order, OWN_PARSES_AT_ONCE at a
    // time; a sitemap or listing page alone, after those before it, as parseBatch parses them.
    // Each outcome goes with its URL's.
    const ownParses = ownParseQueue(OWN_PARSES_AT_ONCE);
    // And the URLs whose result ends them without a parse: settled here, not by an activity each.
    const settles: Promise<void>[] = [];
    // Fetched bodies still being stored and recorded (each then parsed or settled as above).
    const storing: Promise<void>[] = [];
    // Of those, the ones not stored yet: a store that lags holds the next request back (backpressure).
    const storingNow = new Set<Promise<void>>();
    // A store that failed ends the burst before its next request: its error fails the burst at the
    // end (Promise.all(storing)), and the host is not asked for bodies that could not be kept.
    let storeFailed = false;
    // Bodies of this burst waiting for the object store to come back (store-through-outage.ts): no
    // request goes out meanwhile, so the host is not asked for pages that could not be kept.
    let bodiesWaitingForStore = 0;
    const finishOwn = (outcome: Extract<FetchBurstOutcome, { kind: 'done' }>, item: HostWorkItem, held: HeldBody | undefined, deferred: DeferredRecords | undefined): void => {
      const plain = plainSettlementOf(outcome.result);
      if (plain !== undefined) {
        settles.push(
          settleBeside(item, plain).then((settled) => {
            if (settled) outcome.settled = true;
          }),
        );
        return;
      }
      if (outcome.result.kind !== 'fetched') return;
      const parseInput = parseInputOf(item, outcome.result);
      ownParses.add(readsSignals(parseInput), async () => {
        try {
          const fetchRecords = deferred?.records;
          outcome.parsed = await timed('parsing', parseOwn(parseInput, { ...(held ? { heldBody: held.bytes } : {}), ...(fetchRecords ? { fetchRecords } : {}) }));
          // A parse that failed rolled its transaction back, the fetch's records with it: they are
          // written on their own (if that fails too, the burst fails and Temporal retries it).
          if (fetchRecords && !outcome.parsed.ok) await recordFetchedBody(deps.pool, fetchRecords);
          // A body found stored: its object must exist now that its record has committed.
          if (deferred?.keepStored && outcome.result.kind === 'fetched') outcome.result = { ...outcome.result, bodyKey: await deferred.keepStored() };
        } finally {
          held?.release();
        }
      });
    };
    // With extendWithClaims, the host's URLs claimed once these are fetched and parsed: fetched by
    // this burst too while its span and size allow (their outcomes go back beside the claim).
    const items: FetchUrlInput[] = [...input.items];
    // Each URL's preflight (its record if done, its robots rules, its validators), read for all the
    // URLs of a batch in one statement: one pool checkout per batch, not one per request.
    const preflights: Promise<FetchPreflight>[] = preflightsOf(input.items);
    let firstRequestAtMs: number | undefined;
    let claimFoundNothing = false;
    const extendedOutcomes: FetchBurstOutcome[] = [];
    // The worker shutting down, or the burst cancelled (a local burst's workflow task lost, its run
    // maybe run again elsewhere): no new request, no new claim; what is in hand is finished.
    const stopsSending = (): boolean => deps.stopping?.aborted === true || context.cancellationSignal.aborted;
    const claimMore = async (): Promise<FetchUrlInput[]> => {
      const extension = input.extendWithClaims;
      if (ended || stopsSending() || extension === undefined || input.claim === undefined) return [];
      const room = extension.maxUrls - items.length;
      const spanLeftMs = firstRequestAtMs === undefined ? 0 : input.limits.maxSpanMs - (Date.now() - firstRequestAtMs);
      if (room <= 0 || spanLeftMs <= policyDelayMs(policy)) return [];
      // The claim takes the links the parses so far found.
      await Promise.all(storing);
      await Promise.all([ownParses.settled(), ...settles]);
      // After the first claim under the token, later ones must take new URLs, not return those.
      const claimed = await timed('claiming', claimBeside(input.host, { ...input.claim, maxItems: Math.min(room, input.claim.maxItems) }, items.length > input.items.length, claimHostWorkToFetch));
      if (claimed === undefined || claimed.items.length === 0) {
        claimFoundNothing = claimed !== undefined;
        return [];
      }
      const more = claimed.items.map((item) => ({ ...item, hostDelayMs: policy.minDelayMs }));
      preflights.push(...(claimed.preflights?.map((preflight) => Promise.resolve(preflight)) ?? preflightsOf(more)));
      return more;
    };

    for (let index = 0; ; index++) {
      if (index === items.length) items.push(...(await claimMore()));
      const item = items[index];
      if (item === undefined) break;
      const into = index < input.items.length ? outcomes : extendedOutcomes;
      const decidedAtMs = deps.now();
      const waitMs = ended || storeFailed || stopsSending() ? undefined : burstWaitMs(politeness, policy, decidedAtMs, input.limits);
      if (waitMs === undefined) {
        ended = true;
        into.push({ kind: 'not-attempted' });
        continue;
      }
      // Every start waits the delay plus a margin; the workflow may start a burst before the host's
      // next fetch time (it then needs no timer), so the first may wait too.
      if (index > 0 || waitMs > 0) {
        // The wait first, on its own line: `metrics?.f(await wait)` would skip the wait without metrics.
        const waitedMs = await timed('waiting', sleepUntilMs(decidedAtMs + waitMs + TIMER_MARGIN_MS, { nowMs: deps.now, sleepMs: (ms) => context.sleep(ms), ...(deps.stopping ? { until: deps.stopping } : {}) }));
        deps.metrics?.politenessWaited(waitedMs);
      }
      // A store that lags stops the burst's requests, not only its end: bodies waiting for it stay few.
      while (storingNow.size >= MAX_BODIES_STORING || (bodiesWaitingForStore > 0 && storingNow.size > 0)) {
        const waited = await timed('waiting', Promise.race([firstOrTimeout([...storingNow], HEARTBEAT_WHILE_FINISHING_MS), context.cancelled]));
        if (waited === 'timed-out') heartbeat();
      }
      if (storeFailed || stopsSending()) {
        ended = true;
        into.push({ kind: 'not-attempted' });
        continue;
      }
      firstRequestAtMs ??= Date.now();
      if (Date.now() - burstStartedAtMs >= FIRST_HEARTBEAT_AFTER_MS) heartbeat();

      politeness = onFetchStarted(politeness, deps.now());
      let held: HeldBody | undefined;
      let deferred: DeferredRecords | undefined;
      // A body that arrived whole goes to storage while the next request goes out (onStoring): the
      // host is free once its response has ended, and packing and recording it take longer than that.
      let storingOutcome: HostOutcome | undefined;
      let storingStarted!: () => void;
      const storingBegins = new Promise<'storing'>((resolve) => (storingStarted = () => resolve('storing')));
      const options: UrlFetchOptions = {
        preflight: { origin: item.origin, read: preflights[index]! },
        // Stale rules, an unreachable file's past its retry time included, are refreshed here once per origin.
        refreshesRobots: refreshesRobotsOf(item.origin),
        onStoring: (hostOutcome) => {
          storingOutcome = hostOutcome;
          storingStarted();
        },
        // This burst parses the page: the fetch leaves its records to that parse's transaction.
        holding: { budget: heldBodies, take: (body: HeldBody) => (held = body) },
        deferRecord: (records, keepStored) => (deferred = { records, ...(keepStored ? { keepStored } : {}) }),
        onStoreWaiting: (waiting) => (bodiesWaitingForStore += waiting ? 1 : -1),
      };
      const slot = into.push({ kind: 'not-attempted' }) - 1;
      const attempt = timed('fetching', fetchUrlAttempt(item, BURST_ATTEMPT_NUMBER, options)).then(
        (result): { outcome: FetchBurstOutcome; hostOutcome: HostOutcome } => {
          const done: Extract<FetchBurstOutcome, { kind: 'done' }> = { kind: 'done', result };
          finishOwn(done, item, held, deferred);
          return { outcome: done, hostOutcome: hostOutcomeOfResult(result) };
        },
        (error: unknown): { outcome: FetchBurstOutcome; hostOutcome: HostOutcome } => {
          held?.release();
          if (!(error instanceof ApplicationFailure) || error.type === null || error.type === undefined) throw error;
          const details = error.details?.[0] as FetchFailureDetails | undefined;
          return {
            hostOutcome: hostOutcomeOfFailure(error.type, details, deps.now()),
            outcome: {
              kind: 'failed',
              failureType: error.type,
              message: error.message,
              ...(details === undefined ? {} : { details }),
              ...(error.nonRetryable || error.nextRetryDelay === undefined ? {} : { retryDelayMs: msToNumber(error.nextRetryDelay) }),
            },
          };
        },
      );
      let hostOutcome: HostOutcome;
      if ((await Promise.race([storingBegins, attempt.then(() => 'done' as const, () => 'done' as const)])) === 'storing') {
        // A 2xx body to store: its outcome for the host is known; its URL's outcome comes when stored.
        hostOutcome = storingOutcome!;
        const storingThis = attempt.then(({ outcome }) => {
          into[slot] = outcome;
        });
        // Awaited before the burst claims or returns; a failure there fails the burst.
        storingThis.catch(() => undefined);
        storing.push(storingThis);
        const stored = storingThis.then(
          () => void storingNow.delete(stored),
          () => {
            storeFailed = true;
            storingNow.delete(stored);
          },
        );
        storingNow.add(stored);
      } else {
        const settled = await attempt;
        const staleRules = settled.outcome.kind === 'done' && settled.outcome.result.kind === 'robots-stale';
        if (staleRules && refreshRobots && refreshesRobotsOf(item.origin)) {
          // The slot this URL took goes to its origin's robots.txt, a request like any other.
          // A slow robots.txt may take longer than the heartbeat timeout: beat meanwhile, as a fetch does.
          const beating = setInterval(heartbeat, HEARTBEAT_WHILE_FINISHING_MS);
          const refreshed = await timed('fetching', refreshRobots({ origin: item.origin, crawlId: item.crawlId }, `${activityCallToken()}/robots/${robots.length + 1}`)).finally(() =>
            clearInterval(beating),
          );
          robots.push({ origin: item.origin, refreshed });
          if (refreshed.requested) requestsStarted += 1;
          // Its Crawl-delay counts from this very request, as the workflow counts it.
          if (refreshed.crawlDelayMs !== undefined) policy = { ...policy, crawlDelayMs: Math.max(policy.crawlDelayMs ?? 0, refreshed.crawlDelayMs) };
          politeness = applyHostOutcome(politeness, hostOutcomeOfRobotsRefresh(refreshed), policy, Math.random);
          // The URL tries again after the delay, with the new rules, while they allow more of the burst.
          if (refreshed.policyKind !== 'disallow-all' && refreshed.transportFailure === undefined && policyDelayMs(policy) <= input.limits.maxHostDelayMs) {
            into.pop();
            preflightsOf(items.slice(index)).forEach((read, i) => {
              preflights[index + i] = read;
            });
            index -= 1;
          } else {
            ended = true;
          }
          continue;
        }
        hostOutcome = settled.hostOutcome;
        into[slot] = settled.outcome;
        ended = settled.outcome.kind === 'failed' || staleRules;
      }
      if (hostOutcome.kind !== 'not-sent') requestsStarted += 1;
      politeness = applyHostOutcome(politeness, hostOutcome, policy, Math.random);
    }
    // Parses may wait on Postgres after the last request: keep the heartbeat going meanwhile.
    const heartbeats = setInterval(heartbeat, HEARTBEAT_WHILE_FINISHING_MS);
    const finishingFromMs = Date.now();
    let claimedItems: HostWorkItem[] | undefined;
    let parseOutcomes: ParseBatchOutcome[] | undefined;
    let released = false;
    try {
      parseOutcomes = parsed === undefined ? undefined : await parsed;
      await Promise.all(storing);
      await Promise.all([ownParses.settled(), ...settles]);
      const extended = items.length > input.items.length;
      if (claimFoundNothing) claimedItems = [];
      else {
        // After the parses, so that the claim takes the host's links they found.
        const claim = input.claim ? claimBeside(input.host, input.claim, extended, claimHostWork) : undefined;
        claimedItems = claim === undefined ? undefined : await timed('claiming', claim);
      }
      // Claimed URLs the burst did not get to go back with the claim's.
      const untried = items.slice(input.items.length).filter((_, i) => extendedOutcomes[i]?.kind === 'not-attempted');
      if (untried.length > 0) claimedItems = [...untried.map(withoutHostDelay), ...(claimedItems ?? [])];
      const release = input.claim?.releaseIfDone;
      if (release !== undefined && claimedItems?.length === 0 && everyUrlEnded([...outcomes, ...extendedOutcomes], parseOutcomes, robots)) {
        released = await timed('claiming', releaseBeside(input.host, politeness, release));
      }
    } finally {
      clearInterval(heartbeats);
      stageMs.finishing = Date.now() - finishingFromMs;
    }
    return {
      outcomes,
      politeness,
      requestsStarted,
      ...(claimedItems === undefined ? {} : { claimed: claimedItems }),
      ...(released ? { released: true as const } : {}),
      ...(parseOutcomes === undefined ? {} : { parseOutcomes }),
      ...extendedResult(),
      ...(robots.length === 0 ? {} : { robots }),
      stageMs: { ...stageMs, total: Date.now() - burstStartedAtMs },
    };

    /** The claimed URLs the burst fetched, each with its outcome; untried ones went back with the claim. */
    function extendedResult(): Pick<FetchBurstResult, 'extended'> {
      const tried = items.slice(input.items.length).flatMap((item, i) => {
        const outcome = extendedOutcomes[i];
        return outcome === undefined || outcome.kind === 'not-attempted' ? [] : [{ item: withoutHostDelay(item), outcome }];
      });
      return tried.length === 0 ? {} : { extended: tried };
    }
  }

  /** parseBatch reports each body's failure; a failure of the batch itself fails every body, not the burst. */
  function parseBeside(items: ParseBatchInput['items']): Promise<ParseBatchOutcome[]> {
    return parseBatch({ items }).then(
      (result) => result.outcomes,
      (error: unknown) => items.map((): ParseBatchOutcome => ({ ok: false, error: error instanceof Error ? error.message : String(error) })),
    );
  }

  /** One promise per URL from one read for them all; a failed read fails each URL's fetch when it comes to it. */
  function preflightsOf(batch: readonly FetchUrlInput[]): Promise<FetchPreflight>[] {
    const read = readFetchPreflights(deps.pool, batch);
    // Awaited only when each URL's turn comes: not an unhandled rejection meanwhile.
    read.catch(() => undefined);
    return batch.map((_, i) => {
      const one = read.then((all) => all[i]!);
      one.catch(() => undefined);
      return one;
    });
  }

  /** One of the burst's own pages, as parseBatch would parse it alone: a failure is reported, not thrown. */
  function parseOwn(item: ParseDocumentInput, fetched: FetchedPage): Promise<ParseBatchOutcome> {
    return parsePage(item, fetched).then(
      (result): ParseBatchOutcome => parsedOutcome(result),
      (error: unknown): ParseBatchOutcome => failedParseOutcome(error),
    );
  }

  /** A failed settle is reported by its absence (the workflow settles the URL), not thrown. */
  function settleBeside(item: HostWorkItem, outcome: SettleOutcome): Promise<boolean> {
    return settleUrl({ crawlId: item.crawlId, fingerprint: item.fingerprint, generation: item.generation, url: item.url, outcome }).then(
      () => true,
      (error: unknown) => {
        log.warn('settle inside a fetch burst failed; the host workflow settles the URL', { url: item.url, error: String(error) });
        return false;
      },
    );
  }

  /** A failed release is reported as none, not thrown: the workflow's own claim releases the host. */
  function releaseBeside(host: string, politeness: HostPolitenessState, settings: NonNullable<BurstClaim['releaseIfDone']>): Promise<boolean> {
    return releaseHost(deps.pool, { host, politeness, paused: settings.paused, delayOverrideMs: settings.delayOverrideMs }).then(
      () => true,
      (error: unknown) => {
        log.warn('release beside a fetch burst failed; the host workflow releases the host', { host, error: String(error) });
        return false;
      },
    );
  }

  /**
   * A failed claim is reported by its absence, not thrown: the requests' outcomes must reach the
   * workflow. `claimWith`: claimHostWork, or claimHostWorkToFetch for URLs this burst fetches next.
   */
  function claimBeside<T>(host: string, claim: NonNullable<FetchBurstInput['claim']>, claimedBefore: boolean, claimWith: (pool: ActivityDeps['pool'], input: ClaimHostWorkInput) => Promise<T>): Promise<T | undefined> {
    // Each burst gets a token of its own, so on its first try no claim has used it yet; a burst
    // claiming again under it (extending itself) wants new URLs, not those it took before. A local
    // burst run again after its workflow task was lost is attempt 1 again: its token may have claimed.
    const { attempt, isLocal } = Context.current().info;
    const freshToken = claimedBefore || (attempt === 1 && !isLocal);
    return claimWith(deps.pool, { host, maxItems: claim.maxItems, claimToken: claim.claimToken, random: Math.random, freshToken }).catch((error: unknown) => {
      log.warn('claim beside a fetch burst failed; the host workflow recovers it by its token', { host, error: String(error) });
      return undefined;
    });
  }

  return { fetchBurst };
}

/** A page's fetch records left to its parse's transaction, and the check its stored body needs after it (UrlFetchOptions.deferRecord). */
interface DeferredRecords {
  records: FetchedBodyRecords;
  keepStored?: () => Promise<string>;
}

/** Whichever comes first: one of `promises` settling (they must not reject), or `timeoutMs`. */
async function firstOrTimeout(promises: readonly Promise<void>[], timeoutMs: number): Promise<'settled' | 'timed-out'> {
  let timer: NodeJS.Timeout | undefined;
  try {
    return await Promise.race([Promise.race(promises).then(() => 'settled' as const), new Promise<'timed-out'>((resolve) => (timer = setTimeout(() => resolve('timed-out'), timeoutMs)))]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Whether the burst left the workflow nothing to do: every URL parsed or settled here, every
 * carried body parsed, no page waiting for a render, and no robots.txt found unreachable (its
 * origin's URLs would wait for it).
 */
export function everyUrlEnded(
  outcomes: readonly FetchBurstOutcome[],
  parseOutcomes: readonly ParseBatchOutcome[] | undefined,
  robots: readonly { refreshed: RefreshRobotsResult }[],
): boolean {
  return (
    outcomes.every((outcome) => outcome.kind === 'done' && (outcome.settled === true || (outcome.parsed?.ok === true && outcome.parsed.renders === undefined))) &&
    (parseOutcomes ?? []).every((parsed) => parsed.ok && parsed.renders === undefined) &&
    robots.every(({ refreshed }) => refreshed.policyKind !== 'disallow-all' && refreshed.transportFailure === undefined)
  );
}

/** A claimed URL as the workflow holds it: the host delay is added per request. */
function withoutHostDelay(item: FetchUrlInput): HostWorkItem {
  const { hostDelayMs: _hostDelayMs, ...rest } = item;
  return rest;
}

