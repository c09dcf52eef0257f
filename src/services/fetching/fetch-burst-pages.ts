import { recordFetchedBody } from '../../storage/postgres/fetch-repository.js';
import { parseInputOf, plainSettlementOf } from '../../contracts/fetch-followup.js';
import type { FetchBurstOutcome, HostWorkItem, ParseBatchInput, ParseBatchOutcome, ParseBatchResult, ParseDocumentInput, SettleUrlInput, SettleUrlResult } from '../../contracts/activities.js';
import type { PageParser } from '../documents/page-parser.js';
import type { ActivityDeps } from '../deps.js';
import { parseOwn, settleWithinBurst, type DeferredRecords } from './fetch-burst-beside.js';
import type { HeldBody, HeldBodyBudget } from './held-bodies.js';
import { ownParseQueue } from './own-parse-queue.js';
import type { RobotsRefresher } from './robots-refresher.js';
import type { UrlFetcher } from './url-fetch-types.js';
import type { ScopeWarn } from './activity-scope.js';

/**
 * A burst's own pages parsed at once, at most. Each parse holds a pool connection through its
 * transaction, most of it waiting for round trips; one at a time, a burst's parses take most of its
 * time and hold its host's next burst back (bench/README.md, "Figures behind the defaults").
 */
const OWN_PARSES_AT_ONCE = 3;

/** What a fetch burst does its work with. */
export interface FetchBurstParts {
  fetchUrlAttempt: UrlFetcher;
  /** For the previous burst's bodies (input.parse). */
  parseBatch: (input: ParseBatchInput) => Promise<ParseBatchResult>;
  /** For this burst's own bodies, from memory when the budget held them. */
  parsePage: PageParser;
  settleUrl: (input: SettleUrlInput) => Promise<SettleUrlResult>;
  /** Whether a body records signal readings (a sitemap, a listing page): those are parsed alone, in fetch order. */
  readsSignals: (input: ParseDocumentInput) => Promise<boolean>;
  /** Bounds the bodies held between a burst's fetch and its own parse of them. */
  heldBodies: HeldBodyBudget;
  /** An origin's robots.txt refreshed in the burst. Absent: the burst ends at stale rules. */
  refreshRobots?: RobotsRefresher;
}

/**
 * What becomes of a burst's fetched pages: stored (while the next request goes out), then parsed
 * or settled here. Its own pages are parsed in fetch order, OWN_PARSES_AT_ONCE at a time; a
 * sitemap or listing page alone, after those before it, as parseBatch parses them. The URLs whose
 * result ends them without a parse are settled here, not by an activity each.
 */
export class FetchBurstPages {
  private readonly ownParses = ownParseQueue(OWN_PARSES_AT_ONCE);
  private readonly settles: Promise<void>[] = [];
  /** Fetched bodies still being stored and recorded (each then parsed or settled as above). */
  private readonly storing: Promise<void>[] = [];
  /** Of those, the ones not stored yet: a store that lags holds the next request back (backpressure). */
  readonly storingNow = new Set<Promise<void>>();
  /**
   * A store that failed ends the burst before its next request: its error fails the burst at the
   * end (settled()), and the host is not asked for bodies that could not be kept.
   */
  storeFailed = false;
  /**
   * Bodies of this burst waiting for the object store to come back (store-through-outage.ts): no
   * request goes out meanwhile, so the host is not asked for pages that could not be kept.
   */
  bodiesWaitingForStore = 0;

  constructor(
    private readonly deps: ActivityDeps,
    private readonly parts: FetchBurstParts,
    private readonly parsing: (work: Promise<ParseBatchOutcome>) => Promise<ParseBatchOutcome>,
    private readonly warn: ScopeWarn,
  ) {}

  storeWaiting(waiting: boolean): void {
    this.bodiesWaitingForStore += waiting ? 1 : -1;
  }

  /** A body being stored: awaited before the burst claims or returns; a failure there fails the burst. */
  track(storingThis: Promise<void>): void {
    storingThis.catch(() => undefined);
    this.storing.push(storingThis);
    const stored: Promise<void> = storingThis.then(
      () => void this.storingNow.delete(stored),
      () => {
        this.storeFailed = true;
        this.storingNow.delete(stored);
      },
    );
    this.storingNow.add(stored);
  }

  /** Every body stored (a store's failure throws here), then every parse and settle ended. */
  async settled(): Promise<void> {
    await Promise.all(this.storing);
    await Promise.all([this.ownParses.settled(), ...this.settles]);
  }

  /** A fetched URL's page: settled here when its result needs no parse, parsed here when it does. */
  finishOwn(outcome: Extract<FetchBurstOutcome, { kind: 'done' }>, item: HostWorkItem, held: HeldBody | undefined, deferred: DeferredRecords | undefined): void {
    const plain = plainSettlementOf(outcome.result);
    if (plain !== undefined) {
      this.settles.push(
        settleWithinBurst(this.parts.settleUrl, item, plain, this.warn).then((settled) => {
          if (settled) outcome.settled = true;
        }),
      );
      return;
    }
    if (outcome.result.kind !== 'fetched') return;
    const parseInput = parseInputOf(item, outcome.result);
    this.ownParses.add(this.parts.readsSignals(parseInput), async () => {
      try {
        const fetchRecords = deferred?.records;
        outcome.parsed = await this.parsing(parseOwn(this.parts.parsePage, parseInput, { ...(held ? { heldBody: held.bytes } : {}), ...(fetchRecords ? { fetchRecords } : {}) }));
        // A parse that failed rolled its transaction back, the fetch's records with it: they are
        // written on their own (if that fails too, the burst fails and Temporal retries it).
        if (fetchRecords && !outcome.parsed.ok) await recordFetchedBody(this.deps.pool, fetchRecords);
        // A body found stored: its object must exist now that its record has committed.
        if (deferred?.keepStored && outcome.result.kind === 'fetched') outcome.result = { ...outcome.result, bodyKey: await deferred.keepStored() };
      } finally {
        held?.release();
      }
    });
  }
}
