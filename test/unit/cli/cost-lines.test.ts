import { describe, expect, it } from 'vitest';
import { describeCostReport, formatBytes } from '../../../src/cli/cost-lines.js';
import type { CostFigures, CrawlCostReport } from '../../../src/contracts/status.js';

const figures = (over: Partial<CostFigures> = {}): CostFigures => ({
  requests: 40,
  successfulRequests: 39,
  failedRequests: 1,
  transferBytes: 2_460_000,
  failedTransferBytes: 30_167,
  changes: 8,
  wasted: 32,
  amount: null,
  perChange: { transferBytes: 307_500, requests: 5, amount: null },
  ...over,
});

describe('describeCostReport', () => {
  it('formats bytes in decimal units, as bandwidth is billed', () => {
    expect(formatBytes(999)).toBe('999 B');
    expect(formatBytes(30_167)).toBe('30.2 kB');
    expect(formatBytes(2_460_000)).toBe('2.46 MB');
    expect(formatBytes(123_456_789_012)).toBe('123 GB');
  });

  it('says what the crawl cost, per change, what was wasted, and which hosts and page types cost the most', () => {
    const report: CrawlCostReport = {
      model: { kind: 'gateway-bytes', price: 8 },
      totals: figures({ amount: 0.01968, perChange: { transferBytes: 307_500, requests: 5, amount: 0.00246 } }),
      byHost: [{ key: 'shop.example', ...figures(), validatorsHonoured: 0.5 }, { key: 'blog.example', ...figures({ changes: 0, perChange: null }), validatorsHonoured: null }],
      byPageType: [{ key: '/product/*', ...figures() }],
    };
    expect(describeCostReport(report)).toEqual([
      '  cost (gateway-bytes at 8 per GB): 2.46 MB in 40 requests (1 failed, 30.2 kB), amount 0.020; 8 changes, 308 kB and 5.0 requests, 0.0025 per change; 32 wasted (no change)',
      '    host shop.example: 2.46 MB in 40 requests (1 failed, 30.2 kB); 8 changes, 308 kB and 5.0 requests per change; 32 wasted (no change); validators honoured 50%',
      '    host blog.example: 2.46 MB in 40 requests (1 failed, 30.2 kB); no change found; 32 wasted (no change)',
      '    page type /product/*: 2.46 MB in 40 requests (1 failed, 30.2 kB); 8 changes, 308 kB and 5.0 requests per change; 32 wasted (no change)',
    ]);
  });

  it('gives robots.txt requests a line of their own, priced under the model, and none when there were none', () => {
    const robots = { requests: 3, successfulRequests: 2, failedRequests: 1, transferBytes: 1_234, failedTransferBytes: 80, amount: 0.002 };
    const report: CrawlCostReport = { model: { kind: 'successful-requests', price: 0.001 }, totals: figures({ amount: 0.041 }), byHost: [], byPageType: [], robots };
    expect(describeCostReport(report)).toContain('    robots.txt: 3 requests, 1.23 kB (1 failed, 80 B), amount 0.0020 (in the total above)');
    expect(describeCostReport({ ...report, robots: { ...robots, requests: 0, successfulRequests: 0, failedRequests: 0, transferBytes: 0, failedTransferBytes: 0, amount: 0 } })).toHaveLength(1);
  });

  it('names a per-request model by its unit', () => {
    const report: CrawlCostReport = { model: { kind: 'successful-requests', price: 0.002 }, totals: figures({ failedRequests: 0, amount: 0.078 }), byHost: [], byPageType: [] };
    expect(describeCostReport(report)[0]).toContain('successful-requests at 0.002 per successful request');
  });
});
