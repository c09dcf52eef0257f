import { describe, expect, it } from 'vitest';
import { FAILURE_POLICIES, FETCH_FAILURE_TYPES, fetchActivityRetryShape } from '../../../../src/domain/failures/index.js';

describe('fetchActivityRetryShape', () => {
  const shape = fetchActivityRetryShape();
  const activityTypes = FETCH_FAILURE_TYPES.filter((type) => FAILURE_POLICIES[type].retryLayer === 'activity');

  it('marks every type that Temporal must not retry as non-retryable, and only those', () => {
    for (const type of FETCH_FAILURE_TYPES) {
      expect(shape.nonRetryableErrorTypes.includes(type), type).toBe(FAILURE_POLICIES[type].retryLayer !== 'activity');
    }
    expect(shape.nonRetryableErrorTypes).toContain('TooManyRequests'); // the host workflow owns 429
    expect(shape.nonRetryableErrorTypes).toContain('NotFound');
    expect(shape.nonRetryableErrorTypes).not.toContain('FirstByteTimeout');
  });

  it('bounds every activity-layer policy', () => {
    expect(activityTypes.length).toBeGreaterThan(0);
    for (const type of activityTypes) {
      const policy = FAILURE_POLICIES[type];
      expect(shape.maximumAttempts).toBeGreaterThanOrEqual(policy.maxAttempts);
      expect(shape.initialIntervalMs).toBeLessThanOrEqual(policy.baseDelayMs);
      expect(shape.maximumIntervalMs).toBeGreaterThanOrEqual(policy.maxDelayMs);
    }
    expect(shape.backoffCoefficient).toBe(2);
    expect(shape).toEqual({ initialIntervalMs: 1000, backoffCoefficient: 2, maximumIntervalMs: 30_000, maximumAttempts: 3, nonRetryableErrorTypes: shape.nonRetryableErrorTypes });
  });

  it('is plain data (survives JSON, so a workflow can log or pass it)', () => {
    expect(JSON.parse(JSON.stringify(shape))).toEqual(shape);
  });
});
