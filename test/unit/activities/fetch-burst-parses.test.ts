// A fetch burst parses each body as soon as it is stored, in fetch order, beside
// the waits for its next requests: a parse never holds back a request. Run in Temporal's mock
// activity context with fakes for the fetch, the parse and the settle; no server.
import { MockActivityEnvironment } from '@temporalio/testing';
import { describe, expect, it } from 'vitest';
import type { ActivityDeps } from '../../../src/services/deps.js';
import type { FetchBurstInput, FetchBurstResult, FetchUrlInput, FetchUrlResult, ParseBatchInput, ParseBatchResult, ParseDocumentInput, SettleUrlInput } from '../../../src/contracts/activities.js';
import type { UrlFetchOptions } from '../../../src/services/fetching/url-fetch-types.js';
import { createFetchBurstActivities } from '../../../src/activities/fetch-burst-activity.js';
import { everyUrlEnded, MAX_BODIES_STORING } from '../../../src/services/fetching/fetch-burst.js';
import { HeldBodyBudget } from '../../../src/services/fetching/held-bodies.js';
import { burstActivitiesFetchingWith, burstItemOf } from '../../support/burst-items.js';
import type { FetchedPage } from '../../../src/services/documents/page-analysis.js';
import type { FetchedBodyRecords } from '../../../src/storage/postgres/fetch-repository.js';
import { DEFAULT_FETCH_BURST_LIMITS, DEFAULT_HOST_POLITENESS_POLICY, initialHostPolitenessState } from '../../../src/domain/politeness/index.js';

const HOST = 'burst.example';
const PAGES = 4;
/** Not HTML: stored, settled by the burst, not parsed. */
const PLAIN = 2;

const itemOf = (i: number): FetchUrlInput => burstItemOf(HOST, i);

/** The records of a page fetched whole, as the fetch would leave them to the parse. */
const recordsOf = (input: FetchUrlInput): FetchedBodyRecords => {
  const sha256 = input.fingerprint.padStart(64, '0');
  const fetchedAt = new Date();
  return {
    body: { sha256, objectKey: `packs/old#${input.fingerprint}`, bytes: 10, storedBytes: 30 },
    fetch: {
      fingerprint: input.fingerprint,
      generation: input.generation,
      crawlId: input.crawlId,
      url: input.url,
      finalUrl: input.url,
      fetchedAt,
      status: 200,
      outcome: 'ok',
      contentType: 'text/html',
      headers: {},
      rawHash: sha256,
      bodyKey: `packs/old#${input.fingerprint}`,
      bytes: 10,
      wireBytes: 10,
      timings: { connectMs: 1, firstByteMs: 1, lastByteMs: 1, totalMs: 1 },
      redirectLocation: null,
    },
    url: { fingerprint: input.fingerprint, state: 'ok', status: 200, fetchedAt, success: true, rawHash: sha256, bytes: 10 },
    frontier: { crawlId: input.crawlId, fingerprint: input.fingerprint, generation: input.generation },
  };
};

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
    const { fetchBurst } = createFetchBurstActivities({ now: Date.now } as unknown as ActivityDeps, { fetchUrlAttempt: fetchUrl, parseBatch, parsePage, settleUrl, readsSignals: async () => false, heldBodies });
    const items = Array.from({ length: PAGES }, (_, i) => itemOf(i));
    const input: FetchBurstInput = {
      host: HOST,
      items,
      politeness: initialHostPolitenessState(Date.now()),
      policy: { ...DEFAULT_HOST_POLITENESS_POLICY, minDelayMs: 2, adaptiveFactor: 1 },
      limits: DEFAULT_FETCH_BURST_LIMITS,
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

  it('sends its next request while the body before it is being stored, and reports each URL once stored', async () => {
    const DELAY_MS = 20;
    const sentAtMs: number[] = [];
    const respondedAtMs: number[] = [];
    let allSent!: () => void;
    const everyRequestSent = new Promise<void>((resolve) => (allSent = resolve));
    const fetchUrl = async (input: FetchUrlInput, _attempt: number, options?: UrlFetchOptions): Promise<FetchUrlResult> => {
      const startedAtMs = Date.now();
      sentAtMs.push(startedAtMs);
      if (sentAtMs.length === PAGES) allSent();
      const finishedAtMs = Date.now();
      respondedAtMs.push(finishedAtMs);
      // The body arrived: the host is free. Storing it ends only once every request went out, so a
      // burst that waited for it before its next request would never end.
      options?.onStoring?.({ kind: 'response', startedAtMs, finishedAtMs, status: 200 });
      await everyRequestSent;
      return { kind: 'fetched', status: 200, bodyKey: `bodies/${input.fingerprint}`, rawHash: input.fingerprint, bytes: 10, contentType: 'text/plain', parse: false, finalUrl: input.url, startedAtMs, finishedAtMs };
    };
    const { fetchBurst } = burstActivitiesFetchingWith(fetchUrl);
    const items = Array.from({ length: PAGES }, (_, i) => itemOf(i));
    const input: FetchBurstInput = {
      host: HOST,
      items,
      politeness: initialHostPolitenessState(Date.now()),
      policy: { ...DEFAULT_HOST_POLITENESS_POLICY, minDelayMs: DELAY_MS, adaptiveFactor: 1 },
      limits: DEFAULT_FETCH_BURST_LIMITS,
    };
    const result: FetchBurstResult = await new MockActivityEnvironment().run(fetchBurst, input);
    expect(result.requestsStarted).toBe(PAGES);
    expect(result.outcomes.map((outcome) => (outcome.kind === 'done' ? [outcome.result.kind, outcome.settled] : [outcome.kind]))).toEqual(items.map(() => ['fetched', true]));
    // The delay still runs from each response's end.
    for (let i = 1; i < PAGES; i++) expect(sentAtMs[i]! - respondedAtMs[i - 1]!).toBeGreaterThanOrEqual(DELAY_MS);
  });

  it('holds its next request back while MAX_BODIES_STORING bodies wait for a store that lags', async () => {
    const URLS = MAX_BODIES_STORING + 3;
    const sentAtMs: number[] = [];
    // Each body's store ends only when the test lets it.
    const storeEnds: (() => void)[] = [];
    const fetchUrl = async (input: FetchUrlInput, _attempt: number, options?: UrlFetchOptions): Promise<FetchUrlResult> => {
      const startedAtMs = Date.now();
      sentAtMs.push(startedAtMs);
      options?.onStoring?.({ kind: 'response', startedAtMs, finishedAtMs: startedAtMs, status: 200 });
      await new Promise<void>((resolve) => storeEnds.push(resolve));
      return { kind: 'fetched', status: 200, bodyKey: `bodies/${input.fingerprint}`, rawHash: input.fingerprint, bytes: 10, contentType: 'text/plain', parse: false, finalUrl: input.url, startedAtMs, finishedAtMs: startedAtMs };
    };
    const { fetchBurst } = burstActivitiesFetchingWith(fetchUrl);
    const items = Array.from({ length: URLS }, (_, i) => itemOf(i));
    const burst: Promise<FetchBurstResult> = new MockActivityEnvironment().run(fetchBurst, {
      host: HOST,
      items,
      politeness: initialHostPolitenessState(Date.now()),
      policy: { ...DEFAULT_HOST_POLITENESS_POLICY, minDelayMs: 2, adaptiveFactor: 1 },
      limits: DEFAULT_FETCH_BURST_LIMITS,
    });
    const settle = () => new Promise((resolve) => setTimeout(resolve, 60));
    await settle();
    // Every store lags: the burst stopped at the cap, well past the 2 ms delay of its next request.
    expect(sentAtMs).toHaveLength(MAX_BODIES_STORING);
    // One store ends: one more request goes out, and the burst stops again.
    storeEnds[0]!();
    await settle();
    expect(sentAtMs).toHaveLength(MAX_BODIES_STORING + 1);
    // The store catches up: the burst ends with every URL stored.
    const releasing = setInterval(() => storeEnds.forEach((end) => end()), 5);
    const result = await burst;
    clearInterval(releasing);
    expect(result.requestsStarted).toBe(URLS);
    expect(result.outcomes.map((outcome) => (outcome.kind === 'done' ? outcome.result.kind : outcome.kind))).toEqual(items.map(() => 'fetched'));
  });

  it('sends no request after a store failed, and fails with its error', async () => {
    const sentAtMs: number[] = [];
    const fetchUrl = async (input: FetchUrlInput, _attempt: number, options?: UrlFetchOptions): Promise<FetchUrlResult> => {
      const startedAtMs = Date.now();
      sentAtMs.push(startedAtMs);
      options?.onStoring?.({ kind: 'response', startedAtMs, finishedAtMs: startedAtMs, status: 200 });
      throw new Error(`the object store refused the body of ${input.url}`);
    };
    const { fetchBurst } = burstActivitiesFetchingWith(fetchUrl);
    const burst = new MockActivityEnvironment().run(fetchBurst, {
      host: HOST,
      items: Array.from({ length: 6 }, (_, i) => itemOf(i)),
      politeness: initialHostPolitenessState(Date.now()),
      policy: { ...DEFAULT_HOST_POLITENESS_POLICY, minDelayMs: 2, adaptiveFactor: 1 },
      limits: DEFAULT_FETCH_BURST_LIMITS,
    });
    await expect(burst).rejects.toThrow(/the object store refused the body of http:\/\/burst.example\/p0/);
    // Its URLs go back untried: Temporal retries the burst, and the host was asked once.
    expect(sentAtMs).toHaveLength(1);
  });

  it('parses up to three pages at once, started in fetch order; a sitemap alone, after those before it', async () => {
    const URLS = 7;
    const SITEMAP = 4;
    const log: string[] = [];
    let running = 0;
    let mostAtOnce = 0;
    const release: (() => void)[] = [];
    const fetchUrl = async (input: FetchUrlInput): Promise<FetchUrlResult> => {
      const nowMs = Date.now();
      return { kind: 'fetched', status: 200, bodyKey: `bodies/${input.fingerprint}`, rawHash: input.fingerprint, bytes: 10, contentType: 'text/html', parse: true, finalUrl: input.url, startedAtMs: nowMs, finishedAtMs: nowMs };
    };
    const parsePage = async (input: ParseDocumentInput) => {
      running += 1;
      mostAtOnce = Math.max(mostAtOnce, running);
      log.push(`start ${input.url} with ${running} running`);
      // Each parse ends when the test lets it: the queue must not start a fourth meanwhile.
      await new Promise<void>((resolve) => release.push(resolve));
      running -= 1;
      log.push(`end ${input.url}`);
      return { title: null, linksFound: 0, linksRegistered: 0, noindex: false, nofollow: false };
    };
    const items = Array.from({ length: URLS }, (_, i) => ({ ...itemOf(i), ...(i === SITEMAP ? { purpose: 'sitemap' } : {}) }));
    const { fetchBurst } = createFetchBurstActivities({ now: Date.now } as unknown as ActivityDeps, {
      fetchUrlAttempt: fetchUrl,
      parseBatch: async () => ({ outcomes: [] }),
      parsePage,
      settleUrl: async () => ({ deadLettered: false }),
      readsSignals: async (input) => input.purpose === 'sitemap',
      heldBodies: new HeldBodyBudget(),
    });
    const input: FetchBurstInput = {
      host: HOST,
      items,
      politeness: initialHostPolitenessState(Date.now()),
      policy: { ...DEFAULT_HOST_POLITENESS_POLICY, minDelayMs: 2, adaptiveFactor: 1 },
      limits: { ...DEFAULT_FETCH_BURST_LIMITS, maxUrls: URLS },
    };
    const burst: Promise<FetchBurstResult> = new MockActivityEnvironment().run(fetchBurst, input);
    // Let the parses go one at a time, whenever one is waiting, until all have ended.
    const releasing = (async () => {
      while (log.filter((line) => line.startsWith('end')).length < URLS) {
        await new Promise((resolve) => setTimeout(resolve, 20));
        release.shift()?.();
      }
    })();
    const result = await burst;
    await releasing;

    expect(result.outcomes.every((outcome) => outcome.kind === 'done' && outcome.parsed?.ok === true)).toBe(true);
    expect(mostAtOnce).toBe(3);
    const starts = log.filter((line) => line.startsWith('start')).map((line) => line.split(' ')[1]);
    expect(starts).toEqual(items.map((item) => item.url));
    // The sitemap started with nothing else running, and nothing started until it ended.
    const sitemap = items[SITEMAP]!.url;
    expect(log).toContain(`start ${sitemap} with 1 running`);
    expect(log[log.indexOf(`start ${sitemap} with 1 running`) + 1]).toBe(`end ${sitemap}`);
  });

  it("checks a body found stored after its parse's commit, or after its records were written on their own, and reports the key the check gives", async () => {
    const URLS = 3;
    const FAILING = 1;
    const log: string[] = [];
    const fetchUrl = async (input: FetchUrlInput, _attempt: number, options?: UrlFetchOptions): Promise<FetchUrlResult> => {
      const nowMs = Date.now();
      // As the real fetch does for a recrawl's unchanged page: its records, and the check once they commit.
      options?.deferRecord?.(recordsOf(input), async () => {
        log.push(`check ${input.url}`);
        return `bodies/stored-again/${input.fingerprint}`;
      });
      return { kind: 'fetched', status: 200, bodyKey: `packs/old#${input.fingerprint}`, rawHash: input.fingerprint, bytes: 10, contentType: 'text/html', parse: true, finalUrl: input.url, startedAtMs: nowMs, finishedAtMs: nowMs };
    };
    const parsePage = async (input: ParseDocumentInput, fetched?: FetchedPage) => {
      await new Promise((resolve) => setTimeout(resolve, 5));
      if (input.url.endsWith(`/p${FAILING}`)) {
        log.push(`roll back ${input.url}`);
        throw new Error('injected: the parse of this page fails');
      }
      log.push(`commit ${fetched?.fetchRecords?.fetch.url}`);
      return { title: null, linksFound: 0, linksRegistered: 0, noindex: false, nofollow: false };
    };
    // The failed parse's records are written on their own, through the pool.
    const pool = {
      query: async (_text: string, values: unknown[]) => {
        log.push(`record ${(values[8] as string[]).join(',')}`);
        return { rows: [], rowCount: 1 };
      },
    };
    const { fetchBurst } = createFetchBurstActivities({ now: Date.now, pool } as unknown as ActivityDeps, {
      fetchUrlAttempt: fetchUrl,
      parseBatch: async () => ({ outcomes: [] }),
      parsePage,
      settleUrl: async () => ({ deadLettered: false }),
      readsSignals: async () => false,
      heldBodies: new HeldBodyBudget(),
    });
    const items = Array.from({ length: URLS }, (_, i) => itemOf(i));
    const result: FetchBurstResult = await new MockActivityEnvironment().run(fetchBurst, {
      host: HOST,
      items,
      politeness: initialHostPolitenessState(Date.now()),
      policy: { ...DEFAULT_HOST_POLITENESS_POLICY, minDelayMs: 2, adaptiveFactor: 1 },
      limits: { ...DEFAULT_FETCH_BURST_LIMITS, maxUrls: URLS },
    });

    for (const [i, item] of items.entries()) {
      const written = i === FAILING ? [`roll back ${item.url}`, `record ${item.url}`] : [`commit ${item.url}`];
      const at = log.indexOf(written[0]!);
      expect(log.slice(at, at + written.length)).toEqual(written);
      expect(log.indexOf(`check ${item.url}`)).toBeGreaterThan(at + written.length - 1);
    }
    expect(log.filter((line) => line.startsWith('check'))).toHaveLength(URLS);
    expect(result.outcomes.map((outcome) => (outcome.kind === 'done' && outcome.result.kind === 'fetched' ? outcome.result.bodyKey : outcome.kind))).toEqual(
      items.map((item) => `bodies/stored-again/${item.fingerprint}`),
    );
  });

  it('sends no request once the worker is stopping, cutting its wait short; the rest go back untried', async () => {
    const URLS = 5;
    const DELAY_MS = 900;
    const stopping = new AbortController();
    const sent: string[] = [];
    let secondSentAtMs = 0;
    const fetchUrl = async (input: FetchUrlInput): Promise<FetchUrlResult> => {
      sent.push(input.url);
      // The worker begins to shut down while the burst waits the host delay after its second request.
      if (sent.length === 2) {
        secondSentAtMs = Date.now();
        setTimeout(() => stopping.abort(), 50);
      }
      const nowMs = Date.now();
      return { kind: 'fetched', status: 200, bodyKey: `bodies/${input.fingerprint}`, rawHash: input.fingerprint, bytes: 10, contentType: 'text/plain', parse: false, finalUrl: input.url, startedAtMs: nowMs, finishedAtMs: nowMs };
    };
    const { fetchBurst } = burstActivitiesFetchingWith(fetchUrl, { stopping: stopping.signal });
    const result: FetchBurstResult = await new MockActivityEnvironment().run(fetchBurst, {
      host: HOST,
      items: Array.from({ length: URLS }, (_, i) => itemOf(i)),
      politeness: initialHostPolitenessState(Date.now()),
      policy: { ...DEFAULT_HOST_POLITENESS_POLICY, minDelayMs: DELAY_MS, adaptiveFactor: 1 },
      limits: { ...DEFAULT_FETCH_BURST_LIMITS, maxUrls: URLS },
    });
    expect(sent).toHaveLength(2);
    expect(result.outcomes.map((outcome) => outcome.kind)).toEqual(['done', 'done', 'not-attempted', 'not-attempted', 'not-attempted']);
    // Back well before the host delay after the second request: its wait for a third was cut.
    expect(Date.now() - secondSentAtMs).toBeLessThan(DELAY_MS - 100);
  });
});

describe('whether a burst may release its host (everyUrlEnded)', () => {
  const fetchedPage = { kind: 'fetched', status: 200, bodyKey: 'k', rawHash: 'h', bytes: 1, contentType: 'text/html', parse: true, finalUrl: 'http://x/', startedAtMs: 0, finishedAtMs: 1 } as const;
  const parsed = { kind: 'done', result: fetchedPage, parsed: { ok: true } } as const;
  const settled = { kind: 'done', result: { kind: 'not-modified', status: 304, startedAtMs: 0, finishedAtMs: 1 }, settled: true } as const;
  const rulesOk = { origin: 'http://x', refreshed: { requested: true, startedAtMs: 0, finishedAtMs: 1, status: 200, policyKind: 'rules', freshUntilMs: 9 } } as const;

  it('only when every URL was parsed or settled in the burst, every carried body parsed, and robots.txt answered', () => {
    expect(everyUrlEnded([parsed, settled], [{ ok: true }], [rulesOk])).toBe(true);
    expect(everyUrlEnded([], undefined, [])).toBe(true);
    // Left to the workflow: a failure, a URL not reached, a page to parse again, a settle that failed, a body carried back.
    expect(everyUrlEnded([parsed, { kind: 'failed', failureType: 'NotFound', message: '404' }], undefined, [])).toBe(false);
    expect(everyUrlEnded([parsed, { kind: 'not-attempted' }], undefined, [])).toBe(false);
    expect(everyUrlEnded([{ ...parsed, parsed: { ok: false, error: 'store down' } }], undefined, [])).toBe(false);
    expect(everyUrlEnded([{ kind: 'done', result: settled.result }], undefined, [])).toBe(false);
    expect(everyUrlEnded([{ kind: 'done', result: fetchedPage }], undefined, [])).toBe(false);
    expect(everyUrlEnded([parsed], [{ ok: false, error: 'x' }], [])).toBe(false);
    // An unreachable robots.txt: the origin's URLs wait for its next refresh in the workflow.
    expect(everyUrlEnded([parsed], undefined, [{ refreshed: { ...rulesOk.refreshed, policyKind: 'disallow-all' } }])).toBe(false);
    expect(everyUrlEnded([parsed], undefined, [{ refreshed: { ...rulesOk.refreshed, transportFailure: 'ConnectionFailed' } as never }])).toBe(false);
  });
});
