/**
 * Writes a parameterized statement's values into its text as SQL literals, so several statements
 * can go to Postgres in one simple-protocol round trip (which takes no parameters). For the
 * shared-figure writes before COMMIT: each round trip inside a transaction waits for the worker's
 * event loop while the transaction holds its hot rows.
 *
 * Values are escaped as node-postgres's escapeLiteral escapes them (strings, including those inside
 * arrays, may come from crawled pages); only the types our writes use are accepted, anything else is
 * refused rather than guessed at. Arrays become array literals, so their placeholder must carry a
 * cast (`$2::text[]`), as ours do. A Buffer becomes bytea's hex text and a Date its ISO text with
 * its zone (UTC): untyped literals, which Postgres reads by their place (a bytea or timestamptz
 * column, or a cast) as it reads the bound parameters node-postgres would have sent.
 */
export class UninlinableParameterError extends Error {
  constructor(index: number, value: unknown) {
    super(`parameter $${index} (${describe(value)}) cannot be written as an SQL literal: pass it as a bound parameter instead`);
    this.name = 'UninlinableParameterError';
  }
}

/** `sql` with each `$n` replaced by the literal of `params[n - 1]`. The text must hold no `$n` inside its own string literals. */
export function inlineParameters(sql: string, params: readonly unknown[]): string {
  const { texts, indexes } = placeholdersOf(sql);
  let inlined = texts[0]!;
  for (let i = 0; i < indexes.length; i++) {
    const index = indexes[i]!;
    if (index < 1 || index > params.length) throw new Error(`$${index} in a statement given ${params.length} parameter(s)`);
    inlined += literalOf(params[index - 1], index) + texts[i + 1]!;
  }
  return inlined;
}

/** A statement's text split around its placeholders: texts[i], $indexes[i], texts[i + 1], ... */
interface Placeholders {
  texts: string[];
  indexes: number[];
}

// The statements inlined are our own constants, few: each is split once, not at every call.
const placeholdersBySql = new Map<string, Placeholders>();
const MAX_SPLIT_STATEMENTS = 256;

function placeholdersOf(sql: string): Placeholders {
  let found = placeholdersBySql.get(sql);
  if (found === undefined) {
    const parts = sql.split(/\$(\d+)/);
    found = { texts: parts.filter((_, i) => i % 2 === 0), indexes: parts.filter((_, i) => i % 2 === 1).map(Number) };
    if (placeholdersBySql.size >= MAX_SPLIT_STATEMENTS) placeholdersBySql.clear();
    placeholdersBySql.set(sql, found);
  }
  return found;
}

function literalOf(value: unknown, index: number): string {
  if (value === null || value === undefined) return 'NULL';
  if (typeof value === 'number') {
    if (!Number.isFinite(value)) throw new UninlinableParameterError(index, value);
    // Parenthesized, so a negative value never meets a minus before it as a comment (`- -1`).
    return value < 0 ? `(${String(value)})` : String(value);
  }
  if (typeof value === 'bigint') return value < 0n ? `(${value.toString()})` : value.toString();
  if (typeof value === 'boolean') return value ? 'TRUE' : 'FALSE';
  if (typeof value === 'string') return escapedString(value, index);
  if (Buffer.isBuffer(value)) return escapedString(byteaText(value), index);
  if (value instanceof Date) {
    if (Number.isNaN(value.getTime())) throw new UninlinableParameterError(index, value);
    return escapedString(value.toISOString(), index);
  }
  if (Array.isArray(value)) return escapedString(arrayLiteralOf(value, index), index);
  throw new UninlinableParameterError(index, value);
}

function escapedString(value: string, index: number): string {
  // Postgres text cannot hold NUL; a bound parameter would be refused too, so refuse it here by name.
  if (value.includes('\u0000')) throw new UninlinableParameterError(index, value);
  // pg.escapeLiteral's result, without its loop over every character: quotes and backslashes
  // doubled, and E'' when there is a backslash (test/unit/inline-parameters.test.ts compares them).
  if (!QUOTE_OR_BACKSLASH.test(value)) return `'${value}'`;
  const doubled = value.replace(QUOTES_AND_BACKSLASHES, '$&$&');
  return value.includes('\\') ? ` E'${doubled}'` : `'${doubled}'`;
}

const QUOTE_OR_BACKSLASH = /['\\]/;
const QUOTES_AND_BACKSLASHES = /['\\]/g;

/** A one-dimensional array literal: every element double-quoted, `"` and `\` escaped, null as NULL. */
function arrayLiteralOf(values: readonly unknown[], index: number): string {
  const elements = values.map((element) => {
    if (element === null || element === undefined) return 'NULL';
    if (Buffer.isBuffer(element)) return `"${byteaText(element).replace(/\\/g, '\\\\')}"`;
    if (typeof element === 'number' && !Number.isFinite(element)) throw new UninlinableParameterError(index, element);
    if (typeof element !== 'string' && typeof element !== 'number' && typeof element !== 'bigint' && typeof element !== 'boolean') {
      throw new UninlinableParameterError(index, element);
    }
    return `"${String(element).replace(/[\\"]/g, '\\$&')}"`;
  });
  return `{${elements.join(',')}}`;
}

/** bytea's hex input form: a backslash, an x, then two hex digits per byte. */
function byteaText(bytes: Buffer): string {
  return `\\x${bytes.toString('hex')}`;
}

function describe(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array with an element of an unsupported type';
  if (value instanceof Date) return 'an invalid Date';
  if (typeof value === 'object') return `a ${value.constructor?.name ?? 'object'}`;
  if (typeof value === 'string') return 'a string holding NUL';
  return `${typeof value} ${String(value)}`;
}
