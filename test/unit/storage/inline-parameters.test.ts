// Values written into statement text as literals (the shared-figure writes sent with COMMIT):
// every value type our figure writes use, escaped; anything else refused by name.
import { describe, expect, it } from 'vitest';
import { UninlinableParameterError, inlineParameters } from '../../../src/storage/postgres/inline-parameters.js';

describe('inlineParameters', () => {
  it('writes numbers, negatives, bigints, booleans and nulls as literals', () => {
    expect(inlineParameters('VALUES ($1, $2, $3, $4, $5, $6, $7)', [5, -3, 0.25, 12n, true, null, undefined])).toBe('VALUES (5, (-3), 0.25, 12, TRUE, NULL, NULL)');
    // A negative after a minus must not become a comment.
    expect(inlineParameters('SELECT x -$1', [-1])).toBe('SELECT x -(-1)');
  });

  it('replaces $10 as the tenth value, not $1 followed by 0', () => {
    const params = Array.from({ length: 10 }, (_, i) => i + 1);
    expect(inlineParameters('$1 $10 $2', params)).toBe('1 10 2');
  });

  it('escapes strings: quotes doubled, backslashes in an E literal, injection stays inside the literal', () => {
    expect(inlineParameters('VALUES ($1)', ['crawl-1'])).toBe("VALUES ('crawl-1')");
    expect(inlineParameters('VALUES ($1)', ["x'); DROP TABLE crawls; --"])).toBe("VALUES ('x''); DROP TABLE crawls; --')");
    expect(inlineParameters('VALUES ($1)', ['a\\b'])).toBe("VALUES ( E'a\\\\b')");
    expect(inlineParameters('VALUES ($1)', ['über.例え.jp'])).toBe("VALUES ('über.例え.jp')");
    // A value that looks like a placeholder is not replaced again.
    expect(inlineParameters('VALUES ($1, $2)', ['$2', 7])).toBe("VALUES ('$2', 7)");
  });

  it('writes arrays as quoted array literals, elements escaped, nulls kept', () => {
    expect(inlineParameters('unnest($1::text[], $2::int[])', [['a.example', 'b"c', 'd\\e', "f'g"], [1, null]])).toBe(
      `unnest( E'{"a.example","b\\\\"c","d\\\\\\\\e","f''g"}'::text[], '{"1",NULL}'::int[])`,
    );
    expect(inlineParameters('$1::text[]', [[]])).toBe("'{}'::text[]");
  });

  it('refuses what it cannot write faithfully, naming the parameter', () => {
    expect(() => inlineParameters('VALUES ($1)', [Number.NaN])).toThrow(UninlinableParameterError);
    expect(() => inlineParameters('VALUES ($1, $2)', [1, Buffer.from('x')])).toThrow(/parameter \$2 \(a Buffer\)/);
    expect(() => inlineParameters('VALUES ($1)', [new Date(0)])).toThrow(/parameter \$1 \(a Date\)/);
    expect(() => inlineParameters('VALUES ($1)', [[{}]])).toThrow(UninlinableParameterError);
    expect(() => inlineParameters('VALUES ($1)', [[Number.POSITIVE_INFINITY]])).toThrow(UninlinableParameterError);
    expect(() => inlineParameters('VALUES ($1)', ['a\u0000b'])).toThrow(/NUL/);
    expect(() => inlineParameters('VALUES ($2)', [1])).toThrow(/\$2 in a statement given 1 parameter/);
  });
});
