import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { FrontierInputError, LASTMOD_HALF_RAISE_MS, listedUrlPriority } from '../../../../src/domain/frontier/index.js';

const NOW = Date.UTC(2026, 11, 1);
const CAP = { capPriority: 0.55 };

describe('listedUrlPriority', () => {
  it('leaves a URL that the sitemap says nothing about at its priority as a link', () => {
    expect(listedUrlPriority(0.45, {}, NOW, CAP)).toBe(0.45);
    expect(listedUrlPriority(0.45, { listedPriority: 0.5 }, NOW, CAP)).toBe(0.45);
    expect(listedUrlPriority(0.45, { listedPriority: 0.1 }, NOW, CAP)).toBe(0.45);
  });

  it('raises by a listed priority above the default, the whole way at 1.0', () => {
    expect(listedUrlPriority(0.45, { listedPriority: 1 }, NOW, CAP)).toBeCloseTo(0.55, 12);
    expect(listedUrlPriority(0.45, { listedPriority: 0.75 }, NOW, CAP)).toBeCloseTo(0.5, 12);
  });

  it('raises by a recent lastmod, half the way for one a week old, and counts a future one as now', () => {
    expect(listedUrlPriority(0.45, { lastmodMs: NOW }, NOW, CAP)).toBeCloseTo(0.55, 12);
    expect(listedUrlPriority(0.45, { lastmodMs: NOW - LASTMOD_HALF_RAISE_MS }, NOW, CAP)).toBeCloseTo(0.5, 12);
    expect(listedUrlPriority(0.45, { lastmodMs: NOW + 86_400_000 * 365 }, NOW, CAP)).toBeCloseTo(0.55, 12);
    expect(listedUrlPriority(0.45, { lastmodMs: NOW - 10 * 365 * 86_400_000 }, NOW, CAP)).toBeLessThan(0.451);
  });

  it('takes the stronger signal, never goes past the cap nor below the base', () => {
    fc.assert(
      fc.property(
        fc.double({ min: 0, max: 1, noNaN: true }),
        fc.double({ min: 0, max: 1, noNaN: true }),
        fc.option(fc.double({ min: -1, max: 2, noNaN: true }), { nil: undefined }),
        fc.option(fc.integer({ min: NOW - 1e12, max: NOW + 1e12 }), { nil: undefined }),
        (base, cap, listedPriority, lastmodMs) => {
          const p = listedUrlPriority(base, { listedPriority, lastmodMs }, NOW, { capPriority: cap });
          expect(p).toBeGreaterThanOrEqual(base);
          expect(p).toBeLessThanOrEqual(Math.max(base, cap) + 1e-12);
          const alone = [listedUrlPriority(base, { listedPriority }, NOW, { capPriority: cap }), listedUrlPriority(base, { lastmodMs }, NOW, { capPriority: cap })];
          expect(p).toBeCloseTo(Math.max(...alone), 12);
        },
      ),
    );
  });

  it('rejects a priority or cap outside 0..1 with a typed error', () => {
    expect(() => listedUrlPriority(1.5, {}, NOW, CAP)).toThrow(FrontierInputError);
    expect(() => listedUrlPriority(0.4, {}, NOW, { capPriority: -0.1 })).toThrow(/options.capPriority/);
  });
});
