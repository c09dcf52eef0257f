import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { crawlEndOf, type CrawlEndFacts } from '../../../../src/domain/frontier/index.js';

const facts = (over: Partial<CrawlEndFacts> = {}): CrawlEndFacts => ({
  stopped: false,
  queued: 0,
  admitted: 10,
  maxPages: 1000,
  maxDiscoveredUrls: 20_000,
  maxDepth: 5,
  refusedOverDiscoveryBudget: 0,
  refusedBeyondDepth: 0,
  ...over,
});

describe('crawlEndOf', () => {
  it('says nothing was left when every URL within the limits was visited', () => {
    expect(crawlEndOf(facts())).toEqual({ reason: 'nothing-left', queuedLeft: 0 });
  });

  it('names the page budget, its value and the URLs left queued', () => {
    expect(crawlEndOf(facts({ admitted: 1000, queued: 2962 }))).toEqual({ reason: 'page-budget', queuedLeft: 2962, limit: { field: 'maxPages', value: 1000 } });
  });

  it('does not blame the page budget when it was spent just as the queue emptied', () => {
    expect(crawlEndOf(facts({ admitted: 1000, queued: 0 })).reason).toBe('nothing-left');
  });

  it('names the discovery budget when it left new URLs out', () => {
    expect(crawlEndOf(facts({ refusedOverDiscoveryBudget: 40, maxDiscoveredUrls: 100 }))).toEqual({
      reason: 'discovery-budget',
      queuedLeft: 0,
      limit: { field: 'maxDiscoveredUrls', value: 100 },
      refused: 40,
    });
  });

  it('names the depth limit when links beyond it were not followed', () => {
    expect(crawlEndOf(facts({ refusedBeyondDepth: 7, maxDepth: 2 }))).toEqual({ reason: 'depth-limit', queuedLeft: 0, limit: { field: 'maxDepth', value: 2 }, refused: 7 });
  });

  it('puts a stop first, then the page budget, the discovery budget and the depth limit', () => {
    const all = facts({ admitted: 1000, queued: 5, refusedOverDiscoveryBudget: 1, refusedBeyondDepth: 1 });
    expect(crawlEndOf({ ...all, stopped: true })).toEqual({ reason: 'stopped', queuedLeft: 5 });
    expect(crawlEndOf(all).reason).toBe('page-budget');
    expect(crawlEndOf({ ...all, queued: 0 }).reason).toBe('discovery-budget');
    expect(crawlEndOf({ ...all, queued: 0, refusedOverDiscoveryBudget: 0 }).reason).toBe('depth-limit');
  });

  it('always reports the URLs left queued, never a negative count, and a limit exactly for the limit reasons', () => {
    fc.assert(
      fc.property(
        fc.record({
          stopped: fc.boolean(),
          queued: fc.integer({ min: -3, max: 50 }),
          admitted: fc.nat(50),
          maxPages: fc.integer({ min: 1, max: 50 }),
          maxDiscoveredUrls: fc.integer({ min: 1, max: 100 }),
          maxDepth: fc.nat(10),
          refusedOverDiscoveryBudget: fc.nat(5),
          refusedBeyondDepth: fc.nat(5),
        }),
        (input) => {
          const end = crawlEndOf(input);
          expect(end.queuedLeft).toBe(Math.max(0, input.queued));
          expect(end.limit !== undefined).toBe(['page-budget', 'discovery-budget', 'depth-limit'].includes(end.reason));
        },
      ),
    );
  });
});
