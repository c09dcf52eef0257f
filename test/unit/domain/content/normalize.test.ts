import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { MASK_PLACEHOLDERS, normalizeTextForHash } from '../../../../src/domain/content/index.js';
import { normalizeTextForHashReference } from './normalize-reference.js';

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

  describe('writes what the implementation before its pre-tests wrote (normalize-reference.ts)', () => {
    // Pieces that make every pass fire, half-fire or almost fire: digits and separators for dates
    // and times, month names and suffixes, Korean units, hex and token characters, whitespace of
    // every kind, invisible characters, decomposed letters, placeholders' own brackets.
    const piece = fc.oneof(
      { weight: 4, arbitrary: fc.constantFrom(...'0123456789'.split('')) },
      { weight: 3, arbitrary: fc.constantFrom(...'abcdefABCDEFxyzqT'.split('')) },
      { weight: 3, arbitrary: fc.constantFrom(' ', '  ', '\t', '\n', '\u00a0', '\u2003', '\u3000', '-', ':', '/', '.', ',', '_', '+', '=', '⟨', '⟩') },
      { weight: 2, arbitrary: fc.constantFrom('may', 'May', 'sept', 'December', 'jan', 'of', 'st', 'nd', 'th', 'ago', 'AGO', 'minutes', 'hrs', 'pm', 'a.m.', 'UTC', 'kst', '+09:00') },
      { weight: 2, arbitrary: fc.constantFrom('년', '월', '일', '시', '분', '초', '전', '오전', '오후', '시간', '개월', '한국어', 'é', 'e\u0301', '\u200b', '\u00ad', '\ufeff', '٣', '𝟘') },
      { weight: 1, arbitrary: fc.integer({ min: 0, max: 99_999_999_999 }).map(String) },
      { weight: 1, arbitrary: fc.stringMatching(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/) },
      { weight: 1, arbitrary: fc.stringMatching(/^\d{1,4}[-./]\d{1,2}[-./]\d{1,4}(?:[T ]\d{1,2}:\d{2}(?::\d{2})?)?$/) },
      { weight: 1, arbitrary: fc.stringMatching(/^[a-zA-Z0-9_+/=-]{10,30}$/) },
    );
    const text = fc.array(piece, { maxLength: 40 }).map((pieces) => pieces.join(''));

    it('with the default thresholds', () => {
      fc.assert(
        fc.property(text, (input) => {
          expect(normalizeTextForHash(input)).toBe(normalizeTextForHashReference(input));
        }),
        { numRuns: 3000 },
      );
    });

    it('with any thresholds', () => {
      const threshold = fc.integer({ min: 1, max: 24 });
      fc.assert(
        fc.property(text, threshold, threshold, threshold, (input, minDigitRun, minHexChars, minTokenChars) => {
          const options = { minDigitRun, minHexChars, minTokenChars };
          expect(normalizeTextForHash(input, options)).toBe(normalizeTextForHashReference(input, options));
        }),
        { numRuns: 2000 },
      );
    });

    it('on the test vectors above and a long page text', () => {
      const texts = [
        'Posted 2024-05-01T10:30:00Z by Maria, on 2024/05/01, 01.05.2024 and May 1st, 2024 and 1 May 2024',
        'at 9:05 pm, 10:30:15 UTC, updated 3 minutes ago, 2024년 5월 1일 오후 3시 5분 입력, 5분 전 수정',
        'id 123e4567-e89b-12d3-a456-426614174000 sha 9f86d081884c7d659a2feaa0c55ad015 csrf aB3dE5fG7hJ9kL1mN2pQ4rS6 ts 1714557000123',
        'deadbeef-dead-beef-face-deadbeefcafe has no digit, nor does this line',
        '  Price 12,900원 in 2024,\t42 left\n\n state-of-the-art-covid-19-vaccine-rollout ',
        'Page 3 of 127.70.0.1 '.repeat(500),
      ];
      for (const input of texts) expect(normalizeTextForHash(input)).toBe(normalizeTextForHashReference(input));
    });
  });
});
