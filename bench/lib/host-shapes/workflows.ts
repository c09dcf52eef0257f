// The two workflow shapes a host's turn can take, reduced to what Temporal and the worker pay for
// them: the same two local activities (a claim, a burst) either in a run of the host's own (the
// product's shape: a host workflow is a Mercator back queue) or in a long-lived back-queue
// workflow that serves hosts one after another (Mercator's bounded set of back queues).
import { continueAsNew, proxyLocalActivities } from '@temporalio/workflow';
import type { HostShapeActivities } from './activities.js';

const { claim, burst, claimingBurst } = proxyLocalActivities<HostShapeActivities>({ startToCloseTimeout: '60s' });

/** One run per host. */
export async function hostShapeRun(host: string): Promise<number> {
  const { urls } = await claim(host);
  return (await burst(urls)).outcomes.length;
}

/** One run per host whose burst claims its own URLs: one local activity where the product's shape has two. */
export async function hostShapeRunClaimingBurst(host: string): Promise<number> {
  return (await claimingBurst(host)).outcomes.length;
}

export interface BackQueueInput {
  hosts: readonly string[];
  /** Hosts a run serves before it continues as new, keeping its history short. */
  hostsPerRun: number;
}

/** One back queue serving `hosts` in turn. */
export async function hostShapeBackQueue(input: BackQueueInput): Promise<number> {
  const now = input.hosts.slice(0, input.hostsPerRun);
  for (const host of now) {
    const { urls } = await claim(host);
    await burst(urls);
  }
  const rest = input.hosts.slice(now.length);
  if (rest.length > 0) return continueAsNew<typeof hostShapeBackQueue>({ ...input, hosts: rest });
  return now.length;
}
