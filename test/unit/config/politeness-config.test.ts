import { describe, expect, it } from 'vitest';
import { CrawlConfigError, resolveCrawlConfig } from '../../../src/config/crawl-config.js';
import { hostPolicyOverridesOf, politenessConfigProblem, retryDelayScaleOf, robotsUnreachableRetryMsOf, type CrawlPolitenessConfig } from '../../../src/config/politeness-config.js';
import { ROBOTS_UNREACHABLE_RETRY_MS } from '../../../src/domain/robots/index.js';
import { retryDelayMs } from '../../../src/domain/failures/index.js';
import { HostQueue } from '../../../src/workflows/host-queue.js';
import type { HostWorkItem } from '../../../src/contracts/activities.js';

describe('a crawl’s politeness knobs', () => {
  it('default to every documented default', () => {
    const config = resolveCrawlConfig();
    expect(config.politeness).toEqual({});
    expect(config).toMatchObject({ connectTimeoutMs: 10_000, firstByteTimeoutMs: 30_000, bodyTimeoutMs: 60_000 });
    expect(retryDelayScaleOf(config.politeness)).toBe(1);
    expect(robotsUnreachableRetryMsOf(config.politeness)).toBe(ROBOTS_UNREACHABLE_RETRY_MS);
    // Crawls stored before the knobs existed have no politeness field at all.
    expect(retryDelayScaleOf(undefined)).toBe(1);
    expect(hostPolicyOverridesOf(undefined)).toEqual({});
  });

  it.each([
    [{ bogus: 1 }, 'politeness.bogus', /unknown knob/],
    [{ throttleBaseDelayMs: -1 }, 'politeness.throttleBaseDelayMs', />= 0/],
    [{ retryDelayScale: Number.NaN }, 'politeness.retryDelayScale', /finite/],
    [{ circuitFailureThreshold: 0 }, 'politeness.circuitFailureThreshold', /integer >= 1/],
    [{ circuitCooldownMs: 10, maxCircuitCooldownMs: 5 }, 'politeness.maxCircuitCooldownMs', /at least circuitCooldownMs/],
    [{ robotsUnreachableRetryMs: 2 * 86_400_000 }, 'politeness.robotsUnreachableRetryMs', /24 h/],
  ])('rejects %j naming %s', (politeness, field, message) => {
    expect(politenessConfigProblem(politeness)).toMatchObject({ field, message: expect.stringMatching(message) });
    expect(() => resolveCrawlConfig({ politeness: politeness as CrawlPolitenessConfig })).toThrow(CrawlConfigError);
  });

  it('rejects a politeness that is not an object, and timeouts out of range', () => {
    expect(politenessConfigProblem([])).toMatchObject({ field: 'politeness' });
    expect(() => resolveCrawlConfig({ firstByteTimeoutMs: 10 })).toThrow(/firstByteTimeoutMs/);
  });

  it('reaches the host policy through the URLs of the crawl, validated knobs only', () => {
    const item: HostWorkItem = {
      crawlId: 'c',
      fingerprint: '0'.repeat(32),
      url: 'http://h.example/',
      origin: 'http://h.example',
      depth: 0,
      generation: 1,
      attempt: 0,
      purpose: 'discovery',
      minHostDelayMs: 250,
      maxConcurrentFetches: 1,
      politeness: { throttleBaseDelayMs: 500, circuitCooldownMs: 1000, retryDelayScale: 0.5 },
    };
    const policy = HostQueue.fresh('h.example').policyFor(item);
    expect(policy).toMatchObject({ minDelayMs: 250, throttleBaseDelayMs: 500, circuitCooldownMs: 1000, adaptiveFactor: 10 });
    expect(policy).not.toHaveProperty('retryDelayScale');
  });

  it('scales a failure type’s backoff, never its Retry-After or the host-delay floor', () => {
    const half = (): number => 0.5; // jitter 1.0
    expect(retryDelayMs('ServerError', 1, half)).toBe(10_000);
    expect(retryDelayMs('ServerError', 1, half, { scale: 0.1 })).toBe(1000);
    expect(retryDelayMs('ServerError', 1, half, { scale: 0.1, floorMs: 3000 })).toBe(3000);
    expect(retryDelayMs('ServerError', 1, half, { scale: 0.1, nowMs: 0, retryAfterAtMs: 5000 })).toBe(5000);
  });
});

describe('host-level retries in the back queue', () => {
  const item = (fingerprint: string, notBeforeMs?: number): HostWorkItem => ({
    crawlId: 'c',
    fingerprint,
    url: `http://h.example/${fingerprint}`,
    origin: 'http://h.example',
    depth: 0,
    generation: 1,
    attempt: 0,
    purpose: 'discovery',
    minHostDelayMs: 1000,
    maxConcurrentFetches: 1,
    ...(notBeforeMs === undefined ? {} : { notBeforeMs }),
  });

  it('let a ready URL overtake one waiting for its backoff, and say when the first is ready otherwise', () => {
    const queue = HostQueue.fresh('h.example');
    queue.enqueue([item('a', 5000), item('b')]);
    expect(queue.promoteReady(1000)).toBeUndefined();
    expect(queue.queue.map((entry) => entry.fingerprint)).toEqual(['b', 'a']);
    queue.takeFirst();
    expect(queue.promoteReady(1000)).toBe(5000);
    expect(queue.promoteReady(5000)).toBeUndefined();
  });

  it('leave a queue without retries as it is', () => {
    const queue = HostQueue.fresh('h.example');
    queue.enqueue([item('a'), item('b')]);
    expect(queue.promoteReady(0)).toBeUndefined();
    expect(queue.queue.map((entry) => entry.fingerprint)).toEqual(['a', 'b']);
  });
});
