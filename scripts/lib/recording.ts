// What the scripts that record workflow histories for the replay test share: a database of their
// own on the local stack, and a run's history exported as the Temporal CLI writes it.
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import pg from 'pg';
import { findTool, type StackEndpoints } from '../../src/stack/index.js';

/** A new database on the stack's Postgres (the same server and connection, its socket folder included); its URL. */
export async function scratchDatabase(stack: StackEndpoints, prefix: string): Promise<string> {
  const database = `${prefix}_${Date.now()}`;
  const admin = new pg.Client({ connectionString: stack.postgres.url });
  await admin.connect();
  try {
    await admin.query(`CREATE DATABASE ${database}`);
  } finally {
    await admin.end();
  }
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
