import { describe, expect, it } from 'vitest';
import { checkVersionAge, versionAgeMs, versionDatesTrusted } from '../../../../src/domain/recrawl/index.js';

const DAY = 86_400_000;
const AT = Date.UTC(2026, 11, 4, 12, 0, 0);
const httpDate = (ms: number): string => new Date(ms).toUTCString();

describe('versionAgeMs', () => {
  it("measures the version's age on the server's clock when it sends Date, so clock skew cancels", () => {
    // The server's clock runs 90 s behind ours; its Last-Modified is 2 hours before its Date.
    const serverNow = AT - 90_000;
    expect(versionAgeMs({ lastModified: httpDate(serverNow - 2 * 3_600_000), date: httpDate(serverNow) }, AT)).toBe(2 * 3_600_000);
  });

  it('falls back to our fetch time without Date, and says nothing without a usable Last-Modified', () => {
    expect(versionAgeMs({ lastModified: httpDate(AT - 60_000) }, AT)).toBe(60_000);
    expect(versionAgeMs({ lastModified: 'yesterday', date: httpDate(AT) }, AT)).toBeUndefined();
    expect(versionAgeMs({ lastModified: null, date: httpDate(AT) }, AT)).toBeUndefined();
    expect(versionAgeMs({}, AT)).toBeUndefined();
  });
});

describe('checkVersionAge', () => {
  it('dates a changed visit whose Last-Modified falls after the previous visit', () => {
    expect(checkVersionAge('changed', 2, 0.5 * DAY)).toEqual({ consistent: true, versionAgeDays: 0.5 });
    // Whole-second dates: an age a second past the interval still fits, and is clamped to it.
    expect(checkVersionAge('changed', 2, 2 * DAY + 800)).toEqual({ consistent: true, versionAgeDays: 2 });
  });

  it('refutes a changed visit dated before the previous visit (a date that never moves)', () => {
    expect(checkVersionAge('changed', 2, 30 * DAY)).toEqual({ consistent: false });
  });

  it('confirms an unchanged visit dated before the previous visit, and refutes one dated after (a date that is always now)', () => {
    expect(checkVersionAge('unchanged', 2, 30 * DAY)).toEqual({ consistent: true });
    expect(checkVersionAge('unchanged', 2, 0)).toEqual({ consistent: false });
  });

  it('refutes a date in the future and cannot check a visit without one', () => {
    expect(checkVersionAge('changed', 1, -5_000)).toEqual({ consistent: false });
    expect(checkVersionAge('changed', 1, -500)).toEqual({ consistent: true, versionAgeDays: 0 });
    expect(checkVersionAge('unchanged', 1, undefined)).toEqual({ consistent: undefined });
  });

  it('rejects a non-positive interval with a stable code', () => {
    expect(() => checkVersionAge('changed', 0, 1)).toThrow(expect.objectContaining({ code: 'RECRAWL_DAYS_INVALID', field: 'intervalDays' }));
  });
});

describe('versionDatesTrusted', () => {
  it('trusts a URL whose dates held at least once and at least 80% of the time', () => {
    expect(versionDatesTrusted({ confirmed: 0, refuted: 0 })).toBe(false);
    expect(versionDatesTrusted({ confirmed: 1, refuted: 0 })).toBe(true);
    expect(versionDatesTrusted({ confirmed: 4, refuted: 1 })).toBe(true);
    expect(versionDatesTrusted({ confirmed: 3, refuted: 1 })).toBe(false);
    expect(versionDatesTrusted({ confirmed: 0, refuted: 2 })).toBe(false);
  });
});
