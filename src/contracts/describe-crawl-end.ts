/** Why a crawl ended, in words: the summary, the Temporal UI and `crawler status` say it alike. */
import type { CrawlEnd, CrawlLimitField } from '../domain/frontier/index.js';
import type { CrawlEndReport, DiscoveryReport } from './status.js';

/** The `crawler crawl` flag that sets each limit that can end a crawl. */
export const FLAG_OF_CRAWL_LIMIT: Readonly<Record<CrawlLimitField, string>> = Object.freeze({
  maxPages: '--max-pages',
  maxDiscoveredUrls: '--max-discovered-urls',
  maxDepth: '--max-depth',
});

/** crawlEndOf's verdict with the flag that raises its limit. */
export function crawlEndReport(end: CrawlEnd): CrawlEndReport {
  return end.limit === undefined ? end : { ...end, flag: FLAG_OF_CRAWL_LIMIT[end.limit.field] };
}

/** "2,962 URLs": thousands separated by hand, the same in a workflow's sandbox as anywhere. */
function count(n: number, one: string, many = `${one}s`): string {
  return `${String(n).replace(/\B(?=(\d{3})+(?!\d))/g, ',')} ${n === 1 ? one : many}`;
}

/**
 * One sentence, e.g. "page budget reached (--max-pages 1000): 2,962 URLs left queued; raise
 * --max-pages to fetch them".
 */
export function describeCrawlEnd(end: CrawlEndReport): string {
  const left = end.queuedLeft > 0 ? `${count(end.queuedLeft, 'URL')} left queued` : 'nothing left queued';
  const flag = end.flag ?? (end.limit === undefined ? undefined : FLAG_OF_CRAWL_LIMIT[end.limit.field]);
  const setting = end.limit === undefined || flag === undefined ? '' : ` (${flag} ${end.limit.value})`;
  switch (end.reason) {
    case 'stopped':
      return `stopped by the operator: ${left}`;
    case 'page-budget':
      return `page budget reached${setting}: ${left}; raise ${flag ?? '--max-pages'} to fetch them`;
    case 'discovery-budget':
      return `discovery budget spent${setting}: ${count(end.refused ?? 0, 'new URL')} not registered, ${left}; raise ${flag ?? '--max-discovered-urls'} to find more`;
    case 'depth-limit':
      return `depth limit reached${setting}: ${count(end.refused ?? 0, 'URL')} beyond it not followed, ${left}; raise ${flag ?? '--max-depth'} to follow them`;
    case 'nothing-left':
      return 'nothing left: every URL found within the limits was visited';
  }
}

/** The order sources are told in: how most pages are found first. */
const SOURCE_ORDER = ['link', 'sitemap', 'feed', 'canonical', 'redirect', 'seed', 'planned'];

/**
 * One line of what found the pages, e.g. "links 812 (fetched 700), sitemaps 300 (300), feeds 20
 * (20), seeds 3 (3); sitemaps read 4 of 6 (1 disallowed by robots.txt), feeds read 1 of 1".
 */
export function describeDiscovery(report: DiscoveryReport): string {
  const sources = Object.keys(report.bySource).sort((a, b) => rank(a) - rank(b) || (a < b ? -1 : 1));
  const parts = sources.map((source) => {
    const { discovered, fetched } = report.bySource[source]!;
    return `${source === 'planned' ? 'planned' : plural(source)} ${discovered} (fetched ${fetched})`;
  });
  const documents = [
    ...(report.sitemaps.registered > 0 ? [`sitemaps read ${report.sitemaps.read} of ${report.sitemaps.registered}${disallowedPart(report.sitemaps)}`] : []),
    ...(report.feeds.registered > 0 ? [`feeds read ${report.feeds.read} of ${report.feeds.registered}${disallowedPart(report.feeds)}`] : []),
  ];
  return [parts.join(', ') || 'nothing', ...(documents.length > 0 ? [documents.join(', ')] : [])].join('; ');
}

/** A document its robots.txt disallows was never requested: said apart from the ones that failed. */
function disallowedPart(documents: DiscoveryReport['sitemaps']): string {
  return documents.disallowed ? ` (${documents.disallowed} disallowed by robots.txt)` : '';
}

function rank(source: string): number {
  const index = SOURCE_ORDER.indexOf(source);
  return index < 0 ? SOURCE_ORDER.length : index;
}

function plural(source: string): string {
  return `${source}s`;
}
