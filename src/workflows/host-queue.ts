/**
 * The state of one host's back queue (Mercator): a small local queue of URLs, the host's
 * politeness state and its robots freshness. A plain class, so the workflow file only wires
 * messages and timers, and the whole state is carried across continue-as-new as JSON.
 */
import {
  applyHostOutcome,
  burstWaitLimitMs,
  canStartFetch,
  circuitStateAt,
  DEFAULT_HOST_POLITENESS_POLICY,
  fetchBurstSize,
  hostHoldAt,
  initialHostPolitenessState,
  nextFetchAtMs,
  onFetchStarted,
  type FetchBurstLimits,
  type HostOutcome,
  type HostPolitenessPolicy,
  type HostPolitenessState,
} from '../domain/politeness/index.js';
import type { HostWorkItem, RefreshRobotsResult, RenderTask } from '../contracts/activities.js';
import type { FetchFailureType } from '../domain/failures/index.js';
import { hostPolicyOverridesOf } from '../config/politeness-config.js';

export interface HostQueueSnapshot {
  host: string;
  queue: HostWorkItem[];
  politeness: HostPolitenessState | null;
  robotsFreshUntilMs: Record<string, number>;
  robotsCrawlDelayMs: Record<string, number>;
  /** Since when each origin's robots.txt has been unreachable, ms since epoch (absent in runs carried before it). */
  robotsUnreachableSinceMs?: Record<string, number>;
  paused: boolean;
  delayOverrideMs: number | null;
  quarantinedReason: string | null;
  run: number;
  /** Renders waiting for the host's turn (absent in runs carried before rendering). */
  renders?: RenderTask[];
  /** Per page (renderPageKey), its renders not yet ended; the page is settled when the last ends. */
  rendersOutstanding?: Record<string, number>;
}

/** The key of a page's render bookkeeping: crawl, fingerprint, generation. */
export function renderPageKey(task: Pick<RenderTask, 'crawlId' | 'fingerprint' | 'generation'>): string {
  return `${task.crawlId}/${task.fingerprint}/${task.generation}`;
}

/** What the politeness policy reads of a queued URL or render: the crawl's settings that travel with it. */
export type PolicySource = Pick<HostWorkItem, 'minHostDelayMs' | 'maxConcurrentFetches' | 'politeness'>;

/** The host's saved record as a claim reads it: politeness and the operator's settings. */
export interface HostRecordFields {
  politeness: HostPolitenessState | null;
  delayOverrideMs: number | null;
  paused: boolean;
  quarantinedReason: string | null;
}

/**
 * Its fields are private: the loop changes them through the methods below, each named for what
 * happened (a URL taken, a pause, robots rules noted), and reads them through read-only views.
 */
export class HostQueue {
  readonly host: string;
  readonly run: number;
  #queue: HostWorkItem[];
  #politeness: HostPolitenessState | null;
  #robotsFreshUntilMs: Record<string, number>;
  #robotsCrawlDelayMs: Record<string, number>;
  #robotsUnreachableSinceMs: Record<string, number>;
  #paused: boolean;
  #delayOverrideMs: number | null;
  #quarantinedReason: string | null;
  #renders: RenderTask[];
  #rendersOutstanding: Record<string, number>;
  #pendingParses = 0;
  #fetchesThisRun = 0;
  /** Counts settled requests, so the loop can wait for a slot to free. */
  #outcomes = 0;

  constructor(snapshot: HostQueueSnapshot) {
    this.host = snapshot.host;
    this.#queue = [...snapshot.queue];
    this.#politeness = snapshot.politeness;
    this.#robotsFreshUntilMs = { ...snapshot.robotsFreshUntilMs };
    this.#robotsCrawlDelayMs = { ...snapshot.robotsCrawlDelayMs };
    this.#robotsUnreachableSinceMs = { ...snapshot.robotsUnreachableSinceMs };
    this.#paused = snapshot.paused;
    this.#delayOverrideMs = snapshot.delayOverrideMs;
    this.#quarantinedReason = snapshot.quarantinedReason;
    this.run = snapshot.run;
    this.#renders = [...(snapshot.renders ?? [])];
    this.#rendersOutstanding = { ...snapshot.rendersOutstanding };
  }

  static fresh(host: string): HostQueue {
    return new HostQueue({
      host,
      queue: [],
      politeness: null,
      robotsFreshUntilMs: {},
      robotsCrawlDelayMs: {},
      paused: false,
      delayOverrideMs: null,
      quarantinedReason: null,
      run: 1,
    });
  }

  snapshotForNextRun(): HostQueueSnapshot {
    return {
      host: this.host,
      queue: this.#queue,
      politeness: this.#politeness,
      robotsFreshUntilMs: this.#robotsFreshUntilMs,
      robotsCrawlDelayMs: this.#robotsCrawlDelayMs,
      robotsUnreachableSinceMs: this.#robotsUnreachableSinceMs,
      paused: this.#paused,
      delayOverrideMs: this.#delayOverrideMs,
      quarantinedReason: this.#quarantinedReason,
      run: this.run + 1,
      // Only when there are some: the snapshots of hosts that never render stay as they were.
      ...(this.#renders.length > 0 ? { renders: this.#renders } : {}),
      ...(Object.keys(this.#rendersOutstanding).length > 0 ? { rendersOutstanding: this.#rendersOutstanding } : {}),
    };
  }

  // Read-only views.
  get queue(): readonly HostWorkItem[] {
    return this.#queue;
  }
  get politeness(): HostPolitenessState | null {
    return this.#politeness;
  }
  get paused(): boolean {
    return this.#paused;
  }
  get delayOverrideMs(): number | null {
    return this.#delayOverrideMs;
  }
  get quarantinedReason(): string | null {
    return this.#quarantinedReason;
  }
  get renders(): readonly RenderTask[] {
    return this.#renders;
  }
  get rendersOutstanding(): Readonly<Record<string, number>> {
    return this.#rendersOutstanding;
  }
  /** Bodies being parsed or waiting to be (carried to the next burst). */
  get pendingParses(): number {
    return this.#pendingParses;
  }
  get fetchesThisRun(): number {
    return this.#fetchesThisRun;
  }
  get outcomes(): number {
    return this.#outcomes;
  }
  /** Since when `origin`'s robots.txt has been unreachable, if it is. */
  robotsUnreachableSince(origin: string): number | undefined {
    return this.#robotsUnreachableSinceMs[origin];
  }

  // The operator's signals, and the host's saved record.
  pause(): void {
    this.#paused = true;
  }
  resume(): void {
    this.#paused = false;
  }
  overrideDelay(minDelayMs: number | null): void {
    this.#delayOverrideMs = minDelayMs;
  }
  /** The record a claim read: what this run has not set yet comes from it, and a pause in either holds. */
  adoptHostRecord(record: HostRecordFields): void {
    this.#politeness ??= record.politeness ?? null;
    this.#delayOverrideMs ??= record.delayOverrideMs;
    this.#paused = this.#paused || record.paused;
    this.#quarantinedReason ??= record.quarantinedReason;
  }

  // Parses under way (or bodies carried to the next burst).
  parsesStarted(count: number): void {
    this.#pendingParses += count;
  }
  parsesEnded(count: number): void {
    this.#pendingParses -= count;
  }

  // The URLs.
  /** URLs join the back of the queue (a claim's, a retry that waits its turn). */
  enqueue(items: readonly HostWorkItem[]): void {
    this.#queue.push(...items);
  }
  /** Takes the first queued URL (the queue must not be empty). */
  takeFirst(): HostWorkItem {
    const first = this.#queue.shift();
    if (first === undefined) throw new Error(`host ${this.host}: takeFirst on an empty queue; check queue.length first`);
    return first;
  }
  /** Takes up to `count` URLs from the front (a burst's). */
  takeFront(count: number): HostWorkItem[] {
    return this.#queue.splice(0, Math.max(0, count));
  }
  /** Takes the URL at `index` (one deferred out of order). */
  takeAt(index: number): HostWorkItem | undefined {
    return this.#queue.splice(index, 1)[0];
  }
  /** Takes every queued URL `which` picks, in order. */
  takeWhere(which: (item: HostWorkItem) => boolean): HostWorkItem[] {
    const taken = this.#queue.filter(which);
    this.#queue = this.#queue.filter((item) => !taken.includes(item));
    return taken;
  }

  // robots.txt.
  /** The origin's rules hold until `untilMs` (0: stale now, refresh them before the next request). */
  noteRobotsFreshUntil(origin: string, untilMs: number): void {
    this.#robotsFreshUntilMs[origin] = untilMs;
  }
  /** The origin's robots.txt is unreachable since `sinceMs`, unless an earlier time is already noted. */
  noteRobotsUnreachableSince(origin: string, sinceMs: number): void {
    this.#robotsUnreachableSinceMs[origin] ??= sinceMs;
  }
  /** What a refresh of an origin's robots.txt says for its next requests: how long the rules hold, and their Crawl-delay. */
  noteRobotsRules(origin: string, result: Pick<RefreshRobotsResult, 'freshUntilMs' | 'policyKind' | 'finishedAtMs' | 'crawlDelayMs'>): void {
    this.#robotsFreshUntilMs[origin] = result.freshUntilMs;
    // Unreachable (disallow-all, RFC 9309 §2.3.1.4): the origin's patience counts from its first such answer.
    if (result.policyKind === 'disallow-all') this.#robotsUnreachableSinceMs[origin] ??= result.finishedAtMs;
    else delete this.#robotsUnreachableSinceMs[origin];
    if (result.crawlDelayMs !== undefined) this.#robotsCrawlDelayMs[origin] = result.crawlDelayMs;
    else delete this.#robotsCrawlDelayMs[origin];
  }

  // Renders.
  queueRender(task: RenderTask): void {
    this.#renders.push(task);
  }
  takeRenderAt(index: number): RenderTask | undefined {
    return this.#renders.splice(index, 1)[0];
  }
  /** `count` more renders of a page (renderPageKey) to wait for; `ifNone`: how many are counted when none are noted. */
  addOutstandingRenders(key: string, count: number, ifNone: number): void {
    this.#rendersOutstanding[key] = (this.#rendersOutstanding[key] ?? ifNone) + count;
  }
  /** One render of a page ended: how many of its renders are left. */
  endOutstandingRender(key: string): number {
    const left = (this.#rendersOutstanding[key] ?? 1) - 1;
    if (left > 0) this.#rendersOutstanding[key] = left;
    else delete this.#rendersOutstanding[key];
    return left;
  }

  /** The politeness policy for the next request: the strictest of our delay, the operator's and robots' Crawl-delay. */
  policyFor(item: PolicySource | undefined): HostPolitenessPolicy {
    const crawlDelays = Object.values(this.#robotsCrawlDelayMs);
    const crawlDelayMs = crawlDelays.length > 0 ? Math.max(...crawlDelays) : undefined;
    return {
      ...DEFAULT_HOST_POLITENESS_POLICY,
      // The crawl's knobs (throttle, adaptive, circuit); validated when the crawl was configured.
      ...hostPolicyOverridesOf(item?.politeness),
      minDelayMs: this.#delayOverrideMs ?? item?.minHostDelayMs ?? DEFAULT_HOST_POLITENESS_POLICY.minDelayMs,
      crawlDelayMs,
      maxConcurrentFetches: item?.maxConcurrentFetches ?? 1,
    };
  }

  politenessAt(nowMs: number): HostPolitenessState {
    this.#politeness ??= initialHostPolitenessState(nowMs);
    return this.#politeness;
  }

  nextFetchAtMs(nowMs: number): number {
    return nextFetchAtMs(this.politenessAt(nowMs), nowMs);
  }

  /**
   * The next fetch time for a query. Reads without initializing: a query is not replayed, so a
   * state it created would differ between live and replayed runs, and a host's first query, before
   * its first claim, would stand in for the politeness its previous run saved.
   */
  peekNextFetchAtMs(nowMs: number): number {
    return nextFetchAtMs(this.#politeness ?? initialHostPolitenessState(nowMs), nowMs);
  }

  /** Requests to this host in flight now (robots.txt included). */
  get inFlight(): number {
    return this.#politeness?.inFlight ?? 0;
  }

  /** May a request start now: not paused, a free slot (one while the circuit is half-open), and the host's next fetch time reached. */
  canStartAt(nowMs: number): boolean {
    const next = this.#queue[0];
    if (this.#paused || next === undefined) return false;
    return canStartFetch(this.politenessAt(nowMs), this.policyFor(next), nowMs);
  }

  robotsFresh(origin: string, nowMs: number): boolean {
    return (this.#robotsFreshUntilMs[origin] ?? 0) > nowMs;
  }

  /**
   * A request takes a slot. With several slots per host, `spaceStarts` also spaces request
   * starts by the host delay; with one slot the finish of each request already spaces them.
   */
  noteRequestStarted(nowMs: number, item: PolicySource | undefined, options: { spaceStarts: boolean } = { spaceStarts: false }): void {
    this.#politeness = onFetchStarted(this.politenessAt(nowMs), nowMs, options.spaceStarts ? this.policyFor(item) : undefined);
    this.#fetchesThisRun += 1;
  }

  /** Every started request ends here exactly once, whatever its outcome. */
  noteOutcome(outcome: HostOutcome, item: PolicySource | undefined, random: () => number, nowMs: number): void {
    this.#outcomes += 1;
    this.#politeness = applyHostOutcome(this.politenessAt(nowMs), outcome, this.policyFor(item), random);
  }

  /**
   * How many URLs a fetch burst starting with `first` (just taken off the queue) would fetch:
   * `first` and the leading run of first tries behind it (a retry carries notBeforeMs and goes on
   * its own, under its failure type's policy) of the same crawl, as fetchBurstSize allows for the
   * host's policy. 1: fetch `first` on its own: a retry, or a circuit not closed (its probe goes alone).
   */
  fetchBurstSizeWith(first: HostWorkItem, nowMs: number, limits: FetchBurstLimits, behind: readonly HostWorkItem[] = this.#queue): number {
    if (!this.burstable(first, nowMs, limits)) return 1;
    let ready = 1;
    for (const item of behind) {
      if (item.notBeforeMs !== undefined || item.crawlId !== first.crawlId) break;
      ready += 1;
    }
    return fetchBurstSize(this.policyFor(first), ready, limits);
  }

  /**
   * How many URLs the burst led by `first` takes at `atMs`, or 0 when no burst of at least
   * `minUrls` may start (the loop then fetches `first` on its own).
   */
  burstSizeAt(first: HostWorkItem, atMs: number, limits: FetchBurstLimits, minUrls: 1 | 2, behind: readonly HostWorkItem[] = this.#queue): number {
    const size = this.fetchBurstSizeWith(first, atMs, limits, behind);
    return size >= minUrls && this.burstable(first, atMs, limits) ? size : 0;
  }

  /**
   * When a burst led by the queue's first URL may start, if not now but within the burst's wait
   * limit: the host's next fetch time, when a burst of at least two URLs could start then (not
   * paused, its slot free, circuit closed, robots rules still fresh). Started now, the burst's
   * activity waits out the rest, so no timer and no workflow task stand between two bursts.
   */
  earlyBurstStartAtMs(nowMs: number, limits: FetchBurstLimits, minUrls: 1 | 2 = 2): number | undefined {
    const first = this.#queue[0];
    if (this.#paused || first === undefined) return undefined;
    const politeness = this.politenessAt(nowMs);
    const startAtMs = nextFetchAtMs(politeness, nowMs);
    if (startAtMs <= nowMs || startAtMs - nowMs > burstWaitLimitMs(politeness, nowMs, limits)) return undefined;
    if (!canStartFetch(politeness, this.policyFor(first), startAtMs) || !this.robotsFresh(first.origin, startAtMs)) return undefined;
    return this.burstSizeAt(first, startAtMs, limits, minUrls, this.#queue.slice(1)) > 0 ? startAtMs : undefined;
  }

  /**
   * Whether a burst led by `first` may start at `atMs`, however few URLs follow it: a first try
   * (a retry goes on its own), a closed circuit, and a policy that suits bursts (one slot, a short delay).
   */
  burstable(first: HostWorkItem, atMs: number, limits: FetchBurstLimits): boolean {
    if (first.notBeforeMs !== undefined) return false;
    const policy = this.policyFor(first);
    if (circuitStateAt(this.politenessAt(atMs), policy, atMs) !== 'closed') return false;
    return fetchBurstSize(policy, 2, limits) > 1;
  }

  /** The politeness state as requests run elsewhere left it (a burst's, a render's, a test's setting). */
  adoptPoliteness(politeness: HostPolitenessState): void {
    this.#politeness = politeness;
  }

  /** The burst's own politeness arithmetic replaces ours: it ran every request the burst made. */
  adoptBurstPoliteness(politeness: HostPolitenessState, requestsStarted: number): void {
    this.adoptPoliteness(politeness);
    this.#outcomes += 1;
    this.#fetchesThisRun += Math.max(0, requestsStarted - 1);
  }

  /** No request before `atMs` (never makes the next fetch time earlier). */
  deferNextFetchUntil(atMs: number): void {
    const politeness = this.politenessAt(atMs);
    this.#politeness = { ...politeness, nextFetchAtMs: Math.max(politeness.nextFetchAtMs, atMs) };
  }

  /** Puts URLs back at the front in their order (a burst's unfinished URLs). */
  requeueFrontAll(items: readonly HostWorkItem[]): void {
    this.#queue.unshift(...items);
  }

  /** A URL that failed host-wide goes back to the front, to be retried when the host allows. */
  requeueFront(item: HostWorkItem): void {
    this.#queue.unshift(item);
  }

  /** The quarantine or negative cache in force (hostEffect quarantine-host / negative-cache-host), if any. */
  holdAt(nowMs: number): { reason: FetchFailureType; untilMs: number } | undefined {
    return this.#politeness ? hostHoldAt(this.#politeness, nowMs) : undefined;
  }

  /**
   * Brings the first URL whose host-level retry backoff has passed to the front of the queue and
   * returns undefined; when every queued URL still waits, returns the earliest time one is ready.
   * URLs without a backoff are always ready, so a queue without retries is left as it is.
   */
  promoteReady(nowMs: number): number | undefined {
    const index = this.#queue.findIndex((item) => (item.notBeforeMs ?? 0) <= nowMs);
    if (index === 0 || this.#queue.length === 0) return undefined;
    if (index > 0) {
      this.#queue.unshift(...this.#queue.splice(index, 1));
      return undefined;
    }
    return Math.min(...this.#queue.map((item) => item.notBeforeMs ?? nowMs));
  }

  get idle(): boolean {
    return this.#queue.length === 0 && this.#renders.length === 0 && this.inFlight === 0 && this.#pendingParses === 0;
  }
}
