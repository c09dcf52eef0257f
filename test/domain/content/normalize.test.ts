import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { MASK_PLACEHOLDERS, normalizeTextForHash } from '../../../src/domain/content/index.js';

describe('normalizeTextForHash', () => {
  it('collapses whitespace, lowercases, applies NFC and drops invisible characters', () => {
    const decomposed = 'Cafe\u0301  au\tLAIT\n\n\u200bnoir\u00ad';
    expect(normalizeTextForHash(decomposed)).toBe('café au lait noir');
    expect(normalizeTextForHash(decomposed)).toBe(normalizeTextForHash('café au lait noir'));
  });

  it('masks ISO timestamps so a republished copy normalizes the same', () => {
    const a = normalizeTextForHash('Posted 2024-05-01T10:30:00Z by Maria');
    const b = normalizeTextForHash('Posted 2024-06-12T23:59:59.123+02:00 by Maria');
    expect(a).toBe('posted ⟨date⟩ by maria');
    expect(b).toBe(a);
  });

  it('masks other date forms, clock times and relative times', () => {
    expect(normalizeTextForHash('on 2024/05/01, 01.05.2024 and May 1st, 2024 and 1 May 2024')).toBe('on ⟨date⟩, ⟨date⟩ and ⟨date⟩ and ⟨date⟩');
    expect(normalizeTextForHash('at 9:05 pm, 10:30:15 UTC')).toBe('at ⟨time⟩, ⟨time⟩');
    expect(normalizeTextForHash('updated 3 minutes ago')).toBe(normalizeTextForHash('updated 17 hours ago'));
  });

  it('masks Korean dates, times and relative times', () => {
    expect(normalizeTextForHash('2024년 5월 1일 오후 3시 5분 입력, 5분 전 수정')).toBe('⟨date⟩ ⟨time⟩ 입력, ⟨ago⟩ 수정');
  });

  it('masks uuids, long hex, CSRF-like tokens and long digit runs', () => {
    const text = 'id 123e4567-e89b-12d3-a456-426614174000 sha 9f86d081884c7d659a2feaa0c55ad015 csrf aB3dE5fG7hJ9kL1mN2pQ4rS6 ts 1714557000123';
    expect(normalizeTextForHash(text)).toBe(`id ${MASK_PLACEHOLDERS.uuid} sha ${MASK_PLACEHOLDERS.hex} csrf ${MASK_PLACEHOLDERS.token} ts ${MASK_PLACEHOLDERS.number}`);
  });

  it('does not mask real content: prices, short numbers, years, words, hyphenated phrases', () => {
    expect(normalizeTextForHash('Price 12,900원 in 2024, 42 left')).toBe('price 12,900원 in 2024, 42 left');
    expect(normalizeTextForHash('Price 12,900원')).not.toBe(normalizeTextForHash('Price 13,900원'));
    expect(normalizeTextForHash('state-of-the-art-covid-19-vaccine-rollout')).toBe('state-of-the-art-covid-19-vaccine-rollout');
    expect(normalizeTextForHash('The meeting is open')).not.toBe(normalizeTextForHash('The meeting is closed'));
    expect(normalizeTextForHash('call 1234567')).toBe('call 1234567'); // 7 digits: below minDigitRun
  });

  it('follows its thresholds', () => {
    expect(normalizeTextForHash('order 1234567', { minDigitRun: 6 })).toBe('order ⟨num⟩');
    expect(() => normalizeTextForHash('x', { minDigitRun: 0 })).toThrow(expect.objectContaining({ code: 'CONTENT_OPTIONS_INVALID' }));
  });

  it('is idempotent', () => {
    fc.assert(
      fc.property(fc.string({ unit: fc.constantFrom(...'aZ09 -:/.,_+=\t\n'.split(''), 'é', '한', '년', 'e\u0301', '\u200b') }), (text) => {
        const once = normalizeTextForHash(text);
        expect(normalizeTextForHash(once)).toBe(once);
      }),
      { numRuns: 300 },
    );
  });
});
