import { describe, expect, it } from 'vitest';
import { CliError } from '../../../src/cli/cli-error.js';
import { parseDurationOption, prefixOption } from '../../../src/cli/commands/freshness.js';
import { describeShortfalls, describeStaleness, formatDurationMs } from '../../../src/cli/freshness-lines.js';

describe('crawler sla and tier arguments', () => {
  it('reads --max-staleness durations, at least the minimum', () => {
    expect(parseDurationOption('--max-staleness', '1h', 1000)).toBe(3_600_000);
    expect(parseDurationOption('--max-staleness', '15s', 1000)).toBe(15_000);
    expect(parseDurationOption('--max-staleness', '1.5d', 1000)).toBe(129_600_000);
    expect(parseDurationOption('--max-staleness', '90 min', 1000)).toBe(5_400_000);
    for (const bad of ['', '1', 'h', '500ms', '-1h', '1 week']) expect(() => parseDurationOption('--max-staleness', bad, 1000), bad).toThrow(CliError);
  });

  it('stores a prefix in canonical form, and refuses what is not an http(s) URL without echoing credentials', () => {
    expect(prefixOption('HTTPS://Shop.Example/prices/', 'usage')).toBe('https://shop.example/prices/');
    expect(() => prefixOption(undefined, 'usage')).toThrow(/--prefix URL_PREFIX is required/);
    expect(() => prefixOption('ftp://shop.example/', 'usage')).toThrow(CliError);
    try {
      prefixOption('https://user:hunter2@shop.example/', 'usage');
    } catch (error) {
      expect((error as Error).message).not.toContain('hunter2');
    }
  });
});

describe('staleness lines', () => {
  it('formats durations for people', () => {
    expect(formatDurationMs(900)).toBe('900 ms');
    expect(formatDurationMs(12_300)).toBe('12.3 s');
    expect(formatDurationMs(5_400_000)).toBe('1.5 h');
    expect(formatDurationMs(3_600_000)).toBe('1 h');
  });

  it('says per SLA whether its p95 keeps the promise, and per tier', () => {
    const lines = describeStaleness({
      atMs: 0,
      bySla: [
        { slaId: 1, prefix: 'https://shop.example/prices/', maxStalenessMs: 3_600_000, urls: 10, neverFetched: 0, p50Ms: 600_000, p95Ms: 3_000_000, maxMs: 3_700_000, breaching: 1 },
        { slaId: 2, prefix: 'https://shop.example/news/', maxStalenessMs: 600_000, urls: 4, neverFetched: 1, p50Ms: 300_000, p95Ms: 900_000, maxMs: 950_000, breaching: 2 },
      ],
      byTier: [{ tier: 2, urls: 100, neverFetched: 0, p50Ms: 86_400_000, p95Ms: 172_800_000, maxMs: 259_200_000 }],
      tiersSampled: false,
    });
    expect(lines).toEqual([
      '  SLA 1 https://shop.example/prices/ within 1 h: p50 10 min, p95 50 min, max 1.0 h over 10 URLs, p95 within it; 1 URLs past it now',
      '  SLA 2 https://shop.example/news/ within 10 min: p50 5 min, p95 15 min, max 15.8 min over 4 URLs (1 never fetched), **p95 past it**; 2 URLs past it now',
      '  tier 2: p50 1 d, p95 2 d, max 3 d over 100 URLs',
    ]);
  });

  it('says which SLA the budget could not keep, how many URLs and how far behind', () => {
    expect(
      describeShortfalls([{ slaId: 1, prefix: 'https://shop.example/prices/', maxStalenessMs: 3_600_000, dueUrls: 43, unplannedUrls: 41, stalestUnplannedMs: 3_900_000, behindMs: 300_000 }]),
    ).toEqual(['  SLA 1 https://shop.example/prices/ (within 1 h): budget too small, 41 of 43 due URLs not planned; the stalest 1.1 h old, 5 min behind its promise']);
  });
});
