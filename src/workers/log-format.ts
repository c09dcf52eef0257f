/**
 * How a worker process writes its log: human-readable (Temporal's DefaultLogger) or one JSON object
 * per line for a log pipeline, with the crawl, host and workflow it concerns where known.
 */
import { format } from 'node:util';
import type { LogEntry } from '@temporalio/worker';
import { jsonLine } from '../domain/text/index.js';

export type LogFormat = 'text' | 'json';
export const LOG_FORMATS: readonly LogFormat[] = ['text', 'json'];

/** One text line for a log entry, as Temporal's DefaultLogger prints it: time, [level], message, metadata. */
export function textLogLine(entry: LogEntry): string {
  const time = new Date(Number(entry.timestampNanos / 1_000_000n)).toISOString();
  return entry.meta === undefined ? `${time} [${entry.level}] ${entry.message}` : `${time} [${entry.level}] ${entry.message} ${format(entry.meta)}`;
}

/**
 * One JSON line for a log entry: time, level, message, then its metadata, with crawlId and host
 * drawn from a workflow id. It stays one line for every reader: messages quote untrusted text.
 */
export function jsonLogLine(entry: LogEntry): string {
  const meta: Record<string, unknown> = { ...(entry.meta ?? {}) };
  const workflowId = typeof meta['workflowId'] === 'string' ? meta['workflowId'] : undefined;
  // Our workflow ids name their entity: crawl/<id>, host/<host>.
  if (workflowId?.startsWith('crawl/') && meta['crawlId'] === undefined) meta['crawlId'] = workflowId.slice('crawl/'.length);
  if (workflowId?.startsWith('host/') && meta['host'] === undefined) meta['host'] = workflowId.slice('host/'.length);
  const line = { time: new Date(Number(entry.timestampNanos / 1_000_000n)).toISOString(), level: entry.level, message: entry.message, ...meta };
  return jsonLine(line, (_key, value: unknown) => (typeof value === 'bigint' ? value.toString() : value instanceof Error ? { name: value.name, message: value.message } : value));
}
