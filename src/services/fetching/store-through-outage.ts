/**
 * A fetched body waits for the object store to come back instead of failing its fetch. A body
 * that failed to store was lost with its activity, and the retry fetched it again: a MinIO outage
 * cost the hosts one request per page per burst retry. Here the body, already in hand, is tried
 * again with a growing delay while the store is down, for a bounded time; the caller stops its
 * host's requests meanwhile (fetch-burst.ts), so nothing else is fetched that could not
 * be kept.
 */
import { TypedFailure } from '../../domain/failures/index.js';

/** The failure type of a body that could not be stored within the patience. */
export const STORAGE_UNAVAILABLE = 'StorageUnavailable';

export interface StoreOutageOptions {
  /** Longest a body waits for the store, ms, from its first failed try; then its fetch fails. */
  patienceMs: number;
  /** Wait before the second try, ms; each later wait doubles, up to maxRetryDelayMs. */
  firstRetryDelayMs: number;
  maxRetryDelayMs: number;
}

/** Patience fits a burst's 20 min timeout with room for its other pages; the one-URL activity passes less. */
export const DEFAULT_STORE_OUTAGE: StoreOutageOptions = { patienceMs: 5 * 60_000, firstRetryDelayMs: 1_000, maxRetryDelayMs: 10_000 };

export interface StoreOutageHooks {
  nowMs: () => number;
  /** An activity's Context.sleep: a cancelled activity stops waiting. */
  sleepMs: (ms: number) => Promise<void>;
  /** Keeps the activity alive while it waits (its heartbeat timeout is shorter than the patience). */
  heartbeat: () => void;
  /** A try failed; the next comes at nextTryAtMs. `firstFailureAtMs` is when this outage began for this body. */
  onFailure?: (error: unknown, firstFailureAtMs: number, nextTryAtMs: number) => void;
  /** A try succeeded after at least one failure. */
  onRecovered?: () => void;
}

/**
 * Runs `store` until it succeeds, or throws StorageUnavailable (retryable: Temporal's policy
 * decides) once the patience is spent, naming what was stored and the last error.
 */
export async function storeThroughOutage<T>(what: string, store: () => Promise<T>, options: StoreOutageOptions, hooks: StoreOutageHooks): Promise<T> {
  let firstFailureAtMs: number | undefined;
  for (let failures = 0; ; failures++) {
    try {
      const stored = await store();
      if (firstFailureAtMs !== undefined) hooks.onRecovered?.();
      return stored;
    } catch (error) {
      const nowMs = hooks.nowMs();
      firstFailureAtMs ??= nowMs;
      const delayMs = Math.min(options.maxRetryDelayMs, options.firstRetryDelayMs * 2 ** failures);
      const nextTryAtMs = nowMs + delayMs;
      if (nextTryAtMs - firstFailureAtMs > options.patienceMs) {
        throw new TypedFailure(
          STORAGE_UNAVAILABLE,
          `could not store ${what} in ${Math.round((nowMs - firstFailureAtMs) / 1000)} s of tries (${failures + 1} tries): ${errorText(error)}; is the object store up? (crawler stack up restarts a local one)`,
          { nonRetryable: false },
        );
      }
      hooks.onFailure?.(error, firstFailureAtMs, nextTryAtMs);
      hooks.heartbeat();
      await hooks.sleepMs(delayMs);
      hooks.heartbeat();
    }
  }
}

function errorText(error: unknown): string {
  if (error instanceof Error) {
    const code = (error as { code?: unknown }).code;
    return typeof code === 'string' && !error.message.includes(code) ? `${code}: ${error.message}` : error.message;
  }
  return String(error);
}
