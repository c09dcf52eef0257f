import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { sha256Hex } from '../../../../src/domain/hash/index.js';
import {
  EMPTY_CHANGE_EVIDENCE,
  RecrawlInputError,
  fieldSetScheme,
  fieldValuesDigest,
  observeVisit,
  pageChangeKey,
} from '../../../../src/domain/recrawl/index.js';

const MAIN = sha256Hex('main text');
const OTHER_MAIN = sha256Hex('other main text');
const PRICE = { price: '.price' };
const MONITOR = { price: '.price', stock: '#availability' };

describe('fieldValuesDigest', () => {
  it('is the same for any key order', () => {
    expect(fieldValuesDigest({ price: '$10', stock: 'In stock' })).toBe(fieldValuesDigest({ stock: 'In stock', price: '$10' }));
    fc.assert(
      fc.property(fc.dictionary(fc.stringMatching(/^[a-z][a-z0-9_-]{0,8}$/), fc.string()), (values) => {
        const reversed = Object.fromEntries(Object.entries(values).reverse());
        expect(fieldValuesDigest(reversed)).toBe(fieldValuesDigest(values));
      }),
    );
  });

  it('changes when a field text changes, and tells which field holds which text', () => {
    const digest = fieldValuesDigest({ price: '$10', stock: 'In stock' });
    expect(digest).toMatch(/^[0-9a-f]{64}$/);
    expect(fieldValuesDigest({ price: '$11', stock: 'In stock' })).not.toBe(digest);
    expect(fieldValuesDigest({ price: 'In stock', stock: '$10' })).not.toBe(digest);
    expect(fieldValuesDigest({ price: '$10', stock: 'In stock', sku: 'A1' })).not.toBe(digest);
  });

  it('masks dates, times and tokens inside a field as in the main text, and ignores case and spacing', () => {
    const monday = fieldValuesDigest({ price: '$10 (as of 2024-05-01 10:30)' });
    expect(fieldValuesDigest({ price: '$10  (AS OF 2024-05-02 11:45)' })).toBe(monday);
    expect(fieldValuesDigest({ price: '$10 (as of 2024-05-01 10:30) ref 9f86d081884c7d659a2feaa0c55ad015' })).toBe(
      fieldValuesDigest({ price: '$10 (as of 2024-05-01 10:30) ref 60303ae22b998861bce3b28f33eec1be' }),
    );
    // Prices are not masked.
    expect(fieldValuesDigest({ price: '$10.50' })).not.toBe(fieldValuesDigest({ price: '$10.40' }));
  });

  it('is null when no field has any text', () => {
    expect(fieldValuesDigest({})).toBeNull();
    expect(fieldValuesDigest({ price: '', stock: ' \n ' })).toBeNull();
    expect(fieldValuesDigest({ price: '', stock: 'Sold out' })).not.toBeNull();
  });
});

describe('fieldSetScheme', () => {
  it('names the parser version and the field set, whatever the key order', () => {
    const scheme = fieldSetScheme(1, MONITOR);
    expect(scheme).toMatch(/^f1-[0-9a-f]{12}$/);
    expect(fieldSetScheme(1, { stock: '#availability', price: '.price' })).toBe(scheme);
    expect(fieldSetScheme(2, MONITOR)).not.toBe(scheme);
  });

  it('differs when a field is added, removed, renamed or re-selected', () => {
    const scheme = fieldSetScheme(1, MONITOR);
    const others: Record<string, string>[] = [PRICE, { ...MONITOR, sku: '.sku' }, { cost: '.price', stock: '#availability' }, { price: '.price .amount', stock: '#availability' }];
    for (const other of others) {
      expect(fieldSetScheme(1, other), JSON.stringify(other)).not.toBe(scheme);
    }
  });

  it('rejects a parser version that is not a positive integer', () => {
    expect(() => fieldSetScheme(0, PRICE)).toThrow(RecrawlInputError);
    expect(() => fieldSetScheme(1.5, PRICE)).toThrow(/parserVersion/);
  });
});

describe('pageChangeKey', () => {
  it('without configured fields is the main text key it has always been', () => {
    expect(pageChangeKey({ parserVersion: 1, normalizedHash: MAIN })).toBe(`n1:${MAIN}`);
    expect(pageChangeKey({ parserVersion: 1, normalizedHash: MAIN, changeFields: {}, fieldValues: { price: '$10' } })).toBe(`n1:${MAIN}`);
  });

  it('with fields covers the fields only: a change elsewhere in the text is no change', () => {
    const before = pageChangeKey({ parserVersion: 1, normalizedHash: MAIN, changeFields: PRICE, fieldValues: { price: '$10' } });
    expect(before).toBe(`${fieldSetScheme(1, PRICE)}:${fieldValuesDigest({ price: '$10' })}`);
    expect(pageChangeKey({ parserVersion: 1, normalizedHash: OTHER_MAIN, changeFields: PRICE, fieldValues: { price: '$10' } })).toBe(before);
    expect(pageChangeKey({ parserVersion: 1, normalizedHash: MAIN, changeFields: PRICE, fieldValues: { price: '$12' } })).not.toBe(before);
  });

  it('counts a configured field missing from the values as empty, and ignores values of fields not configured', () => {
    const key = pageChangeKey({ parserVersion: 1, normalizedHash: MAIN, changeFields: MONITOR, fieldValues: { price: '$10' } });
    expect(pageChangeKey({ parserVersion: 1, normalizedHash: MAIN, changeFields: MONITOR, fieldValues: { price: '$10', stock: '', sku: 'A1' } })).toBe(key);
  });

  it('falls back to the main text under the field scheme when no field has text', () => {
    const none = (normalizedHash: string) => pageChangeKey({ parserVersion: 1, normalizedHash, changeFields: PRICE, fieldValues: { price: '' } });
    expect(none(MAIN).startsWith(`${fieldSetScheme(1, PRICE)}:`)).toBe(true);
    expect(none(OTHER_MAIN)).not.toBe(none(MAIN));
    // Losing the price is a change of the same scheme, not a new baseline.
    const priced = pageChangeKey({ parserVersion: 1, normalizedHash: MAIN, changeFields: PRICE, fieldValues: { price: '$10' } });
    expect(priced).not.toBe(none(MAIN));
  });

  it('gives observeVisit a change for a new price, none for other text, and a baseline for a new field set', () => {
    const visit = (changeFields: Record<string, string>, price: string, normalizedHash = MAIN) => ({
      kind: 'content' as const,
      changeKey: pageChangeKey({ parserVersion: 1, normalizedHash, changeFields, fieldValues: { price, stock: 'In stock' } }),
    });
    const first = observeVisit(EMPTY_CHANGE_EVIDENCE, 0, visit(PRICE, '$10'));
    const otherText = observeVisit(first.evidence, 1000, visit(PRICE, '$10', OTHER_MAIN));
    expect(otherText.verdict).toBe('unchanged');
    const newPrice = observeVisit(otherText.evidence, 2000, visit(PRICE, '$9'));
    expect(newPrice.verdict).toBe('changed');
    expect(observeVisit(newPrice.evidence, 3000, visit(MONITOR, '$9')).verdict).toBe('baseline');
    // Back to no fields: the n1 history is not comparable with the field keys either.
    expect(observeVisit(newPrice.evidence, 3000, { kind: 'content', changeKey: pageChangeKey({ parserVersion: 1, normalizedHash: MAIN }) }).verdict).toBe('baseline');
  });
});
