/**
 * The state of one host's loop (HostLoop) as one plain, serializable value: the phase of the
 * workflow's step protocol, the claim and burst sub-states, and counters, in place of separate
 * flags. The transitions the phase may take are data (HOST_PHASE_TRANSITIONS), checked by
 * `enterPhase`: a step reported in the wrong phase throws HostPhaseError instead of being
 * silently misread. docs/host-workflow.md draws the phases and their transitions.
 */
import type { RenderTask } from '../contracts/activities.js';
import type { FetchedItem } from './host-outcomes.js';
import type { HostQueue } from './host-queue.js';
import type { HostWait } from './host-wait-report.js';

export interface HostLoopOptions {
  /** The task queue the host's claims name, for the host's later runs. */
  taskQueue: string;
  /** `<workflowId>/<runId>`: burst claim tokens are unique per run and stable across replays. */
  runKey: string;
  /** The workflow's replay-safe randomness (jitter). */
  random: () => number;
}

/** What the loop's parts (claims, bursts, renders) read and change: the host's queue, the loop's state, its options. */
export interface HostLoopContext {
  queue: HostQueue;
  loop: HostLoopState;
  options: HostLoopOptions;
}

/**
 * Where the workflow is in its step protocol with the loop:
 * - `ready`: the loop decides the next step (`next`).
 * - `claiming`: a claim step is out; `claimReported` comes next.
 * - `claimed`: the loop's own claim returned; the next step fetches from the queue, it does not claim again.
 * - `waiting`: a wait step is out; `waited` comes next. It ends on what changed since it began
 *   (HostLoopState.atWaitStart: a signal, a request's outcome, renders queued).
 * - `releasing`: the host was released in Postgres; the run ends, unless a wake came (then `next`).
 * - `continuing`: the run continues as new (terminal).
 * - `failed`: the run fails (terminal).
 */
export type HostPhase =
  | { name: 'ready' }
  | { name: 'claiming' }
  | { name: 'claimed' }
  | {
      name: 'waiting';
      wait: HostWait;
      /** The wait is for renders only: after it, claims are tried again. */
      claimAfter: boolean;
    }
  | { name: 'releasing' }
  | { name: 'continuing' }
  | { name: 'failed' };

export type HostPhaseName = HostPhase['name'];

/** Every step `next` may return leads to one of these. */
const AFTER_NEXT: readonly HostPhaseName[] = ['ready', 'claiming', 'waiting', 'releasing', 'continuing', 'failed'];

/**
 * The phases each phase may move to. `claimed` is entered only from a claim; the terminal phases
 * lead nowhere. From `releasing` the loop decides only after a wake, which keeps it from
 * releasing again before it claims.
 */
export const HOST_PHASE_TRANSITIONS: Readonly<Record<HostPhaseName, readonly HostPhaseName[]>> = Object.freeze({
  ready: AFTER_NEXT,
  claiming: ['claimed', 'releasing'],
  claimed: AFTER_NEXT,
  waiting: ['ready'],
  releasing: AFTER_NEXT.filter((name) => name !== 'releasing'),
  continuing: [],
  failed: [],
});

/**
 * The back queue's refill (Mercator):
 * - `open`: the loop claims when its queue runs low.
 * - `exhausted`: the last claim found nothing; no claim of its own until a wake, an idle spell or a burst's claim.
 * - `riding`: a burst in flight carries a claim that refills the queue; the loop does not claim beside it.
 */
export type ClaimState = 'open' | 'exhausted' | 'riding';

/** The fetch burst under way: none, one, or one started before the host's next fetch time (wait for it, not for a timer). */
export type BurstState = 'none' | 'in-flight' | 'early';

/**
 * Whether the run's first burst may be a local activity: `not-here` (the worker of the loop's
 * latest claim runs no bursts), `available`, or `spent` (the run started a burst: only its first may be local).
 */
export type LocalBurstState = 'not-here' | 'available' | 'spent';

export interface HostLoopCounters {
  /** Signals this run (continue-as-new past MAX_SIGNALS_PER_RUN). */
  signals: number;
  /** Signals and fatal failures: a wait on 'change' ends when this moves. */
  changes: number;
  /** Settles under way: the run does not end or continue beside one. */
  settles: number;
  /** Claims given to bursts this run (their tokens). */
  burstClaims: number;
  /** Renders queued this run: a wait ends to start them. */
  rendersQueued: number;
}

export interface HostLoopState {
  phase: HostPhase;
  claim: ClaimState;
  burst: BurstState;
  localBurst: LocalBurstState;
  /**
   * What the loop's next claim asks for besides URLs: the host's saved record (politeness,
   * operator settings), when neither a claim read it nor the run carried it; and the run's start
   * mark (hosts.run_started_at) when it needs no record: after a release the run went on from (a
   * wake came), or in a continued run. Else a host woken meanwhile would look unstarted.
   */
  nextClaim: { withHostRecord: boolean; markRunStarted: boolean };
  /** A wake arrived since the loop last decided (a release raced with it: the run goes on). */
  woken: boolean;
  /** The last burst released the host (claim.releaseIfDone) and left nothing to do. */
  releasedByBurst: boolean;
  counters: HostLoopCounters;
  /** The counters when the latest wait began: a wait ends on what changed since. */
  atWaitStart: { outcomes: number; changes: number; rendersQueued: number };
  /**
   * Bodies of the last burst, to be parsed beside the next burst's requests (one activity for
   * both). Counted in pendingParses. Every step but a burst flushes them, so they are only carried
   * when the next burst starts at once, and never sit behind a pause, a delay or an empty queue.
   */
  carriedParses: FetchedItem[];
  /** The render holding the host's turn, if any. */
  renderInFlight?: RenderTask;
  /** A failure no activity retry could absorb: the run fails visibly rather than look alive. */
  failure?: string;
}

/** The state a run starts in: `carried` when it continues a previous run (whose host record it holds). */
export function initialHostLoopState(carried: boolean): HostLoopState {
  return {
    phase: { name: 'ready' },
    claim: 'open',
    burst: 'none',
    localBurst: 'not-here',
    nextClaim: { withHostRecord: !carried, markRunStarted: carried },
    woken: false,
    releasedByBurst: false,
    counters: { signals: 0, changes: 0, settles: 0, burstClaims: 0, rendersQueued: 0 },
    atWaitStart: { outcomes: 0, changes: 0, rendersQueued: 0 },
    carriedParses: [],
  };
}

/** A step reported in a phase that does not expect it: a bug in the workflow's wiring, not a state to go on from. */
export class HostPhaseError extends Error {
  readonly code = 'HOST_PHASE_ILLEGAL_TRANSITION';
  constructor(
    readonly from: HostPhaseName,
    readonly to: HostPhaseName | undefined,
    readonly event: string,
  ) {
    super(`host loop: ${event} is not allowed in phase '${from}'${to === undefined ? '' : ` (to '${to}')`}; the workflow must report each step before deciding the next (docs/host-workflow.md)`);
    this.name = 'HostPhaseError';
  }
}

/** Moves `state` to `to`, if HOST_PHASE_TRANSITIONS allows it from its phase; else throws HostPhaseError. */
export function enterPhase(state: HostLoopState, to: HostPhase, event: string): void {
  if (!HOST_PHASE_TRANSITIONS[state.phase.name].includes(to.name)) throw new HostPhaseError(state.phase.name, to.name, event);
  state.phase = to;
}

/** Throws HostPhaseError unless `state` is in one of `phases`. */
export function expectPhase(state: HostLoopState, phases: readonly HostPhaseName[], event: string): void {
  if (!phases.includes(state.phase.name)) throw new HostPhaseError(state.phase.name, undefined, event);
}
