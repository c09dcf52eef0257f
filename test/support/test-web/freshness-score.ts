// The web's own freshness score of a crawler (issue 25), from its request log and the true change
// times of its pages: for each page, the share of a window during which the crawler's latest copy
// (the version it was last answered 200 for, or confirmed with a 304) equals the live version.
// The same score, on the same change times and from the same starting copies, is computed for the
// uniform, proportional and optimal fixed-interval policies under the crawler's own fetch budget.
import { averageFreshness, optimalVisitFrequencies, proportionalVisitFrequencies, uniformVisitFrequencies } from '../../../src/domain/recrawl/index.js';
import type { FreshnessPage } from './freshness-web.js';
import { seededRandom } from './random.js';
import type { RequestLogEntry } from './types.js';

const MS_PER_DAY = 86_400_000;

export type FreshnessPolicyName = 'crawler' | 'uniform' | 'proportional' | 'optimum';
export const FRESHNESS_POLICY_NAMES: readonly FreshnessPolicyName[] = ['crawler', 'uniform', 'proportional', 'optimum'];

export interface FreshnessScoreInput {
  pages: readonly FreshnessPage[];
  log: readonly RequestLogEntry[];
  /** The web's clock origin (TestWeb.startedAtMs): change times count from it. */
  webStartedAtMs: number;
  /** Scored span, epoch ms: after the discovery crawl, while the Schedule ran. */
  fromMs: number;
  toMs: number;
  /**
   * Each page's value, its value as weight in the average freshness Σ w F / Σ w. Default 1 for every
   * page: the crawler gives every URL the same value tier unless told otherwise.
   */
  weights?: readonly number[];
  /** Seeds the fixed-interval policies' phases. Default 1. */
  phaseSeed?: number;
}

export interface PolicyScore {
  /** Weighted time-average share of pages whose copy equals the live page. */
  freshness: number;
  /** Page fetches in the window (for the crawler: 200s and 304s the web served). */
  fetches: number;
  /** Fetches that found a version other than the copy held: changes detected. */
  changesDetected: number;
  changesPerFetch: number;
  /** Body bytes sent for those fetches (a 304 sends none). */
  bytes: number;
  /** freshness / megabytes fetched (10^6 bytes). */
  freshnessPerMegabyte: number;
  /** Cho & Garcia-Molina's long-run expectation of the fixed-interval policy; absent for the crawler. */
  expectedFreshness?: number;
}

export interface PageFreshness {
  host: string;
  path: string;
  ratePerDay: number;
  /** The crawler's fetches of the page in the window. */
  fetches: number;
  conditionalFetches: number;
  freshness: number;
}

export interface FreshnessScore {
  windowMs: number;
  policies: Record<FreshnessPolicyName, PolicyScore>;
  /** crawler freshness / each policy's, on the same web, window and budget. */
  crawlerRatio: { uniform: number; proportional: number; optimum: number };
  pages: PageFreshness[];
}

interface Fetch {
  atMs: number;
  version: number;
  bytes: number;
}

export function scoreFreshness(input: FreshnessScoreInput): FreshnessScore {
  const { pages, fromMs, toMs, webStartedAtMs } = input;
  if (!(toMs > fromMs)) throw new RangeError(`scoreFreshness: toMs (${toMs}) must be after fromMs (${fromMs})`);
  const weights = input.weights ?? pages.map(() => 1);
  const versionAt = (page: FreshnessPage, atMs: number): number => page.timeline.versionAt(atMs - webStartedAtMs);
  const nextChangeMs = (page: FreshnessPage, version: number): number => {
    page.timeline.versionAt(toMs - webStartedAtMs);
    return version + 1 > page.timeline.versionAt(toMs - webStartedAtMs) ? Infinity : webStartedAtMs + page.timeline.changedAtMs(version + 1);
  };

  const byKey = new Map(pages.map((page, i) => [`${page.host} ${page.path}`, i]));
  const crawlerFetches: Fetch[][] = pages.map(() => []);
  const conditional = pages.map(() => 0);
  for (const entry of input.log) {
    const i = byKey.get(`${entry.host} ${entry.path}`);
    if (i === undefined || entry.aborted || entry.method !== 'GET' || (entry.status !== 200 && entry.status !== 304) || entry.startedAtMs >= toMs) continue;
    const page = pages[i]!;
    crawlerFetches[i]!.push({ atMs: entry.startedAtMs, version: versionAt(page, entry.startedAtMs), bytes: entry.bytesSent });
    if (entry.startedAtMs >= fromMs && entry.ifNoneMatch !== undefined) conditional[i]! += 1;
  }
  for (const fetches of crawlerFetches) fetches.sort((a, b) => a.atMs - b.atMs);

  // What a changed page costs a policy: the bytes the web sent the crawler for it, on average.
  const fullBytes = pages.map((page, i) => {
    const full = crawlerFetches[i]!.filter((fetch) => fetch.bytes > 0);
    return full.length > 0 ? full.reduce((sum, fetch) => sum + fetch.bytes, 0) / full.length : page.bytes;
  });

  const score = (fetchesOf: (i: number) => readonly Fetch[]): PolicyScore & { perPage: number[] } => {
    let weighted = 0;
    let weightSum = 0;
    let fetches = 0;
    let changesDetected = 0;
    let bytes = 0;
    const perPage = pages.map((page, i) => {
      const list = fetchesOf(i);
      let freshMs = 0;
      list.forEach((fetch, k) => {
        const until = Math.min(list[k + 1]?.atMs ?? toMs, nextChangeMs(page, fetch.version));
        freshMs += Math.max(0, Math.min(until, toMs) - Math.max(fetch.atMs, fromMs));
        if (fetch.atMs >= fromMs) {
          fetches += 1;
          bytes += fetch.bytes;
          if (k > 0 && fetch.version !== list[k - 1]!.version) changesDetected += 1;
        }
      });
      const freshness = freshMs / (toMs - fromMs);
      weighted += (weights[i] ?? 0) * freshness;
      weightSum += weights[i] ?? 0;
      return freshness;
    });
    const freshness = weightSum > 0 ? weighted / weightSum : 1;
    return {
      freshness,
      fetches,
      changesDetected,
      changesPerFetch: fetches > 0 ? changesDetected / fetches : 0,
      bytes,
      freshnessPerMegabyte: bytes > 0 ? freshness / (bytes / 1e6) : Infinity,
      perPage,
    };
  };

  const crawler = score((i) => crawlerFetches[i]!);
  const windowDays = (toMs - fromMs) / MS_PER_DAY;
  const rates = pages.map((page) => page.ratePerDay);
  const visitsPerDay = crawler.fetches / windowDays;
  const random = seededRandom(input.phaseSeed ?? 1);
  const fixedIntervals = (frequencies: readonly number[]): PolicyScore => {
    const phases = pages.map(() => random());
    const result = score((i) => {
      const page = pages[i]!;
      // The policy starts from the copy the crawler held when the window opened.
      const before = crawlerFetches[i]!.filter((fetch) => fetch.atMs < fromMs).slice(-1);
      const f = frequencies[i] ?? 0;
      if (!(f > 0)) return before;
      const intervalMs = MS_PER_DAY / f;
      const list: Fetch[] = [...before];
      for (let atMs = fromMs + (phases[i] ?? 0) * intervalMs; atMs < toMs; atMs += intervalMs) {
        const version = versionAt(page, atMs);
        const changed = version !== list.at(-1)?.version;
        list.push({ atMs, version, bytes: changed ? (fullBytes[i] ?? page.bytes) : 0 });
      }
      return list;
    });
    const { perPage: _perPage, ...policy } = result;
    return { ...policy, expectedFreshness: averageFreshness(rates, frequencies, weights) };
  };
  const uniform = fixedIntervals(uniformVisitFrequencies(rates, visitsPerDay));
  const proportional = fixedIntervals(proportionalVisitFrequencies(rates, visitsPerDay));
  const optimum = fixedIntervals(optimalVisitFrequencies(rates, visitsPerDay, weights));
  const { perPage, ...crawlerScore } = crawler;
  return {
    windowMs: toMs - fromMs,
    policies: { crawler: crawlerScore, uniform, proportional, optimum },
    crawlerRatio: {
      uniform: crawler.freshness / uniform.freshness,
      proportional: crawler.freshness / proportional.freshness,
      optimum: crawler.freshness / optimum.freshness,
    },
    pages: pages.map((page, i) => ({
      host: page.host,
      path: page.path,
      ratePerDay: page.ratePerDay,
      fetches: crawlerFetches[i]!.filter((fetch) => fetch.atMs >= fromMs).length,
      conditionalFetches: conditional[i] ?? 0,
      freshness: perPage[i] ?? 0,
    })),
  };
}
