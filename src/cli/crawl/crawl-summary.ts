// What `crawler crawl` prints when the crawl ends: the summary as JSON (--json, stdout alone), or
// as lines a person reads.
import type { CrawlSummary } from '../../contracts/status.js';
import { describeRenders } from '../../contracts/describe-waits.js';
import { describeCrawlEnd, describeDiscovery } from '../../contracts/describe-crawl-end.js';

export function crawlSummaryText(summary: CrawlSummary, link: string | undefined, json: boolean): string {
  if (json) return `${JSON.stringify({ ...summary, temporalUi: link ?? null })}\n`;
  const errors = Object.entries(summary.errorsByType).map(([type, n]) => `${type} ${n}`).join(', ') || 'none';
  const deferred = Object.entries(summary.deferred ?? {});
  return [
    `crawl ${summary.crawlId} ${summary.state} in ${(summary.durationMs / 1000).toFixed(1)} s`,
    `  pages fetched:   ${summary.pagesFetched}`,
    ...(summary.pagesNotModified > 0 ? [`  not modified:    ${summary.pagesNotModified} (304: unchanged since an earlier crawl, their stored links followed)`] : []),
    `  URLs discovered: ${summary.urlsDiscovered}`,
    ...(summary.discovery === undefined ? [] : [`  found by:        ${describeDiscovery(summary.discovery)}`]),
    ...(summary.end === undefined ? [] : [`  ended:           ${describeCrawlEnd(summary.end)}`]),
    `  errors:          ${errors}`,
    ...(summary.storageFailures > 0 ? [`  storage:         ${summary.storageFailures} failed tries to store a body (each body waited for the store and was tried again)`] : []),
    ...(summary.renders ? [`  renders:         ${describeRenders(summary.renders)}`] : []),
    ...(deferred.length > 0 ? [`  deferred:        ${deferred.map(([reason, n]) => `${reason} ${n}`).join(', ')} (not fetched; a later crawl takes them)`] : []),
    ...(link ? [`  Temporal UI:     ${link}`] : []),
    `  export:          crawler export --crawl ${summary.crawlId}`,
    '',
  ].join('\n');
}
