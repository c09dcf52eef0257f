// Coverage by source on the discovery web (test/support/discovery-web.ts): one crawl of its 21
// hosts, then how many pages of each class it fetched (from the web's request log, so it measures
// any version of the crawler alike), and how the crawler itself counts them by source.
//   node bin/run-ts.js scripts/measure-discovery-coverage.ts
import path from 'node:path';
import { resolveCrawlConfig } from '../src/config/crawl-config.js';
import { crawlWorkflowId } from '../src/contracts/messages.js';
import type { CrawlSummary } from '../src/contracts/status.js';
import { ensureStack, stopStack } from '../src/stack/index.js';
import { createCrawlerWorker } from '../src/workers/crawler-worker.js';
import type { CrawlWorkflowInput } from '../src/workflows/crawl-workflow.js';
import { coverageByClass, discoveryWeb } from '../test/support/discovery-web.js';
import { startTestWeb } from '../test/support/test-web/index.js';
import { scratchDatabase } from './lib/recording.js';

const dataDir = path.resolve('.test-data/measure-discovery');
const stack = await ensureStack({ dataDir, log: () => undefined });
const databaseUrl = await scratchDatabase(stack, 'measure');

const site = discoveryWeb();
const web = await startTestWeb({ hosts: site.specs });
const taskQueue = `measure-${Date.now()}`;
const worker = await createCrawlerWorker({ temporal: stack.temporal, databaseUrl, s3: stack.s3, dataDir, taskQueue });
const running = worker.run();
const crawlId = `measure-${Date.now()}`;
const input: CrawlWorkflowInput = {
  crawlId,
  seeds: site.seeds(web.port),
  taskQueue,
  // Options an older crawler does not know are ignored by it.
  config: resolveCrawlConfig({ allowPrivateNetworks: true, minHostDelayMs: 50, scope: { mode: 'any', allowPrefixes: [], denyPrefixes: [] } }),
  options: { tickIntervalMs: 500 },
};
const startedAt = Date.now();
const handle = await worker.client.workflow.start('crawlWorkflow', { workflowId: crawlWorkflowId(crawlId), taskQueue, args: [input] });
const summary = (await handle.result()) as CrawlSummary;
const seconds = (Date.now() - startedAt) / 1000;
const coverage = coverageByClass(site, web.log());
console.log(`crawl ${crawlId}: ${summary.pagesFetched} pages fetched in ${seconds.toFixed(1)} s`);
console.log('coverage by class (pages fetched / pages of the class; the request log):');
for (const [kind, { fetched, total }] of Object.entries(coverage)) console.log(`  ${kind.padEnd(10)} ${String(fetched).padStart(3)} / ${total}`);
console.log(`found by (the crawler's own count): ${summary.discovery ? JSON.stringify(summary.discovery) : 'not reported by this version'}`);

await worker.shutdown();
await running;
await web.close();
await stopStack({ dataDir, log: () => undefined });
