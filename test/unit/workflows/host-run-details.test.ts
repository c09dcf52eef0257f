// What a host run tells the Temporal UI: the crawls it serves (its CrawlIds search attribute, upserted
// only when a crawl is new to the run) and, while it waits, what for and until when (its current details).
import { describe, expect, it } from 'vitest';
import { ServedCrawls } from '../../../src/workflows/served-crawls.js';
import { describeHostFetch, describeHostWait, type HostWaitDetailsInput } from '../../../src/workflows/host-wait-report.js';

const items = (...crawlIds: string[]) => crawlIds.map((crawlId) => ({ crawlId }));

describe('ServedCrawls', () => {
  it('publishes nothing while the run takes work of the crawls it started with', () => {
    const served = new ServedCrawls(['a'], 20);
    expect(served.took(items('a', 'a'))).toBeUndefined();
    expect(served.took([])).toBeUndefined();
  });

  it('publishes the whole list once for each crawl new to the run, in the order they came', () => {
    const served = new ServedCrawls(['a'], 20);
    expect(served.took(items('b', 'a', 'c', 'b'))).toEqual(['a', 'b', 'c']);
    expect(served.took(items('c'))).toBeUndefined();
    expect(new ServedCrawls([], 20).took(items('x'))).toEqual(['x']);
  });

  it('keeps the latest crawls within the bound, from the start list on', () => {
    const served = new ServedCrawls(['a', 'b', 'c'], 2);
    expect(served.took(items('d'))).toEqual(['c', 'd']);
    // A crawl dropped from the list is new again.
    expect(served.took(items('a'))).toEqual(['d', 'a']);
  });
});

describe('describeHostWait', () => {
  const T = Date.parse('2026-12-06T12:00:00.000Z');
  const base: HostWaitDetailsInput = { wait: 'change', nowMs: T, paused: false, queued: 3, inFlight: 0, parsing: 1 };

  it("says when the next request goes out during the host's ordinary delay, to the millisecond", () => {
    expect(describeHostWait({ ...base, untilMs: T + 250, reason: 'crawl-delay' })).toBe('next request at 12:00:00.250Z · 3 queued · 0 in flight · 1 parsing');
  });

  it('names what holds the host and until when', () => {
    expect(describeHostWait({ ...base, untilMs: T + 120_000, reason: 'retry-after' })).toBe(
      'held by Retry-After (or a 429/503 throttle) until 12:02:00.000Z · 3 queued · 0 in flight · 1 parsing',
    );
    expect(describeHostWait({ ...base, untilMs: T + 60_000, reason: 'crawl-delay' })).toMatch(/^waiting out a long Crawl-delay until 12:01:00\.000Z/);
    expect(describeHostWait({ ...base, untilMs: T + 2_000, reason: 'retry-backoff' })).toMatch(/^waiting out a retry's backoff until 12:00:02\.000Z/);
  });

  it('says paused, and what the other waits wait for', () => {
    expect(describeHostWait({ ...base, paused: true })).toBe('**paused** by the operator · 3 queued · 0 in flight · 1 parsing');
    expect(describeHostWait({ ...base, wait: 'change-or-outcome', inFlight: 2 })).toMatch(/^next request as soon as one in flight finishes · 3 queued · 2 in flight/);
    expect(describeHostWait({ ...base, wait: 'idle-or-requeue', queued: 0, inFlight: 1 })).toMatch(/^waiting for its work in flight to finish/);
    expect(describeHostWait({ ...base, wait: 'quiet' })).toMatch(/^finishing its work in flight, then continuing as new/);
    expect(describeHostWait(base)).toMatch(/^waiting for a signal/);
  });

  it('says what is fetched while a fetch or a burst runs', () => {
    expect(describeHostFetch(5, true, 2)).toBe("fetching a burst of 5 URLs, the host's delay kept inside it · 2 queued");
    expect(describeHostFetch(1, false, 0)).toBe('fetching a URL · 0 queued');
  });
});
