import { requireNumber } from './validate.js';

/** What a sitemap or feed says about a URL it lists, as read (untrusted: a site may claim anything). */
export interface ListedUrlSignals {
  /** The sitemap's `<priority>`, 0..1; sitemaps.org's default, 0.5, says nothing. */
  listedPriority?: number;
  /** When the page last changed, as the site claims (ms since the epoch); a future date counts as now. */
  lastmodMs?: number;
}

export interface ListedPriorityOptions {
  /** The highest priority the signals may raise a URL to, 0..1 (CrawlConfig.sitemapPriorityCap). */
  capPriority: number;
  /** Age of a lastmod that earns half the raise, ms, > 0. Default {@link LASTMOD_HALF_RAISE_MS} (7 days). */
  lastmodHalfRaiseMs?: number;
}

/** A week: a page a site says changed this week is likelier news than one it says changed last year. */
export const LASTMOD_HALF_RAISE_MS = 7 * 24 * 3_600_000;

const CODE = 'FRONTIER_PRIORITY_INPUT_INVALID';

/**
 * A listed URL's priority: `basePriority` (its priority as a link) raised toward `capPriority` by
 * the stronger of its two signals, never past the cap and never below the base. A listed priority
 * above 0.5 raises in proportion (1.0: the whole way); a lastmod raises by 1 / (1 + age / half),
 * so one from today almost the whole way, one a week old half of it. A site that lies about both
 * gets its URLs to the cap and no further: the cap bounds what a sitemap can buy.
 * @throws FrontierInputError `FRONTIER_PRIORITY_INPUT_INVALID` naming a bad priority or option.
 */
export function listedUrlPriority(basePriority: number, signals: ListedUrlSignals, nowMs: number, options: ListedPriorityOptions): number {
  const base = requireNumber(CODE, 'basePriority', basePriority, { min: 0, max: 1 });
  const cap = requireNumber(CODE, 'options.capPriority', options.capPriority, { min: 0, max: 1 });
  const half = requireNumber(CODE, 'options.lastmodHalfRaiseMs', options.lastmodHalfRaiseMs ?? LASTMOD_HALF_RAISE_MS, { min: 0, minExclusive: true });
  if (cap <= base) return base;
  const listed = signals.listedPriority;
  const priorityScore = listed === undefined || !(listed >= 0 && listed <= 1) ? 0 : Math.max(0, (listed - 0.5) / 0.5);
  const lastmod = signals.lastmodMs;
  const lastmodScore = lastmod === undefined || !Number.isFinite(lastmod) ? 0 : 1 / (1 + Math.max(0, nowMs - lastmod) / half);
  return base + (cap - base) * Math.max(priorityScore, lastmodScore);
}
