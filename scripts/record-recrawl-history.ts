// Records a real recrawl-cycle history for the replay test (test/integration/workflows/replay): a small crawl of a web
// whose robots.txt declares a sitemap and which has a listing page, then one recrawl cycle, so the
// history carries the signal sweep (a child crawl), the plan and the cycle's crawl. It writes
// test/integration/workflows/replay/histories/recrawl-cycle-workflow.json only. Run it after a change to the cycle workflow:
//   npm run replay:record-recrawl
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { resolveCrawlConfig } from '../src/config/crawl-config.js';
import { ensureStack, stopStack } from '../src/stack/index.js';
import { createCrawlerWorker } from '../src/workers/crawler-worker.js';
import { crawlWorkflowId } from '../src/contracts/messages.js';
import type { RecrawlCycleInput } from '../src/workflows/recrawl-cycle-workflow.js';
import { startTestWeb } from '../test/support/test-web/index.js';
import { exportedHistory, scratchDatabase } from './lib/recording.js';

const OUT_FILE = path.resolve('test/integration/workflows/replay/histories/recrawl-cycle-workflow.json');
const dataDir = path.resolve('.test-data/record-histories');
const stack = await ensureStack({ dataDir, log: console.log });

const databaseUrl = await scratchDatabase(stack, 'record_recrawl');

const HOST = '127.29.1.1';
const items = [1, 2, 3];
const html = (title: string, body: string) => `<!doctype html><html><head><title>${title}</title></head><body>${body}</body></html>`;
const web = await startTestWeb({
  hosts: [
    {
      host: HOST,
      robotsTxt: `User-agent: *\nAllow: /\nSitemap: http://${HOST}:{port}/sitemap.xml\n`,
      pages: [
        { path: '/', body: html('Shop', '<a href="/catalog">Catalog</a>') },
        { path: '/catalog', body: html('Catalog', `<ul>${items.map((n) => `<li><a href="/item/${n}">Item ${n}</a> ${n}.90 EUR</li>`).join('')}</ul>`) },
        ...items.map((n) => ({ path: `/item/${n}`, body: html(`Item ${n}`, `<p>Item ${n}, ${n}.90 EUR.</p>`) })),
        {
          path: '/sitemap.xml',
          contentType: 'application/xml',
          body: (ctx: { port: number }) =>
            `<?xml version="1.0"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">${items
              .map((n) => `<url><loc>http://${HOST}:${ctx.port}/item/${n}</loc><lastmod>2020-01-01</lastmod></url>`)
              .join('')}</urlset>`,
        },
      ],
    },
  ],
});
const taskQueue = `record-recrawl-${Date.now()}`;
const worker = await createCrawlerWorker({ temporal: stack.temporal, databaseUrl, s3: stack.s3, dataDir, taskQueue, logLevel: 'INFO' });
const running = worker.run();
running.catch((error: unknown) => console.error('worker stopped:', error));

const config = resolveCrawlConfig({
  allowPrivateNetworks: true,
  minHostDelayMs: 30,
  scope: { mode: 'any', allowPrefixes: [], denyPrefixes: [] },
  listingPages: [`http://${HOST}:${web.port}/catalog`],
});
const crawlId = `record-recrawl-${Date.now()}`;
await worker.client.workflow.execute('crawlWorkflow', {
  workflowId: crawlWorkflowId(crawlId),
  taskQueue,
  args: [{ crawlId, seeds: [`http://${HOST}:${web.port}/`], taskQueue, config, options: { tickIntervalMs: 300 } }],
});

const cycleInput: RecrawlCycleInput = {
  settings: { budget: 10, everyMs: 3_600_000 },
  config,
  taskQueue,
  crawlOptions: { tickIntervalMs: 300 },
};
const workflowId = `recrawl/record-${Date.now()}`;
const cycle = await worker.client.workflow.start('recrawlCycleWorkflow', { workflowId, taskQueue, args: [cycleInput] });
console.log('cycle', JSON.stringify((await cycle.result()).summary));

const history = await exportedHistory(stack, workflowId, cycle.firstExecutionRunId);
await mkdir(path.dirname(OUT_FILE), { recursive: true });
await writeFile(OUT_FILE, `${JSON.stringify({ workflowId, history })}\n`);
console.log(`saved ${path.basename(OUT_FILE)} (${history.events.length} events)`);

await worker.shutdown();
await running;
await web.close();
// Its services would otherwise run on, idle but not free, until the next `crawler stack down`.
await stopStack({ dataDir, log: console.log });
