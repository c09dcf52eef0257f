// Body keys: a standalone body's content-addressed key, a pack's key, and a packed body's key with
// its byte range, written and read back.
import { describe, expect, it } from 'vitest';
import { bodyKeyFor, bodyLocationOf, isPackKey, packedBodyKey, packKeyAt, packKeyOf, sha256OfStandaloneKey } from '../../../src/storage/object-store/body-key.js';

const SHA = 'ab'.padEnd(64, '0');
const PACK = packKeyAt(new Date('2026-12-02T01:02:03.456Z'), '0123456789abcdef');

describe('body keys', () => {
  it('names a standalone body by its SHA-256, and reads the SHA-256 back', () => {
    expect(bodyKeyFor(SHA)).toBe(`bodies/sha256/ab/${SHA}.gz`);
    expect(sha256OfStandaloneKey(bodyKeyFor(SHA))).toBe(SHA);
    expect(sha256OfStandaloneKey('bodies/sha256/ab/not-a-hash.gz')).toBeUndefined();
    expect(sha256OfStandaloneKey(PACK)).toBeUndefined();
    expect(() => bodyKeyFor('AB')).toThrow(/not a SHA-256 hex digest: AB/);
  });

  it('dates a pack by UTC day and second, made unique by its id', () => {
    expect(PACK).toBe('packs/2026/12/02/010203-0123456789abcdef.gz');
    expect(isPackKey(PACK)).toBe(true);
    expect(isPackKey(bodyKeyFor(SHA))).toBe(false);
    expect(isPackKey(`${PACK}#bytes=0-1`)).toBe(false);
    expect(() => packKeyAt(new Date(0), 'xyz')).toThrow(/a pack id is 16 hex digits, got 'xyz'/);
  });

  it('names a packed body by its pack and its bytes, first and last inclusive', () => {
    const key = packedBodyKey(PACK, 100, 50);
    expect(key).toBe(`${PACK}#bytes=100-149`);
    expect(packKeyOf(key)).toBe(PACK);
    expect(bodyLocationOf(key)).toEqual({ objectKey: PACK, range: { offset: 100, length: 50 } });
    expect(bodyLocationOf(packedBodyKey(PACK, 0, 1))).toEqual({ objectKey: PACK, range: { offset: 0, length: 1 } });
  });

  it('reads any other key as a whole object, as keys were read before packs', () => {
    expect(bodyLocationOf(bodyKeyFor(SHA))).toEqual({ objectKey: bodyKeyFor(SHA) });
    expect(bodyLocationOf('bodies/legacy.gz')).toEqual({ objectKey: 'bodies/legacy.gz' });
    expect(packKeyOf(bodyKeyFor(SHA))).toBeUndefined();
    // A fragment on something that is not a pack is part of an object's name, not a range.
    expect(bodyLocationOf('other/x.gz#bytes=0-9')).toEqual({ objectKey: 'other/x.gz#bytes=0-9' });
  });

  it('refuses impossible ranges and pack members by name', () => {
    expect(() => bodyLocationOf(`${PACK}#bytes=10-9`)).toThrow(/names an empty or impossible byte range/);
    expect(() => packedBodyKey('packs/x.gz', 0, 1)).toThrow(/not a pack key: 'packs\/x.gz'/);
    expect(() => packedBodyKey(PACK, -1, 1)).toThrow(/offset is a whole number of bytes >= 0, got -1/);
    expect(() => packedBodyKey(PACK, 0, 0)).toThrow(/length is a whole number of bytes >= 1, got 0/);
    expect(() => packedBodyKey(PACK, 0.5, 1)).toThrow(/offset/);
  });
});
