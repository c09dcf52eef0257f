// A crawl's hosts, found in the Temporal UI, on the real dev server: each host run carries the
// crawls it serves in its CrawlIds search attribute, so `CrawlIds = '<id>'` lists a crawl's hosts,
// and a host serving two crawls at once is listed by both; a host run's static summary names its
// host, and while it waits its current details say what for and until when; the crawl's current
// details are its progress line.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Client } from '@temporalio/client';
import { createHarness, type Harness } from '../../support/crawler-harness.js';
import { flatWeb } from '../../support/flat-web.js';
import { startTestWeb, type TestWeb } from '../../support/test-web/index.js';
import { waitFor } from '../../support/wait-for.js';
import { CRAWL_IDS_SEARCH_ATTRIBUTE, crawlWorkflowId, hostWorkflowId } from '../../../src/contracts/messages.js';
import type { CrawlSummary } from '../../../src/contracts/status.js';

/** Over the fetch burst's limit (1 s): the host run itself waits out each delay, on a timer. */
const DELAY_MS = 1500;
const web3 = flatWeb({ base: '127.140.0.1', hosts: 3, pagesPerHost: 6 });
const [onlyA, shared, onlyB] = web3.hosts as [string, string, string];

/** The workflow ids `query` lists, each once (a workflow that continued as new lists every run). */
async function workflowIdsMatching(client: Client, query: string): Promise<string[]> {
  const ids = new Set<string>();
  for await (const execution of client.workflow.list({ query })) ids.add(execution.workflowId);
  return [...ids].sort();
}

/** The Temporal UI's metadata query: what the workflow shows as its current details. */
async function currentDetails(client: Client, workflowId: string): Promise<string> {
  const metadata = await client.workflow.getHandle(workflowId).query<{ currentDetails?: string }>('__temporal_workflow_metadata');
  return metadata.currentDetails ?? '';
}

describe('a crawl’s hosts in the Temporal UI: CrawlIds, summary and current details', () => {
  let harness: Harness;
  let web: TestWeb;
  const crawlA = 'wf-host-details-a';
  const crawlB = 'wf-host-details-b';
  let sharedCrawlIds: string[] = [];
  let hostDetails = '';
  let crawlDetails = '';
  let hostSummary: string | undefined;
  const summaries: CrawlSummary[] = [];

  beforeAll(async () => {
    web = await startTestWeb({ hosts: web3.specs });
    harness = await createHarness('wf-host-details');
    await harness.startWorker();
    const config = { minHostDelayMs: DELAY_MS };
    const a = await harness.startCrawl({ crawlId: crawlA, seeds: [...web3.pageUrls(web.port, onlyA), ...web3.pageUrls(web.port, shared)], config });
    // The shared host's run, started for A, still has A's work (6 pages, 9 s) when B brings more.
    await waitFor(() => harness.client.workflow.getHandle(hostWorkflowId(shared)).describe(), (description) => description.status.name === 'RUNNING', { what: 'the shared host run' });
    const b = await harness.startCrawl({ crawlId: crawlB, seeds: [...web3.pageUrls(web.port, shared), ...web3.pageUrls(web.port, onlyB)], config });
    sharedCrawlIds = await waitFor(
      async () => (await harness.client.workflow.getHandle(hostWorkflowId(shared)).describe()).typedSearchAttributes.get(CRAWL_IDS_SEARCH_ATTRIBUTE) ?? [],
      (ids) => ids.length === 2,
      { what: 'the shared host run naming both crawls', timeoutMs: 30_000 },
    ).catch(() => []);
    hostSummary = await harness.client.workflow.getHandle(hostWorkflowId(onlyA)).describe().then((description) => description.staticSummary());
    hostDetails = await waitFor(() => currentDetails(harness.client, hostWorkflowId(onlyA)), (details) => details.startsWith('next request at'), { what: 'a host waiting out its delay' });
    crawlDetails = await waitFor(() => currentDetails(harness.client, crawlWorkflowId(crawlA)), (details) => details.includes('fetched'), { what: 'the crawl progress line' });
    summaries.push(await a.result(), await b.result());
  });

  afterAll(async () => {
    await harness?.close();
    await web?.close();
  });

  it('completes both crawls', () => {
    expect(summaries.map((summary) => summary.state)).toEqual(['finished', 'finished']);
  });

  it('lists each crawl’s hosts with CrawlIds, the shared host under both', async () => {
    expect(sharedCrawlIds).toEqual([crawlA, crawlB]);
    const hostsOf = (crawlId: string) =>
      waitFor(() => workflowIdsMatching(harness.client, `CrawlIds = '${crawlId}'`), (ids) => ids.length >= 2, { what: `the hosts of ${crawlId}`, timeoutMs: 20_000 });
    expect(await hostsOf(crawlA)).toEqual([hostWorkflowId(onlyA), hostWorkflowId(shared)].sort());
    expect(await hostsOf(crawlB)).toEqual([hostWorkflowId(shared), hostWorkflowId(onlyB)].sort());
  });

  it('names the host in its run’s summary, and says what the host waits for and until when', () => {
    expect(hostSummary).toBe(`Back queue of ${onlyA}`);
    expect(hostDetails).toMatch(/^next request at \d\d:\d\d:\d\d\.\d{3}Z · \d+ queued · \d+ in flight · \d+ parsing$/);
  });

  it('shows the crawl’s progress line as its current details', () => {
    expect(crawlDetails).toMatch(/^\*\*running\*\* · fetched \d+ · in flight \d+ · queued \d+/);
  });
});
