// The per-host workflow (a Mercator back queue) on the real dev server, which suggests
// continue-as-new at 200 events: operator signals arriving in a tight loop while the host
// continues as new lose nothing, pause holds requests, a changed delay changes the gaps, the
// hostStatus query answers throughout, and an idle host's next run keeps its politeness.
// Facts come from the test web's request log, Postgres and the Temporal visibility store.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WorkflowNotFoundError, type Client, type WorkflowExecutionInfo } from '@temporalio/client';
import type { SignalDefinition } from '@temporalio/common';
import { defaultPayloadConverter } from '@temporalio/common';
import { createHarness, type Harness } from '../../support/crawler-harness.js';
import { flatPagePath, flatWeb } from '../../support/flat-web.js';
import { politenessReport, startTestWeb, type RequestLogEntry, type TestWeb } from '../../support/test-web/index.js';
import { waitFor } from '../../support/wait-for.js';
import { localActivityOf } from '../../support/local-activity-marker.js';
import { HOST_SEARCH_ATTRIBUTE, HOST_WORKFLOW_TYPE, hostStatusQuery, hostWorkflowId, pauseHostSignal, resumeHostSignal, setHostDelaySignal, wakeHostSignal } from '../../../src/contracts/messages.js';
import type { HostStatus } from '../../../src/contracts/status.js';
import { DEFAULT_FETCH_BURST_LIMITS, type HostPolitenessState } from '../../../src/domain/politeness/index.js';
import type { FetchBurstInput, FetchBurstResult, FetchUrlInput } from '../../../src/contracts/activities.js';

// Enough that the busy host, fetching in pipelined bursts, is still at work when the storm ends
// (with 300 it finished every URL mid-storm once under load, and the next signal found no run),
// and that the storm sees several runs although bursts that claim and fetch on make a page cheap
// in events (with 450 the storm ran out of pages after three runs; with 650 and 900, four runs
// once bursts planned for 10 s of host time). At most the crawl's maxPages (1000).
const PAGES = 900;
/**
 * Pages the storm keeps unfetched: with fewer left it resumes the host no more, so however slow
 * a round (and however many pages an unpaused one lets through), the host never runs out of work
 * and ends its run under the storm's signals (seen once with 450 pages and no reserve).
 */
const STORM_RESERVE_PAGES = 120;
const web = flatWeb({ base: '127.61.0.1', hosts: 2, pagesPerHost: PAGES });
const [BUSY_HOST, IDLE_HOST] = web.hosts as [string, string];

/** The crawl's own per-host delay; every storm override is at least this. */
const CRAWL_DELAY_MS = 50;
/** The operator's delay after the storm: gaps after resuming must follow it. */
const FINAL_DELAY_MS = 300;
const MAX_STORM_ROUNDS = 60;
const IDLE_HOST_DELAY_MS = 3000;
/** The most URLs one claim of a host run asks for (its claim size at any delay). */
const MAX_CLAIM_URLS = 10;

async function runsOf(client: Client, workflowId: string): Promise<WorkflowExecutionInfo[]> {
  const runs: WorkflowExecutionInfo[] = [];
  for await (const run of client.workflow.list({ query: `WorkflowId = '${workflowId}'` })) runs.push(run);
  return runs.sort((a, b) => a.startTime.getTime() - b.startTime.getTime());
}

/** The hostDelayMs each fetchUrl or fetch burst was scheduled with, by page path, over every run of a host workflow. */
async function scheduledHostDelays({ client, localBurstInputs }: Pick<Harness, 'client' | 'localBurstInputs'>, workflowId: string, runs: WorkflowExecutionInfo[]): Promise<Map<string, number>> {
  const delays = new Map<string, number>();
  for (const run of runs) {
    const history = await client.workflow.getHandle(workflowId, run.runId).fetchHistory();
    const bursts = new Map<string, FetchBurstInput>();
    const scheduledOf = (input: FetchUrlInput | FetchBurstInput): void => {
      for (const item of 'items' in input ? input.items : [input]) delays.set(new URL(item.url).pathname, item.hostDelayMs);
    };
    // URLs a burst claimed and fetched itself went at the burst's delay.
    const extendedOf = (burst: FetchBurstInput, result: FetchBurstResult): void => {
      for (const { item } of result.extended ?? []) delays.set(new URL(item.url).pathname, burst.policy.minDelayMs);
    };
    for (const event of history.events ?? []) {
      // A run's first burst may be a local activity: its marker holds the result, the harness its input.
      const local = localActivityOf(event);
      const localBurst = local?.type === 'fetchBurst' ? localBurstInputs.get(`${workflowId}/${run.runId}/${local.activityId}`) : undefined;
      if (localBurst && local?.result) {
        scheduledOf(localBurst);
        extendedOf(localBurst, defaultPayloadConverter.fromPayload<FetchBurstResult>(local.result));
      }
      const scheduled = event.activityTaskScheduledEventAttributes;
      const type = scheduled?.activityType?.name;
      if (type === 'fetchUrl' || type === 'fetchBurst') {
        const input = defaultPayloadConverter.fromPayload<FetchUrlInput | FetchBurstInput>(scheduled!.input!.payloads![0]!);
        scheduledOf(input);
        if ('items' in input) bursts.set(String(event.eventId), input);
      }
      const completed = event.activityTaskCompletedEventAttributes;
      const burst = completed ? bursts.get(String(completed.scheduledEventId)) : undefined;
      if (burst) extendedOf(burst, defaultPayloadConverter.fromPayload<FetchBurstResult>(completed!.result!.payloads![0]!));
    }
  }
  return delays;
}

const requestsTo = (log: readonly RequestLogEntry[], host: string): RequestLogEntry[] =>
  log.filter((entry) => entry.host === host).sort((a, b) => a.startedAtMs - b.startedAtMs);

describe('a host workflow continuing as new under a storm of operator signals', () => {
  let harness: Harness;
  let testWeb: TestWeb;
  const crawlId = 'wf-host-can';
  const hostHandle = () => harness.client.workflow.getHandle(hostWorkflowId(BUSY_HOST));

  /** Every hostStatus answer, with the time it was asked. */
  const answers: { atMs: number; status: HostStatus }[] = [];
  const queryErrors: string[] = [];
  /** Rounds whose last signals the host never reported (a lost signal). */
  const unconverged: string[] = [];
  /** Moments the host was paused with nothing in flight, until a resume was sent. */
  const pausedWindows: { fromMs: number; toMs: number }[] = [];
  /** While paused: queue length the host reported vs its URLs Postgres holds as claimed. */
  const queueChecks: { reported: number; claimed: number }[] = [];
  let stormRounds = 0;
  let finalDelaySentAt = 0;
  let finalPausedAt = 0;
  let resumedAt = 0;
  let beforeFinalCan: HostStatus;
  let afterFinalCan: HostStatus;
  let urlsLeftAtResume = 0;
  let summaryState = '';
  let runs: WorkflowExecutionInfo[] = [];

  const ask = async (): Promise<HostStatus> => {
    try {
      const status = await hostHandle().query(hostStatusQuery);
      answers.push({ atMs: Date.now(), status });
      return status;
    } catch (error) {
      queryErrors.push(String(error));
      throw error;
    }
  };

  /**
   * A signal to the busy host's current run. The host ends a run only when a claim finds no
   * room; with URLs left that is the crawl's admission at 0, so the failure says what it was.
   */
  const signalHost = async <Args extends unknown[]>(signal: SignalDefinition<Args>, ...args: Args): Promise<void> => {
    try {
      await hostHandle().signal(signal, ...args);
    } catch (error) {
      if (!(error instanceof WorkflowNotFoundError)) throw error;
      const admission = await harness.pool.query(
        `SELECT c.state, c.admit_factor, c.max_in_flight, c.host_claim_cap,
                (SELECT json_object_agg(state, n) FROM (SELECT state, count(*)::int AS n FROM frontier WHERE crawl_id = c.id GROUP BY state) AS f) AS frontier
         FROM crawls c WHERE c.id = $1`,
        [crawlId],
      );
      throw new Error(`host/${BUSY_HOST} ended its run mid-storm (signal ${signal.name}); crawl admission: ${JSON.stringify(admission.rows[0])}`, { cause: error });
    }
  };

  const claimedInPostgres = async (): Promise<number> => {
    const result = await harness.pool.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM frontier WHERE crawl_id = $1 AND host = $2 AND state IN ('dispatched', 'fetched')`,
      [crawlId, BUSY_HOST],
    );
    return result.rows[0]?.n ?? 0;
  };

  beforeAll(async () => {
    testWeb = await startTestWeb({ hosts: web.specs });
    harness = await createHarness('wf-host');
    await harness.startWorker();
    const crawl = await harness.startCrawl({
      crawlId,
      seeds: web.pageUrls(testWeb.port, BUSY_HOST),
      config: { minHostDelayMs: CRAWL_DELAY_MS, maxPages: 1000 },
    });
    const pages = () => requestsTo(testWeb.log(), BUSY_HOST).filter((entry) => entry.path !== '/robots.txt').length;
    await waitFor(pages, (n) => n >= 5, { what: 'the busy host fetching its first pages' });

    const stormStartedAt = Date.now();
    // The storm: each round sends wake, pause, a new delay, wake and, every other round, resume,
    // one after another, then waits until the host reports exactly what the last ones said.
    let openPause: number | undefined;
    for (let round = 0; round < MAX_STORM_ROUNDS; round++) {
      stormRounds = round + 1;
      const delayMs = CRAWL_DELAY_MS + ((round * 13) % 40);
      const nearlyDone = PAGES - pages() < STORM_RESERVE_PAGES;
      const pausedAfter = round % 2 === 0 || nearlyDone;
      await signalHost(wakeHostSignal, { crawlId });
      await signalHost(pauseHostSignal);
      await signalHost(setHostDelaySignal, { minDelayMs: delayMs });
      await signalHost(wakeHostSignal, {});
      if (!pausedAfter) {
        if (openPause !== undefined) pausedWindows.push({ fromMs: openPause, toMs: Date.now() });
        openPause = undefined;
        await signalHost(resumeHostSignal);
      }
      try {
        await waitFor(ask, (s) => s.paused === pausedAfter && s.delayOverrideMs === delayMs && (!pausedAfter || s.inFlight === 0), {
          timeoutMs: 30_000,
          intervalMs: 20,
          what: `round ${round}: paused ${pausedAfter}, delay ${delayMs}`,
        });
      } catch (error) {
        unconverged.push(String(error));
        continue;
      }
      if (pausedAfter) {
        openPause ??= Date.now();
        const [status, claimed] = await waitFor(
          async () => [await ask(), await claimedInPostgres()] as const,
          ([s, n]) => s.inFlight === 0 && s.pendingParses === 0 && s.queueLength === n,
          { timeoutMs: 30_000, what: `round ${round}: queue length matching Postgres` },
        ).catch(async () => [await ask(), await claimedInPostgres()] as const);
        queueChecks.push({ reported: status.queueLength, claimed });
      }
      // Enough runs seen, or most URLs fetched (the rest show the delay change). Bursts make a
      // page cost few events, so the runs come mostly from the storm's own signals.
      const run = answers.at(-1)?.status.run ?? 0;
      if (round >= 11 && ((!pausedAfter && run >= 5) || nearlyDone)) break;
    }
    if (openPause !== undefined) {
      pausedWindows.push({ fromMs: openPause, toMs: Date.now() });
      await signalHost(resumeHostSignal);
    }

    console.log(`[host storm] ${stormRounds} rounds in ${Date.now() - stormStartedAt} ms; host run ${answers.at(-1)?.status.run}; ${answers.length} queries answered`);
    // Then a slower delay and a pause, and continue-as-new while paused: both must survive it.
    finalDelaySentAt = Date.now();
    await signalHost(setHostDelaySignal, { minDelayMs: FINAL_DELAY_MS });
    await signalHost(pauseHostSignal);
    beforeFinalCan = await waitFor(ask, (s) => s.paused && s.delayOverrideMs === FINAL_DELAY_MS && s.inFlight === 0, { what: 'the final pause' });
    finalPausedAt = Date.now();
    for (let i = 0; i < 500 && (await ask()).run === beforeFinalCan.run; i++) await signalHost(wakeHostSignal, {});
    afterFinalCan = await ask();
    const left = await harness.pool.query<{ n: number }>(`SELECT count(*)::int AS n FROM frontier WHERE crawl_id = $1 AND state IN ('queued', 'dispatched')`, [crawlId]);
    urlsLeftAtResume = left.rows[0]?.n ?? 0;
    resumedAt = Date.now();
    pausedWindows.push({ fromMs: finalPausedAt, toMs: resumedAt });
    await signalHost(resumeHostSignal);

    summaryState = (await crawl.result()).state;
    // The host, idle now, ends its last run.
    await waitFor(() => hostHandle().describe(), (d) => d.status.name === 'COMPLETED', { what: 'the busy host ending its run' });
    runs = await runsOf(harness.client, hostWorkflowId(BUSY_HOST));
    console.log(`[host storm] ${runs.length} runs of host/${BUSY_HOST}; ${urlsLeftAtResume} URLs left at the final resume; crawl done ${Date.now() - stormStartedAt} ms after the storm began`);
  });

  afterAll(async () => {
    await harness?.close();
    await testWeb?.close();
  });

  it('continued as new several times, and the storm reached it in several runs', () => {
    expect(summaryState).toBe('finished');
    const continued = runs.filter((run) => run.status.name === 'CONTINUED_AS_NEW');
    // Three at least: the storm's own signals, the bursts' events (few: a burst plans for 10 s of
    // host time), and the final pause's.
    expect(continued.length).toBeGreaterThanOrEqual(3);
    expect(runs.at(-1)?.status.name).toBe('COMPLETED');
    const runsSeen = new Set(answers.map((answer) => answer.status.run));
    expect(runsSeen.size).toBeGreaterThanOrEqual(3);
    expect(stormRounds).toBeGreaterThanOrEqual(12);
  });

  it('runs as the newest host workflow type (HOST_WORKFLOW_TYPE): the host attribute from its start kept through continue-as-new, and no patch markers or upserts', async () => {
    for (const run of runs) {
      expect(run.type).toBe(HOST_WORKFLOW_TYPE);
      expect(run.typedSearchAttributes.get(HOST_SEARCH_ATTRIBUTE)).toBe(BUSY_HOST);
      const history = await harness.client.workflow.getHandle(hostWorkflowId(BUSY_HOST), run.runId).fetchHistory();
      const events = history.events ?? [];
      // Claims run as local activities, each a marker of its own; no patch marker.
      const markers = events.flatMap((event) => (event.markerRecordedEventAttributes ? [event.markerRecordedEventAttributes.markerName] : []));
      expect(markers.filter((name) => name !== 'core_local_activity')).toEqual([]);
      expect(events.filter((event) => event.upsertWorkflowSearchAttributesEventAttributes !== undefined && event.upsertWorkflowSearchAttributesEventAttributes !== null)).toEqual([]);
    }
  });

  it('applies every signal: after each round the host reports what its last signals said', () => {
    expect(unconverged).toEqual([]);
  });

  it('fetches every URL exactly once', async () => {
    const pages = requestsTo(testWeb.log(), BUSY_HOST).filter((entry) => entry.path !== '/robots.txt');
    const paths = pages.map((entry) => entry.path);
    expect(new Set(paths).size).toBe(paths.length);
    expect(new Set(paths)).toEqual(new Set(Array.from({ length: PAGES }, (_, i) => flatPagePath(i))));
    const records = await harness.pool.query<{ url: string; n: number }>(
      `SELECT url, count(*)::int AS n FROM fetches WHERE crawl_id = $1 AND outcome = 'ok' GROUP BY url`,
      [crawlId],
    );
    expect(records.rows).toHaveLength(PAGES);
    expect(records.rows.every((row) => row.n === 1)).toBe(true);
  });

  it('holds the politeness delay across every run, and never overlaps requests', () => {
    const report = politenessReport(requestsTo(testWeb.log(), BUSY_HOST), CRAWL_DELAY_MS);
    expect(report.overlaps).toEqual([]);
    expect(report.violations).toEqual([]);
  });

  it('sends no request while paused', () => {
    expect(pausedWindows.length).toBeGreaterThanOrEqual(6);
    const log = requestsTo(testWeb.log(), BUSY_HOST);
    const inWindows = log.filter((entry) => pausedWindows.some((w) => entry.startedAtMs >= w.fromMs && entry.startedAtMs < w.toMs));
    expect(inWindows).toEqual([]);
  });

  it('keeps the pause and the delay override through continue-as-new', () => {
    expect(afterFinalCan.run).toBeGreaterThan(beforeFinalCan.run);
    expect(afterFinalCan.paused).toBe(true);
    expect(afterFinalCan.delayOverrideMs).toBe(FINAL_DELAY_MS);
    expect(afterFinalCan.queueLength).toBe(beforeFinalCan.queueLength);
    // Work was left for after the resume, so the next test means something.
    expect(urlsLeftAtResume).toBeGreaterThanOrEqual(10);
  });

  it('spaces requests by the changed delay after resuming', async () => {
    const log = requestsTo(testWeb.log(), BUSY_HOST).filter((entry) => entry.path !== '/robots.txt');
    const before = log.filter((entry) => entry.startedAtMs < finalDelaySentAt);
    const after = log.filter((entry) => entry.startedAtMs >= resumedAt);
    expect(after.length).toBeGreaterThanOrEqual(10);
    expect(politenessReport(after, FINAL_DELAY_MS).violations).toEqual([]);
    // The delay each fetch was scheduled with, from the runs' histories (gaps alone could be wide
    // for other reasons, such as a slow machine): the storm's before, the operator's after.
    const delayOf = await scheduledHostDelays(harness, hostWorkflowId(BUSY_HOST), runs);
    const stormDelays = new Set(before.map((entry) => delayOf.get(entry.path)));
    expect([...stormDelays].every((ms) => ms !== undefined && ms >= CRAWL_DELAY_MS && ms < CRAWL_DELAY_MS + 40)).toBe(true);
    expect(new Set(after.map((entry) => delayOf.get(entry.path)))).toEqual(new Set([FINAL_DELAY_MS]));
  });

  it('answers hostStatus at any moment, with the queue Postgres agrees on', () => {
    expect(queryErrors).toEqual([]);
    expect(answers.length).toBeGreaterThan(stormRounds);
    for (const { status } of answers) {
      expect(status.host).toBe(BUSY_HOST);
      // A bounded back queue: one claim (at most 10) on top of the last URL, and the URLs of a
      // burst that stopped at its time span (or failed) handed back beside the claim it carried.
      expect(status.queueLength).toBeGreaterThanOrEqual(0);
      expect(status.queueLength).toBeLessThanOrEqual(1 + MAX_CLAIM_URLS + DEFAULT_FETCH_BURST_LIMITS.maxUrls);
      expect(Number.isFinite(status.nextFetchAtMs)).toBe(true);
    }
    const runsInOrder = answers.map((answer) => answer.status.run);
    expect(runsInOrder).toEqual([...runsInOrder].sort((a, b) => a - b));
    expect(queueChecks.length).toBeGreaterThanOrEqual(6);
    for (const check of queueChecks) expect(check.reported).toBe(check.claimed);
  });
});

describe('an idle host', () => {
  let harness: Harness;
  let testWeb: TestWeb;
  let firstRun: WorkflowExecutionInfo;
  let stored: HostPolitenessState;
  let secondRunStartedAtMs = 0;
  let answersOfSecondRun: HostStatus[] = [];
  let secondState = '';

  beforeAll(async () => {
    testWeb = await startTestWeb({ hosts: web.specs.slice(1) });
    harness = await createHarness('wf-host-idle');
    await harness.startWorker();
    const config = { minHostDelayMs: IDLE_HOST_DELAY_MS };
    await harness.runCrawl({ crawlId: 'wf-idle-1', seeds: [testWeb.url(IDLE_HOST, flatPagePath(0))], config });
    const handle = harness.client.workflow.getHandle(hostWorkflowId(IDLE_HOST));
    await waitFor(() => handle.describe(), (d) => d.status.name === 'COMPLETED', { what: 'the idle host ending its run' });
    firstRun = (await runsOf(harness.client, hostWorkflowId(IDLE_HOST)))[0]!;
    const row = await harness.pool.query<{ politeness: HostPolitenessState; workflow_active: boolean }>(`SELECT politeness, workflow_active FROM hosts WHERE host = $1`, [IDLE_HOST]);
    stored = row.rows[0]!.politeness;

    // New work for the host: the frontier wakes it, and a new run must wait for the old next fetch time.
    const second = await harness.startCrawl({ crawlId: 'wf-idle-2', seeds: [testWeb.url(IDLE_HOST, flatPagePath(1))], config });
    const seen: HostStatus[] = [];
    await waitFor(
      async () => {
        const description = await handle.describe();
        if (description.runId === firstRun.runId) return false;
        secondRunStartedAtMs ||= description.startTime.getTime();
        const status = await handle.query(hostStatusQuery);
        seen.push(status);
        return status.queueLength > 0;
      },
      (claimed) => claimed,
      { intervalMs: 10, what: 'a second run holding the new URL' },
    );
    answersOfSecondRun = seen;
    secondState = (await second.result()).state;
  });

  afterAll(async () => {
    await harness?.close();
    await testWeb?.close();
  });

  it('ends its workflow when it has nothing to do, and saves its politeness', async () => {
    expect(firstRun.status.name).toBe('COMPLETED');
    const pageOne = requestsTo(testWeb.log(), IDLE_HOST).find((entry) => entry.path === flatPagePath(0))!;
    // The crawler's clock counts whole milliseconds (Date.now()), the test web's a fraction of one:
    // an end the crawler read in the same millisecond as the web's stamp is that stamp, floored.
    expect(stored.nextFetchAtMs).toBeGreaterThanOrEqual(Math.floor(pageOne.finishedAtMs) + IDLE_HOST_DELAY_MS);
  });

  it('starts a new run on a later wake that waits for the saved next fetch time', () => {
    expect(secondState).toBe('finished');
    // The new run began before the saved time, so waiting for it was the run's doing.
    expect(secondRunStartedAtMs).toBeLessThan(stored.nextFetchAtMs);
    const log = requestsTo(testWeb.log(), IDLE_HOST);
    const pageOne = log.find((entry) => entry.path === flatPagePath(0))!;
    const pageTwo = log.find((entry) => entry.path === flatPagePath(1))!;
    expect(pageTwo.startedAtMs).toBeGreaterThanOrEqual(stored.nextFetchAtMs);
    expect(pageTwo.startedAtMs - pageOne.finishedAtMs).toBeGreaterThanOrEqual(IDLE_HOST_DELAY_MS);
    expect(politenessReport(log, IDLE_HOST_DELAY_MS).violations).toEqual([]);
  });

  it('reports the saved next fetch time from the start of the new run', () => {
    expect(answersOfSecondRun.length).toBeGreaterThan(0);
    const holding = answersOfSecondRun.filter((status) => status.queueLength > 0);
    expect(holding.length).toBeGreaterThan(0);
    for (const status of holding) expect(status.nextFetchAtMs).toBeGreaterThanOrEqual(stored.nextFetchAtMs);
  });
});
