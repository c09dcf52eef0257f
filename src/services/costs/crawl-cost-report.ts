/**
 * A crawl's bill and where it went (docs/design.md, "Cost per detected change"): its requests' bytes and successes priced by its cost
 * model, the cost per detected change, and the wasted fetches (no change found), for the crawl
 * and for the hosts and page types that cost the most. `crawler status` and recrawl cycle
 * summaries show it; a cycle's summary keeps it in Postgres (recrawl_cycles.summary).
 */
import type { CrawlConfig } from '../../config/crawl-config.js';
import type { CostBreakdownRow, CostFigures, CrawlCostReport, RenderingCostFigures, RobotsCostFigures } from '../../contracts/status.js';
import { amountOf, costUnitOf, defaultCostModel, pageTypeOfPath, type CostModel } from '../../domain/recrawl/index.js';
import {
  crawlCostRows,
  hostValidatorRecords,
  renderingCostRow,
  robotsCostRow,
  type RenderingCostRow,
  type RequestGroupFigures,
  type RobotsCostRow,
} from '../../storage/postgres/cost-repository.js';
import type { Pool } from '../../storage/postgres/pool.js';

/** Hosts and page types a report lists. */
export const DEFAULT_COST_REPORT_TOP = 5;

/** The cost model a crawl runs under: its own, else the default for its proxies. */
export function costModelOf(config: Pick<CrawlConfig, 'costModel' | 'proxy'>): CostModel {
  return config.costModel ?? defaultCostModel(config.proxy !== undefined && config.proxy.urls.length > 0);
}

export async function crawlCostReport(pool: Pool, crawlId: string, config: Pick<CrawlConfig, 'costModel' | 'proxy' | 'listingPages'>, top = DEFAULT_COST_REPORT_TOP): Promise<CrawlCostReport> {
  const model = costModelOf(config);
  const rankBy = costUnitOf(model) === 'requests' ? 'requests' : 'bytes';
  const [rows, rendering, robots] = await Promise.all([
    crawlCostRows(pool, crawlId, { listingPrefixes: config.listingPages ?? [], topHosts: top, rankBy }),
    renderingCostRow(pool, crawlId),
    robotsCostRow(pool, crawlId),
  ]);
  const validators = await hostValidatorRecords(pool, rows.byHost.map((row) => row.host));
  const byPageType = new Map<string, RequestGroupFigures>();
  for (const group of rows.byPathGroup) {
    const type = pageTypeOfPath(`/${group.firstSegment}${group.deeper ? '/-' : ''}`, group.listing);
    byPageType.set(type, sumFigures(byPageType.get(type), group));
  }
  const rank = (a: CostBreakdownRow, b: CostBreakdownRow): number =>
    rankBy === 'requests' ? b.successfulRequests - a.successfulRequests || b.transferBytes - a.transferBytes : b.transferBytes - a.transferBytes || b.requests - a.requests;
  return {
    model,
    totals: costFiguresOf(model, withRobotsRequests(rows.totals, robots)),
    byHost: rows.byHost.map((row) => {
      const record = validators.get(row.host);
      return {
        key: row.host,
        ...costFiguresOf(model, row),
        // As measured, without the planner's prior: a report says what the host did.
        validatorsHonoured: record === undefined || record.conditionalUnchanged < 0.5 ? null : record.conditionalNotModified / record.conditionalUnchanged,
      };
    }),
    byPageType: [...byPageType.entries()]
      .map(([key, figures]) => ({ key, ...costFiguresOf(model, figures) }))
      .sort((a, b) => rank(a, b) || (a.key < b.key ? -1 : 1))
      .slice(0, top),
    ...(rendering.renders === 0 && rendering.subresourceRequests === 0 ? {} : { rendering: renderingCostOf(model, rendering) }),
    robots: robotsCostOf(model, robots),
  };
}

/**
 * A crawl's page requests with its robots.txt requests added: they are requests on the wire like
 * any other, so they count in the bill and in the cost per change, but they look for no page, so
 * they are neither changes, first visits nor wasted fetches.
 */
export function withRobotsRequests(pages: RequestGroupFigures, robots: RobotsCostRow): RequestGroupFigures {
  return {
    ...pages,
    requests: pages.requests + robots.requests,
    successfulRequests: pages.successfulRequests + robots.successfulRequests,
    failedRequests: pages.failedRequests + robots.requests - robots.successfulRequests,
    sentBytes: pages.sentBytes + robots.sentBytes,
    receivedBytes: pages.receivedBytes + robots.receivedBytes,
    failedTransferBytes: pages.failedTransferBytes + robots.failedTransferBytes,
  };
}

/** robots.txt priced apart, under the crawl's model: bytes as any request's, a 2xx, 3xx or 304 a successful request. */
export function robotsCostOf(model: CostModel, row: RobotsCostRow): RobotsCostFigures {
  const transferBytes = row.sentBytes + row.receivedBytes;
  return {
    requests: row.requests,
    successfulRequests: row.successfulRequests,
    failedRequests: row.requests - row.successfulRequests,
    transferBytes,
    failedTransferBytes: row.failedTransferBytes,
    amount: amountOf(model, { transferBytes, successfulRequests: row.successfulRequests }),
  };
}

/** Rendering priced apart: its subresource requests under the crawl's model, its browser CPU as measured. */
export function renderingCostOf(model: CostModel, row: RenderingCostRow): RenderingCostFigures {
  return {
    renders: row.renders,
    browserCpuSeconds: row.cpuMs / 1000,
    subresourceRequests: row.subresourceRequests,
    successfulSubresourceRequests: row.successfulSubresourceRequests,
    subresourceBytes: row.subresourceBytes,
    cachedSubresources: row.cachedSubresources,
    amount: amountOf(model, { transferBytes: row.subresourceBytes, successfulRequests: row.successfulSubresourceRequests }),
  };
}

function costFiguresOf(model: CostModel, figures: RequestGroupFigures): CostFigures {
  const transferBytes = figures.sentBytes + figures.receivedBytes;
  const amount = amountOf(model, { transferBytes, successfulRequests: figures.successfulRequests });
  return {
    requests: figures.requests,
    successfulRequests: figures.successfulRequests,
    failedRequests: figures.failedRequests,
    transferBytes,
    failedTransferBytes: figures.failedTransferBytes,
    changes: figures.changes,
    wasted: figures.wasted,
    amount,
    perChange:
      figures.changes === 0
        ? null
        : { transferBytes: transferBytes / figures.changes, requests: figures.requests / figures.changes, amount: amount === null ? null : amount / figures.changes },
  };
}

function sumFigures(a: RequestGroupFigures | undefined, b: RequestGroupFigures): RequestGroupFigures {
  if (a === undefined) return { ...b };
  return {
    requests: a.requests + b.requests,
    successfulRequests: a.successfulRequests + b.successfulRequests,
    failedRequests: a.failedRequests + b.failedRequests,
    sentBytes: a.sentBytes + b.sentBytes,
    receivedBytes: a.receivedBytes + b.receivedBytes,
    failedTransferBytes: a.failedTransferBytes + b.failedTransferBytes,
    changes: a.changes + b.changes,
    baselines: a.baselines + b.baselines,
    wasted: a.wasted + b.wasted,
  };
}
