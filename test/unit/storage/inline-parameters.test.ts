// Values written into statement text as literals (the shared-figure writes sent with COMMIT):
// every value type our figure writes use, escaped; anything else refused by name.
import fc from 'fast-check';
import pg from 'pg';
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

  it("escapes every string as node-postgres's escapeLiteral does", () => {
    const unit = fc.oneof(fc.constantFrom("'", '\\', '"', '$', '1', 'E', ' '), fc.string({ unit: 'binary', minLength: 1, maxLength: 1 }));
    fc.assert(
      fc.property(fc.string({ unit }).filter((value) => !value.includes('\u0000')), (value) => {
        expect(inlineParameters('$1', [value])).toBe(pg.escapeLiteral(value));
      }),
      { numRuns: 2000 },
    );
  });

  it('writes a statement used again with new values each time, every placeholder of it', () => {
    const sql = 'INSERT INTO t VALUES ($1, $2), ($2, $1)';
    expect(inlineParameters(sql, [1, 'a'])).toBe("INSERT INTO t VALUES (1, 'a'), ('a', 1)");
    expect(inlineParameters(sql, [2, "b'"])).toBe("INSERT INTO t VALUES (2, 'b'''), ('b''', 2)");
    expect(() => inlineParameters(sql, [3])).toThrow(/\$2 in a statement given 1 parameter/);
  });

  it('writes arrays as quoted array literals, elements escaped, nulls kept', () => {
    expect(inlineParameters('unnest($1::text[], $2::int[])', [['a.example', 'b"c', 'd\\e', "f'g"], [1, null]])).toBe(
      `unnest( E'{"a.example","b\\\\"c","d\\\\\\\\e","f''g"}'::text[], '{"1",NULL}'::int[])`,
    );
    expect(inlineParameters('$1::text[]', [[]])).toBe("'{}'::text[]");
  });

  it('writes bytes as bytea hex text and times as ISO text in UTC, in an E literal where backslashes need it', () => {
    expect(inlineParameters('VALUES ($1, $2)', [Buffer.from([0, 0xff, 0x5c]), Buffer.alloc(0)])).toBe("VALUES ( E'\\\\x00ff5c',  E'\\\\x')");
    expect(inlineParameters('$1::bytea[]', [[Buffer.from([1, 2]), null]])).toBe(` E'{"\\\\\\\\x0102",NULL}'::bytea[]`);
    expect(inlineParameters('VALUES ($1)', [new Date(Date.UTC(2026, 11, 1, 10, 59, 58, 123))])).toBe("VALUES ('2026-12-01T10:59:58.123Z')");
  });

  it('refuses what it cannot write faithfully, naming the parameter', () => {
    expect(() => inlineParameters('VALUES ($1)', [Number.NaN])).toThrow(UninlinableParameterError);
    expect(() => inlineParameters('VALUES ($1, $2)', [1, new Map()])).toThrow(/parameter \$2 \(a Map\)/);
    expect(() => inlineParameters('VALUES ($1)', [new Date(Number.NaN)])).toThrow(/parameter \$1 \(an invalid Date\)/);
    expect(() => inlineParameters('VALUES ($1)', [[new Date(0)]])).toThrow(UninlinableParameterError);
    expect(() => inlineParameters('VALUES ($1)', [[{}]])).toThrow(UninlinableParameterError);
    expect(() => inlineParameters('VALUES ($1)', [[Number.POSITIVE_INFINITY]])).toThrow(UninlinableParameterError);
    expect(() => inlineParameters('VALUES ($1)', ['a\u0000b'])).toThrow(/NUL/);
    expect(() => inlineParameters('VALUES ($2)', [1])).toThrow(/\$2 in a statement given 1 parameter/);
  });
});
