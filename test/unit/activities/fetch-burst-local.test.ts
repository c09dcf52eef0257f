// A run's first burst may run as a local activity (LOCAL_BURST in host-loop.ts). Run again after
// its workflow task was lost, it is attempt 1 again under the same claim token: its first claim
// must look for what the token took. And a burst told it is cancelled sends no new request.
// Temporal's mock activity context, the claim statements replaced; no server.
import { MockActivityEnvironment } from '@temporalio/testing';
import { describe, expect, it, vi } from 'vitest';
import type { FetchBurstInput, FetchBurstResult, FetchUrlInput, FetchUrlResult } from '../../../src/contracts/activities.js';
import type { ClaimHostWorkInput } from '../../../src/storage/postgres/frontier-claims.js';
import { burstActivitiesFetchingWith, burstItemOf } from '../../support/burst-items.js';
import { DEFAULT_FETCH_BURST_LIMITS, DEFAULT_HOST_POLITENESS_POLICY, initialHostPolitenessState } from '../../../src/domain/politeness/index.js';

const claims = vi.hoisted(() => [] as { freshToken: boolean | undefined; claimToken: string }[]);
vi.mock('../../../src/storage/postgres/frontier-claims.js', async (original) => {
  const takeHostClaim = async (_pool: unknown, input: ClaimHostWorkInput) => {
    claims.push({ freshToken: input.freshToken, claimToken: input.claimToken });
    return { items: [], preflights: undefined, released: false };
  };
  return { ...(await original<object>()), takeHostClaim };
});

const HOST = 'local-burst.example';
const itemOf = (i: number): FetchUrlInput => burstItemOf(HOST, i);

const burstInput = (urls: number, withClaim: boolean): FetchBurstInput => ({
  host: HOST,
  items: Array.from({ length: urls }, (_, i) => itemOf(i)),
  politeness: initialHostPolitenessState(Date.now()),
  policy: { ...DEFAULT_HOST_POLITENESS_POLICY, minDelayMs: 2, adaptiveFactor: 1 },
  limits: DEFAULT_FETCH_BURST_LIMITS,
  ...(withClaim ? { claim: { maxItems: 3, claimToken: 'host/local-burst.example/run-1/burst-claim/1' }, extendWithClaims: { maxUrls: 5 } } : {}),
});

/** A burst over a fetch that answers plain text at once (settled inside the burst, no parse); `onRequest` sees each request. */
function burstActivities(onRequest: (url: string) => void = () => undefined) {
  const fetchUrl = async (input: FetchUrlInput): Promise<FetchUrlResult> => {
    onRequest(input.url);
    const nowMs = Date.now();
    return { kind: 'fetched', status: 200, bodyKey: `bodies/${input.fingerprint}`, rawHash: input.fingerprint, bytes: 10, contentType: 'text/plain', parse: false, finalUrl: input.url, startedAtMs: nowMs, finishedAtMs: nowMs };
  };
  return burstActivitiesFetchingWith(fetchUrl);
}

describe('a fetch burst run as a local activity', () => {
  it("looks for what its claim token took on its first claim, as a retried burst does; an activity's first try need not", async () => {
    const { fetchBurst } = burstActivities();
    claims.length = 0;
    await new MockActivityEnvironment({ isLocal: true, attempt: 1 }).run(fetchBurst, burstInput(1, true));
    expect(claims.length).toBeGreaterThanOrEqual(1);
    expect(claims[0]).toEqual({ freshToken: false, claimToken: 'host/local-burst.example/run-1/burst-claim/1' });
    claims.length = 0;
    await new MockActivityEnvironment({ isLocal: false, attempt: 1 }).run(fetchBurst, burstInput(1, true));
    expect(claims[0]?.freshToken).toBe(true);
    claims.length = 0;
    await new MockActivityEnvironment({ isLocal: false, attempt: 2 }).run(fetchBurst, burstInput(1, true));
    expect(claims[0]?.freshToken).toBe(false);
  });

  it('sends no new request once cancelled (its workflow task lost); the URLs not tried go back untried', async () => {
    const env = new MockActivityEnvironment({ isLocal: true, attempt: 1 });
    const sent: string[] = [];
    const { fetchBurst } = burstActivities((url) => {
      sent.push(url);
      if (sent.length === 2) env.cancel('CANCELLED');
    });
    const result: FetchBurstResult = await env.run(fetchBurst, burstInput(6, false));
    expect(sent).toHaveLength(2);
    // It returns what it did (not a cancellation that would lose its outcomes), the rest untried.
    expect(result.outcomes.map((one) => one.kind)).toEqual(['done', 'done', 'not-attempted', 'not-attempted', 'not-attempted', 'not-attempted']);
  });
});
