/**
 * The work a fetch burst does beside its requests: the previous burst's parses, its own pages'
 * parses, settles, claims and the host's release, each reporting a failure instead of throwing it
 * (the requests' outcomes must reach the workflow, which recovers what failed here).
 */
import type { HostPolitenessState } from '../../domain/politeness/index.js';
import { readFetchPreflights, type FetchedBodyRecords, type FetchPreflight } from '../../storage/postgres/fetch-repository.js';
import { takeHostClaim, type HostClaim, type HostClaimOptions } from '../../storage/postgres/frontier-claims.js';
import { releaseHost, type HostRelease } from '../../storage/postgres/host-repository.js';
import type {
  BurstClaim,
  FetchBurstInput,
  FetchBurstOutcome,
  FetchUrlInput,
  HostWorkItem,
  ParseBatchInput,
  ParseBatchOutcome,
  ParseBatchResult,
  ParseDocumentInput,
  RefreshRobotsResult,
  SettleOutcome,
  SettleUrlInput,
  SettleUrlResult,
} from '../../contracts/activities.js';
import type { FetchedPage } from '../documents/page-analysis.js';
import { failedParseOutcome, parsedOutcome, type PageParser } from '../documents/page-parser.js';
import type { ActivityDeps } from '../deps.js';
import type { ActivityScope, ScopeWarn } from './activity-scope.js';

/** A page's fetch records left to its parse's transaction, and the check its stored body needs after it (UrlFetchOptions.deferRecord). */
export interface DeferredRecords {
  records: FetchedBodyRecords;
  keepStored?: () => Promise<string>;
}

/** parseBatch reports each body's failure; a failure of the batch itself fails every body, not the burst. */
export function parseBeside(parseBatch: (input: ParseBatchInput) => Promise<ParseBatchResult>, items: ParseBatchInput['items']): Promise<ParseBatchOutcome[]> {
  return parseBatch({ items }).then(
    (result) => result.outcomes,
    (error: unknown) => items.map((): ParseBatchOutcome => ({ ok: false, error: error instanceof Error ? error.message : String(error) })),
  );
}

/** One promise per URL from one read for them all; a failed read fails each URL's fetch when it comes to it. */
export function preflightsOf(deps: ActivityDeps, batch: readonly FetchUrlInput[]): Promise<FetchPreflight>[] {
  const read = readFetchPreflights(deps.pool, batch);
  // Awaited only when each URL's turn comes: not an unhandled rejection meanwhile.
  read.catch(() => undefined);
  return batch.map((_, i) => {
    const one = read.then((all) => all[i]!);
    one.catch(() => undefined);
    return one;
  });
}

/** One of the burst's own pages, as parseBatch would parse it alone: a failure is reported, not thrown. */
export function parseOwn(parsePage: PageParser, item: ParseDocumentInput, fetched: FetchedPage): Promise<ParseBatchOutcome> {
  return parsePage(item, fetched).then(
    (result): ParseBatchOutcome => parsedOutcome(result),
    (error: unknown): ParseBatchOutcome => failedParseOutcome(error),
  );
}

/** A failed settle is reported by its absence (the workflow settles the URL), not thrown. */
export function settleWithinBurst(settleUrl: (input: SettleUrlInput) => Promise<SettleUrlResult>, item: HostWorkItem, outcome: SettleOutcome, warn: ScopeWarn): Promise<boolean> {
  return settleUrl({ crawlId: item.crawlId, fingerprint: item.fingerprint, generation: item.generation, url: item.url, outcome }).then(
    () => true,
    (error: unknown) => {
      warn('settle inside a fetch burst failed; the host workflow settles the URL', { url: item.url, error: String(error) });
      return false;
    },
  );
}

/** A failed release is reported as none, not thrown: the workflow's own claim releases the host. */
export function releaseWithinBurst(deps: ActivityDeps, host: string, politeness: HostPolitenessState, settings: NonNullable<BurstClaim['releaseIfDone']>, warn: ScopeWarn): Promise<boolean> {
  return releaseHost(deps.pool, { host, ...burstRelease(politeness, settings) }).then(
    () => true,
    (error: unknown) => {
      warn('release beside a fetch burst failed; the host workflow releases the host', { host, error: String(error) });
      return false;
    },
  );
}

/**
 * A failed claim is reported by its absence, not thrown: the requests' outcomes must reach the
 * workflow. `options`: preflights for URLs this burst fetches next, the host's release when the
 * claim takes nothing (takeHostClaim).
 */
export function claimWithinBurst(
  deps: ActivityDeps,
  scope: ActivityScope,
  host: string,
  claim: NonNullable<FetchBurstInput['claim']>,
  claimedBefore: boolean,
  options: HostClaimOptions = {},
): Promise<HostClaim | undefined> {
  // Each burst gets a token of its own, so on its first try no claim has used it yet; a burst
  // claiming again under it (extending itself) wants new URLs, not those it took before. A local
  // burst run again after its workflow task was lost is attempt 1 again: its token may have claimed.
  const freshToken = claimedBefore || (scope.attempt === 1 && !scope.isLocal);
  return takeHostClaim(deps.pool, { host, maxItems: claim.maxItems, claimToken: claim.claimToken, random: Math.random, freshToken }, options).catch((error: unknown) => {
    scope.warn('claim beside a fetch burst failed; the host workflow recovers it by its token', { host, error: String(error) });
    return undefined;
  });
}

/** The release a burst's claim makes when it takes nothing: the burst's politeness state and the settings the workflow gave. */
export function burstRelease(politeness: HostPolitenessState, settings: NonNullable<BurstClaim['releaseIfDone']>): HostRelease {
  return { politeness, paused: settings.paused, delayOverrideMs: settings.delayOverrideMs };
}

/** Whichever comes first: one of `promises` settling (they must not reject), or `timeoutMs`. */
export async function firstOrTimeout(promises: readonly Promise<void>[], timeoutMs: number): Promise<'settled' | 'timed-out'> {
  let timer: NodeJS.Timeout | undefined;
  try {
    return await Promise.race([Promise.race(promises).then(() => 'settled' as const), new Promise<'timed-out'>((resolve) => (timer = setTimeout(() => resolve('timed-out'), timeoutMs)))]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Whether the burst left the workflow nothing to do: every URL parsed or settled here, every
 * carried body parsed, no page waiting for a render, and no robots.txt found unreachable (its
 * origin's URLs would wait for it).
 */
export function everyUrlEnded(
  outcomes: readonly FetchBurstOutcome[],
  parseOutcomes: readonly ParseBatchOutcome[] | undefined,
  robots: readonly { refreshed: RefreshRobotsResult }[],
): boolean {
  return (
    outcomes.every((outcome) => outcome.kind === 'done' && (outcome.settled === true || (outcome.parsed?.ok === true && outcome.parsed.renders === undefined))) &&
    (parseOutcomes ?? []).every((parsed) => parsed.ok && parsed.renders === undefined) &&
    robots.every(({ refreshed }) => isReadableRefresh(refreshed))
  );
}

/** A refreshed robots.txt that was read: not unreachable, no transport failure. */
export function isReadableRefresh(refreshed: RefreshRobotsResult): boolean {
  return refreshed.policyKind !== 'disallow-all' && refreshed.transportFailure === undefined;
}

/** A claimed URL as the workflow holds it: the host delay is added per request. */
export function withoutHostDelay(item: FetchUrlInput): HostWorkItem {
  const { hostDelayMs: _hostDelayMs, ...rest } = item;
  return rest;
}
