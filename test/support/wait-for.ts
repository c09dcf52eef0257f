// Polling for a state that real services reach eventually (a signal applied, a run started, a row
// written). The timeout only bounds a test that would otherwise hang: it asserts no speed.

export interface WaitForOptions {
  /** Give up after this long. Default 60,000 ms. */
  timeoutMs?: number;
  /** Between polls. Default 50 ms. */
  intervalMs?: number;
  /** Names what was awaited in the timeout error. */
  what?: string;
}

/** Polls `read` until `accept` holds for its value, and returns that value. */
export async function waitFor<T>(read: () => Promise<T> | T, accept: (value: T) => boolean, options: WaitForOptions = {}): Promise<T> {
  const deadline = Date.now() + (options.timeoutMs ?? 60_000);
  let last: T | undefined;
  let lastError: unknown;
  for (;;) {
    try {
      last = await read();
      lastError = undefined;
      if (accept(last)) return last;
    } catch (error) {
      lastError = error;
    }
    if (Date.now() > deadline) {
      const seen = lastError !== undefined ? `last error: ${String(lastError)}` : `last value: ${JSON.stringify(last)}`;
      throw new Error(`waitFor: ${options.what ?? 'condition'} not reached in ${options.timeoutMs ?? 60_000} ms; ${seen}`);
    }
    await sleepMs(options.intervalMs ?? 50);
  }
}

export function sleepMs(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
