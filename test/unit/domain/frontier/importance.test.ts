import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { discoveryPriority, hostImportanceFromInlinks, inlinkWeight, urlPriority } from '../../../../src/domain/frontier/index.js';

describe('inlinkWeight', () => {
  it('weighs a link from another host above one from the same host', () => {
    expect(inlinkWeight('a.example', 'b.example')).toBeGreaterThan(inlinkWeight('a.example', 'a.example'));
    expect(inlinkWeight('a.example', 'a.example')).toBeGreaterThan(0);
  });
});

describe('hostImportanceFromInlinks', () => {
  it('is neutral without in-links, rises with them toward 1, and never falls below neutral', () => {
    expect(hostImportanceFromInlinks(0)).toBe(0.5);
    expect(hostImportanceFromInlinks(20)).toBe(0.75);
    expect(hostImportanceFromInlinks(1e9)).toBeLessThanOrEqual(1);
    fc.assert(fc.property(fc.double({ min: 0, max: 1e6, noNaN: true }), fc.double({ min: 0, max: 1e6, noNaN: true }), (a, b) => {
      expect(hostImportanceFromInlinks(Math.max(a, b))).toBeGreaterThanOrEqual(hostImportanceFromInlinks(Math.min(a, b)));
    }));
  });
});

describe('discoveryPriority', () => {
  it('is urlPriority for a URL with no importance, as before importance counted', () => {
    for (const depth of [0, 1, 2, 5, 20]) expect(discoveryPriority({ depth })).toBe(urlPriority({ depth, inlinks: 0 }));
  });

  it('raises a URL by its in-links and its host importance within a depth', () => {
    expect(discoveryPriority({ depth: 2, inlinks: 3 })).toBeGreaterThan(discoveryPriority({ depth: 2 }));
    expect(discoveryPriority({ depth: 2, hostImportance: 0.9 })).toBeGreaterThan(discoveryPriority({ depth: 2 }));
  });

  it('never lifts a URL above one a link closer to the seeds: a link farm cannot outrank a site\'s home-linked pages', () => {
    const farmTarget = discoveryPriority({ depth: 3, inlinks: 1_000_000, hostImportance: 1 });
    const homeLinked = discoveryPriority({ depth: 1, inlinks: 0.5 });
    expect(farmTarget).toBeLessThan(homeLinked);
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 30 }), fc.double({ min: 0, max: 1e6, noNaN: true }), fc.double({ min: 0, max: 1, noNaN: true }), fc.double({ min: 0, max: 1, noNaN: true }), (depth, inlinks, hostImportance, trapPenalty) => {
        expect(discoveryPriority({ depth, inlinks, hostImportance, trapPenalty })).toBeLessThanOrEqual(discoveryPriority({ depth: depth - 1, trapPenalty }) + 1e-12);
      }),
    );
  });

  it('lets a trap penalty win over any importance', () => {
    expect(discoveryPriority({ depth: 1, inlinks: 1e6, hostImportance: 1, trapPenalty: 0.9 })).toBeLessThan(discoveryPriority({ depth: 1 }));
  });
});
