// `crawler crawl`: checks every seed and flag, starts what it needs (the stack under the data
// folder, an in-process worker), starts or attaches to the crawl, watches it to its end and prints
// its summary. The parts live in src/cli/crawl/.
import { createCrawlerWorker, type CrawlerWorker } from '../../workers/crawler-worker.js';
import { WorkerStartError } from '../../workers/worker-start-error.js';
import { crawlWorkflowId, DEFAULT_TASK_QUEUE } from '../../contracts/messages.js';
import { redactUserinfo, tryCanonicalizeUrl } from '../../domain/url/index.js';
import { findChromium } from '../../browser/index.js';
import { defaultDataDir, integerOption, logFormatOption, parseCommandArgs, proxyCredentialsOption } from '../args.js';
import { CliError } from '../cli-error.js';
import { connectServices, temporalUiLink } from '../services.js';
import { SEEDS_IN_WORKFLOW_INPUT, checkSeedsFile } from '../seeds-file.js';
import { connectDatabase } from '../client.js';
import { crawlOptions, crawlUsage } from '../crawl/crawl-usage.js';
import { buildConfig, oneShot, type CrawlValues } from '../crawl/crawl-flags.js';
import { allSeeds, newCrawlId, startOrAttachCrawl } from '../crawl/crawl-start.js';
import { LEFT_RUNNING, firstLine, watchCrawlToEnd } from '../crawl/crawl-watch.js';
import { crawlSummaryText } from '../crawl/crawl-summary.js';
import { ProgressLine } from '../crawl/progress-line.js';
import type { StackEndpoints } from '../../stack/index.js';

export { crawlOptions, crawlUsage } from '../crawl/crawl-usage.js';

/** 128 + SIGTERM's number, as a shell reports a process that SIGTERM ended. */
const EXIT_ON_SIGTERM = 143;

export async function crawlCommand(argv: string[]): Promise<number> {
  const { values, positionals } = parseCommandArgs(argv, crawlOptions, crawlUsage);
  const seeds = await readSeeds(values, positionals);
  // The in-process worker renders when the browser is installed, and the crawl then renders in auto.
  const chromium = findChromium();
  const noWorker = values['no-worker'] === true;
  const renderSlots = noWorker || !chromium.found ? 0 : (integerOption('render-slots', values['render-slots'], 0, 16) ?? 1);
  const config = oneShot(await buildConfig(values, { defaultRenderMode: renderSlots > 0 ? 'auto' : 'never' }));
  const json = values.json === true;
  if (!chromium.found && values.render === undefined && !noWorker && !json) process.stderr.write(`rendering is off: ${chromium.reason}\n`);
  if (noWorker && values['proxy-credentials-file'] !== undefined) {
    throw new CliError('--proxy-credentials-file is for the worker this process runs; with --no-worker, give it to `crawler worker`', 2);
  }
  const proxyCredentials = noWorker ? undefined : await proxyCredentialsOption(values['proxy-credentials-file']);
  const metricsPort = integerOption('metrics-port', values['metrics-port'], 0, 65_535);
  const dataDir = defaultDataDir(values['data-dir']);
  const say = (line: string, always = false): void => void (json && !always ? undefined : process.stderr.write(`${line}\n`));
  // --json: stdout carries the summary alone, whatever a library logs on the way (to stderr instead).
  if (json) keepStdoutForTheSummary();

  const endpoints = await connectServices({ dataDir, start: true, log: json ? undefined : say });
  const taskQueue = values['task-queue'] ?? DEFAULT_TASK_QUEUE;
  const worker = noWorker
    ? undefined
    : await startWorker({ endpoints, dataDir, taskQueue, renderSlots, logFormat: logFormatOption(values['log-format']), metricsPort, proxyCredentials });
  if (worker?.metricsUrl) say(`metrics at ${worker.metricsUrl}`, true);
  const workerRun = worker?.run();
  const client = worker?.client ?? (await (await import('../client.js')).connectClient(endpoints));

  const crawlId = values.resume ?? values['crawl-id'] ?? newCrawlId();
  const workflowId = crawlWorkflowId(crawlId);
  const link = temporalUiLink(endpoints, workflowId);
  const progress = new ProgressLine(!json && process.stderr.isTTY === true);
  const outageNotes = {
    onOutage: (outage: { sinceMs: number; error: unknown } | undefined) =>
      progress.note('temporal', outage === undefined ? undefined : `Temporal unreachable since ${new Date(outage.sinceMs).toISOString()}, retrying (${firstLine(outage.error)})`),
  };
  let ended;
  try {
    const handle = await startOrAttachCrawl({
      client, crawlId, workflowId, taskQueue, config, link, say, outageNotes,
      seeds: seeds.inInput,
      seedCount: seeds.count,
      resume: values.resume !== undefined,
      ...(seeds.registeredHere && values['seeds-file'] !== undefined
        ? { seedsToRegister: { pool: async () => worker?.pool ?? (await connectDatabase(endpoints)), positionals, seedsFile: values['seeds-file'] } }
        : {}),
    });
    // Ctrl-C's answer is said even with --json: the user pressed it.
    ended = await watchCrawlToEnd({ client, handle, crawlId, endpoints, progress, outageNotes, say: (line) => say(line, true), link });
  } finally {
    await worker?.shutdown();
    await workerRun;
  }
  if (ended === LEFT_RUNNING) {
    say(`crawl ${crawlId} left running in Temporal (SIGTERM): \`crawler crawl --resume ${crawlId}\` carries it on, \`crawler stop ${crawlId}\` stops it`, true);
    return EXIT_ON_SIGTERM;
  }
  process.stdout.write(crawlSummaryText(ended, link, json));
  return 0;
}

/**
 * Every seed is checked before anything starts: one bad URL and nothing runs. A large seeds file is
 * registered by this process in batches (`registeredHere`), not put in the workflow's input.
 */
async function readSeeds(values: CrawlValues, positionals: string[]): Promise<{ inInput: string[]; count: number; registeredHere: boolean }> {
  const seedsFile = values['seeds-file'] as string | undefined;
  const count = positionals.length + (seedsFile === undefined ? 0 : await checkSeedsFile(seedsFile, positionals.length));
  const registeredHere = count > SEEDS_IN_WORKFLOW_INPUT;
  const resume = values.resume as string | undefined;
  if (resume !== undefined && (count > 0 || values['crawl-id'] !== undefined)) throw new CliError(`--resume ${resume} attaches to a crawl as it was started: give no seeds and no --crawl-id with it`, 2);
  if (count === 0 && resume === undefined) throw new CliError(`no seed URLs: give URLs or --seeds-file\n\n${crawlUsage}`, 2);
  for (const seed of positionals) {
    const result = tryCanonicalizeUrl(seed);
    if (!result.ok) throw new CliError(`invalid seed URL '${redactUserinfo(seed)}': ${result.error.message}. Fix or remove it; nothing was started.`, 2);
  }
  const inInput = registeredHere || seedsFile === undefined ? positionals : [...positionals, ...(await allSeeds(seedsFile))];
  return { inInput, count, registeredHere };
}

async function startWorker(options: {
  endpoints: StackEndpoints;
  dataDir: string;
  taskQueue: string;
  renderSlots: number;
  logFormat: ReturnType<typeof logFormatOption>;
  metricsPort: number | undefined;
  proxyCredentials: Awaited<ReturnType<typeof proxyCredentialsOption>> | undefined;
}): Promise<CrawlerWorker> {
  const { endpoints, metricsPort, proxyCredentials } = options;
  return createCrawlerWorker({
    temporal: endpoints.temporal,
    databaseUrl: endpoints.postgres.url,
    s3: endpoints.s3,
    dataDir: options.dataDir,
    taskQueue: options.taskQueue,
    logFormat: options.logFormat,
    renderSlots: options.renderSlots,
    ...(metricsPort !== undefined ? { metricsPort } : {}),
    ...(proxyCredentials !== undefined ? { proxyCredentials } : {}),
  }).catch((error: unknown) => {
    if (error instanceof WorkerStartError) throw new CliError(error.message);
    throw error;
  });
}

function keepStdoutForTheSummary(): void {
  const toStderr = (...args: unknown[]): void => console.error(...args);
  console.log = toStderr;
  console.info = toStderr;
  console.debug = toStderr;
}
