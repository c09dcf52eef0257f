import { describe, expect, it } from 'vitest';
import { fingerprintFromBytes, fingerprintToBytes, oncePerFingerprintInKeyOrder } from '../../../src/storage/postgres/sql-codec.js';

describe('sql codec', () => {
  it('carries a fingerprint to bytea and back unchanged', () => {
    const hex = '00ff10a0b1c2d3e4f5061728394a5b6c';
    const bytes = fingerprintToBytes(hex);
    expect(bytes).toHaveLength(16);
    expect(bytes[0]).toBe(0x00);
    expect(bytes[1]).toBe(0xff);
    expect(fingerprintFromBytes(bytes)).toBe(hex);
  });

  it('keeps one item per fingerprint, the last given, in key order', () => {
    const items = [
      { fingerprint: 'cc', n: 1 },
      { fingerprint: 'aa', n: 2 },
      { fingerprint: 'cc', n: 3 },
      { fingerprint: 'bb', n: 4 },
    ];
    expect(oncePerFingerprintInKeyOrder(items)).toEqual([
      { fingerprint: 'aa', n: 2 },
      { fingerprint: 'bb', n: 4 },
      { fingerprint: 'cc', n: 3 },
    ]);
    expect(oncePerFingerprintInKeyOrder([])).toEqual([]);
  });
});
