// The event loop's recent lag, as adaptive politeness takes it off a fetch's measured time: on a
// loop kept busy in long synchronous chunks it reads about what a callback waits behind them.
import { afterEach, describe, expect, it } from 'vitest';
import { EventLoopLag } from '../../../src/http/loop-lag.js';

const BLOCK_MS = 60;

const sleepMs = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Keeps the loop busy for about `forMs`, in synchronous chunks of BLOCK_MS with one turn between. */
async function busyLoop(forMs: number): Promise<void> {
  const endAt = Date.now() + forMs;
  while (Date.now() < endAt) {
    const chunkEnd = Date.now() + BLOCK_MS;
    while (Date.now() < chunkEnd) {
      // spin
    }
    await new Promise((resolve) => setImmediate(resolve));
  }
}

describe('EventLoopLag', () => {
  const monitors: EventLoopLag[] = [];
  afterEach(() => monitors.splice(0).forEach((monitor) => monitor.stop()));

  it('rises with a loop blocked in long chunks', async () => {
    const monitor = new EventLoopLag();
    monitors.push(monitor);
    await sleepMs(100);
    expect(monitor.currentMs()).toBeGreaterThanOrEqual(0);
    await busyLoop(600);
    // A 20 ms timer behind 60 ms chunks fires about 40 ms late on average; a busier machine only adds.
    expect(monitor.currentMs()).toBeGreaterThan(BLOCK_MS / 4);
  });
});
