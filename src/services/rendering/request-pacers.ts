/**
 * The two ways a render's request keeps its host's politeness (docs/rendering.md, "The gate").
 *
 * HostTurnPacer: the page's own host, whose turn the render holds (its host workflow gave it the
 * politeness state, as to a fetch burst). Requests go one at a time, each after the host's delay
 * counted from the previous one's end (page fetch included), through the same arithmetic as every
 * fetch (subresourceWaitMs, onFetchStarted, applyHostOutcome); the final state goes back to the
 * host workflow.
 *
 * LedgerPacer: a host the render reaches as another origin (--render-allow-origin). The render
 * does not hold that host's turn; each request takes the host's turn in host_pacing, where that
 * host's own fetches take it too, and gives it back with its real end.
 */
import { applyHostOutcome, hostResponseTimeMs, onFetchStarted, policyDelayMs, type HostOutcome, type HostPolitenessPolicy, type HostPolitenessState } from '../../domain/politeness/index.js';
import { MAX_SUBRESOURCE_WAIT_MS, subresourceWaitMs } from '../../domain/render/index.js';
import type { Pool } from '../../storage/postgres/pool.js';
import { takeLedgerTurn } from './paced-hosts.js';
import { sleepUntilMs } from '../fetching/sleep-until.js';

/** Date.now() is whole milliseconds: a wait ends a little after its time, never before (fetch-burst.ts says why). */
const TIMER_MARGIN_MS = 2;

/** One request as a pacer runs it: what it returns, and what it told the host. */
export interface PacedRequest<T> {
  result: T;
  outcome: HostOutcome;
  /**
   * The request was cut by us (the render ended while a long poll was open): its elapsed time says
   * nothing of the host's speed, so the host's response time is kept as it was; the delay still
   * counts from the cut.
   */
  cutByUs?: boolean;
}

/** Why a pacer sent nothing. */
export type PacingRefusal = { refused: 'politeness-refused'; reason: string };

export interface RequestPacer {
  /** Runs `send` in the host's turn, or refuses it (the host asks for more than a render may wait). */
  run<T>(send: () => Promise<PacedRequest<T>>): Promise<T | PacingRefusal>;
  /** A robots.txt of the host says Crawl-delay: called from within `send` of that request, before its outcome counts. */
  raiseCrawlDelay?(crawlDelayMs: number): void;
}

export interface PacerClock {
  now: () => number;
  sleepMs: (ms: number) => Promise<void>;
  /** Aborted when the render ends: a wait under way ends at once and sends nothing. */
  until?: AbortSignal;
}

/** Runs one task at a time, in arrival order. */
class SerialQueue {
  private tail: Promise<unknown> = Promise.resolve();
  run<T>(task: () => Promise<T>): Promise<T> {
    const next = this.tail.then(task, task);
    this.tail = next.catch(() => undefined);
    return next;
  }
}

export class HostTurnPacer implements RequestPacer {
  private readonly queue = new SerialQueue();
  /** Requests sent (robots.txt included), for the host workflow's count. */
  requestsStarted = 0;
  /** When the last request sent ended, ms since epoch. */
  private lastEndedAtMs: number | undefined;

  constructor(
    private state: HostPolitenessState,
    private policy: HostPolitenessPolicy,
    private readonly clock: PacerClock,
    private readonly random: () => number = Math.random,
  ) {}

  /** The host's politeness state after the render's requests, nothing in flight. */
  get politeness(): HostPolitenessState {
    return this.state;
  }

  /**
   * A robots.txt read in the render may add a Crawl-delay: every later wait takes it, counted from
   * the end of the last request (that robots.txt itself), as a fetch burst counts it.
   */
  raiseCrawlDelay(crawlDelayMs: number): void {
    this.policy = { ...this.policy, crawlDelayMs: Math.max(this.policy.crawlDelayMs ?? 0, crawlDelayMs) };
    if (this.lastEndedAtMs !== undefined) this.state = { ...this.state, nextFetchAtMs: Math.max(this.state.nextFetchAtMs, this.lastEndedAtMs + crawlDelayMs) };
  }

  run<T>(send: () => Promise<PacedRequest<T>>): Promise<T | PacingRefusal> {
    return this.queue.run(async () => {
      const decidedAtMs = this.clock.now();
      const waitMs = this.clock.until?.aborted ? undefined : subresourceWaitMs(this.state, this.policy, decidedAtMs);
      if (waitMs === undefined) return { refused: 'politeness-refused' as const, reason: `the host asks for more than ${MAX_SUBRESOURCE_WAIT_MS} ms, or holds us off` };
      await sleepUntilMs(decidedAtMs + waitMs + TIMER_MARGIN_MS, { nowMs: this.clock.now, sleepMs: this.clock.sleepMs, ...(this.clock.until ? { until: this.clock.until } : {}) });
      if (this.clock.until?.aborted) return { refused: 'politeness-refused' as const, reason: 'the render ended first' };
      this.state = onFetchStarted(this.state, this.clock.now());
      let sent: PacedRequest<T>;
      try {
        sent = await send();
      } catch (error) {
        // A failure of ours (not the host's): the slot goes back, no delay added.
        this.state = applyHostOutcome(this.state, { kind: 'not-sent', atMs: this.clock.now() }, this.policy, this.random);
        throw error;
      }
      if (sent.outcome.kind !== 'not-sent') {
        this.requestsStarted += 1;
        this.lastEndedAtMs = sent.outcome.finishedAtMs;
      }
      const outcome = sent.cutByUs && sent.outcome.kind === 'response' ? { ...sent.outcome, responseMs: hostResponseTimeMs(this.state) } : sent.outcome;
      this.state = applyHostOutcome(this.state, outcome, this.policy, this.random);
      return sent.result;
    });
  }
}

/** How long a subresource's turn in the ledger is held at most before its request's end is known, ms (its fetch deadlines are 20 s each). */
export const LEDGER_HOLD_MS = 45_000;

export class LedgerPacer implements RequestPacer {
  private readonly queue = new SerialQueue();

  constructor(
    private readonly pool: Pool,
    private readonly host: string,
    private policy: HostPolitenessPolicy,
    private readonly clock: PacerClock,
  ) {}

  raiseCrawlDelay(crawlDelayMs: number): void {
    this.policy = { ...this.policy, crawlDelayMs: Math.max(this.policy.crawlDelayMs ?? 0, crawlDelayMs) };
  }

  run<T>(send: () => Promise<PacedRequest<T>>): Promise<T | PacingRefusal> {
    return this.queue.run(async () => {
      const turn = await takeLedgerTurn(this.pool, {
        host: this.host,
        delayMs: policyDelayMs(this.policy),
        holdMs: LEDGER_HOLD_MS,
        maxWaitMs: MAX_SUBRESOURCE_WAIT_MS,
        now: this.clock.now,
        sleepMs: this.clock.sleepMs,
        ...(this.clock.until ? { until: this.clock.until } : {}),
      });
      if (!turn.taken) {
        return { refused: 'politeness-refused' as const, reason: turn.reason === 'not-in-ledger' ? `${this.host} is not in the pacing ledger` : `${this.host}'s turn is more than ${MAX_SUBRESOURCE_WAIT_MS} ms away` };
      }
      let finishedAtMs = this.clock.now();
      try {
        const sent = await send();
        if (sent.outcome.kind !== 'not-sent') finishedAtMs = sent.outcome.finishedAtMs;
        return sent.result;
      } finally {
        // The delay at the release: a robots.txt read by this very request may have raised it.
        await turn.release(Math.max(finishedAtMs, this.clock.now()), policyDelayMs(this.policy)).catch(() => undefined);
      }
    });
  }
}
