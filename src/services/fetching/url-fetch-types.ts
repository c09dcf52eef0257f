import type { HostOutcome } from '../../domain/politeness/index.js';
import type { FetchUrlInput, FetchUrlResult } from '../../contracts/activities.js';
import type { FetchedBodyRecords, FetchPreflight } from '../../storage/postgres/fetch-repository.js';
import type { HeldBody, HeldBodyBudget } from './held-bodies.js';

/**
 * The fetch of one URL, for the fetch activity and for fetch bursts. `attemptNumber` is this
 * try's number under the failure type's policy (1 for the first): it keys the attempt record and
 * decides whether the policy retries. Runs inside an activity (cancellation, heartbeats).
 */
export type UrlFetcher = (input: FetchUrlInput, attemptNumber: number, options?: UrlFetchOptions) => Promise<FetchUrlResult>;

/** What a fetch burst hands the fetch of one of its URLs. */
export interface UrlFetchOptions {
  /** Keep the decoded body of a page to parse, for the burst's own parse. */
  holding?: BodyHolding;
  /** The URL's preflight, read with the burst's others in one statement; used when its origin is the URL's. */
  preflight?: { origin: string; read: Promise<FetchPreflight> };
  /**
   * For a page to parse: hand its records to the burst's parse, which writes them in its own
   * transaction (a round trip fewer per page), instead of writing them here. The prune's grace
   * period covers an object this fetch uploaded until its record commits. A body found already
   * stored (a recrawl's unchanged page) is deferred only when held in memory, with `keepStored`:
   * the caller must run it once the records commit, to make sure the object still exists then
   * (body-retention.ts), and take the body's key from it. A body in a file is recorded here.
   */
  deferRecord?: (records: FetchedBodyRecords, keepStored?: () => Promise<string>) => void;
  /**
   * Called when a 2xx body to keep has arrived whole, before it is stored and recorded, with what
   * the response tells the host's politeness (as hostOutcomeOfResult of the result would): a burst
   * starts its next request meanwhile. What fails after it is the store, not the host.
   */
  onStoring?: (hostOutcome: HostOutcome) => void;
  /**
   * The caller refreshes a stale robots.txt itself (a burst given refreshRobots): an unreachable
   * file whose retry time has passed is then stale (`robots-stale`), not a RobotsUnreachable
   * failure, so that it is asked for again before the URL, not after the URL's next retry.
   */
  refreshesRobots?: boolean;
  /**
   * Called with true when this fetch's body found the object store failing and waits for it
   * (store-through-outage.ts), and with false once it is stored or given up: a burst sends no
   * request meanwhile, so it fetches nothing it could not keep.
   */
  onStoreWaiting?: (waiting: boolean) => void;
}

/** A fetch burst's request to keep the decoded body of a page it will parse (held-bodies.ts). */
export interface BodyHolding {
  budget: HeldBodyBudget;
  /** Called with the held body of a stored page to parse; the taker releases it. */
  take(held: HeldBody): void;
}
