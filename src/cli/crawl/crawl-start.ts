// Starts a crawl's workflow, or attaches to one already running: `--resume ID`, or the same
// `--crawl-id` started twice. A seeds file too large for the workflow's input is registered here
// first, in batches, and the workflow starts on the crawl's records.
import { randomBytes } from 'node:crypto';
import { WorkflowExecutionAlreadyStartedError, WorkflowNotFoundError, type Client, type WorkflowHandle } from '@temporalio/client';
import type { CrawlConfig } from '../../config/crawl-config.js';
import { registerSeedBatch } from '../../services/frontier/seed-registration.js';
import type { Pool } from '../../storage/postgres/pool.js';
import type { CrawlWorkflowInput } from '../../workflows/crawl-workflow.js';
import { CliError } from '../cli-error.js';
import { retryThroughOutages, type OutageRetryOptions } from '../client-outages.js';
import { seedBatches } from '../seeds-file.js';

export interface CrawlStartRequest {
  client: Client;
  crawlId: string;
  workflowId: string;
  taskQueue: string;
  config: CrawlConfig;
  /** Seeds that go in the workflow's input (empty when this process registers them itself). */
  seeds: string[];
  seedCount: number;
  /** Set when this process registers the seeds itself before the start. */
  seedsToRegister?: { pool: () => Promise<Pool>; positionals: string[]; seedsFile: string };
  /** The crawl to attach to (`--resume`): nothing is started. */
  resume: boolean;
  outageNotes: OutageRetryOptions;
  /** Progress for the user; `always` also prints with --json (the user asked for one crawl and watches another). */
  say: (line: string, always?: boolean) => void;
  /** Where the crawl shows in the Temporal UI, when known. */
  link: string | undefined;
}

export async function startOrAttachCrawl(request: CrawlStartRequest): Promise<WorkflowHandle> {
  const { client, crawlId, workflowId, link, say } = request;
  const watchAt = link ? `; watch it at ${link}` : '';
  if (request.resume) {
    const handle = client.workflow.getHandle(workflowId);
    try {
      await retryThroughOutages(() => handle.describe(), request.outageNotes);
    } catch (error) {
      if (error instanceof WorkflowNotFoundError) throw new CliError(`no crawl ${crawlId} on this Temporal service: \`crawler status\` lists the crawls it has`, 2);
      throw error;
    }
    say(`attached to crawl ${crawlId}${watchAt}`);
    return handle;
  }
  const toRegister = request.seedsToRegister;
  if (toRegister !== undefined) {
    await registerSeeds(await toRegister.pool(), { crawlId, config: request.config, positionals: toRegister.positionals, seedsFile: toRegister.seedsFile, seedCount: request.seedCount, say });
  }
  // Registered here: the workflow starts on the crawl's records (resume), its input small.
  const input: CrawlWorkflowInput =
    toRegister !== undefined
      ? { crawlId, config: request.config, seeds: [], taskQueue: request.taskQueue, resume: true }
      : { crawlId, config: request.config, seeds: request.seeds, taskQueue: request.taskQueue };
  try {
    const handle = await retryThroughOutages(
      () =>
        client.workflow.start('crawlWorkflow', {
          workflowId,
          taskQueue: request.taskQueue,
          args: [input],
          staticSummary: `Crawl ${crawlId}: ${request.seedCount} seed(s), max ${request.config.maxPages} pages`,
        }),
      request.outageNotes,
    );
    say(`crawl ${crawlId} started${watchAt}`);
    return handle;
  } catch (error) {
    if (!(error instanceof WorkflowExecutionAlreadyStartedError)) throw error;
    // The same crawl, still running: watch it to its end rather than start it twice.
    say(`crawl ${crawlId} is already running: attached to it (its seeds and options are the ones it started with)${watchAt}`, true);
    return client.workflow.getHandle(workflowId);
  }
}

export async function allSeeds(file: string): Promise<string[]> {
  const seeds: string[] = [];
  for await (const batch of seedBatches(file)) seeds.push(...batch);
  return seeds;
}

/** A large seeds file into the frontier, SEED_BATCH per transaction, before the crawl workflow starts. */
async function registerSeeds(
  pool: Pool,
  input: { crawlId: string; config: CrawlConfig; positionals: string[]; seedsFile: string; seedCount: number; say: (line: string) => void },
): Promise<void> {
  let registered = 0;
  let batches = 0;
  const register = async (seeds: string[]): Promise<void> => {
    // createCrawl on every batch: the record is made once, and a batch repeated (a re-run) registers nothing twice.
    const result = await registerSeedBatch(pool, { crawlId: input.crawlId, config: input.config, seeds, createCrawl: true });
    registered += result.registered;
    batches += 1;
    if (batches % 10 === 0) input.say(`registering seeds: ${registered.toLocaleString('en')} of ${input.seedCount.toLocaleString('en')}`);
  };
  if (input.positionals.length > 0) await register(input.positionals);
  for await (const batch of seedBatches(input.seedsFile)) await register(batch);
  input.say(`registered ${registered.toLocaleString('en')} seeds (${input.seedCount.toLocaleString('en')} given, duplicates once)`);
}

export function newCrawlId(): string {
  const stamp = new Date().toISOString().replace(/[-:]/g, '').replace(/\..*$/, '').replace('T', '-');
  return `${stamp}-${randomBytes(2).toString('hex')}`;
}
