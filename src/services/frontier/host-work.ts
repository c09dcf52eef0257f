/**
 * A host's work in the store: claiming frontier entries into its back queue (with its host record,
 * releasing the host when nothing is left), and recording the long waits it reports.
 */
import { takeHostClaim } from '../../storage/postgres/frontier-claims.js';
import { recordHostWait } from '../../storage/postgres/crawl-waits-repository.js';
import type { ClaimHostWorkInput, ClaimHostWorkResult, HostWaitReport } from '../../contracts/activities.js';
import type { ActivityDeps } from '../deps.js';

/** Who claims: the claim's token, and whether no earlier run of this call can have claimed under it. */
export interface HostClaimer {
  claimToken: string;
  /** A fresh token claims anew; a token seen before returns what its first run took. */
  freshToken: boolean;
}

export async function claimHostWork(deps: ActivityDeps, input: ClaimHostWorkInput, claimer: HostClaimer): Promise<ClaimHostWorkResult> {
  const withHostRecord = input.withHostRecord !== false;
  // The run's beginning and its release ride in the claim's own statements (takeHostClaim).
  const claim = await takeHostClaim(
    deps.pool,
    { host: input.host, maxItems: input.maxItems, claimToken: claimer.claimToken, random: Math.random, freshToken: claimer.freshToken },
    {
      startRun: withHostRecord || input.markRunStarted === true,
      ...(input.releaseIfEmpty ? { releaseIfEmpty: { politeness: input.politeness, paused: input.paused, delayOverrideMs: input.delayOverrideMs }, releaseKeepsRecord: withHostRecord } : {}),
    },
  );
  const host = withHostRecord ? claim.hostRecord : undefined;
  return { items: claim.items, released: claim.released, ...(host ? { host } : {}) };
}

/** A host's long wait as it begins: what `crawler status` and the progress line say the crawl waits for. */
export async function reportHostWait(deps: ActivityDeps, input: HostWaitReport): Promise<void> {
  await recordHostWait(deps.pool, input);
}
