import { describe, expect, it } from 'vitest';
import { SHORT_DOCUMENT_CHARS, computeContentIdentity, isNearDuplicate, normalizeTextForHash } from '../../../../src/domain/content/index.js';
import { ARTICLE, ARTICLE_LATER, UNRELATED } from './fixtures.js';

const identityOf = (text: string) => computeContentIdentity(normalizeTextForHash(text));

const LISTING = 'Stainless steel water bottle, 750 ml, keeps drinks cold for 24 hours and hot for 12. Leak-proof lid, dishwasher safe. Colour: forest green. In stock, ships in 2 days.';
const LISTING_EDIT = 'Stainless steel water bottle, 750 ml, keeps drinks cold for 24 hours and hot for 12. Leak-proof lid, dishwasher safe. Colour: forest green. In stock, ships tomorrow.';
const OTHER_LISTING = 'Wireless earbuds with noise cancelling, 30 hour battery with the charging case, touch controls, splash resistant, three sizes of silicone tips included in the box.';

describe('computeContentIdentity', () => {
  it('adds a MinHash signature only below SHORT_DOCUMENT_CHARS', () => {
    const short = identityOf(LISTING);
    expect(short.textLength).toBeLessThan(SHORT_DOCUMENT_CHARS);
    expect(short.minhash).toHaveLength(64);
    const long = identityOf(ARTICLE);
    expect(long.textLength).toBeGreaterThanOrEqual(SHORT_DOCUMENT_CHARS);
    expect(long.minhash).toBeUndefined();
  });

  it('counts code points, not UTF-16 units', () => {
    expect(computeContentIdentity('😀😀').textLength).toBe(2);
  });
});

describe('isNearDuplicate', () => {
  it('decides short documents by MinHash Jaccard: a small edit is near, another product is not', () => {
    const verdict = isNearDuplicate(identityOf(LISTING), identityOf(LISTING_EDIT));
    expect(verdict.method).toBe('minhash');
    expect(verdict.jaccard).toBeGreaterThanOrEqual(0.8);
    expect(verdict.near).toBe(true);
    const other = isNearDuplicate(identityOf(LISTING), identityOf(OTHER_LISTING));
    expect(other).toMatchObject({ method: 'minhash', near: false });
  });

  it('decides long documents by SimHash distance', () => {
    const verdict = isNearDuplicate(identityOf(ARTICLE), identityOf(ARTICLE_LATER));
    expect(verdict.method).toBe('simhash');
    expect(verdict.distance).toBeLessThanOrEqual(3);
    expect(verdict.near).toBe(true);
    expect(isNearDuplicate(identityOf(ARTICLE), identityOf(UNRELATED))).toMatchObject({ method: 'simhash', near: false });
  });

  it('falls back to SimHash when a short document meets one without a signature', () => {
    const verdict = isNearDuplicate(identityOf(LISTING), identityOf(ARTICLE));
    expect(verdict.method).toBe('simhash');
    expect(verdict.near).toBe(false);
  });

  it('honours custom thresholds', () => {
    const a = identityOf(LISTING);
    const b = identityOf(LISTING_EDIT);
    expect(isNearDuplicate(a, b, { minJaccard: 0.999 }).near).toBe(false);
    expect(isNearDuplicate(a, b, { shortDocumentChars: 10 }).method).toBe('simhash');
  });

  it('rejects a corrupt identity with a code naming the field', () => {
    const bad = { ...identityOf(LISTING), textLength: -1 };
    expect(() => isNearDuplicate(bad, identityOf(LISTING))).toThrow(expect.objectContaining({ code: 'CONTENT_IDENTITY_INVALID', field: 'a.textLength' }));
  });
});
