import { listDeadLetters, requeueDeadLetters } from '../../storage/postgres/attempt-repository.js';
import { getCrawl, reopenCrawl } from '../../storage/postgres/crawl-repository.js';
import { crawlWorkflowId, DEFAULT_TASK_QUEUE } from '../../contracts/messages.js';
import type { CrawlWorkflowInput } from '../../workflows/crawl-workflow.js';
import { dataDirOption, defaultDataDir, integerOption, parseCommandArgs } from '../args.js';
import { CliError } from '../cli-error.js';
import { connectClient, connectDatabase } from '../client.js';
import { connectServices } from '../services.js';

export const deadLettersUsage = `usage: crawler dead-letters [list] [--crawl ID] [--limit N] [--json] [--data-dir DIR]
       crawler dead-letters requeue --crawl ID [FINGERPRINT...] [--task-queue Q]

list     URLs that failed ${5} times at one stage (fetch or parse), with their attempt history
requeue  puts them back in their crawl's frontier with a clean attempt count (all of the crawl's,
         or the given fingerprints); a finished crawl is reopened so they are fetched`;

export async function deadLettersCommand(argv: string[]): Promise<number> {
  const { values, positionals } = parseCommandArgs(
    argv,
    { ...dataDirOption, crawl: { type: 'string' }, limit: { type: 'string' }, json: { type: 'boolean' }, 'task-queue': { type: 'string' } },
    deadLettersUsage,
  );
  const action = positionals[0] ?? 'list';
  const dataDir = defaultDataDir(values['data-dir']);
  const limit = integerOption('limit', values.limit, 1) ?? 100;
  const endpoints = await connectServices({ dataDir, start: false, need: action === 'requeue' ? ['temporal', 'postgres'] : ['postgres'] });
  const pool = await connectDatabase(endpoints);
  try {
    if (action === 'list') {
      const letters = await listDeadLetters(pool, { ...(values.crawl ? { crawlId: values.crawl } : {}), limit });
      if (values.json) {
        process.stdout.write(`${JSON.stringify(letters)}\n`);
      } else if (letters.length === 0) {
        process.stdout.write('no dead letters\n');
      } else {
        for (const letter of letters) {
          process.stdout.write(`${letter.fingerprint} ${letter.crawlId} ${letter.stage} ${letter.failureType} x${letter.attempts} ${letter.url}\n`);
        }
      }
      return 0;
    }
    if (action !== 'requeue') throw new CliError(`unknown dead-letters action '${action}'\n\n${deadLettersUsage}`, 2);
    if (!values.crawl) throw new CliError('requeue needs --crawl ID', 2);
    const crawl = await getCrawl(pool, values.crawl);
    if (!crawl) throw new CliError(`no crawl '${values.crawl}'`);
    const fingerprints = positionals.slice(1);
    const count = await requeueDeadLetters(pool, { crawlId: values.crawl, ...(fingerprints.length ? { fingerprints } : {}) });
    if (count > 0 && (crawl.state === 'finished' || crawl.state === 'stopped')) {
      // The crawl's workflow has ended: reopen it so the requeued URLs are fetched.
      await reopenCrawl(pool, values.crawl);
      const client = await connectClient(endpoints);
      const taskQueue = values['task-queue'] ?? DEFAULT_TASK_QUEUE;
      const input: CrawlWorkflowInput = { crawlId: crawl.id, config: crawl.config, seeds: [], taskQueue, resume: true };
      await client.workflow.start('crawlWorkflow', { workflowId: crawlWorkflowId(crawl.id), taskQueue, args: [input] });
      await client.connection.close();
      process.stdout.write(`requeued ${count} URL(s) and reopened crawl ${crawl.id}; a worker must be running (\`crawler worker\`)\n`);
    } else {
      process.stdout.write(`requeued ${count} URL(s) in crawl ${values.crawl}\n`);
    }
    return 0;
  } finally {
    await pool.end();
  }
}
