// Workers prepare their statements once per connection (pool.ts), and Postgres refuses to run a
// prepared statement whose result columns changed: a migration adding a column to a table read
// with `SELECT *` would break every worker still running on the old code. Statements name their
// columns; `*` stays allowed over unnest(...) and subqueries whose columns are named.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const storageDir = join(import.meta.dirname, '../../../src/storage/postgres');

/** `SELECT *` or `SELECT x.*` over a table (not unnest(...) or a parenthesized subquery). */
function starSelectsOverTables(sql: string): string[] {
  const found: string[] = [];
  for (const match of sql.matchAll(/SELECT\s+(?:DISTINCT\s+)?(?:\w+\.)?\*\s+FROM\s+(\w+)/gi)) {
    if (match[1]!.toLowerCase() !== 'unnest') found.push(match[0]);
  }
  return found;
}

describe('statements name their columns', () => {
  it('the check finds what it must', () => {
    expect(starSelectsOverTables('SELECT * FROM crawls WHERE id = $1')).toHaveLength(1);
    expect(starSelectsOverTables('select f.* from fetches f')).toHaveLength(1);
    expect(starSelectsOverTables('SELECT * FROM unnest($1::int[]) AS l(c)')).toEqual([]);
    expect(starSelectsOverTables('SELECT f.*, r.entry FROM (VALUES (1)) AS one (x) LEFT JOIN (SELECT id FROM t) AS f ON true')).toEqual([]);
  });

  it('no repository reads a table with *', () => {
    const offenders = readdirSync(storageDir)
      .filter((file) => file.endsWith('.ts'))
      .flatMap((file) => starSelectsOverTables(readFileSync(join(storageDir, file), 'utf8')).map((sql) => `${file}: ${sql}`));
    expect(offenders).toEqual([]);
  });
});
