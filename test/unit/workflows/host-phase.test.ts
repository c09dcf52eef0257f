// The host loop's phases and sub-states (src/workflows/host-phase.ts, docs/host-workflow.md): every
// transition of the table, as data and as HostLoop takes it; an illegal one throws HostPhaseError.
import { describe, expect, it } from 'vitest';
import type { ClaimHostWorkResult, FetchBurstResult, FetchUrlResult, HostWorkItem } from '../../../src/contracts/activities.js';
import { HOST_PHASE_TRANSITIONS, HostLoop, HostPhaseError, type HostPhaseName, type HostStep, type RunHistoryFacts } from '../../../src/workflows/host-loop.js';
import { enterPhase, initialHostLoopState, type HostPhase } from '../../../src/workflows/host-phase.js';
import { claimOf, fetchedPage, hostWorkItems } from '../../support/host-work-items.js';

const HOST = 'phase.example';
const T0 = Date.UTC(2026, 11, 3, 12, 0, 0);
const SMALL: RunHistoryFacts = { continueAsNewSuggested: false, historyLength: 10 };
const LARGE: RunHistoryFacts = { continueAsNewSuggested: true, historyLength: 9000 };
const PHASES: HostPhaseName[] = ['ready', 'claiming', 'claimed', 'waiting', 'releasing', 'continuing', 'failed'];

const makeItem = hostWorkItems(HOST);
const item = (minHostDelayMs = 2000): HostWorkItem => makeItem({ minHostDelayMs });
const claimed = (items: HostWorkItem[], released = false, localBursts = false): ClaimHostWorkResult => claimOf(items, { released, localBursts });
const fetched = (startedAtMs: number, finishedAtMs: number): Extract<FetchUrlResult, { kind: 'fetched' }> => fetchedPage(HOST, startedAtMs, finishedAtMs);
const notModified: FetchUrlResult = { kind: 'not-modified', status: 304, startedAtMs: T0, finishedAtMs: T0 + 5 };

const newLoop = (): HostLoop => new HostLoop(HOST, undefined, { taskQueue: 'q', runKey: 'host/phase.example/run-1', random: () => 0.5 });

function expectStep<K extends HostStep['kind']>(step: HostStep, kind: K): Extract<HostStep, { kind: K }> {
  expect(step.kind).toBe(kind);
  return step as Extract<HostStep, { kind: K }>;
}

/** A loop that claimed `items`, with fresh robots.txt rules: in phase 'claimed'. */
function claimedLoop(items: HostWorkItem[], localBursts = false): HostLoop {
  const loop = newLoop();
  expectStep(loop.next(T0, SMALL), 'claim');
  loop.claimReported(claimed(items, false, localBursts));
  loop.state.noteRobotsFreshUntil(`http://${HOST}`, T0 + 24 * 3600_000);
  return loop;
}

/** A loop back in 'ready' after fetching one URL (the fetch still in flight, one URL queued). */
function readyLoop(): { loop: HostLoop; fetching: HostWorkItem } {
  const loop = claimedLoop([item(), item()]);
  const { item: fetching } = expectStep(loop.next(T0, SMALL), 'fetch');
  expect(loop.phase).toBe('ready');
  return { loop, fetching };
}

/** A released loop: its claim released the host. */
function releasingLoop(): HostLoop {
  const loop = newLoop();
  loop.next(T0, SMALL);
  expect(loop.claimReported(claimed([], true))).toBe(true);
  expect(loop.phase).toBe('releasing');
  return loop;
}

describe('the phase table', () => {
  it('is the one docs/host-workflow.md draws', () => {
    const afterNext = ['ready', 'claiming', 'waiting', 'releasing', 'continuing', 'failed'];
    expect(HOST_PHASE_TRANSITIONS).toEqual({
      ready: afterNext,
      claiming: ['claimed', 'releasing'],
      claimed: afterNext,
      waiting: ['ready'],
      releasing: ['ready', 'claiming', 'waiting', 'continuing', 'failed'],
      continuing: [],
      failed: [],
    });
  });

  it('allows exactly its transitions; any other throws HostPhaseError, naming both phases', () => {
    const phaseNamed = (name: HostPhaseName): HostPhase => (name === 'waiting' ? { name, wait: 'change', claimAfter: false } : { name });
    for (const from of PHASES) {
      for (const to of PHASES) {
        const state = initialHostLoopState(false);
        state.phase = phaseNamed(from);
        if (HOST_PHASE_TRANSITIONS[from].includes(to)) {
          enterPhase(state, phaseNamed(to), 'test');
          expect(state.phase.name).toBe(to);
        } else {
          const thrown = (() => {
            try {
              enterPhase(state, phaseNamed(to), 'test');
            } catch (error) {
              return error;
            }
            return undefined;
          })();
          expect(thrown).toBeInstanceOf(HostPhaseError);
          expect(thrown).toMatchObject({ code: 'HOST_PHASE_ILLEGAL_TRANSITION', from, to, name: 'HostPhaseError' });
          expect(state.phase.name).toBe(from);
        }
      }
    }
  });
});

describe('HostLoop: each transition as the loop takes it', () => {
  it('ready → claiming → claimed → ready: a claim, its report, then a fetch from the queue without claiming again', () => {
    const loop = newLoop();
    expect(loop.phase).toBe('ready');
    expectStep(loop.next(T0, SMALL), 'claim');
    expect(loop.phase).toBe('claiming');
    expect(loop.claimReported(claimed([item()]))).toBe(false);
    expect(loop.phase).toBe('claimed');
    loop.state.noteRobotsFreshUntil(`http://${HOST}`, T0 + 24 * 3600_000);
    expectStep(loop.next(T0, SMALL), 'fetch');
    expect(loop.phase).toBe('ready');
  });

  it('ready → ready: a step carried out at once (a settle) leaves the loop deciding', () => {
    const loop = claimedLoop([item(), item(), item()]);
    loop.state.adoptHostRecord({ politeness: null, delayOverrideMs: null, paused: false, quarantinedReason: 'certificate expired' });
    expectStep(loop.next(T0, SMALL), 'settle');
    expect(loop.phase).toBe('ready');
    expectStep(loop.next(T0, SMALL), 'settle');
    expect(loop.phase).toBe('ready');
  });

  it('ready → waiting → ready: a wait, then waited', () => {
    const { loop } = readyLoop();
    expectStep(loop.next(T0 + 1, SMALL), 'claim');
    loop.claimReported(claimed([]));
    const wait = expectStep(loop.next(T0 + 1, SMALL), 'wait');
    expect(loop.phase).toBe('waiting');
    loop.waited(wait.wait);
    expect(loop.phase).toBe('ready');
    const again = expectStep(loop.next(T0 + 2, SMALL), 'wait');
    expect(loop.phase).toBe('waiting');
    expect(again.wait).toBe('change-or-outcome');
  });

  it('ready → continuing: continue-as-new once quiet (after waiting for it)', () => {
    const { loop, fetching } = readyLoop();
    const quiet = expectStep(loop.next(T0 + 1, LARGE), 'wait');
    expect(quiet.wait).toBe('quiet');
    loop.fetchReported(fetching, notModified, T0 + 5);
    loop.waited('quiet');
    expectStep(loop.next(T0 + 5, LARGE), 'continue-as-new');
    expect(loop.phase).toBe('continuing');
    expect(() => loop.next(T0 + 6, SMALL)).toThrow(HostPhaseError);
  });

  it('ready → failed: a fatal failure fails the run, which decides nothing after', () => {
    const { loop } = readyLoop();
    loop.failed(new Error('store down'));
    expect(expectStep(loop.next(T0 + 1, SMALL), 'fail').message).toContain('store down');
    expect(loop.phase).toBe('failed');
    expect(() => loop.next(T0 + 2, SMALL)).toThrow(HostPhaseError);
  });

  it('ready → releasing: a burst released the host and left nothing', () => {
    const { loop, burst } = burstOfAll();
    reportReleasingBurst(loop, burst);
    expectStep(loop.next(T0 + 120, SMALL), 'released');
    expect(loop.phase).toBe('releasing');
  });

  it('claiming → releasing: the claim released the idle host; the run decides again only after a wake', () => {
    const loop = releasingLoop();
    expect(() => loop.next(T0 + 1, SMALL)).toThrow(HostPhaseError);
    expect(loop.phase).toBe('releasing');
  });

  it('releasing → claiming (and on) after a wake: its claim marks the run begun', () => {
    const loop = releasingLoop();
    loop.wake();
    expect(expectStep(loop.next(T0 + 1, SMALL), 'claim').input.markRunStarted).toBe(true);
    expect(loop.phase).toBe('claiming');
  });

  it('releasing → waiting, ready, continuing, failed after a wake: the run decides as from ready', () => {
    const waits = releasingLoop();
    waits.state.enqueue([item(), item()]);
    waits.state.politenessAt(T0);
    waits.state.noteRequestStarted(T0, undefined);
    waits.wake();
    expectStep(waits.next(T0 + 1, SMALL), 'wait');
    expect(waits.phase).toBe('waiting');

    const fetches = releasingLoop();
    fetches.state.enqueue([item(), item()]);
    fetches.state.noteRobotsFreshUntil(`http://${HOST}`, T0 + 24 * 3600_000);
    fetches.wake();
    expectStep(fetches.next(T0 + 1, SMALL), 'fetch');
    expect(fetches.phase).toBe('ready');

    const continues = releasingLoop();
    continues.wake();
    expectStep(continues.next(T0 + 1, LARGE), 'continue-as-new');
    expect(continues.phase).toBe('continuing');

    const fails = releasingLoop();
    fails.wake();
    fails.failed(new Error('boom'));
    expectStep(fails.next(T0 + 1, SMALL), 'fail');
    expect(fails.phase).toBe('failed');
  });

  it('claimed → waiting: the URL claimed waits for the slot', () => {
    const { loop } = readyLoop();
    expectStep(loop.next(T0 + 1, SMALL), 'claim');
    loop.claimReported(claimed([item()]));
    expect(loop.phase).toBe('claimed');
    expectStep(loop.next(T0 + 1, SMALL), 'wait');
    expect(loop.phase).toBe('waiting');
  });

  it('claimed → claiming: a claim that found nothing on an idle host is followed by the releasing claim', () => {
    const loop = newLoop();
    loop.next(T0, SMALL);
    loop.claimReported(claimed([]));
    expect(expectStep(loop.next(T0, SMALL), 'claim').input.releaseIfEmpty).toBe(true);
    expect(loop.phase).toBe('claiming');
  });

  it('claimed → continuing, failed: an idle host decides as from ready', () => {
    const continues = newLoop();
    continues.next(T0, SMALL);
    continues.claimReported(claimed([]));
    expectStep(continues.next(T0, LARGE), 'continue-as-new');
    expect(continues.phase).toBe('continuing');

    const fails = newLoop();
    fails.next(T0, SMALL);
    fails.failed(new Error('boom'));
    fails.claimReported(claimed([]));
    expectStep(fails.next(T0, SMALL), 'fail');
    expect(fails.phase).toBe('failed');
  });

  it('claimed → releasing: a burst released the host while the loop claimed after a wake', () => {
    const { loop, burst } = burstOfAll();
    loop.burstReturned();
    loop.burstClaimTaken([]);
    loop.wake();
    expectStep(loop.next(T0 + 100, SMALL), 'claim');
    expect(loop.burstReported(burst, parsedAll(loop), T0 + 120)).toEqual([]);
    loop.claimReported(claimed([]));
    expect(loop.phase).toBe('claimed');
    expectStep(loop.next(T0 + 120, SMALL), 'released');
    expect(loop.phase).toBe('releasing');
  });

  it('throws HostPhaseError for a report out of turn: a claim not asked for, a wait not begun, a decision while claiming or waiting', () => {
    const { loop } = readyLoop();
    expect(() => loop.claimReported(claimed([]))).toThrow(HostPhaseError);
    expect(() => loop.waited('change')).toThrow(HostPhaseError);
    expectStep(loop.next(T0 + 1, SMALL), 'claim');
    expect(() => loop.next(T0 + 1, SMALL)).toThrow(HostPhaseError);
    loop.claimReported(claimed([]));
    expectStep(loop.next(T0 + 1, SMALL), 'wait');
    expect(() => loop.next(T0 + 2, SMALL)).toThrow(/next is not allowed in phase 'waiting'/);
  });
});

describe('HostLoop: the claim, burst and local-burst sub-states', () => {
  it('claim: open → exhausted by an empty claim; a wake reopens it', () => {
    const loop = newLoop();
    expect(loop.loopState().claim).toBe('open');
    loop.next(T0, SMALL);
    loop.claimReported(claimed([item()]));
    expect(loop.loopState().claim).toBe('open');
    const { loop: busy } = readyLoop();
    busy.next(T0 + 1, SMALL);
    busy.claimReported(claimed([]));
    expect(busy.loopState().claim).toBe('exhausted');
    const wait = expectStep(busy.next(T0 + 1, SMALL), 'wait');
    busy.wake();
    busy.waited(wait.wait);
    expectStep(busy.next(T0 + 2, SMALL), 'claim');
    expect(busy.loopState().claim).toBe('open');
  });

  it("claim: riding while a burst carries one; a wake does not reopen it; the burst's claim decides", () => {
    const { loop } = burstOfAll();
    expect(loop.loopState().claim).toBe('riding');
    loop.wake();
    expectStep(loop.next(T0 + 1, SMALL), 'wait');
    expect(loop.loopState().claim).toBe('riding');
    loop.burstReturned();
    loop.burstClaimTaken([]);
    expect(loop.loopState().claim).toBe('exhausted');
    const other = burstOfAll().loop;
    other.burstClaimTaken([item(100)]);
    expect(other.loopState().claim).toBe('open');
  });

  it('burst: none → in-flight → none, whether the burst returned or failed', () => {
    const { loop } = burstOfAll();
    expect(loop.loopState().burst).toBe('in-flight');
    loop.burstReturned();
    expect(loop.loopState().burst).toBe('none');
    const failed = burstOfAll();
    failed.loop.burstFailed(failed.burst);
    expect(failed.loop.loopState().burst).toBe('none');
  });

  it('local burst: available after a claim in a worker that runs bursts, spent by the first burst', () => {
    const loop = claimedLoop([item(100), item(100), item(100)], true);
    expect(loop.loopState().localBurst).toBe('available');
    expect(expectStep(loop.next(T0, SMALL), 'burst').burst.local).toBe(true);
    expect(loop.loopState().localBurst).toBe('spent');
    expect(claimedLoop([item(100)], false).loopState().localBurst).toBe('not-here');
  });

  it('the whole state is plain JSON: it survives a round trip unchanged', () => {
    const { loop } = burstOfAll();
    loop.wake();
    const state = loop.loopState();
    expect(JSON.parse(JSON.stringify(state))).toEqual(state);
    expect(state).toMatchObject({ phase: { name: 'ready' }, claim: 'riding', burst: 'in-flight', woken: true, counters: { signals: 1, changes: 1, burstClaims: 1 } });
  });
});

/** A loaded short-delay host whose burst took every queued URL (its claim may release the host). */
function burstOfAll() {
  const loop = claimedLoop([item(100), item(100)]);
  const { burst } = expectStep(loop.next(T0, SMALL), 'burst');
  expect(burst.claim?.releaseIfDone).toBeDefined();
  return { loop, burst };
}

function parsedAll(loop: HostLoop): FetchBurstResult {
  return {
    outcomes: [
      { kind: 'done', result: fetched(T0, T0 + 10), parsed: { ok: true } },
      { kind: 'done', result: fetched(T0 + 110, T0 + 120), parsed: { ok: true } },
    ],
    politeness: { ...loop.state.politenessAt(T0), inFlight: 0, nextFetchAtMs: T0 + 220 },
    requestsStarted: 2,
    claimed: [],
    released: true,
  };
}

function reportReleasingBurst(loop: HostLoop, burst: ReturnType<typeof burstOfAll>['burst']): void {
  loop.burstReturned();
  loop.burstClaimTaken([]);
  expect(loop.burstReported(burst, parsedAll(loop), T0 + 120)).toEqual([]);
}
