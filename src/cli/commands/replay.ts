/**
 * `crawler replay`: replays workflow histories against the workflow code installed here, the check
 * to run before deploying new worker code beside running crawls (CONTRIBUTING.md, "Versioning
 * workflows"). Histories come from files (the Temporal UI's export, `temporal workflow show
 * --output json`, or this project's committed fixtures) or from a visibility query.
 */
import { readdir, stat } from 'node:fs/promises';
import path from 'node:path';
import { historyFromJSON } from '@temporalio/common/lib/proto-utils.js';
import { DefaultLogger, Runtime, Worker, type ReplayResult } from '@temporalio/worker';
import type { HistoryAndWorkflowId } from '@temporalio/client';
import { loadWorkflowBundle } from '../../workers/workflow-bundle.js';
import { dataDirOption, defaultDataDir, integerOption, parseCommandArgs } from '../args.js';
import { CliError } from '../cli-error.js';
import { openInputFile } from '../input-file.js';
import { jsonLine, neutralizeText } from '../../domain/text/index.js';
import { connectClient } from '../client.js';
import { connectServices } from '../services.js';

export const replayUsage = `usage: crawler replay --file F [--json]
       crawler replay --query QUERY [--limit N] [--json] [--data-dir DIR]

Replays workflow histories against the workflow code installed here and exits 1, naming each
workflow id and the event where replay diverged, if any history cannot be replayed: a change that
would break running crawls. Run it before deploying new worker code.

  --file F        a history as exported from the Temporal UI or by
                  \`temporal workflow show --workflow-id ID --output json\`, or a folder of them (*.json)
  --query QUERY   the histories of the workflows a visibility query finds on the configured
                  Temporal service, e.g. 'WorkflowType = "hostWorkflow" AND ExecutionStatus = "Running"'
  --limit N       at most N workflows from --query (default 100)
  --json          one JSON object per history on stdout: {workflowId, runId, ok, error?, eventId?}`;

export async function replayCommand(argv: string[]): Promise<number> {
  const { values } = parseCommandArgs(
    argv,
    { ...dataDirOption, file: { type: 'string' }, query: { type: 'string' }, limit: { type: 'string' }, json: { type: 'boolean' } },
    replayUsage,
  );
  if ((values.file === undefined) === (values.query === undefined)) throw new CliError(`give one of --file or --query\n\n${replayUsage}`, 2);
  const limit = integerOption('--limit', values.limit, 1, 100_000) ?? 100;
  const dataDir = defaultDataDir(values['data-dir']);

  const histories = values.file !== undefined ? await historiesFromFiles(values.file) : await historiesFromQuery(dataDir, values.query!, limit);
  const bundle = await loadWorkflowBundle(path.join(dataDir, 'cache'));
  // The replay worker's lifecycle lines and the core's copy of each divergence are noise here (the
  // report says it); stdout carries the reports alone.
  Runtime.install({ logger: new DefaultLogger('ERROR'), telemetryOptions: { logging: { filter: { core: 'ERROR', other: 'ERROR' }, forward: {} } } });
  let replayed = 0;
  let diverged = 0;
  for await (const result of Worker.runReplayHistories({ workflowBundle: bundle, replayName: 'crawler replay' }, histories)) {
    // Results come in the histories' order.
    const report = reportOf(result, histories[replayed]);
    replayed += 1;
    if (!report.ok) diverged += 1;
    // A workflow id from a file is anyone's text: it must not redraw the line it is printed on.
    const [workflowId, runId] = [neutralizeText(report.workflowId), neutralizeText(report.runId)];
    if (values.json) process.stdout.write(`${jsonLine(report)}\n`);
    else if (report.ok) process.stdout.write(`ok       ${workflowId} (run ${runId})\n`);
    else process.stdout.write(`DIVERGED ${workflowId} (run ${runId})${report.eventId !== undefined ? ` at event ${report.eventId}` : ''}: ${neutralizeText(report.error ?? '', { maxChars: 2_000 })}\n`);
  }
  if (replayed === 0) throw new CliError(values.file !== undefined ? `no history in ${values.file}` : `no workflow matches the query ${values.query}`, 2);
  if (!values.json) {
    process.stderr.write(
      diverged === 0
        ? `${replayed} histories replayed against this code: none diverged\n`
        : `${diverged} of ${replayed} histories diverged: deploying this code would break those runs (CONTRIBUTING.md, "Versioning workflows": patch the change)\n`,
    );
  }
  return diverged === 0 ? 0 : 1;
}

export interface ReplayReport {
  workflowId: string;
  runId: string;
  ok: boolean;
  error?: string;
  /** The history event the replay diverged at, when the SDK's message names it. */
  eventId?: number;
}

function reportOf(result: ReplayResult, replayed: HistoryAndWorkflowId | undefined): ReplayReport {
  if (result.error === undefined) return { workflowId: result.workflowId, runId: result.runId, ok: true };
  // The SDK's message repeats the core's inside a wrapper: the core's is the one to read.
  const error = /message: "([^"]+)"/.exec(result.error.message)?.[1] ?? result.error.message;
  const eventId = divergedEventId(error, replayed?.workflowId === result.workflowId ? ((replayed.history as { events?: { eventId?: unknown }[] }).events ?? []) : []);
  return { workflowId: result.workflowId, runId: result.runId, ok: false, error, ...(eventId === undefined ? {} : { eventId }) };
}

/**
 * The event a replay diverged at: the SDK's message names it ("HistoryEvent(id: N", "event_id: N"),
 * or quotes what the event holds ("scheduled event 'fetchBurstV0'"), found in the history's events.
 */
export function divergedEventId(message: string, events: readonly { eventId?: unknown }[]): number | undefined {
  const named = /(?:event[_ ]?id[:=\s]+|HistoryEvent\(id:\s*)(\d+)/i.exec(message);
  if (named) return Number(named[1]);
  const quoted = /event '([^']+)'/.exec(message)?.[1];
  if (quoted === undefined) return undefined;
  const event = events.find((candidate) => JSON.stringify(candidate).includes(JSON.stringify(quoted)));
  return event?.eventId === undefined || event.eventId === null ? undefined : Number(event.eventId);
}

/**
 * Largest history file read. Temporal ends a run's history at 50 MB of events by default; exported
 * as JSON the same events take a few times that.
 */
export const MAX_HISTORY_FILE_BYTES = 256 * 1024 * 1024;

const giveHistory = 'give a history exported with `temporal workflow show --workflow-id ID --output json`, or a folder of them.';

/** One file or every *.json file of a folder, in name order; each a history in any of the export formats. */
export async function historiesFromFiles(target: string): Promise<HistoryAndWorkflowId[]> {
  let folder: string | undefined;
  let files: string[];
  try {
    if ((await stat(target)).isDirectory()) {
      folder = target;
      files = (await readdir(target))
        .filter((name) => name.endsWith('.json'))
        .sort()
        .map((name) => path.join(target, name));
    } else files = [target];
  } catch (error) {
    throw new CliError(`cannot read ${target}: ${(error as Error).message}`, 2);
  }
  const histories: HistoryAndWorkflowId[] = [];
  // One at a time: each may be large, and the first bad one stops the rest.
  for (const file of files) histories.push(await historyFromFile(file, folder));
  return histories;
}

async function historyFromFile(file: string, folder: string | undefined): Promise<HistoryAndWorkflowId> {
  const { handle } = await openInputFile(file, { what: 'history file', maxBytes: MAX_HISTORY_FILE_BYTES, hint: giveHistory, ...(folder === undefined ? {} : { withinFolder: folder }) });
  let json: unknown;
  try {
    json = JSON.parse(await handle.readFile('utf8'));
  } catch (error) {
    // The parser's message quotes the file's first bytes, which may be anything.
    throw new CliError(`${file} is not a JSON workflow history: ${neutralizeText((error as Error).message)}. Export one with \`temporal workflow show --workflow-id ID --output json\``, 2);
  } finally {
    await handle.close();
  }
  // This project's fixtures wrap the history with its workflow id; the UI and CLI export the history alone.
  const wrapped = json as { workflowId?: unknown; history?: unknown };
  const workflowId = typeof wrapped.workflowId === 'string' ? wrapped.workflowId : path.basename(file, '.json');
  const raw = wrapped.history ?? json;
  if (typeof raw !== 'object' || raw === null || !Array.isArray((raw as { events?: unknown }).events)) {
    throw new CliError(`${file} has no history events (an "events" array). Export one with \`temporal workflow show --workflow-id ID --output json\``, 2);
  }
  try {
    return { workflowId, history: historyFromJSON(raw) };
  } catch (error) {
    throw new CliError(`${file}: not a workflow history Temporal can read: ${neutralizeText((error as Error).message)}`, 2);
  }
}

async function historiesFromQuery(dataDir: string, query: string, limit: number): Promise<HistoryAndWorkflowId[]> {
  const endpoints = await connectServices({ dataDir, start: false, need: ['temporal'] });
  const client = await connectClient(endpoints);
  const histories: HistoryAndWorkflowId[] = [];
  try {
    for await (const history of client.workflow.list({ query, pageSize: Math.min(limit, 1000) }).intoHistories()) {
      histories.push(history);
      if (histories.length >= limit) break;
    }
  } catch (error) {
    throw new CliError(`the query ${query} failed: ${(error as Error).message}`, 2);
  } finally {
    await client.connection.close();
  }
  return histories;
}
