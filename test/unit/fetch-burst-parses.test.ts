// A fetch burst with parseFetched parses each body as soon as it is stored, in fetch order, beside
// the waits for its next requests: a parse never holds back a request. Run in Temporal's mock
// activity context with fakes for the fetch, the parse and the settle; no server.
import { MockActivityEnvironment } from '@temporalio/testing';
import { describe, expect, it } from 'vitest';
import type { ActivityDeps } from '../../src/activities/deps.js';
import type { FetchBurstInput, FetchBurstResult, FetchUrlInput, FetchUrlResult, ParseBatchInput, SettleUrlInput } from '../../src/activities/contracts.js';
import { createFetchBurstActivities } from '../../src/activities/fetch-burst-activity.js';
import { DEFAULT_FETCH_BURST_LIMITS, DEFAULT_HOST_POLITENESS_POLICY, initialHostPolitenessState } from '../../src/domain/politeness/index.js';

const HOST = 'burst.example';
const PAGES = 4;
/** Not HTML: stored, settled by the burst, not parsed. */
const PLAIN = 2;

const itemOf = (i: number): FetchUrlInput => ({
  crawlId: 'c',
  fingerprint: String(i).padStart(32, '0'),
  url: `http://${HOST}/p${i}`,
  origin: `http://${HOST}`,
  depth: 1,
  generation: 1,
  attempt: 0,
  purpose: 'discovery',
  minHostDelayMs: 2,
  maxConcurrentFetches: 1,
  hostDelayMs: 2,
});

describe('a fetch burst parsing its own bodies', () => {
  it('parses each body in fetch order while the next requests go out, and settles the body not to parse', async () => {
    const events: string[] = [];
    let fetched = 0;
    // The first parse waits until every request was sent: a parse that held back the next request would never end.
    let allSent!: () => void;
    const everyRequestSent = new Promise<void>((resolve) => (allSent = resolve));
    const fetchUrl = async (input: FetchUrlInput): Promise<FetchUrlResult> => {
      events.push(`fetch ${input.url}`);
      fetched += 1;
      if (fetched === PAGES) allSent();
      const nowMs = Date.now();
      const html = !input.url.endsWith(`/p${PLAIN}`);
      return { kind: 'fetched', status: 200, bodyKey: `bodies/${input.fingerprint}`, rawHash: input.fingerprint, bytes: 10, contentType: html ? 'text/html' : 'text/plain', parse: html, finalUrl: input.url, startedAtMs: nowMs, finishedAtMs: nowMs };
    };
    const parseBatch = async ({ items }: ParseBatchInput) => {
      events.push(`parse ${items[0]!.url}`);
      await everyRequestSent;
      return { outcomes: items.map(() => ({ ok: true as const })) };
    };
    const settled: SettleUrlInput[] = [];
    const settleUrl = async (input: SettleUrlInput) => {
      settled.push(input);
      return { deadLettered: false };
    };
    const { fetchBurst } = createFetchBurstActivities({ now: Date.now } as unknown as ActivityDeps, fetchUrl, parseBatch, settleUrl);
    const items = Array.from({ length: PAGES }, (_, i) => itemOf(i));
    const input: FetchBurstInput = {
      host: HOST,
      items,
      politeness: initialHostPolitenessState(Date.now()),
      policy: { ...DEFAULT_HOST_POLITENESS_POLICY, minDelayMs: 2, adaptiveFactor: 1 },
      limits: DEFAULT_FETCH_BURST_LIMITS,
      parseFetched: true,
    };

    const result: FetchBurstResult = await new MockActivityEnvironment().run(fetchBurst, input);

    const parses = events.filter((event) => event.startsWith('parse'));
    expect(parses).toEqual(items.filter((_, i) => i !== PLAIN).map((item) => `parse ${item.url}`));
    // The first parse started before the last request went out.
    expect(events.indexOf(`parse ${items[0]!.url}`)).toBeLessThan(events.indexOf(`fetch ${items[PAGES - 1]!.url}`));
    expect(result.outcomes.map((outcome) => (outcome.kind === 'done' ? (outcome.parsed?.ok ?? outcome.settled) : outcome.kind))).toEqual([true, true, true, true]);
    expect(settled.map((input) => [input.url, input.outcome.kind])).toEqual([[items[PLAIN]!.url, 'fetched-unparsed']]);
    expect(result.requestsStarted).toBe(PAGES);
  });
});
