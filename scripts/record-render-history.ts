// Records the history of a host workflow run that rendered pages (renderPage activities on the
// render task queue, hash routes, a render no worker took at first), for the replay test
// (test/integration/workflows/replay): a small crawl of a site built by JavaScript, on a local stack, with a render
// worker. Run it after a change to the render path of the host workflow, and commit the file:
//   npm run replay:record-render
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { resolveCrawlConfig } from '../src/config/crawl-config.js';
import { DEFAULT_RENDER_CONFIG } from '../src/config/render-config.js';
import { ensureStack, stopStack } from '../src/stack/index.js';
import { createCrawlerWorker } from '../src/workers/crawler-worker.js';
import type { CrawlWorkflowInput } from '../src/workflows/crawl-workflow.js';
import { crawlWorkflowId, hostWorkflowId } from '../src/contracts/messages.js';
import { appShell, html, robots, script, startRenderWeb } from '../test/support/render-web.js';
import { exportedHistory, scratchDatabase } from './lib/recording.js';

const OUT_DIR = path.resolve('test/integration/workflows/replay/histories');
const { suffix } = parseArgs({ options: { suffix: { type: 'string', default: '' } } }).values;
if (!/^[a-z0-9-]*$/.test(suffix)) throw new Error(`--suffix must be lower-case letters, digits and dashes, got ${suffix}`);
const dataDir = path.resolve('.test-data/record-render-history');
const stack = await ensureStack({ dataDir, log: console.log });

const databaseUrl = await scratchDatabase(stack, 'record_render');

const HOST = '127.75.0.1';
const ROUTER = `
function draw() {
  const route = location.hash || '#/';
  const links = route === '#/' ? '<a href="#/one">one</a> <a href="#/two">two</a> <a href="/static">static</a>' : '<a href="/">home</a>';
  document.getElementById('app').innerHTML = '<h1>' + route + '</h1><p>' + 'Drawn in the browser. '.repeat(30) + '</p>' + links;
}
window.addEventListener('hashchange', draw);
draw();`;
const web = await startRenderWeb([
  {
    address: HOST,
    routes: {
      '/robots.txt': robots('User-agent: *\nAllow: /\n'),
      '/': appShell(['/router.js'], 'Router'),
      '/router.js': script(ROUTER, { 'cache-control': 'max-age=600' }),
      '/static': html(`<html><body><p>${'Served whole. '.repeat(40)}</p><a href="/">home</a></body></html>`),
    },
  },
]);
const taskQueue = `record-render-${Date.now()}`;
const worker = await createCrawlerWorker({ temporal: stack.temporal, databaseUrl, s3: stack.s3, dataDir, taskQueue, logLevel: 'INFO', renderSlots: 1 });
const running = worker.run();
running.catch((error: unknown) => console.error('worker stopped:', error));

const crawlId = `record-render-${Date.now()}`;
const input: CrawlWorkflowInput = {
  crawlId,
  seeds: [`${web.origin(HOST)}/`],
  taskQueue,
  config: resolveCrawlConfig({
    allowPrivateNetworks: true,
    minHostDelayMs: 100,
    maxPages: 20,
    scope: { mode: 'any', allowPrefixes: [], denyPrefixes: [] },
    render: { ...DEFAULT_RENDER_CONFIG, mode: 'auto', allow: [`${web.origin(HOST)}/`] },
  }),
  options: { tickIntervalMs: 300 },
};
const recordingStartedAt = new Date();
const handle = await worker.client.workflow.start('crawlWorkflow', { workflowId: crawlWorkflowId(crawlId), taskQueue, args: [input] });
console.log('crawl', await handle.result());

const runs = [];
for await (const execution of worker.client.workflow.list({ query: `WorkflowId = '${hostWorkflowId(HOST)}'` })) {
  if (execution.startTime >= recordingStartedAt) runs.push(execution);
}
runs.sort((a, b) => a.startTime.getTime() - b.startTime.getTime());
const history = await exportedHistory<{ activityTaskScheduledEventAttributes?: { activityType?: { name?: string } } }>(stack, hostWorkflowId(HOST), runs[0]!.runId);
const renders = history.events.filter((event) => event.activityTaskScheduledEventAttributes?.activityType?.name === 'renderPage').length;
if (renders < 3) throw new Error(`expected the host's run to render its page and two routes, saw ${renders} renderPage activities`);
await writeFile(path.join(OUT_DIR, `host-workflow-render-run${suffix}.json`), `${JSON.stringify({ workflowId: hostWorkflowId(HOST), history })}\n`);
console.log(`saved host-workflow-render-run${suffix} (${history.events.length} events, ${renders} renders)`);

await worker.shutdown();
await running;
await web.close();
await stopStack({ dataDir, log: console.log });
