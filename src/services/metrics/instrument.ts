/** Decorators that report activities' outcomes to a CrawlMetricsSink, leaving the activities as they are. */
import { TypedFailure } from '../../domain/failures/index.js';
import type { FetchUrlResult, FrontierTickInput, FrontierTickResult, RecrawlCycleSummary, RefreshRobotsInput, RefreshRobotsResult } from '../../contracts/activities.js';
import type { CrawlMetricsSink } from './crawl-metrics-sink.js';
import { readRejectionCounts } from '../../storage/postgres/rejection-repository.js';
import type { Pool } from '../../storage/postgres/pool.js';

type Fetcher<A extends unknown[]> = (...args: A) => Promise<FetchUrlResult>;

/** Each fetch's outcome, duration and bytes; a skip (the crawl paused, stale rules) is an outcome too. */
export function instrumentFetcher<A extends unknown[]>(fetch: Fetcher<A>, metrics: CrawlMetricsSink | undefined): Fetcher<A> {
  if (metrics === undefined) return fetch;
  return async (...args: A) => {
    const startedAtMs = Date.now();
    try {
      const result = await fetch(...args);
      metrics.fetchEnded(result.kind === 'skipped' ? `skipped:${result.reason}` : result.kind, Date.now() - startedAtMs, result.kind === 'fetched' ? result.bytes : 0);
      return result;
    } catch (error) {
      metrics.fetchEnded(error instanceof TypedFailure ? error.type : 'Error', Date.now() - startedAtMs, 0);
      throw error;
    }
  };
}

export function instrumentRobotsRefresher<A extends [RefreshRobotsInput, ...unknown[]]>(
  refresh: (...args: A) => Promise<RefreshRobotsResult>,
  metrics: CrawlMetricsSink | undefined,
): (...args: A) => Promise<RefreshRobotsResult> {
  if (metrics === undefined) return refresh;
  return async (...args: A) => {
    const result = await refresh(...args);
    if (result.requested) metrics.robotsRefreshed(result.transportFailure !== undefined || (result.status !== undefined && result.status >= 500) ? 'unreachable' : result.policyKind);
    return result;
  };
}

/** The tick's figures, and the refusals read beside them (one statement more per tick, only with metrics on). */
/** A crawl's refused URLs by reason, as the tick's metrics read them. */
export function refusalsOf(pool: Pool): (crawlId: string) => Promise<Record<string, number>> {
  return (crawlId) => readRejectionCounts(pool, crawlId);
}

export function instrumentFrontierTick(
  tick: (input: FrontierTickInput) => Promise<FrontierTickResult>,
  readRefusals: (crawlId: string) => Promise<Record<string, number>>,
  metrics: CrawlMetricsSink | undefined,
): (input: FrontierTickInput) => Promise<FrontierTickResult> {
  if (metrics === undefined) return tick;
  return async (input) => {
    const [result, refused] = await Promise.all([tick(input), readRefusals(input.crawlId).catch(() => ({}))]);
    metrics.frontierTicked(input.crawlId, result, refused);
    return result;
  };
}

export function instrumentRecrawlFinish<I>(finish: (input: I) => Promise<RecrawlCycleSummary>, metrics: CrawlMetricsSink | undefined): (input: I) => Promise<RecrawlCycleSummary> {
  if (metrics === undefined) return finish;
  return async (input) => {
    const summary = await finish(input);
    metrics.recrawlCycleFinished(summary);
    return summary;
  };
}
