// A crawl's cost report (CrawlCostReport) as lines for `crawler status` and `crawler schedule describe`.
import type { CostFigures, CrawlCostReport, RenderingCostFigures, RobotsCostFigures } from '../contracts/status.js';

/** 1234567 bytes as "1.23 MB" (decimal units, as bandwidth is billed). */
export function formatBytes(bytes: number): string {
  const units = ['B', 'kB', 'MB', 'GB', 'TB'];
  let value = bytes;
  let unit = 0;
  while (Math.abs(value) >= 1000 && unit < units.length - 1) {
    value /= 1000;
    unit += 1;
  }
  return unit === 0 ? `${Math.round(value)} B` : `${value.toFixed(value >= 100 ? 0 : value >= 10 ? 1 : 2)} ${units[unit]}`;
}

function formatAmount(amount: number): string {
  return amount >= 100 ? amount.toFixed(0) : amount >= 1 ? amount.toFixed(2) : amount.toPrecision(2);
}

function priceOf(report: CrawlCostReport): string {
  const { kind, price } = report.model;
  if (price === 0) return kind;
  return `${kind} at ${price} per ${kind === 'successful-requests' ? 'successful request' : 'GB'}`;
}

function figuresLine(figures: CostFigures): string {
  const failed = figures.failedRequests > 0 ? ` (${figures.failedRequests} failed, ${formatBytes(figures.failedTransferBytes)})` : '';
  const amount = figures.amount === null ? '' : `, amount ${formatAmount(figures.amount)}`;
  const perChange =
    figures.perChange === null
      ? 'no change found'
      : `${figures.changes} changes, ${formatBytes(figures.perChange.transferBytes)} and ${figures.perChange.requests.toFixed(1)} requests${figures.perChange.amount === null ? '' : `, ${formatAmount(figures.perChange.amount)}`} per change`;
  return `${formatBytes(figures.transferBytes)} in ${figures.requests} requests${failed}${amount}; ${perChange}; ${figures.wasted} wasted (no change)`;
}

function renderingLine(figures: RenderingCostFigures): string {
  const amount = figures.amount === null ? '' : `, amount ${formatAmount(figures.amount)}`;
  return (
    `${figures.renders} renders, ${figures.browserCpuSeconds.toFixed(1)} s of browser CPU; subresources ${formatBytes(figures.subresourceBytes)} in ${figures.subresourceRequests} requests` +
    `${amount}, ${figures.cachedSubresources} served from the cache`
  );
}

function robotsLine(figures: RobotsCostFigures): string {
  const failed = figures.failedRequests > 0 ? ` (${figures.failedRequests} failed, ${formatBytes(figures.failedTransferBytes)})` : '';
  const amount = figures.amount === null ? '' : `, amount ${formatAmount(figures.amount)}`;
  return `${figures.requests} requests, ${formatBytes(figures.transferBytes)}${failed}${amount} (in the total above)`;
}

/** The report's lines, each indented for a status block. */
export function describeCostReport(report: CrawlCostReport, indent = '  '): string[] {
  return [
    `${indent}cost (${priceOf(report)}): ${figuresLine(report.totals)}`,
    ...report.byHost.map(
      (row) => `${indent}  host ${row.key}: ${figuresLine(row)}${row.validatorsHonoured === undefined || row.validatorsHonoured === null ? '' : `; validators honoured ${Math.round(row.validatorsHonoured * 100)}%`}`,
    ),
    ...report.byPageType.map((row) => `${indent}  page type ${row.key}: ${figuresLine(row)}`),
    ...(report.robots === undefined || report.robots.requests === 0 ? [] : [`${indent}  robots.txt: ${robotsLine(report.robots)}`]),
    ...(report.rendering === undefined ? [] : [`${indent}  rendering: ${renderingLine(report.rendering)}`]),
  ];
}
