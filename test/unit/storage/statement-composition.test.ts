import { describe, expect, it } from 'vitest';
import { composeStatement, shiftParameters } from '../../../src/storage/postgres/statement-composition.js';

describe('shiftParameters', () => {
  it('places a statement’s parameters after another’s, however many digits they have', () => {
    expect(shiftParameters('a = $1 AND b = $2 OR c = $10', 3)).toBe('a = $4 AND b = $5 OR c = $13');
    expect(shiftParameters('a = $9', 1)).toBe('a = $10');
    expect(shiftParameters('a = $1', 0)).toBe('a = $1');
  });
});

describe('composeStatement', () => {
  it('makes each part a WITH query, numbering the parameters on and keeping their order', () => {
    const { text, values } = composeStatement(
      [
        { name: 'first', sql: 'INSERT INTO a VALUES ($1, $2)', params: ['x', 1] },
        { name: 'second', sql: 'UPDATE b SET v = $2 WHERE k = $1', params: ['k', 'v'] },
      ],
      'SELECT 1',
    );
    expect(text).toBe('WITH first AS (INSERT INTO a VALUES ($1, $2)),\n     second AS (UPDATE b SET v = $4 WHERE k = $3)\n     SELECT 1');
    expect(values).toEqual(['x', 1, 'k', 'v']);
  });
});
