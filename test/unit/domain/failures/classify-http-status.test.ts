import { describe, expect, it } from 'vitest';
import { FETCH_FAILURE_TYPES, classifyHttpStatus, failureTypeOfStatus, type HttpStatusClass } from '../../../../src/domain/failures/index.js';

const label = (outcome: HttpStatusClass): string => (outcome.kind === 'failure' ? `failure:${outcome.type}` : outcome.kind);

describe('classifyHttpStatus', () => {
  it('classifies every status 100..599 to exactly one known outcome', () => {
    const kinds = new Set(['success', 'not-modified', 'redirect']);
    for (let status = 100; status <= 599; status += 1) {
      const outcome = classifyHttpStatus(status);
      if (outcome.kind === 'failure') expect(FETCH_FAILURE_TYPES).toContain(outcome.type);
      else expect(kinds.has(outcome.kind)).toBe(true);
      // Deterministic: the same status never lands in two places.
      expect(label(classifyHttpStatus(status))).toBe(label(outcome));
    }
  });

  it('counts each range as documented', () => {
    const counts = new Map<string, number>();
    for (let status = 100; status <= 599; status += 1) {
      const key = label(classifyHttpStatus(status));
      counts.set(key, (counts.get(key) ?? 0) + 1);
    }
    expect(Object.fromEntries(counts)).toEqual({
      'failure:InvalidResponse': 100, // 1xx as a final status
      success: 100,
      'not-modified': 1,
      redirect: 5,
      'failure:ClientError': 94 + 96, // 300-399 minus 304 and 5 redirects; 400-499 minus 404, 408, 410, 429
      'failure:NotFound': 2,
      'failure:RequestTimeout': 1,
      'failure:TooManyRequests': 1,
      'failure:ServiceUnavailable': 1,
      'failure:ServerError': 99,
    });
  });

  it.each([
    [200, 'success'],
    [204, 'success'],
    [206, 'success'],
    [299, 'success'],
    [304, 'not-modified'],
    [301, 'redirect'],
    [302, 'redirect'],
    [303, 'redirect'],
    [307, 'redirect'],
    [308, 'redirect'],
    [300, 'failure:ClientError'],
    [305, 'failure:ClientError'],
    [306, 'failure:ClientError'],
    [399, 'failure:ClientError'],
    [400, 'failure:ClientError'],
    [401, 'failure:ClientError'],
    [403, 'failure:ClientError'],
    [451, 'failure:ClientError'],
    [404, 'failure:NotFound'],
    [410, 'failure:NotFound'],
    [408, 'failure:RequestTimeout'],
    [429, 'failure:TooManyRequests'],
    [500, 'failure:ServerError'],
    [501, 'failure:ServerError'],
    [502, 'failure:ServerError'],
    [504, 'failure:ServerError'],
    [599, 'failure:ServerError'],
    [503, 'failure:ServiceUnavailable'],
    [100, 'failure:InvalidResponse'],
    [101, 'failure:InvalidResponse'],
    [103, 'failure:InvalidResponse'],
  ])('status %i is %s', (status, expected) => {
    expect(label(classifyHttpStatus(status))).toBe(expected);
  });

  it.each([0, 99, 600, 999, -200, 200.5, Number.NaN, Number.POSITIVE_INFINITY])('out-of-range or non-integer status %s is InvalidResponse', (status) => {
    expect(classifyHttpStatus(status)).toEqual({ kind: 'failure', type: 'InvalidResponse' });
  });

  it('failureTypeOfStatus is undefined exactly for non-failures', () => {
    expect(failureTypeOfStatus(200)).toBeUndefined();
    expect(failureTypeOfStatus(304)).toBeUndefined();
    expect(failureTypeOfStatus(301)).toBeUndefined();
    expect(failureTypeOfStatus(429)).toBe('TooManyRequests');
  });
});
