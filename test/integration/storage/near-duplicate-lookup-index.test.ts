// The near-duplicate lookup's reads of the leaders sharing a key come from the index alone, and
// stop after the rows a lookup reads a key (migration 0024): a key shared by thousands of pages
// costs a few index pages, not a heap row, nor an index row, per page.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHarness, type Harness } from '../../support/crawler-harness.js';

interface PlanNode {
  'Node Type': string;
  'Index Name'?: string;
  Plans?: PlanNode[];
}

function nodesOf(plan: PlanNode): PlanNode[] {
  return [plan, ...(plan.Plans ?? []).flatMap(nodesOf)];
}

describe('near-duplicate lookup index', () => {
  let harness: Harness;

  beforeAll(async () => {
    harness = await createHarness('near-duplicate-lookup-index');
  });

  afterAll(async () => {
    await harness?.close();
  });

  it.each([
    ['simhash_blocks', 'block'],
    ['minhash_bands', 'band'],
  ])('answers %s lookups by key from the index alone, in the order a capped read stops in', async (table, part) => {
    const client = await harness.pool.connect();
    try {
      // Whatever the table's size: the question is which index can answer, not what is cheapest on an empty table.
      await client.query('SET enable_seqscan = off');
      await client.query('SET enable_bitmapscan = off');
      const { rows } = await client.query<{ 'QUERY PLAN': { Plan: PlanNode }[] }>(
        `EXPLAIN (FORMAT JSON) SELECT i.fingerprint, i.generation, i.parser_version FROM ${table} i
         WHERE i.${part} = 0 AND i.key = 42 AND i.leader AND i.fingerprint <> '\\x00'::bytea ORDER BY i.fingerprint LIMIT 65`,
      );
      const nodes = nodesOf(rows[0]!['QUERY PLAN'][0]!.Plan);
      const scans = nodes.filter((node) => node['Node Type'].includes('Scan'));
      expect(scans.map((node) => node['Node Type'])).toEqual(['Index Only Scan']);
      // Read in index order: no sort of every row of the key before the limit.
      expect(nodes.map((node) => node['Node Type'])).not.toContain('Sort');
    } finally {
      await client.query('RESET ALL');
      client.release();
    }
  });
});
