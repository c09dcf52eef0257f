import { createHash } from 'node:crypto';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { encodeUtf8, sha256Bytes, sha256Hex } from '../../../../src/domain/hash/index.js';

const nodeSha256 = (data: Uint8Array | string): string => createHash('sha256').update(data).digest('hex');

describe('sha256Hex: FIPS 180-4 / NIST example vectors', () => {
  it('hashes the empty message', () => {
    expect(sha256Hex('')).toBe('e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855');
  });

  it('hashes "abc" (one block)', () => {
    expect(sha256Hex('abc')).toBe('ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
  });

  it('hashes the 448-bit message (padding spills into a second block)', () => {
    expect(sha256Hex('abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq')).toBe(
      '248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1',
    );
  });

  it('hashes the 896-bit message', () => {
    expect(
      sha256Hex(
        'abcdefghbcdefghicdefghijdefghijkefghijklfghijklmghijklmnhijklmnoijklmnopjklmnopqklmnopqrlmnopqrsmnopqrstnopqrstu',
      ),
    ).toBe('cf5b16a778af8380036ce59e7b0492370b249b11e8f07a51afac45037afee9d1');
  });

  it("hashes one million 'a'", () => {
    expect(sha256Hex(new Uint8Array(1_000_000).fill(0x61))).toBe(
      'cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0',
    );
  });
});

describe('sha256 agrees with node:crypto', () => {
  it('on every length around the block and padding boundaries', () => {
    for (let length = 0; length <= 200; length++) {
      const bytes = Uint8Array.from({ length }, (_, i) => (i * 31 + length) & 0xff);
      expect(sha256Hex(bytes), `length ${length}`).toBe(nodeSha256(bytes));
    }
  });

  it('on random byte arrays', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 600 }), (bytes) => {
        expect(sha256Hex(bytes)).toBe(nodeSha256(bytes));
      }),
      { numRuns: 300 },
    );
  });

  it('on random strings, hashed as UTF-8 (astral characters included)', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'grapheme', maxLength: 80 }), (text) => {
        expect(sha256Hex(text)).toBe(nodeSha256(Buffer.from(text, 'utf8')));
      }),
      { numRuns: 300 },
    );
  });

  it('returns 32 bytes that match the hex form', () => {
    const bytes = sha256Bytes('abc');
    expect(bytes).toHaveLength(32);
    expect(Buffer.from(bytes).toString('hex')).toBe(sha256Hex('abc'));
  });
});

describe('encodeUtf8', () => {
  it('matches TextEncoder, lone surrogates included', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary', maxLength: 40 }), (text) => {
        expect(Array.from(encodeUtf8(text))).toEqual(Array.from(new TextEncoder().encode(text)));
      }),
      { numRuns: 500 },
    );
    expect(Array.from(encodeUtf8('\ud800x'))).toEqual([0xef, 0xbf, 0xbd, 0x78]);
  });
});
