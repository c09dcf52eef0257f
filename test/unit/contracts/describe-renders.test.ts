import { describe, expect, it } from 'vitest';
import { describeRenders } from '../../../src/contracts/describe-waits.js';
import type { CrawlRenderStatus } from '../../../src/contracts/status.js';

const status = (overrides: Partial<CrawlRenderStatus> = {}): CrawlRenderStatus => ({
  pending: 0,
  rendered: 4,
  partial: 0,
  failed: 0,
  deferred: 0,
  renders: 4,
  cpuSeconds: 6.5,
  budget: { maxRenders: 1000, maxCpuSeconds: 3600, maxRendersPerHost: 200 },
  oldestPendingAtMs: null,
  noRenderWorker: false,
  ...overrides,
});

describe('describeRenders', () => {
  it('says nothing for a crawl that renders nothing', () => {
    expect(describeRenders(undefined)).toBe('');
  });

  it('shows renders by state, failures by type, the deferred and the budget spent', () => {
    expect(describeRenders(status())).toBe('rendered 4, budget 4/1000 renders, 6.5/3600 CPU s');
    expect(describeRenders(status({ partial: 1, pending: 2, failed: 3, failedByType: { RenderCrashed: 1, BrowserUnavailable: 2 }, deferred: 7 }))).toBe(
      'rendered 4, partial 1, render queue 2, render failed 3 (RenderCrashed 1, BrowserUnavailable 2), render-deferred 7, budget 4/1000 renders, 6.5/3600 CPU s',
    );
  });

  it('says what renders wait for, and since when, when no render worker polls', () => {
    const line = describeRenders(status({ pending: 3, noRenderWorker: true, oldestPendingAtMs: Date.UTC(2026, 0, 2, 3, 4, 5) }));
    expect(line).toContain('3 renders waiting since 03:04:05Z for a render worker: none polls the render queue (crawler worker --render-slots N)');
  });
});
