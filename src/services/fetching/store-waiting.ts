import { redactCredentials } from '../../domain/url/index.js';
import { recordStorageFailure, recordStorageRecovered } from '../../storage/postgres/crawl-waits-repository.js';
import type { ActivityDeps } from '../deps.js';
import type { ActivityScope } from './activity-scope.js';
import { DEFAULT_STORE_OUTAGE, storeThroughOutage } from './store-through-outage.js';

/** Who waits for the store: the crawl whose health records the outage, and the caller told of the wait. */
export interface StoreWaiter {
  crawlId: string;
  /** Called with true when the store first fails, with false once the body is stored or given up. */
  onStoreWaiting?: (waiting: boolean) => void;
}

/**
 * A store step that waits out an object store outage with the body in hand; the crawl's storage
 * health records each failed try and the recovery (what the progress line and status show).
 */
export async function storeWaitingOutOutages<T>(deps: ActivityDeps, scope: ActivityScope, waiter: StoreWaiter, what: string, store: () => Promise<T>): Promise<T> {
  let waiting = false;
  // Half the activity's time at most: the fetch before it took some, and a retry needs the rest.
  const patienceMs = Math.min(DEFAULT_STORE_OUTAGE.patienceMs, scope.startToCloseTimeoutMs / 2);
  try {
    return await storeThroughOutage(what, store, { ...DEFAULT_STORE_OUTAGE, patienceMs }, {
      nowMs: deps.now,
      sleepMs: (ms) => scope.sleepMs(ms),
      heartbeat: () => scope.heartbeat(),
      onFailure: (error, failingSinceMs) => {
        if (!waiting) {
          waiting = true;
          waiter.onStoreWaiting?.(true);
        }
        deps.metrics?.storageFailed();
        const text = redactCredentials(error instanceof Error ? error.message : String(error));
        // Bookkeeping: a Postgres that fails too must not fail the store's wait.
        recordStorageFailure(deps.pool, { crawlId: waiter.crawlId, error: text, failingSinceMs }).catch(() => undefined);
      },
      onRecovered: () => void recordStorageRecovered(deps.pool, waiter.crawlId).catch(() => undefined),
    });
  } finally {
    if (waiting) waiter.onStoreWaiting?.(false);
  }
}
