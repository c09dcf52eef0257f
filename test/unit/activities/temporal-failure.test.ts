// The activities' mapping of a service's TypedFailure to Temporal's ApplicationFailure: the same
// type, message, retry decision and details; anything else passes unchanged.
import { ApplicationFailure } from '@temporalio/activity';
import { msToNumber } from '@temporalio/common';
import { describe, expect, it } from 'vitest';
import { TypedFailure } from '../../../src/domain/failures/index.js';
import { toTemporalFailure, withTemporalFailures } from '../../../src/activities/support/temporal-failure.js';

describe('toTemporalFailure', () => {
  it('gives a retryable failure the delay its policy chose, and its details as the first detail', () => {
    const details = { startedAtMs: 1, finishedAtMs: 2, requested: true, status: 503 };
    const failure = toTemporalFailure(new TypedFailure('ServerError', 'HTTP 503 at http://a.test/', { nonRetryable: false, nextRetryDelayMs: 30_000 }, details));
    expect(failure).toBeInstanceOf(ApplicationFailure);
    const application = failure as ApplicationFailure;
    expect(application.type).toBe('ServerError');
    expect(application.message).toBe('HTTP 503 at http://a.test/');
    expect(application.nonRetryable).toBe(false);
    expect(msToNumber(application.nextRetryDelay!)).toBe(30_000);
    expect(application.details).toEqual([details]);
  });

  it('keeps a terminal failure terminal, with no delay and no details when it has none', () => {
    const application = toTemporalFailure(new TypedFailure('RobotsDisallowed', 'disallowed', { nonRetryable: true })) as ApplicationFailure;
    expect(application.nonRetryable).toBe(true);
    expect(application.nextRetryDelay).toBeUndefined();
    expect(application.details ?? []).toEqual([]);
  });

  it('leaves any other error to Temporal as it is', () => {
    const error = new Error('a bug');
    expect(toTemporalFailure(error)).toBe(error);
  });

  it('maps what the wrapped call throws, and returns what it returns', async () => {
    await expect(withTemporalFailures(async () => 7)).resolves.toBe(7);
    await expect(withTemporalFailures(async () => Promise.reject(new TypedFailure('StorageUnavailable', 'store down', { nonRetryable: false })))).rejects.toBeInstanceOf(ApplicationFailure);
  });
});
