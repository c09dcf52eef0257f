import { setTimeout as sleep } from 'node:timers/promises';

export interface WaitUntilOptions {
  /** Give up after this long. */
  timeoutMs: number;
  /** Pause between probes. Default: 250 ms. */
  intervalMs?: number;
  /** Checked between probes; returning true stops the wait early (the process died). Default: never. */
  abandonIf?: () => boolean;
}

export type WaitOutcome = { ready: true } | { ready: false; reason: 'timeout' | 'abandoned'; lastError: unknown };

/** Probes until one resolves true. A probe that throws counts as "not yet" and its error is kept. */
export async function waitUntil(probe: () => Promise<boolean>, options: WaitUntilOptions): Promise<WaitOutcome> {
  const deadline = Date.now() + options.timeoutMs;
  let lastError: unknown;
  for (;;) {
    try {
      if (await probe()) return { ready: true };
    } catch (error) {
      lastError = error;
    }
    if (options.abandonIf?.() === true) return { ready: false, reason: 'abandoned', lastError };
    if (Date.now() >= deadline) return { ready: false, reason: 'timeout', lastError };
    await sleep(options.intervalMs ?? 250);
  }
}

/** A one-line description of whatever a probe threw. */
export function describeError(error: unknown): string {
  if (error instanceof Error) return error.message.split('\n', 1)[0] ?? error.name;
  return error === undefined ? 'no answer' : String(error);
}
