/**
 * The `crawler` command: a composition root like the worker. Each subcommand lives in its own
 * module; this file only dispatches and turns errors into messages and exit codes.
 */
import { CliError } from './cli-error.js';
import { controlCommand, controlUsage } from './commands/control.js';
import { bodiesCommand, bodiesUsage } from './commands/bodies.js';
import { crawlCommand, crawlUsage } from './commands/crawl.js';
import { deadLettersCommand, deadLettersUsage } from './commands/dead-letters.js';
import { exportCommand, exportUsage } from './commands/export.js';
import { slaCommand, slaUsage, tierCommand, tierUsage } from './commands/freshness.js';
import { hostsCommand, hostsUsage } from './commands/hosts.js';
import { replayCommand, replayUsage } from './commands/replay.js';
import { scheduleCommand, scheduleUsage } from './commands/schedule.js';
import { stackCommand, stackUsage } from './commands/stack.js';
import { statusCommand, statusUsage } from './commands/status.js';
import { workerCommand, workerUsage } from './commands/worker.js';

const usage = `usage: crawler <command> [options]

commands:
  crawl         run a crawl to the end (starts the local stack when needed)
  stack         up | down | status of the local Temporal, Postgres and MinIO
  worker        run a worker process against the configured services
  status        recent crawls, one crawl's frontier, or one host's back queue
  pause/resume  a crawl (--crawl) or a host (--host)
  stop          end a crawl gracefully
  host-delay    override one host's minimum delay
  hosts         set-importance: how important a host is in the priority of its URLs
  add-seeds     add seed URLs to a running crawl
  export        write the fetch records (JSON lines, or WARC files with --format warc)
  bodies        prune stored bodies no fetch references
  dead-letters  list or requeue URLs that failed too often
  schedule      recrawl cycles on a Temporal Schedule: create, list, describe, pause, unpause, trigger, delete
  sla           freshness promises by URL prefix: set, list (with staleness), delete
  tier          value tiers by URL prefix: set, list, delete
  replay        replay workflow histories against this code: the check before deploying a worker

\`crawler <command> --help\` shows a command's options.`;

const commands: Record<string, { run: (argv: string[]) => Promise<number>; usage: string }> = {
  crawl: { run: crawlCommand, usage: crawlUsage },
  stack: { run: stackCommand, usage: stackUsage },
  worker: { run: workerCommand, usage: workerUsage },
  status: { run: statusCommand, usage: statusUsage },
  export: { run: exportCommand, usage: exportUsage },
  'dead-letters': { run: deadLettersCommand, usage: deadLettersUsage },
  bodies: { run: bodiesCommand, usage: bodiesUsage },
  schedule: { run: scheduleCommand, usage: scheduleUsage },
  sla: { run: slaCommand, usage: slaUsage },
  tier: { run: tierCommand, usage: tierUsage },
  replay: { run: replayCommand, usage: replayUsage },
  pause: { run: (argv) => controlCommand('pause', argv), usage: controlUsage },
  resume: { run: (argv) => controlCommand('resume', argv), usage: controlUsage },
  stop: { run: (argv) => controlCommand('stop', argv), usage: controlUsage },
  'host-delay': { run: (argv) => controlCommand('host-delay', argv), usage: controlUsage },
  hosts: { run: hostsCommand, usage: hostsUsage },
  'add-seeds': { run: (argv) => controlCommand('add-seeds', argv), usage: controlUsage },
};

export async function main(argv: string[]): Promise<number> {
  const [name, ...rest] = argv;
  if (!name || name === '--help' || name === '-h' || name === 'help') {
    process.stdout.write(`${usage}\n`);
    return name ? 0 : 2;
  }
  const command = commands[name];
  if (!command) {
    process.stderr.write(`crawler: unknown command '${name}'\n\n${usage}\n`);
    return 2;
  }
  if (rest.includes('--help') || rest.includes('-h')) {
    process.stdout.write(`${command.usage}\n`);
    return 0;
  }
  try {
    return await command.run(rest);
  } catch (error) {
    if (error instanceof CliError) {
      process.stderr.write(`crawler ${name}: ${error.message}\n`);
      return error.exitCode;
    }
    process.stderr.write(`crawler ${name}: ${(error as Error).stack ?? String(error)}\n`);
    return 1;
  }
}
