// The CLI waits on a crawl through Temporal outages: transient client errors are retried and
// reported once per outage, anything else ends the wait at once.
import { ServiceError, WorkflowFailedError } from '@temporalio/client';
import { RetryState } from '@temporalio/common';
import { describe, expect, it } from 'vitest';
import { isTransientClientError, retryThroughOutages } from '../../../src/cli/client-outages.js';

const grpcError = (code: number, details: string): Error => Object.assign(new Error(`${code} ${details}`), { code, details, metadata: {} });

describe('isTransientClientError', () => {
  it.each([
    ['UNAVAILABLE', grpcError(14, 'No connection established')],
    ['DEADLINE_EXCEEDED', grpcError(4, 'Deadline exceeded')],
    ['a ServiceError wrapping UNAVAILABLE', new ServiceError('Failed to query workflow', { cause: grpcError(14, 'unavailable') })],
    ['a message naming ECONNREFUSED', new Error('connect ECONNREFUSED 127.0.0.1:7233')],
  ])('retries %s', (_, error) => {
    expect(isTransientClientError(error)).toBe(true);
  });

  it.each([
    ['NOT_FOUND', grpcError(5, 'workflow not found')],
    ['INVALID_ARGUMENT', grpcError(3, 'bad query')],
    ['a failed workflow', new WorkflowFailedError('Workflow execution failed', new Error('boom'), RetryState.NON_RETRYABLE_FAILURE)],
    ['a plain error', new Error('something else')],
    ['not an error', 'UNAVAILABLE'],
  ])('does not retry %s', (_, error) => {
    expect(isTransientClientError(error)).toBe(false);
  });
});

describe('retryThroughOutages', () => {
  it('waits out an outage with growing delays, reporting its start once and its end', async () => {
    let nowMs = 1_000;
    const slept: number[] = [];
    const notes: (number | undefined)[] = [];
    let calls = 0;
    const result = await retryThroughOutages(
      async () => {
        calls += 1;
        if (calls <= 5) throw grpcError(14, 'unavailable');
        return 'summary';
      },
      {
        onOutage: (outage) => notes.push(outage?.sinceMs),
        initialRetryDelayMs: 100,
        maxRetryDelayMs: 500,
        now: () => nowMs,
        sleep: async (ms) => {
          slept.push(ms);
          nowMs += ms;
        },
      },
    );
    expect(result).toBe('summary');
    expect(slept).toEqual([100, 200, 400, 500, 500]);
    expect(notes).toEqual([1_000, undefined]);
  });

  it('rethrows a non-transient error at once', async () => {
    const failed = new WorkflowFailedError('Workflow execution failed', new Error('boom'), RetryState.NON_RETRYABLE_FAILURE);
    await expect(retryThroughOutages(() => Promise.reject(failed), { onOutage: () => undefined, sleep: async () => undefined })).rejects.toBe(failed);
  });

  it('gives up after giveUpAfterMs of outage, with the last error', async () => {
    let nowMs = 0;
    const error = grpcError(4, 'deadline');
    await expect(
      retryThroughOutages(() => Promise.reject(error), { onOutage: () => undefined, giveUpAfterMs: 1_000, initialRetryDelayMs: 300, now: () => nowMs, sleep: async (ms) => void (nowMs += ms) }),
    ).rejects.toBe(error);
    expect(nowMs).toBeGreaterThanOrEqual(1_000);
  });
});
