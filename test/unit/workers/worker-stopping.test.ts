// The worker's shutdown signal takes a listener per waiting burst without Node's leak warning.
import { afterEach, describe, expect, it } from 'vitest';
import { sleepUntilMs } from '../../../src/services/fetching/sleep-until.js';
import { createWorkerStopping } from '../../../src/workers/worker-stopping.js';

describe('createWorkerStopping', () => {
  const warnings: Error[] = [];
  const onWarning = (warning: Error) => warnings.push(warning);
  afterEach(() => {
    process.off('warning', onWarning);
    warnings.length = 0;
  });

  it('lets 500 sleeping bursts watch it with no MaxListenersExceededWarning, and wakes them all', async () => {
    process.on('warning', onWarning);
    const stopping = createWorkerStopping();
    let nowMs = 0;
    const never = () => new Promise<void>(() => undefined);
    const sleeps = Array.from({ length: 500 }, () => sleepUntilMs(60_000, { nowMs: () => nowMs, sleepMs: never, until: stopping.signal }));
    stopping.abort();
    nowMs = 1;
    expect(await Promise.all(sleeps)).toEqual(Array(500).fill(1));
    // Node emits process warnings on the next tick.
    await new Promise((resolve) => setImmediate(resolve));
    expect(warnings.map((warning) => warning.name)).not.toContain('MaxListenersExceededWarning');
  });
});
