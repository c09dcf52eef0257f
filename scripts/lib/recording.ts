// What the scripts that record histories or measure a crawl on the local stack share: a database
// of their own there, and a run's history exported as the Temporal CLI writes it.
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { findTool, type StackEndpoints } from '../../src/stack/index.js';
import { ensurePostgresDatabase } from '../../src/stack/postgres-cluster.js';

/** A new database on the stack's Postgres (ensurePostgresDatabase; the same server and connection, its socket folder included); its URL. */
export async function scratchDatabase(stack: StackEndpoints, prefix: string): Promise<string> {
  const database = `${prefix}_${Date.now()}`;
  await ensurePostgresDatabase(stack.postgres.url, database);
  const url = new URL(stack.postgres.url);
  url.pathname = `/${database}`;
  return url.href;
}

/** One run's history, as `temporal workflow show --output json` prints it (the replay test's format). */
export async function exportedHistory<Event = unknown>(stack: StackEndpoints, workflowId: string, runId: string): Promise<{ events: Event[] }> {
  const { stdout } = await promisify(execFile)(
    findTool('temporal')!,
    ['workflow', 'show', '--workflow-id', workflowId, '--run-id', runId, '--output', 'json', '--address', stack.temporal.address, '--namespace', stack.temporal.namespace],
    { maxBuffer: 64 * 1024 * 1024 },
  );
  return JSON.parse(stdout) as { events: Event[] };
}
