import { describe, expect, it } from 'vitest';
import { CliError } from '../../../src/cli/cli-error.js';
import { overlapPolicyOf, parseEveryMs, parseValueTiers } from '../../../src/cli/commands/schedule.js';
import { recrawlCrawlIdOf, recrawlWorkflowId } from '../../../src/contracts/messages.js';

describe('crawler schedule arguments', () => {
  it('parses --every with s, m, h or d, at least a minute', () => {
    expect(parseEveryMs('1h')).toBe(3_600_000);
    expect(parseEveryMs('15m')).toBe(900_000);
    expect(parseEveryMs('1.5d')).toBe(129_600_000);
    expect(parseEveryMs('90s')).toBe(90_000);
    expect(parseEveryMs('5s')).toBe(5_000);
    for (const bad of ['1', 'h', '10x', '-1h', '4s', '']) expect(() => parseEveryMs(bad), bad).toThrow(CliError);
  });

  it('parses --value-tiers, most valuable first', () => {
    expect(parseValueTiers('16,4,1,0.25')).toEqual([16, 4, 1, 0.25]);
    expect(() => parseValueTiers('16,,1')).toThrow(CliError);
    expect(() => parseValueTiers('16,-1')).toThrow(CliError);
    expect(() => parseValueTiers('a,b')).toThrow(/non-negative numbers/);
  });

  it('accepts the documented overlap policies only, SKIP by default', () => {
    expect(overlapPolicyOf(undefined)).toBe('SKIP');
    expect(overlapPolicyOf('buffer-one')).toBe('BUFFER_ONE');
    expect(() => overlapPolicyOf('allow-all')).toThrow(CliError);
  });

  it('names a cycle and the crawl it runs as after the schedule and the scheduled time', () => {
    expect(recrawlWorkflowId('hourly')).toBe('recrawl/hourly');
    expect(recrawlCrawlIdOf('recrawl/hourly-2026-01-02T03:00:00Z')).toBe('recrawl-hourly-2026-01-02T03-00-00Z');
  });
});
