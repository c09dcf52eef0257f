/**
 * Waiting on a crawl through Temporal outages. A crawl is durable on the server; the CLI watching
 * it must be too: a client call that fails because the service is unreachable or slow (gRPC
 * UNAVAILABLE, DEADLINE_EXCEEDED, ...) is retried, with the outage reported, instead of ending the
 * process with a stack trace after the crawl did its work. Anything else is a real error.
 */

/** gRPC status codes a retry can outlive: UNKNOWN (a dropped connection), DEADLINE_EXCEEDED, RESOURCE_EXHAUSTED, ABORTED, INTERNAL, UNAVAILABLE. */
const TRANSIENT_GRPC_CODES: ReadonlySet<number> = new Set([2, 4, 8, 10, 13, 14]);
/** The same, as the client's error messages name them when the code is not kept. */
const TRANSIENT_MESSAGE = /\b(UNAVAILABLE|DEADLINE_EXCEEDED|RESOURCE_EXHAUSTED|ECONNREFUSED|ECONNRESET|socket hang up|Connection dropped|No connection established)\b/i;

/** `error` and the errors it wraps (`cause`), outermost first, at most 8 deep. */
export function* errorChain(error: unknown): Generator<object> {
  for (let current: unknown = error, depth = 0; typeof current === 'object' && current !== null && depth < 8; depth += 1) {
    yield current;
    current = (current as { cause?: unknown }).cause;
  }
}

/** Whether `error` (or an error it wraps) says the Temporal service was unreachable or slow, not that the call was wrong. */
export function isTransientClientError(error: unknown): boolean {
  for (const current of errorChain(error)) {
    const code = (current as { code?: unknown }).code;
    if (typeof code === 'number' && TRANSIENT_GRPC_CODES.has(code)) return true;
    const message = (current as { message?: unknown }).message;
    if (typeof message === 'string' && TRANSIENT_MESSAGE.test(message)) return true;
  }
  return false;
}

export interface OutageRetryOptions {
  /** Told when an outage starts (with its start time, ms since epoch, and the error) and when it ends (undefined). */
  onOutage: (outage: { sinceMs: number; error: unknown } | undefined) => void;
  /** First wait between retries, ms (default 1000); doubles up to maxRetryDelayMs. */
  initialRetryDelayMs?: number;
  /** Longest wait between retries, ms (default 10000). */
  maxRetryDelayMs?: number;
  /** Give up after the service stayed unreachable this long, ms (default: never). */
  giveUpAfterMs?: number;
  now?: () => number;
  sleep?: (ms: number) => Promise<void>;
}

/** Runs `call` until it returns or fails with a non-transient error, waiting out transient ones. */
export async function retryThroughOutages<T>(call: () => Promise<T>, options: OutageRetryOptions): Promise<T> {
  const now = options.now ?? Date.now;
  const sleep = options.sleep ?? ((ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms)));
  const maxDelayMs = options.maxRetryDelayMs ?? 10_000;
  let delayMs = options.initialRetryDelayMs ?? 1000;
  let sinceMs: number | undefined;
  for (;;) {
    try {
      const result = await call();
      if (sinceMs !== undefined) options.onOutage(undefined);
      return result;
    } catch (error) {
      if (!isTransientClientError(error)) throw error;
      if (sinceMs === undefined) {
        sinceMs = now();
        options.onOutage({ sinceMs, error });
      }
      if (options.giveUpAfterMs !== undefined && now() - sinceMs >= options.giveUpAfterMs) throw error;
      await sleep(delayMs);
      delayMs = Math.min(maxDelayMs, delayMs * 2);
    }
  }
}
