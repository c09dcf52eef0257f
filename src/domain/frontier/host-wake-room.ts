import { requireNumber } from './validate.js';

// How many idle hosts the frontier may wake now: backpressure from the workers to the frontier.
// A woken host is a workflow run queued in Temporal until a worker begins it. Waking faster than
// the workers begin runs only lengthens that queue (bench/README.md, "Figures behind the defaults"):
// every queued run is persisted by the server, waits unseen, and has left the frontier's
// priority order for the queue's. So the queue is held to a few seconds of the workers' own pace.

const CODE = 'FRONTIER_WAKE_INPUT_INVALID';

export interface HostWakeRoomInput {
  /** Hosts woken and not yet begun by any worker (they share the workers whatever their crawl), >= 0. */
  hostsAwaitingWorker: number;
  /** Hosts whose runs workers began in the last `startWindowSeconds`, >= 0: the workers' pace. */
  hostsBegunInWindow: number;
  /** The window `hostsBegunInWindow` counts over, in seconds, > 0. */
  startWindowSeconds: number;
}

export interface HostWakeRoomOptions {
  /** Seconds of the workers' recent pace the queue of woken hosts may hold, > 0. Default 5. */
  queueSeconds?: number;
  /**
   * Hosts that may await a worker however slow the recent pace, >= 1. Default 100: a crawl's
   * first tick, before any run began, and a pace that fell to nothing (a worker restarting)
   * still wake hosts, and so learn the pace again.
   */
  minHostsAwaitingWorker?: number;
}

export const DEFAULT_HOST_WAKE_ROOM_OPTIONS: Readonly<Required<HostWakeRoomOptions>> = Object.freeze({ queueSeconds: 5, minHostsAwaitingWorker: 100 });

/**
 * Idle hosts the frontier may wake now, an integer >= 0: the queue of woken hosts may hold
 * `queueSeconds` of the pace at which workers begin runs, and never fewer than
 * `minHostsAwaitingWorker`; what already waits in it is subtracted. More workers begin runs
 * faster, so the room grows with them without configuration.
 *
 * @throws FrontierInputError `FRONTIER_WAKE_INPUT_INVALID` naming the bad field.
 */
export function hostWakeRoom(input: HostWakeRoomInput, options: HostWakeRoomOptions = {}): number {
  requireNumber(CODE, 'hostsAwaitingWorker', input.hostsAwaitingWorker, { min: 0, integer: true });
  requireNumber(CODE, 'hostsBegunInWindow', input.hostsBegunInWindow, { min: 0, integer: true });
  requireNumber(CODE, 'startWindowSeconds', input.startWindowSeconds, { min: 0, minExclusive: true });
  const queueSeconds = requireNumber(CODE, 'queueSeconds', options.queueSeconds ?? DEFAULT_HOST_WAKE_ROOM_OPTIONS.queueSeconds, { min: 0, minExclusive: true });
  const minimum = requireNumber(CODE, 'minHostsAwaitingWorker', options.minHostsAwaitingWorker ?? DEFAULT_HOST_WAKE_ROOM_OPTIONS.minHostsAwaitingWorker, { min: 1, integer: true });
  const beginsPerSecond = input.hostsBegunInWindow / input.startWindowSeconds;
  const queueLimit = Math.max(minimum, Math.ceil(beginsPerSecond * queueSeconds));
  return Math.max(0, queueLimit - input.hostsAwaitingWorker);
}
