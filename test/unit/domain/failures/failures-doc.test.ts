import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { FETCH_FAILURE_TYPES, failurePoliciesMarkdownTable, formatDurationMs } from '../../../../src/domain/failures/index.js';

describe('docs/failures.md', () => {
  const doc = readFileSync(new URL('../../../../docs/failures.md', import.meta.url), 'utf8');

  it('embeds the policy table generated from FAILURE_POLICIES, unchanged', () => {
    expect(doc).toContain(failurePoliciesMarkdownTable());
  });

  it('has one row per failure type', () => {
    const table = failurePoliciesMarkdownTable();
    for (const type of FETCH_FAILURE_TYPES) expect(table).toContain(`| \`${type}\` |`);
    expect(table.split('\n')).toHaveLength(FETCH_FAILURE_TYPES.length + 2);
  });
});

describe('formatDurationMs', () => {
  it.each([
    [2_592_000_000, '30 d'],
    [86_400_000, '24 h'],
    [172_800_000, '2 d'],
    [3_600_000, '1 h'],
    [300_000, '5 min'],
    [10_000, '10 s'],
    [1500, '1500 ms'],
    [0, '0 ms'],
  ])('%i ms is "%s"', (durationMs, text) => {
    expect(formatDurationMs(durationMs)).toBe(text);
  });
});
