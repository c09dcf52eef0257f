// A burst the workflow lets release its host (claim.releaseIfDone) asks its claim to release it
// when the claim takes nothing and nothing is left: one statement, not a claim and a release. A
// release the claim could not make (a carried parse still running when it claimed) is made after.
// Temporal's mock activity context, the claim and the release replaced; no server.
import { MockActivityEnvironment } from '@temporalio/testing';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import type { FetchBurstInput, FetchBurstResult, FetchUrlInput, FetchUrlResult, ParseBatchResult, ParseDocumentInput } from '../../../src/contracts/activities.js';
import type { ActivityDeps } from '../../../src/services/deps.js';
import type { ClaimHostWorkInput, HostClaimOptions } from '../../../src/storage/postgres/frontier-claims.js';
import { createFetchBurstActivities } from '../../../src/activities/fetch-burst-activity.js';
import { HeldBodyBudget } from '../../../src/services/fetching/held-bodies.js';
import { burstItemOf } from '../../support/burst-items.js';
import { DEFAULT_FETCH_BURST_LIMITS, DEFAULT_HOST_POLITENESS_POLICY, initialHostPolitenessState } from '../../../src/domain/politeness/index.js';

const calls = vi.hoisted(() => ({ claims: [] as HostClaimOptions[], releases: [] as unknown[], onClaim: (): void => undefined }));
vi.mock('../../../src/storage/postgres/frontier-claims.js', async (original) => ({
  ...(await original<object>()),
  takeHostClaim: async (_pool: unknown, _input: ClaimHostWorkInput, options: HostClaimOptions = {}) => {
    calls.claims.push(options);
    calls.onClaim();
    return { items: [], preflights: options.withPreflights === true ? [] : undefined, released: options.releaseIfEmpty !== undefined };
  },
}));
vi.mock('../../../src/storage/postgres/host-repository.js', async (original) => ({
  ...(await original<object>()),
  releaseHost: async (_db: unknown, input: unknown) => void calls.releases.push(input),
}));

const HOST = 'burst-release.example';

const fetchUrl = async (input: FetchUrlInput): Promise<FetchUrlResult> => {
  const nowMs = Date.now();
  return { kind: 'fetched', status: 200, bodyKey: `bodies/${input.fingerprint}`, rawHash: input.fingerprint, bytes: 10, contentType: 'text/plain', parse: false, finalUrl: input.url, startedAtMs: nowMs, finishedAtMs: nowMs };
};

/** A burst of one text page (settled inside it) whose carried bodies' parse returns at once, or only after the burst's first claim. */
function burstActivities(parse: 'at-once' | 'after-claim') {
  const claimed = new Promise<void>((resolve) => (calls.onClaim = resolve));
  const parseBatch = async (input: { items: ParseDocumentInput[] }): Promise<ParseBatchResult> => {
    if (parse === 'after-claim') await claimed;
    return { outcomes: input.items.map(() => ({ ok: true as const })) };
  };
  return createFetchBurstActivities({ now: Date.now } as unknown as ActivityDeps, {
    fetchUrlAttempt: fetchUrl,
    parseBatch,
    parsePage: async () => ({ title: null, linksFound: 0, linksRegistered: 0, noindex: false, nofollow: false }),
    settleUrl: async () => ({ deadLettered: false }),
    readsSignals: async () => false,
    heldBodies: new HeldBodyBudget(),
  });
}

const carried: ParseDocumentInput = { crawlId: 'c', fingerprint: 'f'.repeat(32), generation: 1, url: `http://${HOST}/carried`, finalUrl: `http://${HOST}/carried`, depth: 1, bodyKey: 'bodies/carried', contentType: 'text/html' };

const burstInput = (options: { release: boolean; extend: boolean; carriedParse: boolean }): FetchBurstInput => ({
  host: HOST,
  items: [burstItemOf(HOST, 0)],
  politeness: initialHostPolitenessState(Date.now()),
  policy: { ...DEFAULT_HOST_POLITENESS_POLICY, minDelayMs: 2, adaptiveFactor: 1 },
  limits: DEFAULT_FETCH_BURST_LIMITS,
  claim: { maxItems: 3, claimToken: 'host/burst-release.example/run-1/burst-claim/1', ...(options.release ? { releaseIfDone: { paused: true, delayOverrideMs: 900 } } : {}) },
  ...(options.extend ? { extendWithClaims: { maxUrls: 5 } } : {}),
  ...(options.carriedParse ? { parse: [carried] } : {}),
});

describe("a burst's release of its host", () => {
  beforeEach(() => {
    calls.claims.length = 0;
    calls.releases.length = 0;
  });

  it.each([
    ['its claim to extend itself', true],
    ['its claim at the end', false],
  ])('rides in %s when that claim takes nothing: no statement of its own', async (_, extend) => {
    const result: FetchBurstResult = await new MockActivityEnvironment({ isLocal: false, attempt: 1 }).run(burstActivities('at-once').fetchBurst, burstInput({ release: true, extend, carriedParse: false }));
    expect(result.released).toBe(true);
    expect(calls.claims).toHaveLength(1);
    expect(calls.claims[0]!.releaseIfEmpty).toEqual({ politeness: result.politeness, paused: true, delayOverrideMs: 900 });
    expect(calls.releases).toEqual([]);
  });

  it('is made after the claim when a carried parse had not returned as it claimed', async () => {
    const result: FetchBurstResult = await new MockActivityEnvironment({ isLocal: false, attempt: 1 }).run(burstActivities('after-claim').fetchBurst, burstInput({ release: true, extend: true, carriedParse: true }));
    expect(calls.claims).toHaveLength(1);
    expect(calls.claims[0]!.releaseIfEmpty).toBeUndefined();
    expect(result.released).toBe(true);
    expect(calls.releases).toEqual([{ host: HOST, politeness: result.politeness, paused: true, delayOverrideMs: 900 }]);
  });

  it('is never asked for when the workflow did not allow it', async () => {
    const result: FetchBurstResult = await new MockActivityEnvironment({ isLocal: false, attempt: 1 }).run(burstActivities('at-once').fetchBurst, burstInput({ release: false, extend: true, carriedParse: false }));
    expect(result.released).toBeUndefined();
    expect(calls.claims.every((options) => options.releaseIfEmpty === undefined)).toBe(true);
    expect(calls.releases).toEqual([]);
  });
});
