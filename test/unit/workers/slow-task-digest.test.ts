import { describe, expect, it } from 'vitest';
import type { LogEntry } from '@temporalio/worker';
import { digestSlowTaskWarnings } from '../../../src/workers/slow-task-digest.js';
import { textLogLine } from '../../../src/workers/log-format.js';

const atMs = (ms: number): bigint => BigInt(Date.UTC(2026, 11, 4, 20, 0, 0) + ms) * 1_000_000n;

/** Core's warning as the SDK hands it to the logger (metadata abridged from a real one). */
const slowTask = (ms: number, durationMs: number): LogEntry => ({
  level: 'WARN',
  timestampNanos: atMs(ms),
  message: '[TMPRL1104] 4d063556-d5e4-4af7-a59b-a00fee1b29cc:5:1 Workflow task duration exceeded 5 seconds.',
  meta: { sdkComponent: 'core', workflowType: 'hostWorkflow', workflowTaskDuration: durationMs, eventId: 5, workflowHistorySize: 545 },
});

function digest(entries: LogEntry[], intervalMs = 60_000): LogEntry[] {
  const written: LogEntry[] = [];
  const log = digestSlowTaskWarnings((entry) => written.push(entry), { intervalMs });
  entries.forEach(log);
  return written;
}

describe('digestSlowTaskWarnings', () => {
  it('passes every other entry through unchanged', () => {
    const other: LogEntry = { level: 'WARN', timestampNanos: atMs(0), message: 'fetch burst failed', meta: { urls: 3 } };
    expect(digest([other, slowTask(1, 5304), other])).toEqual([other, expect.objectContaining({ message: expect.stringContaining('[TMPRL1104]') }), other]);
  });

  it('prints the first slow task in one line that says what it means, then counts the rest until the interval has passed', () => {
    const written = digest([slowTask(0, 5304), slowTask(1_000, 9_100), slowTask(30_000, 6_000), slowTask(59_999, 5_100), slowTask(60_000, 7_000), slowTask(70_000, 5_500)]);
    expect(written).toHaveLength(2);
    expect(written[0]!.message).toMatch(/a hostWorkflow task took 5\.3 s .*short of CPU.*Postgres/);
    expect(textLogLine(written[0]!).split('\n')).toHaveLength(1);
    expect(written[1]!.message).toBe('[TMPRL1104] 4 more workflow tasks took over 5 s since 2026-12-04T20:00:00.000Z (slowest 9.1 s)');
  });

  it('starts a new count after each summary line', () => {
    const written = digest([slowTask(0, 5_000), slowTask(10, 6_000), slowTask(15, 8_000), slowTask(20, 5_200)], 10);
    expect(written.map((entry) => entry.message.replace(/^\[TMPRL1104\] /, ''))).toEqual([
      expect.stringMatching(/^a hostWorkflow task took 5\.0 s/),
      '1 more workflow task took over 5 s since 2026-12-04T20:00:00.000Z (slowest 6.0 s)',
      '2 more workflow tasks took over 5 s since 2026-12-04T20:00:00.010Z (slowest 8.0 s)',
    ]);
  });

  it('reads a warning without a duration or workflow type', () => {
    const bare: LogEntry = { level: 'WARN', timestampNanos: atMs(0), message: '[TMPRL1104] Workflow task duration exceeded 5 seconds.' };
    expect(digest([bare])[0]!.message).toMatch(/a workflow task took over 5 s/);
  });
});

describe('textLogLine', () => {
  it('writes time, level, message and metadata as the SDK does', () => {
    expect(textLogLine({ level: 'INFO', timestampNanos: atMs(0), message: 'm' })).toBe('2026-12-04T20:00:00.000Z [INFO] m');
    expect(textLogLine({ level: 'WARN', timestampNanos: atMs(0), message: 'm', meta: { n: 1 } })).toBe('2026-12-04T20:00:00.000Z [WARN] m { n: 1 }');
  });
});
