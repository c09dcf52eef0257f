import { WorkflowNotFoundError } from '@temporalio/client';
import { CRAWL_CONFIG_INTEGER_RANGES } from '../../config/crawl-config.js';
import { setHostOperatorSettings } from '../../storage/postgres/host-repository.js';
import {
  addSeedsUpdate,
  crawlWorkflowId,
  hostWorkflowId,
  pauseCrawlSignal,
  pauseHostSignal,
  resumeCrawlSignal,
  resumeHostSignal,
  setHostDelaySignal,
  stopCrawlSignal,
} from '../../contracts/messages.js';
import { dataDirOption, defaultDataDir, integerOption, parseCommandArgs } from '../args.js';
import { CliError } from '../cli-error.js';
import { connectClient, connectDatabase } from '../client.js';
import { connectServices } from '../services.js';

export const controlUsage = `usage: crawler pause|resume --crawl ID | --host HOST
       crawler stop --crawl ID [--reason TEXT]
       crawler host-delay --host HOST (--ms N | --clear)
       crawler add-seeds --crawl ID URL...

pause/resume a crawl stops/restarts admission (URLs already queued at hosts go back to the
frontier); pause/resume a host holds its back queue. stop ends a crawl gracefully: nothing new is
admitted, in-flight fetches finish. host-delay overrides one host's minimum delay for all crawls.`;

export async function controlCommand(action: string, argv: string[]): Promise<number> {
  const { values, positionals } = parseCommandArgs(
    argv,
    { ...dataDirOption, crawl: { type: 'string' }, host: { type: 'string' }, reason: { type: 'string' }, ms: { type: 'string' }, clear: { type: 'boolean' } },
    controlUsage,
  );
  const dataDir = defaultDataDir(values['data-dir']);
  // Checked before connecting: a bad value must not reach any service.
  const delayMs = integerOption('ms', values.ms, CRAWL_CONFIG_INTEGER_RANGES.minHostDelayMs.min, CRAWL_CONFIG_INTEGER_RANGES.minHostDelayMs.max);
  const endpoints = await connectServices({ dataDir, start: false, need: ['temporal', 'postgres'] });
  const client = await connectClient(endpoints);
  const target = values.crawl ? crawlWorkflowId(values.crawl) : values.host ? hostWorkflowId(values.host) : undefined;
  if (!target) throw new CliError(`${action} needs --crawl ID or --host HOST\n\n${controlUsage}`, 2);
  const handle = client.workflow.getHandle(target);
  try {
    switch (action) {
      case 'pause':
        if (values.crawl) await handle.signal(pauseCrawlSignal);
        else await signalHost(values.host!, async () => handle.signal(pauseHostSignal), { paused: true });
        break;
      case 'resume':
        if (values.crawl) await handle.signal(resumeCrawlSignal);
        else await signalHost(values.host!, async () => handle.signal(resumeHostSignal), { paused: false });
        break;
      case 'stop':
        if (!values.crawl) throw new CliError('stop needs --crawl ID', 2);
        await handle.signal(stopCrawlSignal, values.reason ? { reason: values.reason } : {});
        break;
      case 'host-delay': {
        if (!values.host) throw new CliError('host-delay needs --host HOST', 2);
        const ms = values.clear ? null : delayMs;
        if (ms === undefined) throw new CliError('host-delay needs --ms N or --clear', 2);
        await signalHost(values.host, async () => handle.signal(setHostDelaySignal, { minDelayMs: ms }), { delayOverrideMs: ms });
        break;
      }
      case 'add-seeds': {
        if (!values.crawl) throw new CliError('add-seeds needs --crawl ID', 2);
        if (positionals.length === 0) throw new CliError('add-seeds needs at least one URL', 2);
        const result = await handle.executeUpdate(addSeedsUpdate, { args: [{ urls: positionals }] });
        process.stdout.write(`registered ${result.registered} new URL(s)${result.rejected.length ? `; rejected: ${result.rejected.map((r) => `${r.url} (${r.reason})`).join(', ')}` : ''}\n`);
        return result.rejected.length > 0 ? 2 : 0;
      }
      default:
        throw new CliError(`unknown command ${action}`, 2);
    }
  } catch (error) {
    if (error instanceof WorkflowNotFoundError) throw new CliError(`${target} is not running: ${values.crawl ? 'the crawl has ended' : 'the host is idle'}`);
    throw error;
  } finally {
    await client.connection.close();
  }
  process.stdout.write(`${action} sent to ${target}\n`);
  return 0;

  /** Host settings persist in Postgres too, so they survive the host workflow ending while idle. */
  async function signalHost(host: string, signal: () => Promise<void>, settings: { paused?: boolean; delayOverrideMs?: number | null }): Promise<void> {
    const pool = await connectDatabase(endpoints);
    try {
      await setHostOperatorSettings(pool, { host, ...settings });
    } finally {
      await pool.end();
    }
    await signal().catch((error: unknown) => {
      if (!(error instanceof WorkflowNotFoundError)) throw error;
    });
  }
}
