import { describe, expect, it } from 'vitest';
import { bodyRecordingOf, fetchRetryDelayMs, isHtmlContentType, isParsedBody, keptHeadersOf, poisonCountOf } from '../../../../src/domain/fetching/index.js';
import { FAILURE_POLICIES, FETCH_FAILURE_TYPES, POISON_ATTEMPT_LIMIT } from '../../../../src/domain/failures/index.js';

const NOW = 1_700_000_000_000;
const retry = (type: (typeof FETCH_FAILURE_TYPES)[number], poisonCount: number | undefined, attemptNumber = 1) =>
  fetchRetryDelayMs({ type, attemptNumber, poisonCount, random: () => 0.5, delay: { floorMs: 1000, nowMs: NOW } });

describe('fetchRetryDelayMs', () => {
  it.each(FETCH_FAILURE_TYPES.map((type) => [type]))('%s: retried by the activity only when its policy says so', (type) => {
    const delay = retry(type, 0);
    if (FAILURE_POLICIES[type].retryLayer === 'activity' && FAILURE_POLICIES[type].maxAttempts > 1) {
      expect(delay).toBeGreaterThanOrEqual(1000);
    } else {
      expect(delay).toBeUndefined();
    }
  });

  const activityType = FETCH_FAILURE_TYPES.find((type) => FAILURE_POLICIES[type].retryLayer === 'activity' && FAILURE_POLICIES[type].maxAttempts > 1)!;

  it('a URL whose counted failures reached the poison limit is not retried', () => {
    expect(retry(activityType, POISON_ATTEMPT_LIMIT - 1)).toBeDefined();
    expect(retry(activityType, POISON_ATTEMPT_LIMIT)).toBeUndefined();
  });

  it('a policy out of attempts is not retried', () => {
    expect(retry(activityType, undefined, FAILURE_POLICIES[activityType].maxAttempts)).toBeUndefined();
  });

  it('waits for a Retry-After later than its backoff', () => {
    const delay = fetchRetryDelayMs({ type: activityType, attemptNumber: 1, poisonCount: 0, random: () => 0.5, delay: { nowMs: NOW, retryAfterAtMs: NOW + 10 * 60_000 } });
    expect(delay).toBeGreaterThanOrEqual(10 * 60_000);
  });
});

describe('poisonCountOf', () => {
  it('counts the failures that count toward poison only', () => {
    const counted = FETCH_FAILURE_TYPES.filter((type) => FAILURE_POLICIES[type].countsTowardPoison);
    const uncounted = FETCH_FAILURE_TYPES.filter((type) => !FAILURE_POLICIES[type].countsTowardPoison);
    expect(counted.length).toBeGreaterThan(0);
    expect(poisonCountOf([...counted, ...uncounted])).toBe(counted.length);
    expect(poisonCountOf([])).toBe(0);
  });
});

describe('keptHeadersOf', () => {
  it('keeps the selected headers, each cut at 1000 characters, and drops the rest', () => {
    const kept = keptHeadersOf({ etag: '"a"', 'set-cookie': 's=1', 'x-robots-tag': 'noindex', link: 'x'.repeat(2000) });
    expect(kept).toEqual({ etag: '"a"', 'x-robots-tag': 'noindex', link: 'x'.repeat(1000) });
  });
});

describe('isParsedBody', () => {
  it.each([
    ['text/html; charset=utf-8', true],
    ['application/xhtml+xml', true],
    [undefined, true],
    ['', true],
    ['TEXT/HTML', true],
    ['application/pdf', false],
    ['text/plain', false],
  ])('a page of type %s is parsed: %s', (contentType, parsed) => {
    expect(isHtmlContentType(contentType)).toBe(parsed);
    expect(isParsedBody(false, contentType)).toBe(parsed);
  });

  it('a sitemap or feed is always read', () => {
    expect(isParsedBody(true, 'application/xml')).toBe(true);
  });
});

describe('bodyRecordingOf: where a stored body is recorded', () => {
  const base = { parse: true, callerDefers: true, created: true, held: true, inMemory: true };
  it.each([
    [{}, 'defer', false],
    [{ held: false, inMemory: false }, 'defer', false],
    [{ created: false }, 'defer-keeping', false],
    [{ created: false, held: false }, 'record', true],
    [{ created: false, inMemory: false }, 'record', true],
    [{ callerDefers: false }, 'record', false],
    [{ callerDefers: false, created: false }, 'record', true],
    [{ parse: false }, 'record-with-visit', false],
    [{ parse: false, created: false }, 'record-with-visit', true],
    [{ parse: false, callerDefers: false, created: false, held: false }, 'record-with-visit', true],
  ])('%j: %s, the object checked after: %s', (change, where, keepsStored) => {
    expect(bodyRecordingOf({ ...base, ...change })).toEqual({ where, keepsStored });
  });
});
