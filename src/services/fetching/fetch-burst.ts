/**
 * A fetch burst: a few URLs of one host fetched in sequence by one activity. For hosts with short
 * delays this pays the activity, timer and workflow tasks of the one-URL path once per burst
 * instead of once per URL; it can also claim the host's next URLs. It parses each body it fetched
 * during the wait before its next request, settles the URLs that need no parse, and claims after
 * the parses, so one activity takes a host from fetched to settled and refilled; the slot is then
 * held until its last body is parsed, which slows a host only when parsing lags (backpressure,
 * docs/design.md, "Backpressure"). Bodies it could not parse go back to the workflow, which hands
 * them to the next burst (parsed beside its requests) or to one parseBatch when no burst follows.
 * An origin whose robots.txt is stale or unknown when its URL's turn comes is refreshed in the
 * burst, as a request of its own in the host's politeness.
 *
 * Politeness is the workflow's arithmetic, run here (domain/politeness): a request starts only
 * when burstWaitMs allows, and every outcome goes through applyHostOutcome; the final state goes
 * back to the host workflow. Failures come back as outcomes, not thrown: the workflow applies
 * their typed policy. A retried burst (a crashed worker) starts after the retry interval, which is
 * longer than any wait a burst makes, and finds its finished URLs answered from their records.
 */
import { applyHostOutcome, burstMayExtend, burstWaitMs, onFetchStarted, type HostOutcome, type HostPolitenessState } from '../../domain/politeness/index.js';
import type { FetchPreflight } from '../../storage/postgres/fetch-repository.js';
import type { HostRelease } from '../../storage/postgres/host-repository.js';
import type { FetchBurstInput, FetchBurstOutcome, FetchBurstResult, FetchUrlInput, HostWorkItem, ParseBatchOutcome, RefreshRobotsResult } from '../../contracts/activities.js';
import type { ActivityDeps } from '../deps.js';
import type { ActivityScope } from './activity-scope.js';
import { attemptOf, robotsRefreshOf, type AttemptSettled, type BurstPage } from './fetch-burst-attempt.js';
import { burstRelease, claimWithinBurst, everyUrlEnded, firstOrTimeout, parseBeside, preflightsOf, releaseWithinBurst, withoutHostDelay } from './fetch-burst-beside.js';
import { FetchBurstPages, type FetchBurstParts } from './fetch-burst-pages.js';
import { sleepUntilMs } from './sleep-until.js';

export type { FetchBurstParts } from './fetch-burst-pages.js';
export { everyUrlEnded } from './fetch-burst-beside.js';

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

/** Runs one burst inside its activity (`scope`). */
export function runFetchBurst(deps: ActivityDeps, parts: FetchBurstParts, scope: ActivityScope, input: FetchBurstInput): Promise<FetchBurstResult> {
  return new FetchBurstRun(deps, parts, scope, input).run();
}

type Stage = 'waiting' | 'fetching' | 'parsing' | 'claiming';

class FetchBurstRun {
  private readonly startedAtMs = Date.now();
  /** Where the burst's time goes (stageMs in the result): sums per stage; parses overlap the waits. */
  private readonly stageMs = { waiting: 0, fetching: 0, parsing: 0, claiming: 0, finishing: 0 };
  private politeness: HostPolitenessState;
  /** A robots.txt refreshed in the burst may add a Crawl-delay: every later wait takes it. */
  private policy: FetchBurstInput['policy'];
  private readonly robots: { origin: string; refreshed: RefreshRobotsResult }[] = [];
  private requestsStarted = 0;
  private readonly outcomes: FetchBurstOutcome[] = [];
  private readonly extendedOutcomes: FetchBurstOutcome[] = [];
  /** A failure, stale robots rules or a long wait ends the burst: the rest go back untried. */
  private ended = false;
  /** The previous burst's bodies, parsed beside the requests: parsing never delays a request by more than its CPU time. */
  private readonly parsed: Promise<ParseBatchOutcome[]> | undefined;
  /** This burst's own pages: parsed, settled, stored (pages.ts). */
  private readonly pages: FetchBurstPages;
  /**
   * With extendWithClaims, the host's URLs claimed once these are fetched and parsed: fetched by
   * this burst too while its span and size allow (their outcomes go back beside the claim).
   */
  private readonly items: FetchUrlInput[];
  /**
   * Each URL's preflight (its record if done, its robots rules, its validators), read for all the
   * URLs of a batch in one statement: one pool checkout per batch, not one per request.
   */
  private readonly preflights: Promise<FetchPreflight>[];
  private firstRequestAtMs: number | undefined;
  private claimFoundNothing = false;
  /** The claim that found nothing released the host too. */
  private releasedByClaim = false;
  /** The carried bodies' parse outcomes, once their parse returned. */
  private parseOutcomes: ParseBatchOutcome[] | undefined;

  constructor(
    private readonly deps: ActivityDeps,
    private readonly parts: FetchBurstParts,
    private readonly scope: ActivityScope,
    private readonly input: FetchBurstInput,
  ) {
    this.politeness = input.politeness;
    this.policy = input.policy;
    this.parsed = input.parse && input.parse.length > 0 ? parseBeside(parts.parseBatch, input.parse) : undefined;
    void this.parsed?.then((outcomes) => (this.parseOutcomes = outcomes));
    this.pages = new FetchBurstPages(deps, parts, (work) => this.timed('parsing', work), (message, attributes) => this.scope.warn(message, attributes));
    this.items = [...input.items];
    this.preflights = preflightsOf(deps, input.items);
  }

  /** A local burst (a run's first, short one) has no heartbeat: its workflow task is its liveness. */
  private readonly heartbeat = (): void => {
    if (!this.scope.isLocal) this.scope.heartbeat();
  };

  private async timed<T>(stage: Stage, work: Promise<T>): Promise<T> {
    const startedAtMs = Date.now();
    try {
      return await work;
    } finally {
      this.stageMs[stage] += Date.now() - startedAtMs;
    }
  }

  /**
   * The worker shutting down, or the burst cancelled (a local burst's workflow task lost, its run
   * maybe run again elsewhere): no new request, no new claim; what is in hand is finished.
   */
  private stopsSending(): boolean {
    return this.deps.stopping?.aborted === true || this.scope.cancellationSignal.aborted;
  }

  async run(): Promise<FetchBurstResult> {
    for (let index = 0; ; index++) {
      if (index === this.items.length) this.items.push(...(await this.claimMore()));
      const item = this.items[index];
      if (item === undefined) break;
      const into = index < this.input.items.length ? this.outcomes : this.extendedOutcomes;
      if (!(await this.waitForTurn(index))) {
        this.ended = true;
        into.push({ kind: 'not-attempted' });
        continue;
      }
      if ((await this.fetchOne(index, item, into)) === 'again') index -= 1;
    }
    return this.finish();
  }

  /** Whether the URL at `index` may be sent, after the host's delay and the store's backpressure. */
  private async waitForTurn(index: number): Promise<boolean> {
    const { deps } = this;
    const decidedAtMs = deps.now();
    const waitMs = this.ended || this.pages.storeFailed || this.stopsSending() ? undefined : burstWaitMs(this.politeness, this.policy, decidedAtMs, this.input.limits);
    if (waitMs === undefined) return false;
    // Every start waits the delay plus a margin; the workflow may start a burst before the host's
    // next fetch time (it then needs no timer), so the first may wait too.
    if (index > 0 || waitMs > 0) {
      const until = decidedAtMs + waitMs + TIMER_MARGIN_MS;
      // The wait first, on its own line: `metrics?.f(await wait)` would skip the wait without metrics.
      const waitedMs = await this.timed('waiting', sleepUntilMs(until, { nowMs: deps.now, sleepMs: (ms) => this.scope.sleepMs(ms), ...(deps.stopping ? { until: deps.stopping } : {}) }));
      deps.metrics?.politenessWaited(waitedMs);
    }
    // A store that lags stops the burst's requests, not only its end: bodies waiting for it stay few.
    while (this.pages.storingNow.size >= MAX_BODIES_STORING || (this.pages.bodiesWaitingForStore > 0 && this.pages.storingNow.size > 0)) {
      const waited = await this.timed('waiting', Promise.race([firstOrTimeout([...this.pages.storingNow], HEARTBEAT_WHILE_FINISHING_MS), this.scope.cancelled]));
      if (waited === 'timed-out') this.heartbeat();
    }
    if (this.pages.storeFailed || this.stopsSending()) return false;
    this.firstRequestAtMs ??= Date.now();
    if (Date.now() - this.startedAtMs >= FIRST_HEARTBEAT_AFTER_MS) this.heartbeat();
    return true;
  }

  /** Fetches one URL; 'again' when its origin's robots.txt was refreshed in its place and it is tried again. */
  private async fetchOne(index: number, item: FetchUrlInput, into: FetchBurstOutcome[]): Promise<'next' | 'again'> {
    this.politeness = onFetchStarted(this.politeness, this.deps.now());
    const page: BurstPage = {};
    const slot = into.push({ kind: 'not-attempted' }) - 1;
    const { attempt, storingBegins } = attemptOf(this.deps, this.parts, item, page, {
      preflight: this.preflights[index]!,
      refreshesRobots: this.refreshesRobotsOf(item.origin),
      fetching: (work) => this.timed('fetching', work),
      finished: (outcome) => this.pages.finishOwn(outcome, item, page.held, page.deferred),
      onStoreWaiting: (waiting) => this.pages.storeWaiting(waiting),
    });
    let hostOutcome: HostOutcome;
    const first = await Promise.race([storingBegins, attempt.then(() => undefined, () => undefined)]);
    if (first !== undefined) {
      // A 2xx body to store: its outcome for the host is known; its URL's outcome comes when stored.
      hostOutcome = first;
      this.pages.track(attempt.then(({ outcome }) => void (into[slot] = outcome)));
    } else {
      const settled: AttemptSettled = await attempt;
      const staleRules = settled.outcome.kind === 'done' && settled.outcome.result.kind === 'robots-stale';
      if (staleRules && this.refreshesRobotsOf(item.origin)) {
        // The slot this URL took goes to its origin's robots.txt, a request like any other.
        if (!(await this.refreshRobots(item))) return 'next';
        into.pop();
        preflightsOf(this.deps, this.items.slice(index)).forEach((read, i) => {
          this.preflights[index + i] = read;
        });
        return 'again';
      }
      hostOutcome = settled.hostOutcome;
      into[slot] = settled.outcome;
      this.ended = settled.outcome.kind === 'failed' || staleRules;
    }
    if (hostOutcome.kind !== 'not-sent') this.requestsStarted += 1;
    this.politeness = applyHostOutcome(this.politeness, hostOutcome, this.policy, Math.random);
    return 'next';
  }

  /** Stale rules of an origin are refreshed here, once per burst, when the workflow asked for it. */
  private refreshesRobotsOf(origin: string): boolean {
    return this.parts.refreshRobots !== undefined && !this.robots.some((refresh) => refresh.origin === origin);
  }

  /** Refreshes the origin's robots.txt in the burst; true when the URL is tried again with the new rules. */
  private async refreshRobots(item: FetchUrlInput): Promise<boolean> {
    // A slow robots.txt may take longer than the heartbeat timeout: beat meanwhile, as a fetch does.
    const beating = setInterval(this.heartbeat, HEARTBEAT_WHILE_FINISHING_MS);
    const callId = `${this.scope.callToken()}/robots/${this.robots.length + 1}`;
    const refreshed = await this.timed('fetching', this.parts.refreshRobots!({ origin: item.origin, crawlId: item.crawlId }, callId)).finally(() => clearInterval(beating));
    this.robots.push({ origin: item.origin, refreshed });
    const next = robotsRefreshOf(refreshed, this.politeness, this.policy, this.input.limits);
    if (refreshed.requested) this.requestsStarted += 1;
    this.policy = next.policy;
    this.politeness = next.politeness;
    if (!next.again) this.ended = true;
    return next.again;
  }

  /** The host's next URLs for this burst to fetch too, claimed once what it fetched is parsed. */
  private async claimMore(): Promise<FetchUrlInput[]> {
    const { input } = this;
    const extension = input.extendWithClaims;
    if (this.ended || this.stopsSending() || extension === undefined || input.claim === undefined) return [];
    const roomUrls = extension.maxUrls - this.items.length;
    if (!burstMayExtend({ roomUrls, firstRequestAtMs: this.firstRequestAtMs, nowMs: Date.now() }, this.policy, input.limits)) return [];
    // The claim takes the links the parses so far found.
    await this.pages.settled();
    // After the first claim under the token, later ones must take new URLs, not return those.
    const claim = { ...input.claim, maxItems: Math.min(roomUrls, input.claim.maxItems) };
    // Taking nothing ends the burst: if that leaves the host nothing to do, the claim releases it.
    const release = this.releaseIfClaimEmpty([]);
    const claimed = await this.timed(
      'claiming',
      claimWithinBurst(this.deps, this.scope, input.host, claim, this.items.length > input.items.length, { withPreflights: true, ...(release ? { releaseIfEmpty: release } : {}) }),
    );
    if (claimed === undefined || claimed.items.length === 0) {
      this.claimFoundNothing = claimed !== undefined;
      this.releasedByClaim = claimed?.released === true;
      return [];
    }
    const more = claimed.items.map((item) => ({ ...item, hostDelayMs: this.policy.minDelayMs }));
    this.preflights.push(...(claimed.preflights?.map((preflight) => Promise.resolve(preflight)) ?? preflightsOf(this.deps, more)));
    return more;
  }

  /**
   * The release a claim of this burst makes if it takes nothing, when the workflow allowed one and
   * nothing else would be left to do: no URL `untried`, every URL ended here, the carried bodies
   * parsed (known only once their parse returned; else the burst releases after it, if at all).
   */
  private releaseIfClaimEmpty(untried: readonly unknown[]): HostRelease | undefined {
    const settings = this.input.claim?.releaseIfDone;
    if (settings === undefined || untried.length > 0) return undefined;
    const parseOutcomes = this.parsed === undefined ? undefined : this.parseOutcomes;
    if (this.parsed !== undefined && parseOutcomes === undefined) return undefined;
    if (!everyUrlEnded([...this.outcomes, ...this.extendedOutcomes], parseOutcomes, this.robots)) return undefined;
    return burstRelease(this.politeness, settings);
  }

  /** Waits for the parses, settles and stores, claims after them, and releases a host left with nothing to do. */
  private async finish(): Promise<FetchBurstResult> {
    const { input } = this;
    // Parses may wait on Postgres after the last request: keep the heartbeat going meanwhile.
    const heartbeats = setInterval(this.heartbeat, HEARTBEAT_WHILE_FINISHING_MS);
    const finishingFromMs = Date.now();
    let claimedItems: HostWorkItem[] | undefined;
    let parseOutcomes: ParseBatchOutcome[] | undefined;
    let released = this.releasedByClaim;
    try {
      parseOutcomes = this.parsed === undefined ? undefined : await this.parsed;
      await this.pages.settled();
      const extended = this.items.length > input.items.length;
      // Claimed URLs the burst did not get to go back with the claim's.
      const untried = this.items.slice(input.items.length).filter((_, i) => this.extendedOutcomes[i]?.kind === 'not-attempted');
      if (this.claimFoundNothing) claimedItems = [];
      else if (input.claim) {
        // After the parses, so that the claim takes the host's links they found; it releases the host if it takes nothing and nothing is left.
        const release = this.releaseIfClaimEmpty(untried);
        const claimed = await this.timed('claiming', claimWithinBurst(this.deps, this.scope, input.host, input.claim, extended, release ? { releaseIfEmpty: release } : {}));
        claimedItems = claimed?.items;
        released = claimed?.released === true;
      }
      if (untried.length > 0) claimedItems = [...untried.map(withoutHostDelay), ...(claimedItems ?? [])];
      const release = input.claim?.releaseIfDone;
      if (!released && release !== undefined && claimedItems?.length === 0 && everyUrlEnded([...this.outcomes, ...this.extendedOutcomes], parseOutcomes, this.robots)) {
        // The claim that found nothing could not release (a carried parse had not returned yet).
        released = await this.timed('claiming', releaseWithinBurst(this.deps, input.host, this.politeness, release, (message, attributes) => this.scope.warn(message, attributes)));
      }
    } finally {
      clearInterval(heartbeats);
      this.stageMs.finishing = Date.now() - finishingFromMs;
    }
    return this.result(claimedItems, parseOutcomes, released);
  }

  private result(claimedItems: HostWorkItem[] | undefined, parseOutcomes: ParseBatchOutcome[] | undefined, released: boolean): FetchBurstResult {
    return {
      outcomes: this.outcomes,
      politeness: this.politeness,
      requestsStarted: this.requestsStarted,
      ...(claimedItems === undefined ? {} : { claimed: claimedItems }),
      ...(released ? { released: true as const } : {}),
      ...(parseOutcomes === undefined ? {} : { parseOutcomes }),
      ...this.extendedResult(),
      ...(this.robots.length === 0 ? {} : { robots: this.robots }),
      stageMs: { ...this.stageMs, total: Date.now() - this.startedAtMs },
    };
  }

  /** The claimed URLs the burst fetched, each with its outcome; untried ones went back with the claim. */
  private extendedResult(): Pick<FetchBurstResult, 'extended'> {
    const tried = this.items.slice(this.input.items.length).flatMap((item, i) => {
      const outcome = this.extendedOutcomes[i];
      return outcome === undefined || outcome.kind === 'not-attempted' ? [] : [{ item: withoutHostDelay(item), outcome }];
    });
    return tried.length === 0 ? {} : { extended: tried };
  }
}
