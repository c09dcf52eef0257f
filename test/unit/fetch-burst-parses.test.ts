// A fetch burst with parseFetched parses each body as soon as it is stored, in fetch order, beside
// the waits for its next requests: a parse never holds back a request. Run in Temporal's mock
// activity context with fakes for the fetch, the parse and the settle; no server.
import { MockActivityEnvironment } from '@temporalio/testing';
import { describe, expect, it } from 'vitest';
import type { ActivityDeps } from '../../src/activities/deps.js';
import type { FetchBurstInput, FetchBurstResult, FetchUrlInput, FetchUrlResult, ParseBatchInput, ParseBatchResult, ParseDocumentInput, SettleUrlInput } from '../../src/activities/contracts.js';
import type { UrlFetchOptions } from '../../src/activities/fetch-activity.js';
import { createFetchBurstActivities } from '../../src/activities/fetch-burst-activity.js';
import { HeldBodyBudget } from '../../src/activities/held-bodies.js';
import type { FetchedPage } from '../../src/activities/parse-activity.js';
import type { FetchedBodyRecords } from '../../src/storage/postgres/fetch-repository.js';
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
    const heldBodies = new HeldBodyBudget();
    let preflighted = 0;
    let recordsWrittenByParse = 0;
    const fetchUrl = async (input: FetchUrlInput, _attempt: number, options?: UrlFetchOptions): Promise<FetchUrlResult> => {
      const holding = options?.holding;
      // Its preflight comes from the burst's one read for all its URLs.
      if (options?.preflight?.origin === input.origin) preflighted += 1;
      events.push(`fetch ${input.url}`);
      fetched += 1;
      if (fetched === PAGES) allSent();
      const nowMs = Date.now();
      const html = !input.url.endsWith(`/p${PLAIN}`);
      // As the real fetch does: the body of a page to parse is held when the burst asks.
      const held = html ? holding?.budget.hold(Buffer.from(`<p>${input.url}</p>`)) : undefined;
      if (held) holding!.take(held);
      // And leaves the records of a page to parse to that parse.
      if (html) options?.deferRecord?.({ fetch: { url: input.url } } as unknown as FetchedBodyRecords);
      return { kind: 'fetched', status: 200, bodyKey: `bodies/${input.fingerprint}`, rawHash: input.fingerprint, bytes: 10, contentType: html ? 'text/html' : 'text/plain', parse: html, finalUrl: input.url, startedAtMs: nowMs, finishedAtMs: nowMs };
    };
    const parsePage = async (input: ParseDocumentInput, fetched?: FetchedPage) => {
      events.push(`parse ${input.url} ${fetched?.heldBody?.toString() ?? 'from the store'}`);
      if (fetched?.fetchRecords?.fetch.url === input.url) recordsWrittenByParse += 1;
      await everyRequestSent;
      return { title: null, linksFound: 0, linksRegistered: 0, noindex: false, nofollow: false };
    };
    const parseBatch = async (input: ParseBatchInput): Promise<ParseBatchResult> => {
      throw new Error(`no previous burst's bodies to parse here: ${input.items.length}`);
    };
    const settled: SettleUrlInput[] = [];
    const settleUrl = async (input: SettleUrlInput) => {
      settled.push(input);
      return { deadLettered: false };
    };
    const { fetchBurst } = createFetchBurstActivities({ now: Date.now } as unknown as ActivityDeps, { fetchUrlAttempt: fetchUrl, parseBatch, parsePage, settleUrl, heldBodies });
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
    // Each from the body its fetch held, not read back from the store; all given back after.
    expect(parses).toEqual(items.filter((_, i) => i !== PLAIN).map((item) => `parse ${item.url} <p>${item.url}</p>`));
    expect(heldBodies.bytesHeld).toBe(0);
    // The first parse started before the last request went out.
    expect(events.indexOf(`parse ${items[0]!.url} <p>${items[0]!.url}</p>`)).toBeLessThan(events.indexOf(`fetch ${items[PAGES - 1]!.url}`));
    expect(result.outcomes.map((outcome) => (outcome.kind === 'done' ? (outcome.parsed?.ok ?? outcome.settled) : outcome.kind))).toEqual([true, true, true, true]);
    expect(settled.map((input) => [input.url, input.outcome.kind])).toEqual([[items[PLAIN]!.url, 'fetched-unparsed']]);
    expect(result.requestsStarted).toBe(PAGES);
    expect(preflighted).toBe(PAGES);
    expect(recordsWrittenByParse).toBe(PAGES - 1);
    // Where its time went: the first parse waited for every request, so parsing overlapped the waits.
    const stages = result.stageMs!;
    expect(stages.waiting).toBeGreaterThanOrEqual(3 * 2);
    expect(stages.parsing).toBeGreaterThan(0);
    expect(stages.total).toBeGreaterThanOrEqual(Math.max(stages.waiting, stages.fetching, stages.finishing));
  });
});
