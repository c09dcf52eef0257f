import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { DEFAULT_HOST_WAKE_ROOM_OPTIONS, FrontierInputError, hostWakeRoom } from '../../../../src/domain/frontier/index.js';

const pace = (hostsBegunInWindow: number, startWindowSeconds = 10) => ({ hostsBegunInWindow, startWindowSeconds });

describe('hostWakeRoom: backpressure from the workers', () => {
  it('holds the queue of woken hosts to a few seconds of the pace at which workers begin runs', () => {
    // 40 runs begun a second, 5 s of it: 200 may wait; 150 do.
    expect(hostWakeRoom({ hostsAwaitingWorker: 150, ...pace(400) })).toBe(50);
    expect(hostWakeRoom({ hostsAwaitingWorker: 0, ...pace(400) })).toBe(200);
    expect(hostWakeRoom({ hostsAwaitingWorker: 0, ...pace(1000) }, { queueSeconds: 2 })).toBe(200);
  });

  it('wakes nobody while the queue is full or over it', () => {
    expect(hostWakeRoom({ hostsAwaitingWorker: 200, ...pace(400) })).toBe(0);
    // The old, unbounded wake: thousands queued while a few dozen ran.
    expect(hostWakeRoom({ hostsAwaitingWorker: 7459, ...pace(300) })).toBe(0);
  });

  it('still wakes the minimum before any run began (a crawl starting, a worker restarting)', () => {
    expect(hostWakeRoom({ hostsAwaitingWorker: 0, ...pace(0) })).toBe(DEFAULT_HOST_WAKE_ROOM_OPTIONS.minHostsAwaitingWorker);
    expect(hostWakeRoom({ hostsAwaitingWorker: 30, ...pace(0) }, { minHostsAwaitingWorker: 50 })).toBe(20);
    expect(hostWakeRoom({ hostsAwaitingWorker: 100, ...pace(0) })).toBe(0);
  });

  it('grows with the workers: twice the pace, twice the room', () => {
    const one = hostWakeRoom({ hostsAwaitingWorker: 0, ...pace(1000) });
    const two = hostWakeRoom({ hostsAwaitingWorker: 0, ...pace(2000) });
    expect(two).toBe(2 * one);
  });

  it('rounds a fractional pace up, never below the minimum', () => {
    expect(hostWakeRoom({ hostsAwaitingWorker: 0, hostsBegunInWindow: 1, startWindowSeconds: 3 }, { queueSeconds: 1, minHostsAwaitingWorker: 1 })).toBe(1);
  });

  it('is an integer in [0, limit], and never lets the queue grow past its limit', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 100_000 }),
        fc.integer({ min: 0, max: 100_000 }),
        fc.double({ min: 0.1, max: 600, noNaN: true }),
        fc.double({ min: 0.1, max: 60, noNaN: true }),
        fc.integer({ min: 1, max: 1000 }),
        (awaiting, begun, windowSeconds, queueSeconds, minimum) => {
          const room = hostWakeRoom({ hostsAwaitingWorker: awaiting, hostsBegunInWindow: begun, startWindowSeconds: windowSeconds }, { queueSeconds, minHostsAwaitingWorker: minimum });
          const limit = Math.max(minimum, Math.ceil((begun / windowSeconds) * queueSeconds));
          expect(Number.isInteger(room)).toBe(true);
          expect(room).toBeGreaterThanOrEqual(0);
          expect(awaiting + room).toBeLessThanOrEqual(Math.max(limit, awaiting));
          if (awaiting < limit) expect(awaiting + room).toBe(limit);
        },
      ),
    );
  });

  it('names the bad field and what to pass', () => {
    expect(() => hostWakeRoom({ hostsAwaitingWorker: -1, ...pace(0) })).toThrow(FrontierInputError);
    expect(() => hostWakeRoom({ hostsAwaitingWorker: 1.5, ...pace(0) })).toThrow(/hostsAwaitingWorker/);
    expect(() => hostWakeRoom({ hostsAwaitingWorker: 0, hostsBegunInWindow: Number.NaN, startWindowSeconds: 10 })).toThrow(/hostsBegunInWindow/);
    expect(() => hostWakeRoom({ hostsAwaitingWorker: 0, ...pace(5, 0) })).toThrow(/startWindowSeconds.*> 0/);
    expect(() => hostWakeRoom({ hostsAwaitingWorker: 0, ...pace(5) }, { queueSeconds: 0 })).toThrow(/queueSeconds/);
    expect(() => hostWakeRoom({ hostsAwaitingWorker: 0, ...pace(5) }, { minHostsAwaitingWorker: 0 })).toThrow(/minHostsAwaitingWorker/);
  });
});
