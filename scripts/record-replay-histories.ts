// Records real workflow histories for the replay test (test/integration/workflows/replay): a small crawl on a local
// stack whose dev server suggests continue-as-new early, with pause, resume, a query and an
// added seed along the way, so the histories carry every message type and a continue-as-new.
// Run it after a workflow change that is meant to be compatible, and commit the files:
//   npm run replay:record
// `--suffix=-NAME` saves beside the committed histories instead of over them (crawl-workflow-NAME.json
// ...): after the first release, a patched change keeps the old histories, which replay its old
// path, and adds new ones (CONTRIBUTING.md, "Versioning workflows").
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { resolveCrawlConfig } from '../src/config/crawl-config.js';
import { ensureStack, stopStack } from '../src/stack/index.js';
import { createCrawlerWorker } from '../src/workers/crawler-worker.js';
import type { CrawlWorkflowInput } from '../src/workflows/crawl-workflow.js';
import { addSeedsUpdate, crawlStatusQuery, crawlWorkflowId, hostWorkflowId, pauseCrawlSignal, resumeCrawlSignal } from '../src/contracts/messages.js';
import { generateWeb, startTestWeb } from '../test/support/test-web/index.js';
import { exportedHistory, scratchDatabase } from './lib/recording.js';

const OUT_DIR = path.resolve('test/integration/workflows/replay/histories');
const { suffix } = parseArgs({ options: { suffix: { type: 'string', default: '' } } }).values;
if (!/^[a-z0-9-]*$/.test(suffix)) throw new Error(`--suffix must be lower-case letters, digits and dashes, got ${suffix}`);
const dataDir = path.resolve('.test-data/record-histories');
const stack = await ensureStack({ dataDir, temporalDynamicConfig: { 'limit.historyCount.suggestContinueAsNew': 100 }, log: console.log });

const databaseUrl = await scratchDatabase(stack, 'record');

const generated = generateWeb({ hosts: 2, pagesPerHost: 1500, linksPerPage: 4, crossHostLinkRatio: 0.2, seed: 3, base: '127.29.0.1', robots: 'some-disallow' });
const web = await startTestWeb(generated.spec);
const taskQueue = `record-${Date.now()}`;
const worker = await createCrawlerWorker({ temporal: stack.temporal, databaseUrl, s3: stack.s3, dataDir, taskQueue, logLevel: 'INFO' });
const running = worker.run();
running.catch((error: unknown) => console.error("worker stopped:", error));

const crawlId = `record-${Date.now()}`;
const [firstSeed, ...otherSeeds] = generated.seeds(web.port);
const input: CrawlWorkflowInput = {
  crawlId,
  seeds: [firstSeed!],
  taskQueue,
  config: resolveCrawlConfig({ allowPrivateNetworks: true, minHostDelayMs: 30, maxDepth: 50, maxPages: 3000, scope: { mode: 'any', allowPrefixes: [], denyPrefixes: [] } }),
  options: { tickIntervalMs: 300 },
};
const recordingStartedAt = new Date();
const handle = await worker.client.workflow.start('crawlWorkflow', { workflowId: crawlWorkflowId(crawlId), taskQueue, args: [input] });
await new Promise((resolve) => setTimeout(resolve, 3000));
await handle.signal(pauseCrawlSignal);
await handle.query(crawlStatusQuery);
await new Promise((resolve) => setTimeout(resolve, 1500));
await handle.signal(resumeCrawlSignal);
if (otherSeeds.length > 0) await handle.executeUpdate(addSeedsUpdate, { args: [{ urls: otherSeeds }] });
const summary = await handle.result();
console.log('crawl', summary);

await mkdir(OUT_DIR, { recursive: true });
// The CLI's JSON is the format `temporal workflow show` gives operators, and replay reads it as is.
async function save(name: string, workflowId: string, runId: string): Promise<void> {
  const history = await exportedHistory(stack, workflowId, runId);
  await writeFile(path.join(OUT_DIR, `${name}${suffix}.json`), `${JSON.stringify({ workflowId, history })}\n`);
  console.log(`saved ${name}${suffix} (${history.events.length} events)`);
}
await save('crawl-workflow', crawlWorkflowId(crawlId), (await handle.describe()).runId);
// The host whose back queue continued as new most often (a host's runs also end when it idles).
const runsOfHost = async (host: string) => {
  const runs = [];
  // The stack's data folder outlives a recording, and host workflows keep their id: only this crawl's runs.
  for await (const execution of worker.client.workflow.list({ query: `WorkflowId = '${hostWorkflowId(host)}'` })) {
    if (execution.startTime >= recordingStartedAt) runs.push(execution);
  }
  return runs.sort((a, b) => a.startTime.getTime() - b.startTime.getTime());
};
const candidates = await Promise.all([...new Set(generated.seeds(web.port).map((seed) => new URL(seed).hostname))].map(async (name) => ({ name, runs: await runsOfHost(name) })));
const continuedOf = (runs: Awaited<ReturnType<typeof runsOfHost>>) => runs.filter((run) => run.status.name === 'CONTINUED_AS_NEW');
const { name: host, runs } = candidates.sort((a, b) => continuedOf(b.runs).length - continuedOf(a.runs).length)[0]!;
const continued = continuedOf(runs);
if (continued.length < 2) throw new Error(`expected a host workflow to continue-as-new at least twice, saw ${continued.length}: raise the page count`);
// The host's opening run (its first claim, its robots.txt), when it is not the first that continued.
if (runs[0]!.runId !== continued[0]!.runId) await save('host-workflow-opening-run', hostWorkflowId(host), runs[0]!.runId);
await save('host-workflow-first-run', hostWorkflowId(host), continued[0]!.runId);
await save('host-workflow-continued-run', hostWorkflowId(host), continued[1]!.runId);
await save('host-workflow-last-run', hostWorkflowId(host), runs.at(-1)!.runId);

await worker.shutdown();
await running;
await web.close();
// Its services would otherwise run on, idle but not free, until the next `crawler stack down`.
await stopStack({ dataDir, log: console.log });
