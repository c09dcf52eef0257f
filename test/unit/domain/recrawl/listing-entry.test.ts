import { describe, expect, it } from 'vitest';
import { RecrawlInputError, listingClaim, listingDigestAtVisit, listingEntryDigest, listingReadingAsOf } from '../../../../src/domain/recrawl/index.js';

const T0 = Date.UTC(2026, 10, 30, 8);
const T1 = T0 + 3_600_000;

describe('listingEntryDigest', () => {
  it('tells entries apart by what they say, not by masked dates and tokens', () => {
    const kettle = listingEntryDigest('Blue kettle 24.90 EUR in stock');
    expect(listingEntryDigest('Blue kettle   24.90 EUR in stock')).toBe(kettle);
    expect(listingEntryDigest('Blue kettle 21.90 EUR in stock')).not.toBe(kettle);
    expect(listingEntryDigest('Blue kettle 24.90 EUR sold out')).not.toBe(kettle);
    // A rendering timestamp or session token in the entry is not a change of the item.
    expect(listingEntryDigest('Blue kettle 24.90 EUR, listed 2026-11-30T08:00:00Z')).toBe(listingEntryDigest('Blue kettle 24.90 EUR, listed 2026-11-29T17:45:12Z'));
    expect(kettle).toMatch(/^[0-9a-f]{64}$/);
  });
});

describe('listingClaim', () => {
  const was = listingEntryDigest('Blue kettle 24.90 EUR');
  const now = listingEntryDigest('Blue kettle 21.90 EUR');
  const VISIT = T0;

  it("an entry that differs from the one current at our visit says 'changed'", () => {
    expect(listingClaim({ digest: now, digestAtVisit: was, readAtMs: T1 }, VISIT)).toBe('changed');
  });

  it("the same entry read after the visit says 'unchanged'; read before it, nothing", () => {
    expect(listingClaim({ digest: was, digestAtVisit: was, readAtMs: T1 }, VISIT)).toBe('unchanged');
    expect(listingClaim({ digest: was, digestAtVisit: was, readAtMs: VISIT }, VISIT)).toBe('unchanged');
    expect(listingClaim({ digest: was, digestAtVisit: was, readAtMs: VISIT - 1 }, VISIT)).toBeUndefined();
  });

  it('says nothing when no listing had shown the item by our visit, or without a visit or a reading', () => {
    expect(listingClaim({ digest: now, digestAtVisit: null, readAtMs: T1 }, VISIT)).toBeUndefined();
    expect(listingClaim({ digest: now, digestAtVisit: was, readAtMs: T1 }, undefined)).toBeUndefined();
    expect(listingClaim(undefined, VISIT)).toBeUndefined();
  });

  it('refuses a reading time that is no time, naming it', () => {
    expect(() => listingClaim({ digest: was, digestAtVisit: was, readAtMs: Number.NaN }, VISIT)).toThrow(RecrawlInputError);
    expect(() => listingClaim({ digest: was, digestAtVisit: was, readAtMs: Number.NaN }, VISIT)).toThrow(/readAtMs/);
  });
});

describe('listingReadingAsOf', () => {
  const was = listingEntryDigest('Blue kettle 24.90 EUR');
  const now = listingEntryDigest('Blue kettle 21.90 EUR');
  const VISIT = T1;

  it('is the latest reading when it was taken at or before the visit', () => {
    const reading = { digest: now, readAtMs: VISIT, digestAtVisit: was, previous: { digest: was, readAtMs: T0 } };
    expect(listingReadingAsOf(reading, VISIT)).toBe(reading);
  });

  it('is the reading before the latest when the latest was taken after the visit began, keeping the baseline', () => {
    const reading = { digest: now, readAtMs: VISIT + 1, digestAtVisit: was, previous: { digest: was, readAtMs: T0 } };
    expect(listingReadingAsOf(reading, VISIT)).toEqual({ digest: was, readAtMs: T0, digestAtVisit: was });
    // The claim it makes is the one a visit can check.
    expect(listingClaim(listingReadingAsOf(reading, VISIT), T0)).toBe('unchanged');
  });

  it('is nothing when both readings came after the visit, or only a later one was kept', () => {
    expect(listingReadingAsOf({ digest: now, readAtMs: VISIT + 2, digestAtVisit: was, previous: { digest: was, readAtMs: VISIT + 1 } }, VISIT)).toBeUndefined();
    expect(listingReadingAsOf({ digest: now, readAtMs: VISIT + 1, digestAtVisit: was }, VISIT)).toBeUndefined();
    expect(listingReadingAsOf(undefined, VISIT)).toBeUndefined();
  });

  it('refuses a visit time that is no time, naming it', () => {
    expect(() => listingReadingAsOf({ digest: now, readAtMs: T0, digestAtVisit: was }, Number.NaN)).toThrow(/atMs/);
  });
});

describe('listingDigestAtVisit', () => {
  const was = listingEntryDigest('Blue kettle 24.90 EUR');
  const now = listingEntryDigest('Blue kettle 21.90 EUR');
  const VISIT = T1;

  it('is the entry of the latest reading taken at or before the visit', () => {
    expect(listingDigestAtVisit({ digest: now, readAtMs: VISIT, digestAtVisit: was, previous: { digest: was, readAtMs: T0 } }, VISIT)).toBe(now);
    expect(listingDigestAtVisit({ digest: now, readAtMs: VISIT + 1, digestAtVisit: null, previous: { digest: was, readAtMs: T0 } }, VISIT)).toBe(was);
  });

  it('is the latest entry when every kept reading came after the visit, and null with none', () => {
    expect(listingDigestAtVisit({ digest: now, readAtMs: VISIT + 2, digestAtVisit: null, previous: { digest: was, readAtMs: VISIT + 1 } }, VISIT)).toBe(now);
    expect(listingDigestAtVisit(undefined, VISIT)).toBeNull();
  });
});
