/**
 * Activities of the host workflow that touch only the store: refilling the back queue from the
 * frontier, settling each URL's outcome, and reporting the host's long waits.
 */
import { Context } from '@temporalio/activity';
import type { ClaimHostWorkInput, ClaimHostWorkResult, HostWaitReport, SettleUrlInput, SettleUrlResult } from '../contracts/activities.js';
import type { ActivityDeps } from '../services/deps.js';
import type { CrawlContextCache } from '../services/frontier/crawl-context.js';
import { claimHostWork as claimWork, reportHostWait as recordWait } from '../services/frontier/host-work.js';
import { settleUrl as settleUrlOutcome } from '../services/frontier/url-settlement.js';
import { activityCallToken } from './support/activity-call-token.js';

export function createHostActivities(deps: ActivityDeps, crawls: CrawlContextCache) {
  async function claimHostWork(input: ClaimHostWorkInput): Promise<ClaimHostWorkResult> {
    return claimWork(deps, input, {
      claimToken: input.claimToken ?? activityCallToken(),
      // A token of this call is new on its first try; a given token may carry a burst's claim. A local
      // activity's is not: a workflow task lost after the claim committed runs it again, as attempt 1
      // under the same token, and only the lookup returns what the first run took.
      freshToken: input.claimToken === undefined && Context.current().info.attempt === 1 && !Context.current().info.isLocal,
    });
  }

  async function settleUrl(input: SettleUrlInput): Promise<SettleUrlResult> {
    return settleUrlOutcome(deps, crawls, input);
  }

  /** A host's long wait as it begins: what `crawler status` and the progress line say the crawl waits for. */
  async function reportHostWait(input: HostWaitReport): Promise<void> {
    await recordWait(deps, input);
  }

  return { claimHostWork, settleUrl, reportHostWait };
}
