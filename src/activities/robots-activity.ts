/**
 * The robots.txt refresh activity: one origin per activity, in a politeness slot of the host
 * workflow. The refresh is services/fetching/robots-refresher.ts's.
 */
import type { RefreshRobotsInput, RefreshRobotsResult } from '../contracts/activities.js';
import type { RobotsRefresher } from '../services/fetching/robots-refresher.js';
import { activityCallToken } from './support/activity-call-token.js';

export function createRobotsActivities(refresher: RobotsRefresher) {
  /** One origin per activity: the host workflow's refresh, in a politeness slot of its own. */
  async function refreshRobots(input: RefreshRobotsInput): Promise<RefreshRobotsResult> {
    return refresher(input, activityCallToken());
  }
  return { refreshRobots };
}
