// The arithmetic of a crawl's bill around its robots.txt requests: their own line item under the
// crawl's model, and part of the totals without being counted as changes or wasted fetches.
import { describe, expect, it } from 'vitest';
import { robotsCostOf, withRobotsRequests } from '../../../src/services/costs/crawl-cost-report.js';
import type { RequestGroupFigures, RobotsCostRow } from '../../../src/storage/postgres/cost-repository.js';

const pages: RequestGroupFigures = {
  requests: 10,
  successfulRequests: 8,
  failedRequests: 2,
  sentBytes: 2_000,
  receivedBytes: 48_000,
  failedTransferBytes: 30_500,
  changes: 3,
  baselines: 4,
  wasted: 3,
};
// A 200, a 304 and a reset: two answered, one failed below HTTP.
const robots: RobotsCostRow = { requests: 3, successfulRequests: 2, sentBytes: 450, receivedBytes: 900, failedTransferBytes: 150 };

describe('robots.txt in a crawl’s bill', () => {
  it('adds its requests and bytes to the totals, failed ones to the failures, and nothing to changes or waste', () => {
    expect(withRobotsRequests(pages, robots)).toEqual({
      requests: 13,
      successfulRequests: 10,
      failedRequests: 3,
      sentBytes: 2_450,
      receivedBytes: 48_900,
      failedTransferBytes: 30_650,
      changes: 3,
      baselines: 4,
      wasted: 3,
    });
  });

  it('leaves the totals as they are for a crawl that sent none', () => {
    expect(withRobotsRequests(pages, { requests: 0, successfulRequests: 0, sentBytes: 0, receivedBytes: 0, failedTransferBytes: 0 })).toEqual(pages);
  });

  it('prices its bytes under a byte model, failed requests included', () => {
    expect(robotsCostOf({ kind: 'gateway-bytes', price: 8 }, robots)).toEqual({
      requests: 3,
      successfulRequests: 2,
      failedRequests: 1,
      transferBytes: 1_350,
      failedTransferBytes: 150,
      amount: (1_350 * 8) / 1e9,
    });
  });

  it('prices an answered robots.txt request as one credit under a per-request model, a failed one as none', () => {
    expect(robotsCostOf({ kind: 'successful-requests', price: 0.001 }, robots).amount).toBeCloseTo(0.002, 12);
  });

  it('has no amount without a price', () => {
    expect(robotsCostOf({ kind: 'direct-bytes', price: 0 }, robots).amount).toBeNull();
  });
});
