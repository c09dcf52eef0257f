// Two worker processes share one crawl over a generated web of 1,000 hosts: every URL is
// fetched once, politeness holds per host (from the server's log), both workers did work (from
// the identities Temporal recorded on the activities and workflow tasks they ran), and each worker's resident
// memory stays under a generous ceiling. Figures are printed; speed is never asserted here.
import type { ChildProcess } from 'node:child_process';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHarness, type Harness } from '../support/crawler-harness.js';
import { processTreeRssKb, spawnWorkerProcess, stopProcess } from '../support/crawler-process.js';
import { generateWeb, politenessReport, startTestWeb, type TestWeb } from '../support/test-web/index.js';
import { sleepMs } from '../support/wait-for.js';
import { localActivityOf } from '../support/local-activity-marker.js';
import { loadWorkflowBundle } from '../../src/workers/workflow-bundle.js';
import { crawlStatusQuery, crawlWorkflowId, hostWorkflowId } from '../../src/contracts/messages.js';
import type { CrawlSummary } from '../../src/contracts/status.js';

const HOSTS = 1000;
const DELAY_MS = 500;
/** Per worker process, VmRSS of the process and its children. Generous: this catches unbounded growth, not bloat. */
const RSS_CEILING_MIB = 1536;
/** Host workflows whose histories are read to see which worker ran their activities. */
const HISTORY_SAMPLE = 150;

describe('two workers, one crawl, 1,000 hosts', () => {
  let harness: Harness;
  let web: TestWeb;
  const workers: ChildProcess[] = [];
  // One small page per host, linking to two other hosts: 20 seeds, the other 980 hosts found by following links.
  const generated = generateWeb({ hosts: HOSTS, pagesPerHost: 1, linksPerPage: 2, crossHostLinkRatio: 1, seed: 1000, base: '127.63.0.1', robots: 'none', seedHosts: 20 });
  const crawlId = 'e2e-scale';
  let summary: CrawlSummary;
  let crawlMs = 0;
  const peakRssKb = new Map<number, number>();
  let samples = 0;
  const fetchesByIdentity = new Map<string, number>();

  beforeAll(async () => {
    web = await startTestWeb(generated.spec);
    harness = await createHarness('e2e-scale');
    // Built once here, so the two workers load it from the cache instead of both bundling at once.
    await loadWorkflowBundle(path.join(harness.dataDir, 'cache'));
    for (let i = 0; i < 2; i++) workers.push(spawnWorkerProcess(harness, { label: `scale worker ${i + 1}` }));

    let sampling = true;
    const sampler = (async () => {
      while (sampling) {
        for (const worker of workers) {
          const rss = await processTreeRssKb(worker.pid!);
          if (rss !== undefined) peakRssKb.set(worker.pid!, Math.max(peakRssKb.get(worker.pid!) ?? 0, rss));
        }
        samples += 1;
        await sleepMs(500);
      }
    })();

    const started = Date.now();
    const crawl = await harness.startCrawl({ crawlId, seeds: generated.seeds(web.port), config: { minHostDelayMs: DELAY_MS, maxPages: 10_000, maxDepth: 200, maxInFlight: 400 } });
    const progress = setInterval(() => {
      void harness.client.workflow
        .getHandle(crawlWorkflowId(crawlId))
        .query(crawlStatusQuery)
        .then((status) => {
          const rss = [...peakRssKb.values()].map((kb) => `${(kb / 1024).toFixed(0)} MiB`).join(', ');
          const { counts, admission } = status;
          console.log(
            `[scale] ${((Date.now() - started) / 1000).toFixed(0)} s: ${web.log().length} requests; fetched ${counts.fetched}, queued ${counts.queued}, ` +
              `in flight ${counts.inFlight}, hosts active ${status.activeHosts}; admission ${admission.admitFactor.toFixed(2)} (${admission.reason}); peak RSS ${rss}`,
          );
        })
        .catch(() => undefined);
    }, 15_000);
    try {
      summary = await crawl.result();
    } finally {
      clearInterval(progress);
    }
    crawlMs = Date.now() - started;
    sampling = false;
    await sampler;

    // Which worker ran each fetch, from the host workflows' own histories: a burst activity names
    // its worker when it starts; a local burst (a run's first) ran in the worker whose workflow
    // task recorded its marker.
    const countFetchBy = (identity: string | null | undefined) => fetchesByIdentity.set(identity ?? 'unknown', (fetchesByIdentity.get(identity ?? 'unknown') ?? 0) + 1);
    for (const host of generated.hosts.slice(0, HISTORY_SAMPLE)) {
      const history = await harness.client.workflow.getHandle(hostWorkflowId(host)).fetchHistory();
      const scheduled = new Map<string, string>();
      const workflowTaskIdentity = new Map<string, string | null | undefined>();
      for (const event of history.events ?? []) {
        const attributes = event.activityTaskScheduledEventAttributes;
        if (attributes?.activityType?.name) scheduled.set(String(event.eventId), attributes.activityType.name);
        if (event.workflowTaskCompletedEventAttributes) workflowTaskIdentity.set(String(event.eventId), event.workflowTaskCompletedEventAttributes.identity);
        const started = event.activityTaskStartedEventAttributes;
        const type = started ? scheduled.get(String(started.scheduledEventId)) : undefined;
        if (type === 'fetchUrl' || type === 'fetchBurst') countFetchBy(started!.identity);
        if (localActivityOf(event)?.type === 'fetchBurst') {
          countFetchBy(workflowTaskIdentity.get(String(event.markerRecordedEventAttributes!.workflowTaskCompletedEventId)));
        }
      }
    }

    const pages = generated.expectedReachable(web.port).size;
    const rss = [...peakRssKb.values()].map((kb) => `${(kb / 1024).toFixed(0)} MiB`).join(', ');
    console.log(
      `[scale] ${HOSTS} hosts, ${pages} pages, ${web.log().length} requests in ${(crawlMs / 1000).toFixed(1)} s ` +
        `(${((pages / crawlMs) * 1000).toFixed(1)} pages/s, delay ${DELAY_MS} ms); peak worker RSS ${rss} over ${samples} samples; ` +
        `fetches by worker in ${HISTORY_SAMPLE} host histories: ${JSON.stringify(Object.fromEntries(fetchesByIdentity))}`,
    );
  }, 900_000);

  afterAll(async () => {
    await Promise.all(workers.map((worker) => stopProcess(worker)));
    await harness?.close();
    await web?.close();
  });

  it('finishes with every reachable page fetched exactly once', async () => {
    expect(summary.state).toBe('finished');
    const fetched = web.log().filter((entry) => entry.path !== '/robots.txt').map((entry) => `http://${entry.host}:${web.port}${entry.path}`);
    expect(new Set(fetched).size).toBe(fetched.length);
    expect(new Set(fetched)).toEqual(generated.expectedReachable(web.port));
    const perUrl = await harness.pool.query<{ n: number }>(`SELECT count(*)::int AS n FROM fetches WHERE crawl_id = $1 AND outcome = 'ok' GROUP BY url HAVING count(*) > 1`, [crawlId]);
    expect(perUrl.rows).toEqual([]);
    expect(summary.pagesFetched).toBe(fetched.length);
  });

  it('reached every host and asked each for robots.txt once', () => {
    const robots = web.log().filter((entry) => entry.path === '/robots.txt');
    expect(new Set(robots.map((entry) => entry.host)).size).toBe(HOSTS);
    expect(robots).toHaveLength(HOSTS);
  });

  it('holds the politeness delay per host and never overlaps requests to one host', () => {
    const report = politenessReport(web.log(), DELAY_MS);
    expect(report.overlaps).toEqual([]);
    expect(report.violations).toEqual([]);
  });

  it('shared the work between both worker processes', () => {
    expect(fetchesByIdentity.size).toBe(2);
    for (const worker of workers) {
      const mine = [...fetchesByIdentity].filter(([identity]) => identity.endsWith(`/${worker.pid}`));
      expect(mine, `worker ${worker.pid}`).toHaveLength(1);
      expect(mine[0]![1]).toBeGreaterThan(0);
    }
  });

  it(`kept each worker's resident memory under ${RSS_CEILING_MIB} MiB`, () => {
    expect(samples).toBeGreaterThan(2);
    expect(peakRssKb.size).toBe(2);
    for (const [pid, kb] of peakRssKb) expect(kb / 1024, `worker ${pid}`).toBeLessThan(RSS_CEILING_MIB);
  });
});
