/**
 * Several writes in one statement (one round trip): each part becomes a WITH query of its own,
 * its parameters placed after the earlier parts'. One statement is one transaction, and its
 * parts share one snapshot, so compose only parts that touch different rows and read nothing
 * another part writes. Parts nothing reads run after the main query (Postgres runs every
 * data-modifying WITH query to completion), so a part the main query reads runs first.
 */
export interface StatementPart {
  /** The WITH query's name; not an SQL keyword. */
  name: string;
  /** One statement, its parameters numbered from $1. */
  sql: string;
  params: readonly unknown[];
}

export function composeStatement(parts: readonly StatementPart[], mainQuery: string): { text: string; values: unknown[] } {
  const values: unknown[] = [];
  const queries = parts.map((part) => {
    const shifted = shiftParameters(part.sql, values.length);
    values.push(...part.params);
    return `${part.name} AS (${shifted})`;
  });
  return { text: `WITH ${queries.join(',\n     ')}\n     ${mainQuery}`, values };
}

/** `$n` becomes `$(n + offset)`: a statement's parameters placed after another's. */
export function shiftParameters(sql: string, offset: number): string {
  return offset === 0 ? sql : sql.replace(/\$(\d+)/g, (_, n: string) => `$${Number(n) + offset}`);
}
